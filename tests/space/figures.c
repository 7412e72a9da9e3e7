/* figures.c — a target's figures as text (space/figures.c): NPU and CPU targets
 * print and scan back to the same target, and hostile words get one clear line. */
#define _POSIX_C_SOURCE 200809L /* strtok_r */
#include <math.h>

#include "check.h"
#include "fixtures.h"

/* A CPU like the host's: AVX-512, a measured clock, a fork-join cost. */
static sp_target fx_cpu(void)
{
    sp_target t = {
        .name = "host-custom", .kind = SP_CPU, .cores = 2, .clock_mhz = 2893.4567812,
        .cpu = {.simd_floats = 16, .vregs = 32, .fma_units = 2, .load_ports = 2,
                .cache = {[SP_CL1] = 48 * KiB, [SP_CL2] = 1 * MiB, [SP_CL3] = 0},
                .bw_l2 = 64, .bw_l3 = 32, .bw_mem = 16, .bw_mem_shared = 24.5,
                .fork_join = 10000, .load_stall = 0.125, .prefetch_stall = 1.5,
                .l1_ways = 12, .alias_stall = 0.375, .pack_stall = 12.5,
                .stride_stall = 17.25},
    };
    return t;
}

/* Splits text at spaces, in place, into words (at most max). */
static size_t split(char *text, char **words, size_t max)
{
    size_t n = 0;
    for (char *save = NULL, *w = strtok_r(text, " ", &save); w && n < max;
         w = strtok_r(NULL, " ", &save))
        words[n++] = w;
    return n;
}

/* Scans text as words; false with the message in err. */
static bool scan(const char *text, sp_target *t, char *err, size_t errlen)
{
    char copy[4 * SP_TARGET_TEXT_MAX], *words[128];
    snprintf(copy, sizeof copy, "%s", text);
    return sp_target_scan(words, split(copy, words, 128), t, err, errlen);
}

/* t printed, scanned and printed again: the same target and the same text. */
static void round_trip(const sp_target *t, const char *want)
{
    char text[SP_TARGET_TEXT_MAX], again[SP_TARGET_TEXT_MAX], err[256] = "", why[256] = "";
    size_t n = sp_target_print(text, sizeof text, t);
    CHECK_INT(n, strlen(text));
    if (want)
        CHECK_STR(text, want);
    sp_target back;
    if (!CHECK(scan(text, &back, err, sizeof err))) {
        fprintf(stderr, "  %s\n", err);
        return;
    }
    if (!CHECK(sp_target_same(&back, t, why, sizeof why)))
        fprintf(stderr, "  %s\n", why);
    sp_target_print(again, sizeof again, &back);
    CHECK_STR(again, text);
}

