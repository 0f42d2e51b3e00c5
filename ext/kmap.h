/*
** A hash map from (tag, 64-bit key) to a dense index, for the host's side
** of groupings: the CPU's group table, the reals summed on the host, the
** extremes of TEXT and BLOB values. Open addressing, linear probing, at most
** half full; tag 0 is reserved (empty).
*/
#ifndef GPUAGG_KMAP_H
#define GPUAGG_KMAP_H

#include <stdint.h>

typedef struct ga_kmap {
  uint64_t *aKey;           /* keys, by slot */
  uint32_t *aTag;           /* tags, by slot; 0: empty */
  int64_t *aIdx;            /* dense indexes, by slot */
  int64_t cap;              /* slots: a power of two */
  int64_t n;                /* entries */
} ga_kmap;

/* The index of (tag, key), or -1. */
int64_t ga_kmap_find(const ga_kmap*, uint32_t tag, uint64_t key);

/* The index of (tag, key); if new, it gets m->n (the count before), and
** *pNew is set. -1 when out of memory. */
int64_t ga_kmap_add(ga_kmap*, uint32_t tag, uint64_t key, int *pNew);

void ga_kmap_free(ga_kmap*);

/* A 64-bit mix (splitmix64's finalizer). */
static inline uint64_t ga_mix64(uint64_t x){
  x ^= x >> 30; x *= 0xbf58476d1ce4e5b9ull;
  x ^= x >> 27; x *= 0x94d049bb133111ebull;
  return x ^ (x >> 31);
}

/* A 64-bit hash of n bytes at z (dictionaries of TEXT and BLOB values). */
uint64_t ga_hash_bytes(const void *z, int n);

#endif /* GPUAGG_KMAP_H */
