-- host_sample.lua — a uniform random sample of the host space (one thread), measured, for
-- bench_host_model to compare with the model. l2 = 2 MiB makes the half-L2 rule admit
-- B blocks that fill a 1 MiB L2, so the sample also shows what those cost (set it to twice
-- this machine's L2).
target { base = "host", l2 = 2 * MiB }

matmul {
  name   = "sample",
  shapes = { {512, 768, 768}, {512, 768, 3072}, {300, 500, 700} },
  dtype  = "fp32",
}

space {
  strategy      = { "IS", "WS", "OS" },
  m             = multiples(48, 1024),
  n             = multiples(64, 3072),
  k             = multiples(64, 1024),
  micro         = { "6x64", "8x48", "12x32", "14x32" },
  double_buffer = { false, true },
  cores         = { 1 },
}

tune {
  measure = "host",
  search  = "random",
  budget  = 60,
  seed    = 7,
  results = (os.getenv("NPU_TUNE_OUT") or "results") .. "/host-sample.csv",
  table   = (os.getenv("NPU_TUNE_OUT") or "results") .. "/host-sample-table.csv",
}