static void round_trips(void)
{
    sp_target a = fx_ascend910();
    round_trip(&a, "ascend910 kind=npu cores=32 clock_mhz=1000 macs.fp16=4096 macs.int8=8192 "
                   "macs.fp32=0 macs.bf16=0 l1=1048576 l0a=65536 l0b=65536 l0c=262144 ub=262144 "
                   "align.l1=32 align.l0a=512 align.l0b=512 align.l0c=512 align.ub=32 "
                   "gm_l1.bandwidth=64 gm_l1.latency=200 l1_l0a.bandwidth=512 l1_l0a.latency=16 "
                   "l1_l0b.bandwidth=256 l1_l0b.latency=16 l0c_ub.bandwidth=256 l0c_ub.latency=16 "
                   "ub_gm.bandwidth=64 ub_gm.latency=200 gm_bandwidth=1200 events=8");
    /* a derived target: numbers that need all 17 digits, a bf16 cube, large buffers */
    strcpy(a.name, "ascend910-custom");
    a.cores = 8;
    a.clock_mhz = 0.1 + 0.2;
    a.macs[SP_BF16] = 1.0 / 3;
    a.buf_bytes[SP_L1] = (int64_t)1 << 40;
    a.path[SP_GM_L1].bandwidth = 1e-300;
    a.path[SP_UB_GM].latency = 0;
    a.gm_bandwidth = 1.7976931348623157e308;
    round_trip(&a, NULL);
    char text[SP_TARGET_TEXT_MAX];
    sp_target_print(text, sizeof text, &a);
    CHECK_HAS(text, " clock_mhz=0.30000000000000004 ");
    CHECK_HAS(text, " l1=1099511627776 ");
    CHECK_HAS(text, " gm_l1.bandwidth=1e-300 ");

    sp_target c = fx_cpu();
    round_trip(&c, "host-custom kind=cpu cores=2 clock_mhz=2893.4567812 simd_floats=16 vregs=32 "
                   "fma_units=2 load_ports=2 l1=49152 l2=1048576 l3=0 bandwidth.l2=64 "
                   "bandwidth.l3=32 bandwidth.mem=16 bandwidth.mem_shared=24.5 fork_join=10000 "
                   "load_stall=0.125 prefetch_stall=1.5 l1_ways=12 alias_stall=0.375 pack_stall=12.5 "
                   "stride_stall=17.25");
    c.cpu.fork_join = 0;
    c.cpu.load_stall = 0;
    c.cpu.prefetch_stall = c.cpu.alias_stall = c.cpu.pack_stall = c.cpu.stride_stall = 0;
    c.cpu.l1_ways = 0;
    round_trip(&c, NULL);

    /* printing into too small a buffer: cut, and the length it needs */
    char small[16];
    size_t need = sp_target_print(small, sizeof small, &c);
    sp_target_print(text, sizeof text, &c);
    CHECK_INT(need, strlen(text));
    CHECK_STR(small, "host-custom kin");
    /* the optional fields may be left out; kind defaults to npu */
    sp_target t;
    char err[256];
    CHECK(scan("x cores=32 clock_mhz=1000 macs.fp16=4096 macs.int8=8192 l1=1048576 l0a=65536 "
               "l0b=65536 l0c=262144 ub=262144 align.l1=32 align.l0a=512 align.l0b=512 "
               "align.l0c=512 align.ub=32 gm_l1.bandwidth=64 gm_l1.latency=200 "
               "l1_l0a.bandwidth=512 l1_l0a.latency=16 l1_l0b.bandwidth=256 "
               "l1_l0b.latency=16 l0c_ub.bandwidth=256 l0c_ub.latency=16 ub_gm.bandwidth=64 "
               "ub_gm.latency=200 gm_bandwidth=1200 events=8",
               &t, err, sizeof err));
    a = fx_ascend910();
    strcpy(a.name, "x");
    CHECK(sp_target_same(&t, &a, NULL, 0));
}

/* The text of fx_ascend910 with word `from` replaced by `to` ("" drops it). */
static const char *edited(const char *from, const char *to)
{
    static char out[4 * SP_TARGET_TEXT_MAX];
    char text[SP_TARGET_TEXT_MAX];
    sp_target a = fx_ascend910();
    sp_target_print(text, sizeof text, &a);
    char *at = strstr(text, from);
    if (!at) {
        fprintf(stderr, "'%s' not in the text\n", from);
        exit(1);
    }
    snprintf(out, sizeof out, "%.*s%s%s", (int)(at - text), text, to, at + strlen(from));
    return out;
}

/* Prefixes of the messages below. */
#define T "target 'ascend910': "
#define NAME_RULE "(1 to 63 characters from A-Z a-z 0-9 _ . -)"
#define NOT_INT(v) T "field 'cores' must be an integer from -2147483647 to 2147483647, not '" v "'"
#define NOT_NUM(v) T "field 'clock_mhz' must be a finite number, not '" v "'"

