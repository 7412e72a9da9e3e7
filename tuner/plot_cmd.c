/* plot_cmd.c — `npu-tune plot RESULTS.csv [-o DIR]`: renders a journal's plots
 * with gnuplot (default DIR: the journal's directory + "/plots"). */
#define _POSIX_C_SOURCE 200809L
#include <dirent.h>
#include <errno.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "base.h"
#include "results.h"
#include "tuner.h"

static const char usage_text[] =
    "usage: npu-tune plot RESULTS.csv [-o DIR]\n"
    "  draws with gnuplot, as PNG and SVG in DIR (default: the journal's directory + /plots):\n";

static int usage(const char *why) { return tn_usage("plot", usage_text, why); }

/* The usage and the plots of results/plot.c's registry. */
static int help(void)
{
    usage(NULL);
    for (int i = 0; rs_plot_name(i); i++)
        printf("    %-18s %s\n", rs_plot_name(i), rs_plot_what(i));
    return TN_OK;
}

/* An image file of the output directory and what it was before plotting. */
typedef struct {
    char *name;
    ino_t ino;
    struct timespec mtime;
} image;

static bool is_image(const char *name)
{
    size_t n = strlen(name);
    return n > 4 && (strcmp(name + n - 4, ".png") == 0 || strcmp(name + n - 4, ".svg") == 0);
}

static int cmp_image(const void *a, const void *b)
{
    return strcmp(((const image *)a)->name, ((const image *)b)->name);
}

/* The images in dir, sorted by name (none if dir does not exist yet); -1 if
 * memory ran out. */
static long list_images(const char *dir, image **out)
{
    *out = NULL;
    DIR *d = opendir(dir);
    if (!d)
        return 0;
    long n = 0, cap = 0;
    struct dirent *e;
    while ((e = readdir(d))) {
        if (!is_image(e->d_name))
            continue;
        size_t len = strlen(dir) + strlen(e->d_name) + 2;
        char *path = malloc(len);
        struct stat st;
        if (path)
            snprintf(path, len, "%s/%s", dir, e->d_name);
        if (path && (stat(path, &st) || !S_ISREG(st.st_mode))) {
            free(path);
            continue;
        }
        if (path && n == cap) {
            image *grown = realloc(*out, (size_t)(cap = cap ? 2 * cap : 16) * sizeof *grown);
            if (grown)
                *out = grown;
            else {
                free(path);
                path = NULL;
            }
        }
        if (!path) {
            while (n > 0)
                free((*out)[--n].name);
            free(*out);
            *out = NULL;
            closedir(d);
            return -1;
        }
        (*out)[n++] = (image){path, st.st_ino, st.st_mtim};
    }
    closedir(d);
    if (n)
        qsort(*out, (size_t)n, sizeof **out, cmp_image);
    return n;
}

static void free_images(image *v, long n)
{
    for (long i = 0; i < n; i++)
        free(v[i].name);
    free(v);
}

/* True if img is not in before[] or was rewritten (rs_plot replaces each
 * output: a new file, so a new inode or modification time). */
static bool written(const image *img, const image *before, long nbefore)
{
    const image *old = nbefore > 0 ? bsearch(img, before, (size_t)nbefore, sizeof *before,
                                             cmp_image)
                                   : NULL;
    return !old || old->ino != img->ino || old->mtime.tv_sec != img->mtime.tv_sec ||
           old->mtime.tv_nsec != img->mtime.tv_nsec;
}

/* npu-tune plot RESULTS.csv [-o DIR]: renders, then lists the images written. */
int tn_plot(int argc, char **argv)
{
    static const struct option opts[] = {{"output", required_argument, 0, 'o'},
                                         {"help", no_argument, 0, 'h'},
                                         {0, 0, 0, 0}};
    const char *dir = NULL;
    char why[256];
    int o;
    opterr = 0;
    optind = 1;
    while ((o = getopt_long(argc, argv, "o:h", opts, NULL)) != -1) {
        switch (o) {
        case 'o': dir = optarg; break;
        case 'h': return help();
        default:
            snprintf(why, sizeof why, "unknown or incomplete option '%s'", argv[optind - 1]);
            return usage(why);
        }
    }
    if (optind != argc - 1)
        return usage(optind >= argc ? "a RESULTS.csv journal is required" : "one journal only");
    if (dir && !*dir)
        return usage("-o needs a directory");
    const char *journal = argv[optind];
    char *defdir = NULL;
    if (!dir) {
        const char *slash = strrchr(journal, '/');
        size_t len = slash ? (size_t)(slash - journal) : 0;
        if (!(defdir = malloc(len + 8))) {
            tn_error("out of memory");
            return TN_ERROR;
        }
        if (slash)
            snprintf(defdir, len + 8, "%.*s/plots", (int)len, journal);
        else
            snprintf(defdir, len + 8, "plots");
        dir = defdir;
    }
    image *before = NULL, *after = NULL;
    long nbefore = list_images(dir, &before), nafter = 0;
    char err[1024];
    int rc = TN_OK;
    const bs_file files[] = {{"results journal", journal, false}, {"plot directory", dir, true}};
    if (!bs_paths_distinct(files, 2, err, sizeof err)) {
        tn_error("plot: %s", err);
        rc = TN_ERROR;
    } else if (nbefore < 0) {
        tn_error("out of memory");
        rc = TN_ERROR;
    } else if (!rs_plot(journal, dir, err, sizeof err)) {
        tn_error("%s", err);
        rc = TN_ERROR;
    } else if ((nafter = list_images(dir, &after)) < 0) {
        tn_error("out of memory");
        rc = TN_ERROR;
    } else {
        for (long i = 0; i < nafter; i++)
            if (written(&after[i], before, nbefore))
                printf("%s\n", after[i].name);
    }
    free_images(before, nbefore);
    free_images(after, nafter);
    free(defdir);
    return rc;
}
