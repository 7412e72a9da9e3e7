/* help.c — usage texts with their name lists filled in from the registries:
 * "{dtypes}" in a text prints as "fp16|int8|fp32|bf16", and so on. */
#include <stdio.h>
#include <string.h>

#include "tuner.h"

/* Every list a usage text can name, and the name table it comes from. */
static const struct {
    const char *key;
    const char *(*name)(int);
} lists[] = {
    {"{dtypes}", sp_dtype_name},
    {"{strategies}", sp_strategy_name},
    {"{splits}", sp_split_name},
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
