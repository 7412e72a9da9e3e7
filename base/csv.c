/* csv.c — CSV lines without quoting, as the journal and the tuning table are
 * written: split, joined, which text a field can hold, numbers that read back. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "base.h"

int bs_csv_split(char *line, char **f, int max)
{
    int n = 0;
    for (char *p = line;; p++) {
        if (n < max)
            f[n] = p;
        n++;
        p = strchr(p, ',');
        if (!p)
            return n;
        *p = '\0';
    }
}

/* Appends k bytes of s at *used, as far as they fit before buf's last byte. */
static void append(char *buf, size_t len, size_t *used, const char *s, size_t k)
{
    if (*used + 1 < len)
        memcpy(buf + *used, s, k < len - 1 - *used ? k : len - 1 - *used);
    *used += k;
}

size_t bs_csv_join(char *buf, size_t len, const char *const *f, int n)
{
    size_t used = 0;
    for (int i = 0; i < n; i++) {
        if (i)
            append(buf, len, &used, ",", 1);
        if (f[i])
            append(buf, len, &used, f[i], strlen(f[i]));
    }
    append(buf, len, &used, "\n", 1);
    if (len)
        buf[used < len ? used : len - 1] = '\0';
    return used;
}

bool bs_csv_safe(const char *s)
{
    return s && *s && !strpbrk(s, ",\"\r\n");
}

void bs_csv_number(char *buf, size_t len, double v)
{
    buf[0] = '\0';
    if (!isfinite(v))
        return;
    if (v > -1e21 && v < 1e21) {
        snprintf(buf, len, "%.0f", v);
        if (strtod(buf, NULL) == v)
            return;
    }
    for (int digits = 15; digits <= 17; digits++) {
        snprintf(buf, len, "%.*g", digits, v);
        if (strtod(buf, NULL) == v)
            return;
    }
}
