-- constraint_error.lua — a constraint that fails for large tiles: the error
-- comes back with file:line and a traceback.
target "ascend910"
matmul { name = "e", shapes = { {512, 512, 512} } }
space {
  constraint = function(c)
    if c.m > 256 then
      error("tile too large: " .. c.m)
    end
    return true
  end,
}
