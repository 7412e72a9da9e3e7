-- bert.lua — tune BERT-base's three matmul shapes on a simulated 32-core Ascend 910.
-- Run: npu-tune examples/bert.lua   (results land in results/)

target "ascend910"

matmul {
  name   = "bert",
  shapes = { {512, 768, 768}, {512, 3072, 768}, {512, 768, 3072} },  -- {M, N, K}
  dtype  = "fp16",
}

space {
  strategy      = { "IS", "WS", "OS" },
  m             = multiples(16, 512),
  n             = multiples(16, 3072),
  k             = multiples(16, 3072),
  double_buffer = { false, true },
  cores         = { 1, 2, 4, 8, 16, 32 },
  split         = { "M", "N", "MN" },
  -- constraint = function(c) return c.m >= c.n end,
}

tune {
  measure = "sim",         -- "model" | "sim" | "host" | { command = "..." }
  search  = "model",       -- "model" | "exhaustive" | "random" | "anneal" | "genetic"
  budget  = 32,            -- measurements per problem
  results = "results/bert.csv",
  table   = "results/bert-table.csv",
}
