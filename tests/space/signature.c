/* signature.c — the text a target is signed by (sp_target_signature), pinned
 * byte for byte with its hash: journals signed before must still resume. The
 * same targets and hashes as tests/cli/signatures.sh. */
#include "base.h"
#include "check.h"
#include "fixtures.h"

/* signs(t, text, hash): t is signed by exactly text, whose hash is hash. */
#define SIGNS(t, text, hash) signs_at((t), (text), (hash), __LINE__)

static void signs_at(const sp_target *t, const char *text, const char *hash, int at)
{
    char sig[SP_SIGNATURE_MAX], hex[17];
    size_t n = sp_target_signature(t, sig);
    check_int((long long)n, (long long)strlen(sig), "signature length", __FILE__, at);
    check_str(sig, text, "signature", __FILE__, at);
    bs_hash_hex(sig, n, hex);
    check_str(hex, hash, "its hash", __FILE__, at);
}

int main(void)
{
    sp_target t = fx_ascend910();
    SIGNS(&t, "32 1000 4096 8192 0 0 1048576/32 65536/512 65536/512 262144/512 262144/32 "
              "64/200 512/16 256/16 256/16 64/200 1200 8",
          "d52808c2ef1a94bb");
    /* the name is not signed */
    strcpy(t.name, "other");
    SIGNS(&t, "32 1000 4096 8192 0 0 1048576/32 65536/512 65536/512 262144/512 262144/32 "
              "64/200 512/16 256/16 256/16 64/200 1200 8",
          "d52808c2ef1a94bb");
    /* target { base = "ascend910", cores = 8, l0c = 128 * KiB, gm_l1 = { bandwidth = 32.5 } } */
    t.cores = 8;
    t.buf_bytes[SP_L0C] = 128 * KiB;
    t.path[SP_GM_L1].bandwidth = 32.5;
    SIGNS(&t, "8 1000 4096 8192 0 0 1048576/32 65536/512 65536/512 131072/512 262144/32 "
              "32.5/200 512/16 256/16 256/16 64/200 1200 8",
          "42b38051ecd871d1");
    t = fx_ascend910();
    t.macs[SP_FP32] = 1024, t.macs[SP_BF16] = 2048;
    SIGNS(&t, "32 1000 4096 8192 1024 2048 1048576/32 65536/512 65536/512 262144/512 262144/32 "
              "64/200 512/16 256/16 256/16 64/200 1200 8",
          "5e748655b4601c84");

    /* a CPU: the NPU's figures, zero but the cores and without the clock, then its own */
    t = fx_box();
    SIGNS(&t, "4 0 0 0 0 0 0/0 0/0 0/0 0/0 0/0 0/0 0/0 0/0 0/0 0/0 0 0 cpu 8 16 2 2 32768 "
              "1048576 8388608 32 16 8 16",
          "4ffa89ea0dbafd8f");
    t.clock_mhz = 2900;
    SIGNS(&t, "4 0 0 0 0 0 0/0 0/0 0/0 0/0 0/0 0/0 0/0 0/0 0/0 0/0 0 0 cpu 8 16 2 2 32768 "
              "1048576 8388608 32 16 8 16",
          "4ffa89ea0dbafd8f");
    t.cpu.fork_join = 2500;
    SIGNS(&t, "4 0 0 0 0 0 0/0 0/0 0/0 0/0 0/0 0/0 0/0 0/0 0/0 0/0 0 0 cpu 8 16 2 2 32768 "
              "1048576 8388608 32 16 8 16 fj 2500",
          "9c4e3dd7503e7032");

    /* the longest figures fit SP_SIGNATURE_MAX */
    sp_target big;
    memset(&big, 0, sizeof big);
    big.kind = SP_CPU;
    big.cores = big.buf_align[0] = big.events = -2147483647 - 1;
    big.cpu.simd_floats = big.cpu.vregs = big.cpu.fma_units = big.cpu.load_ports = -2147483647 - 1;
    for (int i = 0; i < SP_NDTYPE; i++)
        big.macs[i] = -1.2345678901234567e-308;
    for (int i = 0; i < SP_NBUF; i++)
        big.buf_bytes[i] = INT64_MIN, big.buf_align[i] = -2147483647 - 1;
    for (int i = 0; i < SP_NPATH; i++)
        big.path[i].bandwidth = big.path[i].latency = -1.2345678901234567e-308;
    for (int i = 0; i < SP_NCACHE; i++)
        big.cpu.cache[i] = INT64_MIN;
    big.gm_bandwidth = big.cpu.bw_l2 = big.cpu.bw_l3 = big.cpu.bw_mem = big.cpu.bw_mem_shared =
        big.cpu.fork_join = 1.2345678901234567e+308;
    char sig[SP_SIGNATURE_MAX];
    size_t n = sp_target_signature(&big, sig);
    CHECK(n < SP_SIGNATURE_MAX);
    CHECK_INT(strlen(sig), n);
    CHECK_HAS(sig, " fj 1.2345678901234567e+308");
    return CHECK_DONE();
}