/* Hostile edits of fx_ascend910's text: the word replaced, its replacement, the error. */
static const char *const hostile_edits[][3] = {
    {"ascend910 ", "ascend 910 ", "target 'ascend': expected key=value, got '910'"},
    {"ascend910 ", "ascend/910 ", "bad target name 'ascend/910' " NAME_RULE},
    {"ascend910 ", "cores=4 ", "bad target name 'cores=4' " NAME_RULE},
    {"ascend910 ", "aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa ",
     "bad target name 'aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa...' " NAME_RULE},
    /* values */
    {"cores=32", "cores=many", NOT_INT("many")},
    {"cores=32", "cores=2147483648", NOT_INT("2147483648")},
    {"cores=32", "cores=32.5", NOT_INT("32.5")},
    {"cores=32", "cores=", NOT_INT("")},
    {"cores=32", "cores=+32", NOT_INT("+32")},
    {"cores=32", "cores=0", T "field 'cores' must be a positive integer"},
    {"cores=32", "cores=-3", T "field 'cores' must be a positive integer"},
    {"l1=1048576", "l1=99999999999999999999",
     T "field 'l1' must be a 64-bit integer, not '99999999999999999999'"},
    {"clock_mhz=1000", "clock_mhz=1e999", NOT_NUM("1e999")},
    {"clock_mhz=1000", "clock_mhz=nan", NOT_NUM("nan")},
    {"clock_mhz=1000", "clock_mhz=inf", NOT_NUM("inf")},
    {"clock_mhz=1000", "clock_mhz=1000MHz", NOT_NUM("1000MHz")},
    {"clock_mhz=1000", "clock_mhz=\f1000", NOT_NUM("?1000")},
    {"clock_mhz=1000", "clock_mhz=-1", T "field 'clock_mhz' must be positive"},
    {"l0a=65536", "l0a=1000", T "field 'l0a' (1000 bytes) is not a multiple of its alignment 512"},
    /* keys */
    {"cores=32", "cors=32", T "unknown field 'cors'"},
    {"cores=32", "cores=32 cores=32", T "field 'cores' given twice"},
    {"cores=32", "cores=32 kind=npu", T "field 'kind' given twice"},
    {"cores=32", "=32", T "expected key=value, got '=32'"},
    {"cores=32", "cores", T "expected key=value, got 'cores'"},
    {"cores=32", "name=x", T "the name is the first word, not 'name='"},
    {"cores=32", "", T "field 'cores' is missing"},
    {" events=8", "", T "field 'events' is missing"},
    {"cores=32", "vregs=32", T "field 'vregs' does not apply to npu targets"},
    {"kind=npu", "kind=gpu", T "field 'kind' must be npu or cpu, not 'gpu'"},
    {"kind=npu", "kind=cpu", T "field 'macs.fp16' does not apply to cpu targets"},
    {"cores=32", "a_very_long_key_that_goes_on_and_on_and_on_and_on=1",
     T "unknown field 'a_very_long_key_that_goes_on_and_on_and_...'"},
};

static void hostile(void)
{
    sp_target t;
    char err[512];
    CHECK(!scan("", &t, err, sizeof err));
    CHECK_STR(err, "a target needs a name");
    for (size_t i = 0; i < sizeof hostile_edits / sizeof *hostile_edits; i++) {
        err[0] = '\0';
        bool refused = CHECK(!scan(edited(hostile_edits[i][0], hostile_edits[i][1]), &t, err,
                                   sizeof err));
        if (!CHECK_STR(err, hostile_edits[i][2]) || !refused)
            fprintf(stderr, "  (edit %zu: '%s')\n", i, hostile_edits[i][1]);
    }
}

static void sameness(void)
{
    sp_target a = fx_ascend910(), b = fx_ascend910();
    char why[256];
    CHECK(sp_target_same(&a, &b, why, sizeof why));
    b.cores = 8;
    CHECK(!sp_target_same(&b, &a, why, sizeof why));
    CHECK_STR(why, "field 'cores' is 8, not 32");
    b = a;
    b.path[SP_UB_GM].latency = 200.5;
    CHECK(!sp_target_same(&a, &b, why, sizeof why));
    CHECK_STR(why, "field 'ub_gm.latency' is 200, not 200.5");
    b = a;
    strcpy(b.name, "ascend910b");
    CHECK(!sp_target_same(&a, &b, why, sizeof why));
    CHECK_STR(why, "the name is 'ascend910', not 'ascend910b'");
    sp_target c = fx_cpu(), d = fx_cpu();
    strcpy(d.name, c.name);
    d.kind = SP_NPU;
    CHECK(!sp_target_same(&c, &d, why, sizeof why));
    CHECK_STR(why, "field 'kind' is cpu, not npu");
    d = c;
    d.cpu.cache[SP_CL3] = 1;
    CHECK(!sp_target_same(&c, &d, why, sizeof why));
    CHECK_STR(why, "field 'l3' is 0, not 1");
    /* fields of another kind do not count */
    d = c;
    d.events = 5;
    CHECK(sp_target_same(&c, &d, NULL, 0));
}

