/* names.c — names and sizes of pipes, memory spaces and element types, and
 * the table of which pipe runs a copy between two spaces. */
#include <string.h>

#include "codegen.h"

static const char *const pipes[CG_NPIPE] = {"S", "MTE1", "MTE2", "MTE3", "M", "V", "FIX"};
static const char *const spaces[CG_NSPACE] = {"GM", "L1", "L0A", "L0B", "L0C", "UB"};
static const char *const elems[CG_NELEM] = {"fp16", "int8", "fp32", "int32"};
static const int elem_sizes[CG_NELEM] = {2, 1, 4, 4};

/* copy_pipe[src][dst]: the DaVinci data paths (-1: none). */
static const signed char copy_pipe[CG_NSPACE][CG_NSPACE] = {
    /*  to:  GM       L1       L0A      L0B      L0C  UB      */
    [CG_GM] = {-1, CG_MTE2, -1, -1, -1, CG_MTE2},
    [CG_L1] = {-1, -1, CG_MTE1, CG_MTE1, -1, -1},
    [CG_L0A] = {-1, -1, -1, -1, -1, -1},
    [CG_L0B] = {-1, -1, -1, -1, -1, -1},
    [CG_L0C] = {CG_FIX, -1, -1, -1, -1, CG_FIX},
    [CG_UB] = {CG_MTE3, -1, -1, -1, -1, -1},
};

const char *cg_pipe_name(int p) { return p >= 0 && p < CG_NPIPE ? pipes[p] : NULL; }
const char *cg_space_name(int s) { return s >= 0 && s < CG_NSPACE ? spaces[s] : NULL; }
const char *cg_elem_name(int e) { return e >= 0 && e < CG_NELEM ? elems[e] : NULL; }
int cg_elem_size(int e) { return e >= 0 && e < CG_NELEM ? elem_sizes[e] : 0; }

int cg_pipe_parse(const char *s)
{
    for (int p = 0; p < CG_NPIPE; p++)
        if (strcmp(pipes[p], s) == 0)
            return p;
    return -1;
}

int cg_copy_pipe(int src, int dst)
{
    if (src < 0 || src >= CG_NSPACE || dst < 0 || dst >= CG_NSPACE)
        return -1;
    return copy_pipe[src][dst];
}
