-- search_cores.lua — the multi-core space of bench_search_cores, every legal config
-- simulated once: cores 1 to 32, splits M, N and MN, double buffering off and on, on
-- BERT-like shapes and odd sizes with tails. The journal is the benchmark's cache: a
-- rerun simulates only what it lacks.
target "ascend910"

matmul {
  name   = "cores",
  shapes = { {512, 768, 768}, {512, 3072, 768}, {512, 768, 3072}, {128, 768, 768},
             {384, 384, 64}, {200, 1000, 64}, {1024, 1024, 256}, {3136, 64, 576},
             {100, 200, 300}, {65, 127, 257}, {777, 333, 555}, {513, 769, 767},
             {96, 1024, 96} },
  dtype  = "fp16",
}

space {
  strategy      = { "IS", "WS", "OS" },
  m             = { 16, 32, 48, 64, 96, 128, 192, 256, 384, 512 },
  n             = { 16, 32, 48, 64, 96, 128, 192, 256, 384, 512, 768, 1024 },
  k             = { 16, 32, 64, 128, 256, 512 },
  double_buffer = { false, true },
  cores         = { 1, 2, 4, 8, 16, 32 },
  split         = { "M", "N", "MN" },
}

tune {
  measure = "sim",
  search  = "exhaustive",
  budget  = 100000,
  results = (os.getenv("NPU_TUNE_OUT") or "results") .. "/search-cores.csv",
  table   = (os.getenv("NPU_TUNE_OUT") or "results") .. "/search-cores-table.csv",
}
