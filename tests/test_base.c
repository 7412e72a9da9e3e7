/* test_base.c — the base library: directories made whole and the FNV hash
 * against its published values. */
#define _XOPEN_SOURCE 700
#include <stdlib.h>
#include <sys/stat.h>
#include <unistd.h>

#include "base.h"
#include "check.h"
#include "files.h"

static char dir[] = "/tmp/npu-tune-base-XXXXXX";
static char err[1024];

static const char *at(const char *name)
{
    return path_in(dir, name);
}

static bool is_dir(const char *path)
{
    struct stat st;
    return stat(path, &st) == 0 && S_ISDIR(st.st_mode);
}

/* mkdir -p: every level made, existing ones kept; a file or a dangling link
 * in the way is named. */
static void dirs(void)
{
    CHECK(bs_mkdirs(at("d/a//b/c/"), err, sizeof err));
    CHECK(is_dir(at("d/a/b/c")));
    CHECK(bs_mkdirs(at("d/a/b"), err, sizeof err)); /* already there */
    CHECK(bs_make_parents(at("p/q/file.csv"), err, sizeof err));
    CHECK(is_dir(at("p/q")));
    CHECK(access(at("p/q/file.csv"), F_OK) != 0);
    CHECK(bs_make_parents("relative-file", err, sizeof err)); /* no directory part */
    CHECK(access("relative-file", F_OK) != 0);

    put_mode(at("plain"), "x", "w");
    char want[1200];
    CHECK(!bs_mkdirs(at("plain/sub"), err, sizeof err));
    snprintf(want, sizeof want, "cannot create directory '%s': Not a directory", at("plain"));
    CHECK_STR(err, want);
    CHECK(!bs_mkdirs(at("plain"), err, sizeof err));
    CHECK_STR(err, want);
    CHECK(!bs_make_parents(at("plain/x/y.csv"), err, sizeof err));
    CHECK_STR(err, want);

    CHECK(symlink("nowhere", at("dangling")) == 0);
    CHECK(!bs_make_parents(at("dangling/y.csv"), err, sizeof err));
    snprintf(want, sizeof want, "cannot create directory '%s': Not a directory", at("dangling"));
    CHECK_STR(err, want);

    if (geteuid() != 0) { /* root writes anywhere */
        CHECK(bs_mkdirs(at("locked"), err, sizeof err));
        CHECK(chmod(at("locked"), 0500) == 0);
        CHECK(!bs_mkdirs(at("locked/in/deeper"), err, sizeof err));
        snprintf(want, sizeof want, "cannot create directory '%s': Permission denied",
                 at("locked/in"));
        CHECK_STR(err, want);
        chmod(at("locked"), 0700);
    }
}

/* FNV-1a 64 of the published test strings, and bs_fnv continuing a hash. */
static void hashes(void)
{
    char h[17];
    bs_hash_hex("", 0, h);
    CHECK_STR(h, "cbf29ce484222325");
    bs_hash_hex("a", 1, h);
    CHECK_STR(h, "af63dc4c8601ec8c");
    bs_hash_hex("foobar", 6, h);
    CHECK_STR(h, "85944171f73967e8");
    CHECK(bs_fnv(bs_fnv(BS_FNV_BASIS, "foo", 3), "bar", 3) == 0x85944171f73967e8ULL);
}

int main(void)
{
    if (!mkdtemp(dir)) {
        perror(dir);
        return 1;
    }
    dirs();
    hashes();
    char cmd[600];
    snprintf(cmd, sizeof cmd, "rm -rf '%s'", dir);
    CHECK(system(cmd) == 0);
    return CHECK_DONE();
}
