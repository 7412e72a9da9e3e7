-- host.lua — tunes the BERT matmuls in fp32 on this machine's CPU: generated
-- C kernels, compiled, verified against a reference and timed in isolation.
target "host"               -- detected: cores, caches, vector width and registers

matmul {
  name   = "bert",
  shapes = { {512, 768, 768}, {512, 3072, 768}, {512, 768, 3072} },  -- {M, N, K}
  dtype  = "fp32",
}

space {
  strategy      = { "IS", "WS", "OS" },
  m             = multiples(48, 512),    -- cache blocks: rows of A kept per block
  n             = multiples(64, 3072),   -- columns of the packed B block
  k             = multiples(64, 1024),   -- depth of the packed blocks
  micro         = "auto",                -- register micro-tiles that suit this CPU
  double_buffer = { false, true },
  cores         = { 1, 2 },
  split         = { "M", "N", "MN" },
}

tune {
  measure = "host",
  search  = "model",
  budget  = 24,              -- measurements per shape
  results = "results/host.csv",
  table   = "results/host-table.csv",
}
