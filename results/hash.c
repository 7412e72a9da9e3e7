/* hash.c — 64-bit FNV-1a: the signatures of targets and spaces that journals
 * and tables carry, and the keys of the journal's lookup cache. */
#include <stdio.h>

#include "internal.h"

/* One FNV-1a step per byte. */
uint64_t rs_fnv(uint64_t h, const void *data, size_t n)
{
    const unsigned char *b = data;
    for (size_t i = 0; i < n; i++) {
        h ^= b[i];
        h *= 0x100000001b3ULL;
    }
    return h;
}

/* FNV-1a of the bytes as 16 lowercase hex digits. */
void rs_hash_hex(const void *data, size_t n, char out[17])
{
    snprintf(out, 17, "%016llx", (unsigned long long)rs_fnv(RS_FNV_BASIS, data, n));
}
