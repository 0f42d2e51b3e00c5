/*
** The host's hash map of (tag, key) to dense indexes: see kmap.h.
*/
#include <stdlib.h>
#include <string.h>
#include "kmap.h"

static int64_t slotOf(const ga_kmap *m, uint32_t tag, uint64_t key){
  return (int64_t)(ga_mix64(key ^ ((uint64_t)tag << 56)) & (uint64_t)(m->cap - 1));
}

int64_t ga_kmap_find(const ga_kmap *m, uint32_t tag, uint64_t key){
  int64_t h;
  if( m->cap==0 ) return -1;
  for(h = slotOf(m, tag, key); m->aTag[h]; h = (h + 1) & (m->cap - 1)){
    if( m->aTag[h]==tag && m->aKey[h]==key ) return m->aIdx[h];
  }
  return -1;
}

/* Twice the slots (16 at first), every entry placed again. */
static int grow(ga_kmap *m){
  ga_kmap b = *m;
  int64_t i;
  b.cap = m->cap ? 2*m->cap : 16;
  b.aKey = malloc(sizeof(uint64_t)*(size_t)b.cap);
  b.aTag = calloc((size_t)b.cap, sizeof(uint32_t));
  b.aIdx = malloc(sizeof(int64_t)*(size_t)b.cap);
  if( !b.aKey || !b.aTag || !b.aIdx ){
    free(b.aKey); free(b.aTag); free(b.aIdx);
    return 1;
  }
  for(i=0; i<m->cap; i++){
    int64_t h;
    if( m->aTag[i]==0 ) continue;
    for(h = slotOf(&b, m->aTag[i], m->aKey[i]); b.aTag[h]; h = (h + 1) & (b.cap - 1)){}
    b.aKey[h] = m->aKey[i];
    b.aTag[h] = m->aTag[i];
    b.aIdx[h] = m->aIdx[i];
  }
  ga_kmap_free(m);
  *m = b;
  return 0;
}

int64_t ga_kmap_add(ga_kmap *m, uint32_t tag, uint64_t key, int *pNew){
  int64_t h;
  *pNew = 0;
  if( 2*(m->n + 1) > m->cap && grow(m) ) return -1;
  for(h = slotOf(m, tag, key); m->aTag[h]; h = (h + 1) & (m->cap - 1)){
    if( m->aTag[h]==tag && m->aKey[h]==key ) return m->aIdx[h];
  }
  m->aTag[h] = tag;
  m->aKey[h] = key;
  m->aIdx[h] = m->n++;
  *pNew = 1;
  return m->aIdx[h];
}

void ga_kmap_free(ga_kmap *m){
  free(m->aKey);
  free(m->aTag);
  free(m->aIdx);
  m->aKey = 0;
  m->aTag = 0;
  m->aIdx = 0;
  m->cap = m->n = 0;
}

uint64_t ga_hash_bytes(const void *zv, int n){
  const unsigned char *z = (const unsigned char*)zv;
  uint64_t h = 0x9e3779b97f4a7c15ull ^ (uint64_t)n;
  int i = 0;
  for(; i+8<=n; i+=8){
    uint64_t w;
    memcpy(&w, z + i, 8);
    h = ga_mix64(h ^ w);
  }
  if( i<n ){
    uint64_t w = 0;
    memcpy(&w, z + i, (size_t)(n - i));
    h = ga_mix64(h ^ w ^ 0xff);
  }
  return h;
}
