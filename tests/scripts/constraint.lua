-- constraint.lua — a constraint that keeps square output tiles of the "sq"
-- problem outside IS, and sees every field of c.
target "ascend910"
matmul { name = "sq", shapes = { {512, 512, 256, 2} } }
space {
  m = multiples(16, 512),
  n = multiples(16, 512),
  constraint = function(c)
    assert(c.M == 512 and c.N == 512 and c.K == 256 and c.batch == 2)
    assert(c.dtype == "fp16" and c.problem == "sq" and c.cores == 1 and c.split == "M")
    assert(type(c.double_buffer) == "boolean" and c.k == 256)
    return c.m == c.n and c.strategy ~= "IS"
  end,
}
tune { budget = 8, seed = 7, timeout = 2.5 }
