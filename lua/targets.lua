-- targets.lua — the built-in DaVinci-like targets, embedded in the binary;
-- returns a table name -> target table (fields as in a script's `target { }`).
--
-- Sources: the Hot Chips 2019 DaVinci talk (HC31), the CANN
-- platform files and test configs, the Ascend C docs. Figures are per AI
-- (cube) core unless marked; bandwidths and latencies are calibratable
-- defaults, not measurements. KiB and MiB are provided by the loader.

-- A deep copy of base with the fields of over applied on top.
local function derive(base, over)
  local t = {}
  for k, v in pairs(base) do
    t[k] = type(v) == "table" and derive(v, {}) or v
  end
  for k, v in pairs(over) do
    if type(v) == "table" and type(t[k]) == "table" then
      t[k] = derive(t[k], v)
    else
      t[k] = v
    end
  end
  return t
end

local ascend910 = {
  name      = "ascend910",
  cores     = 32,           -- AI cores of the Ascend 910 (HC31 talk; CANN platform file)
  clock_mhz = 1000,         -- ~1.0 GHz (HC31 talk)
  -- Cube unit: 16x16x16 fp16 per cycle = 4096 MAC; int8 runs at twice the
  -- rate (HC31 talk; Ascend C docs).
  macs      = { fp16 = 4096, int8 = 8192 },
  l1        = 1 * MiB,      -- L1 buffer (CANN platform file)
  l0a       = 64 * KiB,     -- cube input A (CANN platform file)
  l0b       = 64 * KiB,     -- cube input B (CANN platform file)
  l0c       = 256 * KiB,    -- fp32 accumulators (CANN platform file)
  ub        = 256 * KiB,    -- unified buffer of the vector unit (CANN platform file)
  -- L1 and UB move in 32-byte blocks, L0 buffers in 512-byte fractals
  -- (Ascend C docs).
  align     = { l1 = 32, l0a = 512, l0b = 512, l0c = 512, ub = 32 },
  -- Copy paths: bandwidth in bytes/cycle, latency in cycles per copy
  -- instruction. L1->L0A 512 B/cycle and L1->L0B 256 B/cycle (HC31 talk);
  -- UB->GM (MTE3) 64 B/cycle (CANN test configs); GM->L1 taken as the MTE3
  -- figure; L0C->UB (FixPipe) as L1->L0B. Latencies: ~200 cycles off-chip,
  -- ~16 on-chip (calibratable defaults).
  gm_l1     = { bandwidth = 64,  latency = 200 },
  l1_l0a    = { bandwidth = 512, latency = 16 },
  l1_l0b    = { bandwidth = 256, latency = 16 },
  l0c_ub    = { bandwidth = 256, latency = 16 },
  ub_gm     = { bandwidth = 64,  latency = 200 },
  gm_bandwidth = 1200,      -- 1.2 TB/s HBM for the chip at 1 GHz (HC31 talk)
  events    = 8,            -- event ids per pipe pair (Ascend C docs)
}

local ascend910b = derive(ascend910, {
  name      = "ascend910b",
  cores     = 24,           -- AI cores of the 910B (CANN platform file)
  clock_mhz = 1800,         -- 1.8 GHz (CANN platform file)
  l1        = 512 * KiB,    -- (CANN platform file)
  l0c       = 128 * KiB,    -- (CANN platform file)
  ub        = 192 * KiB,    -- (CANN platform file)
  gm_bandwidth = 833,       -- ~1.5 TB/s HBM at 1.8 GHz (public 910B figures)
})

local ascend310 = derive(ascend910, {
  name      = "ascend310",
  cores     = 2,            -- AI cores of the Ascend 310 (HC31 talk)
  clock_mhz = 1000,         -- ~1.0 GHz (HC31 talk; the CANN stub uses 680 MHz)
  -- macs as the 910 (4096 fp16 MAC/cycle per cube); 2048 MAC/cycle would
  -- match the chip's published 8 TFLOPS fp16 peak
  -- (2 cores x 2048 MAC x 2 flops x 1 GHz = 8.2 TFLOPS).
  l1        = 1 * MiB,      -- (CANN platform file)
  l0c       = 256 * KiB,    -- (CANN platform file)
  ub        = 248 * KiB,    -- 256 KiB, of which 248 KiB usable (CANN platform file)
  gm_bandwidth = 67,        -- LPDDR4x, ~67 B/cycle read (CANN platform file)
  events    = 8,            -- 4-8 depending on the pipe pair (Ascend C docs)
})

return {
  ascend910  = ascend910,
  ascend910b = ascend910b,
  ascend310  = ascend310,
}