/* The table: names unique within a kind, every field of a kind printed once. */
static void table(void)
{
    for (int i = 0; i < SP_TARGET_NFIELDS; i++) {
        CHECK(sp_target_fields[i].name != NULL);
        CHECK(sp_target_fields[i].kinds != 0);
        for (int j = 0; j < i; j++)
            if (strcmp(sp_target_fields[i].name, sp_target_fields[j].name) == 0 &&
                (sp_target_fields[i].kinds & sp_target_fields[j].kinds))
                CHECK_STR(sp_target_fields[i].name, "a name used once per kind");
    }
    sp_target kinds[2] = {fx_ascend910(), fx_cpu()};
    for (int k = 0; k < 2; k++) {
        char text[SP_TARGET_TEXT_MAX], key[48];
        sp_target_print(text, sizeof text, &kinds[k]);
        for (int i = 1; i < SP_TARGET_NFIELDS; i++) {
            if (!(sp_target_fields[i].kinds >> kinds[k].kind & 1))
                continue;
            snprintf(key, sizeof key, " %s=", sp_target_fields[i].name);
            char *at = strstr(text, key);
            CHECK_HAS(text, key);
            CHECK(!at || !strstr(at + 1, key));
        }
    }
    /* every field is named back from its member, which only it occupies */
    sp_target t = fx_ascend910();
    for (int i = 0; i < SP_TARGET_NFIELDS; i++)
        CHECK_STR(sp_target_field_name(&t, (const char *)&t + sp_target_fields[i].off),
                  sp_target_fields[i].name);
    CHECK_STR(sp_target_field_name(&t, &t.buf_align[SP_UB]), "align.ub");
    CHECK_STR(sp_target_field_name(&t, &t.cpu.bw_mem_shared), "bandwidth.mem_shared");
    CHECK_STR(sp_target_field_name(&t, (const char *)&t.clock_mhz + 1), "?");
    /* by name to index, and a number field's place and value */
    for (int i = 0; i < SP_TARGET_NFIELDS; i++) {
        for (int k = 0; k < SP_NKIND; k++) { /* its own kinds find it, the others not */
            int at = sp_target_field_index(sp_target_fields[i].name, k);
            if (sp_target_fields[i].kinds >> k & 1)
                CHECK_INT(at, i);
            else
                CHECK(at != i && (at < 0 || sp_target_fields[at].kinds >> k & 1));
        }
        double *at = sp_target_figure_at(&t, i);
        if (sp_target_fields[i].type == SP_FIELD_NUM) {
            CHECK(at && sp_target_figure(&t, i) == *at);
            CHECK_STR(sp_target_field_name(&t, at), sp_target_fields[i].name);
        } else {
            CHECK(!at && isnan(sp_target_figure(&t, i)));
        }
    }
    CHECK_INT(sp_target_field_index("gm_l1", SP_NPU), -1);
    CHECK_INT(sp_target_field_index("gm_l1.bandwidth", SP_CPU), -1);
    CHECK(sp_target_field_index("l1", SP_CPU) >= 0 && sp_target_field_index("l1", SP_NPU) >= 0 &&
          sp_target_field_index("l1", SP_CPU) != sp_target_field_index("l1", SP_NPU));
    CHECK_INT(sp_target_field_index("clock_mhz", -1), -1);
    CHECK_INT(sp_target_field_index("", SP_NPU), -1);
    CHECK(!sp_target_figure_at(&t, -1) && !sp_target_figure_at(&t, SP_TARGET_NFIELDS));
    CHECK(sp_target_figure(&t, sp_target_field_index("clock_mhz", t.kind)) == t.clock_mhz);
}

int main(void)
{
    round_trips();
    hostile();
    sameness();
    table();
    return CHECK_DONE();
}
