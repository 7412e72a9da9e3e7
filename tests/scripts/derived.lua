-- derived.lua — a target derived from a built-in: plain fields override,
-- nested tables merge field by field; the name defaults to "<base>-custom".
target {
  base  = "ascend910",
  cores = 8,
  l1    = 512 * KiB,
  gm_l1 = { bandwidth = 32 },   -- latency stays 200
  macs  = { int8 = 4096 },      -- fp16 stays 4096
}

matmul { name = "sq", shapes = { {1024, 1024, 1024} } }
