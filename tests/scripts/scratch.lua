-- scratch.lua — a target written from scratch (every field given).
target {
  name      = "mynpu",
  cores     = 4,
  clock_mhz = 1500,
  macs      = { fp16 = 1024, int8 = 2048 },
  l1        = 2 * MiB,
  l0a       = 32 * KiB,
  l0b       = 32 * KiB,
  l0c       = 128 * KiB,
  ub        = 128 * KiB,
  align     = { l1 = 32, l0a = 512, l0b = 512, l0c = 512, ub = 32 },
  gm_l1     = { bandwidth = 128, latency = 300 },
  l1_l0a    = { bandwidth = 256, latency = 8 },
  l1_l0b    = { bandwidth = 128, latency = 8 },
  l0c_ub    = { bandwidth = 128, latency = 8 },
  ub_gm     = { bandwidth = 64.5, latency = 300 },
  gm_bandwidth = 400,
  events    = 16,
}

matmul { name = "small", shapes = { 64, 128, 256 }, dtype = "int8", batch = 3 }
