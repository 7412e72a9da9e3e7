-- host_bench.lua — tunes the shapes of bench_host_kernel (BERT's and 1024^3) on
-- the host at NPU_TUNE_CORES threads (default 1), for tests/bench/host_bench.sh.
local cores = math.tointeger(tonumber(os.getenv("NPU_TUNE_CORES") or "1"))
if not cores or cores < 1 then
  error("NPU_TUNE_CORES must be a positive integer, got '" .. os.getenv("NPU_TUNE_CORES") .. "'")
end
local out = os.getenv("NPU_TUNE_OUT") or "results"

target "host"

matmul {
  name   = "bench",
  shapes = { {512, 768, 768}, {512, 3072, 768}, {512, 768, 3072}, {1024, 1024, 1024} },
  dtype  = "fp32",
}

space {
  strategy      = { "IS", "WS", "OS" },
  m             = multiples(48, 1024),
  n             = multiples(64, 3072),
  k             = multiples(64, 1024),
  micro         = "auto",
  double_buffer = { false, true },
  cores         = { cores },
  split         = cores == 1 and { "M" } or { "M", "N", "MN" },
}

tune {
  measure = "host",
  search  = "model",
  budget  = 48,
  results = out .. "/host-bench-" .. cores .. ".csv",
  table   = out .. "/host-bench-" .. cores .. "-table.csv",
}
