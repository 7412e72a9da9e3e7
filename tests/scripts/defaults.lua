-- defaults.lua — no space and no tune: both take their defaults; several
-- matmul calls, int8, batch (a 4th shape item overrides it).
target "ascend310"

matmul {
  name   = "qkv",
  shapes = { {64, 64, 64}, {32, 32, 32, 4} },
  dtype  = "int8",
  batch  = 2,
}

matmul { name = "one", shapes = { 128, 128, 128 } }
