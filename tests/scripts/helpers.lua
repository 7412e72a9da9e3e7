-- helpers.lua — the value helpers; checks their outputs in Lua (a failed
-- assert is a runtime error) and feeds them to space for the C side.
local function same(a, b)
  if #a ~= #b then return false end
  for i = 1, #a do if a[i] ~= b[i] then return false end end
  return true
end

assert(same(multiples(16, 100), { 16, 32, 48, 64, 80, 96 }))
assert(same(multiples(16, 16), { 16 }))
assert(same(powers_of_two(1, 16), { 1, 2, 4, 8, 16 }))
assert(same(powers_of_two(5, 100), { 8, 16, 32, 64 }))
assert(same(range(1, 4), { 1, 2, 3, 4 }))
assert(same(range(32, 100, 32), { 32, 64, 96 }))
assert(same(range(-2, 2, 2), { -2, 0, 2 }))
assert(KiB == 1024 and MiB == 1048576)

target "ascend910b"
matmul { name = "h", shapes = { {256, 256, 256} } }
space {
  strategy      = "OS",
  m             = powers_of_two(16, 256),
  n             = range(32, 96, 32),
  k             = { 64, 16, 16, 2^5 },   -- unsorted, duplicated, a float 32.0
  double_buffer = true,
  cores         = 2,
  split         = { "MN", "N", "MN" },
}
