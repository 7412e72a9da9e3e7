/* help.c — usage texts with their name lists filled in from the registries:
 * "{dtypes}" in a text prints as "fp16|int8|fp32|bf16", and so on. */
#include <stdio.h>
#include <string.h>

#include "measure.h"
#include "search.h"
#include "tuner.h"

static const char *name_in(const char *const *names, int i)
{
    for (int j = 0; j <= i; j++)
        if (!names[j])
            return NULL;
    return names[i];
}
static const char *search_name(int i) { return i >= 0 ? name_in(tn_search_names, i) : NULL; }
static const char *measure_name(int i) { return i >= 0 ? name_in(ms_backend_names, i) : NULL; }

/* Every list a usage text can name, and the name table it comes from. */
static const struct {
    const char *key;
    const char *(*name)(int);
} lists[] = {
    {"{dtypes}", sp_dtype_name},
    {"{strategies}", sp_strategy_name},
    {"{splits}", sp_split_name},
    {"{searches}", search_name},
    {"{measures}", measure_name},
    {"{ops}", sp_op_name},
};

void tn_help(const char *text)
{
    while (*text) {
        size_t plain = strcspn(text, "{"), i = 0;
        fwrite(text, 1, plain, stdout);
        text += plain;
        if (!*text)
            break;
        while (i < sizeof lists / sizeof *lists && strncmp(text, lists[i].key, strlen(lists[i].key)))
            i++;
        if (i == sizeof lists / sizeof *lists) { /* a brace of the text itself */
            putchar(*text++);
            continue;
        }
        char names[512];
        fputs(sp_names(lists[i].name, "|", "|", names, sizeof names), stdout);
        text += strlen(lists[i].key);
    }
}
