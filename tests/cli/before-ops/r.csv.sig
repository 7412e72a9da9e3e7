version=0.1.0
script=before-ops/r.lua
target=ascend910
target_sig=d52808c2ef1a94bb
space_sig=1a0266d34a4c5665
measure=model
