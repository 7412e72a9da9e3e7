-- host_sample.lua — a sample of the host's one-thread space, measured: for bench_host_model,
-- a uniform random sample of three shapes whose target sets l2 = 2 MiB, so the half-L2 rule
-- admits B blocks that fill a 1 MiB L2 and the sample shows what those cost (set it to
-- twice this machine's L2). For host_calibration.sh, the environment says what instead:
-- NPU_TUNE_SHAPES ("MxNxK,..."), NPU_TUNE_TARGET ("host", or a file calibrate wrote),
-- NPU_TUNE_SEARCH (random, model), NPU_TUNE_BUDGET, NPU_TUNE_CALIBRATE (1: refit during the
-- run), NPU_TUNE_MEASURE (host; model: the same sample drawn, estimated and not timed) and
-- NPU_TUNE_NAME (the journal NPU_TUNE_OUT/NAME.csv).
local function env(name, default)
  local v = os.getenv(name)
  return (v == nil or v == "") and default or v
end

local shapes = {}
for m, n, k in env("NPU_TUNE_SHAPES", "512x768x768,512x768x3072,300x500x700"):gmatch("(%d+)x(%d+)x(%d+)") do
  shapes[#shapes + 1] = { tonumber(m), tonumber(n), tonumber(k) }
end
if #shapes == 0 then error("NPU_TUNE_SHAPES has no shape MxNxK") end
local budget = math.tointeger(tonumber(env("NPU_TUNE_BUDGET", "60")))
if not budget or budget < 1 then error("NPU_TUNE_BUDGET must be a positive integer") end
local out, name = env("NPU_TUNE_OUT", "results"), env("NPU_TUNE_NAME", "host-sample")

if os.getenv("NPU_TUNE_TARGET") then
  target(os.getenv("NPU_TUNE_TARGET"))
else
  target { base = "host", l2 = 2 * MiB }
end

matmul { name = "sample", shapes = shapes, dtype = "fp32" }

space {
  strategy      = { "IS", "WS", "OS" },
  m             = multiples(48, 1024),
  n             = multiples(64, 3072),
  k             = multiples(64, 1024),
  micro         = "auto",
  double_buffer = { false, true },
  cores         = { 1 },
}

tune {
  measure   = env("NPU_TUNE_MEASURE", "host"),
  search    = env("NPU_TUNE_SEARCH", "random"),
  budget    = budget,
  seed      = 7,
  calibrate = env("NPU_TUNE_CALIBRATE", "0") == "1",
  results   = out .. "/" .. name .. ".csv",
  table     = out .. "/" .. name .. "-table.csv",
}
