version=0.1.0
script=examples/host.lua
target=host
target_sig=cbf4b050cd1cccb3
space_sig=da570dadd7df4352
measure=host
