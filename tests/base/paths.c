/* paths.c — bs_paths_distinct: an output that is an input or another output
 * (the same inode, a link, the same path spelt another way, one still to be made). */
#define _XOPEN_SOURCE 700
#include <stdlib.h>
#include <sys/stat.h>
#include <unistd.h>

#include "base.h"
#include "check.h"
#include "files.h"

static char dir[] = "/tmp/npu-tune-paths-XXXXXX";
static char err[1024];

/* Whether an input `in` and an output `out` are told apart; err says why not. */
static bool distinct(const char *in, const char *out)
{
    bs_file f[] = {{"script", in, false}, {"table", out, true}};
    err[0] = '\0';
    return bs_paths_distinct(f, 2, err, sizeof err);
}

static void same_file(void)
{
    put_mode("s.lua", "target \"ascend910\"\n", "w");
    CHECK(!distinct("s.lua", "s.lua"));
    CHECK_STR(err, "table 's.lua' is the script s.lua; choose another path");
    CHECK(!distinct("s.lua", "./s.lua"));
    CHECK(!distinct(path_in(dir, "s.lua"), "s.lua"));
    CHECK(distinct("s.lua", "t.csv"));
    /* a symlink and a hard link to the script */
    CHECK(symlink("s.lua", "link.lua") == 0);
    CHECK(!distinct("s.lua", "link.lua"));
    CHECK_STR(err, "table 'link.lua' is the script s.lua; choose another path");
    CHECK(link("s.lua", "hard.lua") == 0);
    CHECK(!distinct("hard.lua", "s.lua"));
    /* two inputs may be one file; a missing path is skipped */
    bs_file two[] = {{"table", "s.lua", false}, {"kernel", "link.lua", false},
                     {"trace", NULL, true}, {"output", "o.h", true}};
    CHECK(bs_paths_distinct(two, 4, err, sizeof err));
}

static void not_yet_made(void)
{
    /* neither exists: the same path once '..' is applied, also under a
     * directory that does not exist yet */
    bs_file f[] = {{"script", "s.lua", false},
                   {"results journal", "a/../x.csv", true},
                   {"table", "x.csv", true}};
    CHECK(!bs_paths_distinct(f, 3, err, sizeof err));
    CHECK_STR(err, "table 'x.csv' is the results journal a/../x.csv; choose another path");
    f[1].path = "new/b/../../x.csv";
    CHECK(!bs_paths_distinct(f, 3, err, sizeof err));
    f[1].path = "new/x.csv";
    CHECK(bs_paths_distinct(f, 3, err, sizeof err));
    CHECK(access("new", F_OK) != 0 && access("a", F_OK) != 0); /* nothing made */
    /* through a symlinked directory, and through a dangling link */
    CHECK(mkdir("d", 0777) == 0);
    CHECK(symlink("d", "dlink") == 0);
    f[1].path = "d/t.csv";
    f[2].path = "dlink/t.csv";
    CHECK(!bs_paths_distinct(f, 3, err, sizeof err));
    CHECK(symlink("later/t.csv", "dangling.csv") == 0);
    f[1].path = "later/t.csv";
    f[2].path = "dangling.csv";
    CHECK(!bs_paths_distinct(f, 3, err, sizeof err));
    CHECK_STR(err, "table 'dangling.csv' is the results journal later/t.csv; choose another path");
    CHECK(symlink("loop", "loop") == 0); /* a loop is not a crash */
    f[2].path = "loop/x";
    CHECK(bs_paths_distinct(f, 3, err, sizeof err));
}

static void written_through(void)
{
    /* a device is shared by whoever writes it */
    bs_file f[] = {{"results journal", "/dev/null", true}, {"table", "/dev/null", true}};
    CHECK(bs_paths_distinct(f, 2, err, sizeof err));
    CHECK(bs_written_through("/dev/null"));
    CHECK(!bs_written_through("s.lua"));
    CHECK(!bs_written_through("d"));
    CHECK(!bs_written_through("missing"));
}

int main(void)
{
    if (!mkdtemp(dir) || chdir(dir) != 0) {
        perror(dir);
        return 1;
    }
    same_file();
    not_yet_made();
    written_through();
    remove_tree(dir);
    return CHECK_DONE();
}
