-- blas_bench.lua — tunes the shapes of bench_blas on the host for tests/bench/bench_blas.sh:
-- at NPU_TUNE_CORES=1 one thread, at 2 the tuner's choice of 1 or 2 threads per shape.
local cores = math.tointeger(tonumber(os.getenv("NPU_TUNE_CORES") or "1"))
if cores ~= 1 and cores ~= 2 then
  error("NPU_TUNE_CORES must be 1 or 2, got '" .. tostring(os.getenv("NPU_TUNE_CORES")) .. "'")
end
local out = os.getenv("NPU_TUNE_OUT") or "results"
local budget = math.tointeger(tonumber(os.getenv("NPU_TUNE_BUDGET") or "12"))

local host = target "host"
-- the register tiles: the blocked kernels' (micro = "auto" names them) and, for small
-- shapes and GEMV, tiles of fewer rows; in vectors of B, for 32 registers and for 16
local tiles = host.vregs >= 32 and { { 6, 4 }, { 8, 3 }, { 12, 2 }, { 14, 2 }, { 4, 4 }, { 8, 2 }, { 1, 4 } }
                                or { { 6, 2 }, { 4, 3 }, { 5, 2 }, { 3, 3 }, { 2, 4 }, { 1, 4 } }
local micro = {}
for _, t in ipairs(tiles) do micro[#micro + 1] = { t[1], t[2] * host.simd_floats } end

-- m blocks: the small ones only for shapes of fewer rows than 48 (constraint)
local ms = { 1, 6, 12, 24 }
for _, v in ipairs(multiples(48, 1024)) do ms[#ms + 1] = v end

matmul {
  name   = "blas",
  -- BERT-base (seq 512), GPT-2 (seq 1024: QKV, MLP out), ResNet-50 img2col (conv2_x 3x3,
  -- conv3_x 3x3), LSTM (batch 64, 4 gates of 1024), attention (QK^T, PV of one head),
  -- small, odd sizes with tails, GEMV-like (one row)
  shapes = { {512, 768, 768}, {512, 3072, 768}, {512, 768, 3072},
             {1024, 2304, 768}, {1024, 768, 3072},
             {3136, 64, 576}, {784, 128, 1152},
             {64, 4096, 1024},
             {512, 512, 64}, {512, 64, 512},
             {64, 64, 64}, {96, 96, 96},
             {257, 383, 511}, {1000, 1000, 1000},
             {1, 3072, 768} },
  dtype  = "fp32",
}

space {
  strategy      = { "IS", "WS", "OS" },
  m             = ms,
  n             = multiples(64, 3072),
  k             = { 1, 2, 4, table.unpack(multiples(64, 1024)) },
  micro         = micro,
  double_buffer = { false, true },
  cores         = cores == 1 and { 1 } or { 1, 2 },
  split         = cores == 1 and { "M" } or { "M", "N", "MN" },
  pack          = { true, false },  -- the no-pack family where packing costs more than it saves
  -- k blocks of a few rows (B streamed row by row) and the one-row tile only for
  -- GEMV-like shapes in the no-pack family
  constraint    = function(c)
    return (c.m >= 48 or c.M < 48) and (c.k >= 64 or (not c.pack and c.M < 6))
           and (c.mr > 1 or c.M < 6)
  end,
}

tune {
  measure = os.getenv("NPU_TUNE_MEASURE") or "host",
  search  = "model",
  budget  = budget,
  results = out .. "/blas-bench-" .. cores .. ".csv",
  table   = out .. "/blas-bench-" .. cores .. "-table.csv",
}
