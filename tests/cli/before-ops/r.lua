-- r.lua — a run from before problems had an op: its journal, sidecar and table (format 2)
-- were written by that build; tests/cli/commands.sh resumes them.
target "ascend910"
matmul { name = "mm", shapes = { {256, 256, 128}, {64, 96, 80, 3} } }
tune { measure = "model", budget = 4, results = "before-ops/r.csv", table = "before-ops/r-table.csv" }
