/* documented.c — docs/reference.md names every entry of every registry: the
 * searches, backends, plots, dtypes, strategies, splits and ops a user can write. */
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "base.h"
#include "check.h"
#include "measure.h"
#include "results.h"
#include "search.h"
#include "space.h"

static char *doc;

/* NAME appears in the reference as code: `NAME` or "NAME" (a Lua string). */
static void documented(const char *registry, const char *name)
{
    char code[96], quoted[96];
    snprintf(code, sizeof code, "`%s`", name);
    snprintf(quoted, sizeof quoted, "\"%s\"", name);
    if (!CHECK(strstr(doc, code) || strstr(doc, quoted)))
        fprintf(stderr, "  docs/reference.md does not name the %s '%s'\n", registry, name);
}

static void each_of_list(const char *registry, const char *const *names)
{
    for (int i = 0; names[i]; i++)
        documented(registry, names[i]);
}

static void each_of_fn(const char *registry, const char *(*name)(int))
{
    int n = 0;
    for (; name(n); n++)
        documented(registry, name(n));
    if (!CHECK(n > 0))
        fprintf(stderr, "  the %s registry is empty\n", registry);
}

int main(int argc, char **argv)
{
    const char *path = argc > 1 ? argv[1] : "docs/reference.md";
    int fd = open(path, O_RDONLY);
    size_t len;
    if (fd < 0 || !bs_read_all(fd, &doc, &len)) {
        perror(path);
        return 1;
    }
    close(fd);
    each_of_list("search strategy", tn_search_names);
    each_of_list("measurement backend", ms_backend_names);
    each_of_fn("plot", rs_plot_name);
    each_of_fn("dtype", sp_dtype_name);
    each_of_fn("strategy", sp_strategy_name);
    each_of_fn("split", sp_split_name);
    each_of_fn("op", sp_op_name);
    free(doc);
    return CHECK_DONE();
}
