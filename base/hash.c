/* hash.c — 64-bit FNV-1a: the signatures that journals and tables carry, and
 * the keys of hash maps. */
#include "base.h"

uint64_t bs_fnv(uint64_t h, const void *data, size_t n)
{
    const unsigned char *b = data;
    for (size_t i = 0; i < n; i++) {
        h ^= b[i];
        h *= 0x100000001b3ULL;
    }
    return h;
}

void bs_hash_hex(const void *data, size_t n, char out[17])
{
    snprintf(out, 17, "%016llx", (unsigned long long)bs_fnv(BS_FNV_BASIS, data, n));
}
