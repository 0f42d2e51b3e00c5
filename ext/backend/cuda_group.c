/*
** Groupings on the device (backend.h's ga_group, kernels/group.cu).
**
**   1. A grouping's device state (ga_group.dev) is a hash table of
**      accumulators, its own stream, and a count of the slots in use. Each
**      chunk is copied on its slot's stream; the grouping's stream waits for
**      the copy and folds it, so chunks fold one after another into one
**      table while the next chunk fills. The slot is free again once the
**      fold is done (its event e1, on the grouping's stream).
**   2. The table is kept at most half full: before a chunk of n rows, if
**      the slots in use (as last read back) plus the rows since plus n could
**      pass half, the count is read back (a small copy, once per chunk at
**      most) and the table grown to twice what it must hold, its groups
**      placed anew. No call per row or per group.
**   3. Every GA_CARRY_ROWS rows the accumulators' words are carried.
**   4. At the end the slots in use are compacted, sorted by ga_key_order
**      (CUB), finished (with the reals the host summed) and copied back as
**      ga_grow rows, numeric groups first in order; where the caller gave
**      conditions (ga_group.have: HAVING's), only the groups that may meet
**      them are picked there (CUB's select) and copied.
**   5. Any CUDA error is reported by name; the grouping is then lost (the
**      caller groups again on the CPU, or fails in 'cuda' mode).
**   6. Each device a grouping's chunks (or a kept column's parts) went to
**      holds its own table (ga_group.dev is a list). With one, 4 gathers
**      the groups; with more, each table's accumulators are carried, copied
**      to the host and added into the CPU's table (ga_cpu_group_add: every
**      part is a sum of integers, a maximum or a best candidate), which
**      finishes them as it would its own. The bits are the same either way.
**   7. count(DISTINCT)'s groupings (ga_group.codes) are counted by code
**      where they are (group_acc.h, 7) and only the counts copied back.
*/
#include <stdlib.h>
#include <string.h>
#include "gpuagg_kernels.h"
#include "kmap.h"
#include "cuda.h"

typedef struct cuGroup {
  int dev;                      /* the device */
  struct cuGroup *next;         /* the table on another device */
  cudaStream_t st;              /* the grouping's work, chunk after chunk */
  ga_gent *ent;                 /* the table: cap entries */
  ga_gacc *acc;                 /* ... and accumulators */
  int64_t cap;                  /* slots: a power of two; 0 until the first chunk */
  unsigned long long *dCount;   /* slots in use (device) */
  unsigned long long *hCount;   /* ... read back here (pinned) */
  int64_t nKnown;               /* slots in use at the last look */
  int64_t nSince;               /* rows folded since */
  int64_t nRows;                /* rows folded: a carry each GA_CARRY_ROWS */
} cuGroup;

/* g's state on device d (the current one), made at its first chunk there. */
static int groupState(ga_group *g, int d, cuGroup **pc, char *zErr){
  cuGroup *c;
  for(c=(cuGroup*)g->dev; c && c->dev!=d; c=c->next){}
  if( c ){
    *pc = c;
    return 0;
  }
  if( (c = calloc(1, sizeof(cuGroup)))==0 ){
    strcpy(zErr, "gpuagg: out of memory");
    return 1;
  }
  c->dev = d;
  c->next = (cuGroup*)g->dev;
  g->dev = *pc = c;
  CK(ga_cu_stream(&c->st), "cudaStreamCreate (grouping)");
  CK(ga_cu_alloc((void**)&c->dCount, sizeof(unsigned long long)), "cudaMalloc (grouping)");
  CK(ga_cu_pinned((void**)&c->hCount, sizeof(unsigned long long)), "cudaHostAlloc (grouping)");
  CK(FI(FAULT_COPY, cudaMemsetAsync(c->dCount, 0, sizeof(unsigned long long), c->st)), "cudaMemsetAsync");
  return 0;
}

/* The slots in use, read back (waits for the folds started). */
static int groupCount(cuGroup *c, char *zErr){
  CK(FI(FAULT_COPY, cudaMemcpyAsync(c->hCount, c->dCount, sizeof(unsigned long long), cudaMemcpyDeviceToHost, c->st)),
     "cudaMemcpyAsync (group count)");
  CK(FI(FAULT_SYNC, cudaStreamSynchronize(c->st)), "cudaStreamSynchronize (grouping)");
  c->nKnown = (int64_t)*c->hCount;
  c->nSince = 0;
  return 0;
}

/* Room for n more rows' groups: the table at most half full after them. */
static int groupRoom(cuGroup *c, int64_t n, char *zErr){
  int64_t cap;
  ga_gent *ent = 0;
  ga_gacc *acc = 0;
  cudaError_t e;
  if( 2*(c->nKnown + c->nSince + n) <= c->cap ) return 0;
  if( c->nSince && groupCount(c, zErr) ) return 1;
  if( 2*(c->nKnown + n) <= c->cap ) return 0;
  for(cap = c->cap ? 2*c->cap : 1024; cap < 2*(c->nKnown + n); cap *= 2){}
  e = ga_cu_alloc((void**)&ent, sizeof(ga_gent)*(size_t)cap);
  if( e==cudaSuccess ) e = ga_cu_alloc((void**)&acc, sizeof(ga_gacc)*(size_t)cap);
  if( e==cudaSuccess ) e = FI(FAULT_COPY, cudaMemsetAsync(ent, 0, sizeof(ga_gent)*(size_t)cap, c->st));
  if( e==cudaSuccess ) e = FI(FAULT_COPY, cudaMemsetAsync(acc, 0, sizeof(ga_gacc)*(size_t)cap, c->st));
  if( e==cudaSuccess && c->cap ) e = FI(FAULT_LAUNCH, ga_group_rehash(c->ent, c->acc, c->cap, ent, acc, cap, c->st));
  if( e==cudaSuccess ) e = FI(FAULT_SYNC, cudaStreamSynchronize(c->st));
  if( e!=cudaSuccess ){
    ga_cu_free(ent);
    ga_cu_free(acc);
    return ga_cu_fail(e, "growing the group table", zErr);
  }
  ga_cu_free(c->ent);
  ga_cu_free(c->acc);
  c->ent = ent;
  c->acc = acc;
  c->cap = cap;
  return 0;
}

int ga_cu_group_start(ga_slot *s, const ga_job *j, char *zErr){
  cuSlot *q = (cuSlot*)s->priv;
  ga_group *g = j->group;
  int64_t n = j->n;
  cuGroup *c;
  if( groupState(g, q->dev, &c, zErr) ) return 1;
  /* The rows, each array to its place in the device buffer. */
  CK(FI(FAULT_COPY, cudaMemcpyAsync(GA_GROUP_KEYS(q->dBuf, s->cap), GA_GROUP_KEYS(s->buf, s->cap),
                                    sizeof(uint64_t)*(size_t)n, cudaMemcpyHostToDevice, q->st)), "cudaMemcpyAsync (keys)");
  CK(FI(FAULT_COPY, cudaMemcpyAsync(GA_GROUP_VALS(q->dBuf, s->cap), GA_GROUP_VALS(s->buf, s->cap),
                                    sizeof(uint64_t)*(size_t)n, cudaMemcpyHostToDevice, q->st)), "cudaMemcpyAsync (values)");
  CK(FI(FAULT_COPY, cudaMemcpyAsync(GA_GROUP_META(q->dBuf, s->cap), GA_GROUP_META(s->buf, s->cap),
                                    (size_t)n, cudaMemcpyHostToDevice, q->st)), "cudaMemcpyAsync (meta)");
  CK(cudaEventRecord(q->e0, q->st), "cudaEventRecord");
  CK(cudaStreamWaitEvent(c->st, q->e0, 0), "cudaStreamWaitEvent");
  if( groupRoom(c, n, zErr) ) return 1;
  if( (c->nRows + n)/GA_CARRY_ROWS > c->nRows/GA_CARRY_ROWS ){
    CK(FI(FAULT_LAUNCH, ga_group_carry(c->ent, c->acc, c->cap, c->st)), "the carry kernel");
  }
  CK(FI(FAULT_LAUNCH, ga_group_launch(GA_GROUP_KEYS(q->dBuf, s->cap), GA_GROUP_VALS(q->dBuf, s->cap),
                                      GA_GROUP_META(q->dBuf, s->cap), n, j->base, g->jb, c->ent, c->acc, c->cap,
                                      c->dCount, c->st)), "the grouping kernel");
  CK(cudaEventRecord(q->e1, c->st), "cudaEventRecord");
  c->nRows += n;
  c->nSince += n;
  ga_cu_count(s->stats, q->dev, (int64_t)(17*n));
  return 0;
}

/* The reals the host summed, to the device: entries (key, tag) by index
** and their settled sums; *pIdx the slot -> index map (-1: none). */
static int groupExc(ga_group *g, cuGroup *c, ga_gent **pEnt, ga_sum **pExc, int **pIdx, char *zErr){
  const ga_kmap *m = g->excMap;
  ga_gent *hEnt = malloc(sizeof(ga_gent)*(size_t)g->nExc);
  int64_t i;
  cudaError_t e;
  if( hEnt==0 ){
    strcpy(zErr, "gpuagg: out of memory");
    return 1;
  }
  for(i=0; i<m->cap; i++){
    if( m->aTag[i]==0 ) continue;
    hEnt[m->aIdx[i]].key = m->aKey[i];
    hEnt[m->aIdx[i]].tag = m->aTag[i];
  }
  for(i=0; i<g->nExc; i++) ga_words_norm(g->exc[i].w);
  e = ga_cu_alloc((void**)pEnt, sizeof(ga_gent)*(size_t)g->nExc);
  if( e==cudaSuccess ) e = ga_cu_alloc((void**)pExc, sizeof(ga_sum)*(size_t)g->nExc);
  if( e==cudaSuccess ) e = ga_cu_alloc((void**)pIdx, sizeof(int)*(size_t)c->cap);
  if( e==cudaSuccess ) e = FI(FAULT_COPY, cudaMemcpyAsync(*pEnt, hEnt, sizeof(ga_gent)*(size_t)g->nExc,
                                                       cudaMemcpyHostToDevice, c->st));
  if( e==cudaSuccess ) e = FI(FAULT_COPY, cudaMemcpyAsync(*pExc, g->exc, sizeof(ga_sum)*(size_t)g->nExc,
                                                       cudaMemcpyHostToDevice, c->st));
  if( e==cudaSuccess ) e = FI(FAULT_COPY, cudaMemsetAsync(*pIdx, 0xff, sizeof(int)*(size_t)c->cap, c->st));
  if( e==cudaSuccess ) e = FI(FAULT_LAUNCH, ga_group_exc(c->ent, c->cap, *pEnt, g->nExc, *pIdx, c->st));
  if( e==cudaSuccess ) e = FI(FAULT_SYNC, cudaStreamSynchronize(c->st));   /* hEnt is read */
  free(hEnt);
  return e==cudaSuccess ? 0 : ga_cu_fail(e, "the host's sums, to the device", zErr);
}

/* Every group, finished and in order (unless g->anyOrder: then in the
** table's, with no sort), into g->res: those that may meet g->have alone,
** picked on the device (group_acc.h, 6), so that only they cross the bus
** (TPC-H Q18's HAVING keeps 71 of 1.5M groups at SF 1; its IN is a set, and
** the sort of the 1.5M was 0.2 of its 3.7 ms). */
static int groupCollect(ga_group *g, cuGroup *c, char *zErr){
  int64_t G, m, *idx = 0, *idx2 = 0, *dM = 0;
  uint64_t *ord = 0, *ord2 = 0;
  ga_grow *out = 0, *out2 = 0;
  ga_gent *excEnt = 0;
  ga_sum *exc = 0;
  int *excIdx = 0, rc = 0, pick = g->have.n>0;
  void *temp = 0;
  size_t nTemp = 0, nPick = 0;
  cudaError_t e = cudaSuccess;
  const char *zWhat = "collecting the groups";
  if( groupCount(c, zErr) ) return 1;
  G = g->nAll = c->nKnown;
  free(g->res);
  g->res = 0;
  if( G==0 ){
    g->res = malloc(sizeof(ga_grow));
    return g->res==0 ? (strcpy(zErr, "gpuagg: out of memory"), 1) : 0;
  }
  if( g->nExc && groupExc(g, c, &excEnt, &exc, &excIdx, zErr) ){
    rc = 1;
  }else{
    e = ga_cu_alloc((void**)&idx, sizeof(int64_t)*(size_t)G);
    if( e==cudaSuccess && !g->anyOrder ) e = ga_cu_alloc((void**)&idx2, sizeof(int64_t)*(size_t)G);
    if( e==cudaSuccess ) e = ga_cu_alloc((void**)&ord, sizeof(uint64_t)*(size_t)G);
    if( e==cudaSuccess && !g->anyOrder ) e = ga_cu_alloc((void**)&ord2, sizeof(uint64_t)*(size_t)G);
    if( e==cudaSuccess ) e = ga_cu_alloc((void**)&out, sizeof(ga_grow)*(size_t)G);
    if( e==cudaSuccess && pick ) e = ga_cu_alloc((void**)&out2, sizeof(ga_grow)*(size_t)G + 16);
    /* The count is reused as the compaction's cursor. */
    if( e==cudaSuccess ) e = FI(FAULT_COPY, cudaMemsetAsync(c->dCount, 0, sizeof(unsigned long long), c->st));
    if( e==cudaSuccess ) e = FI(FAULT_LAUNCH, ga_group_compact(c->ent, c->cap, idx, ord, c->dCount, c->st));
    if( e==cudaSuccess && !g->anyOrder ) e = ga_group_sort(0, &nTemp, ord, ord2, idx, idx2, G, c->st);
    if( e==cudaSuccess && pick ) e = ga_group_keep(0, &nPick, out, G, &g->have, out2, 0, c->st);
    if( e==cudaSuccess ) e = ga_cu_alloc(&temp, (nTemp>nPick ? nTemp : nPick) + 1);
    if( e==cudaSuccess ) nTemp = nPick = (nTemp>nPick ? nTemp : nPick) + 1;
    if( e==cudaSuccess && !g->anyOrder ) e = FI(FAULT_LAUNCH, ga_group_sort(temp, &nTemp, ord, ord2, idx, idx2, G, c->st));
    if( e==cudaSuccess ) e = FI(FAULT_LAUNCH, ga_group_final(c->ent, c->acc, g->anyOrder ? idx : idx2, G, g->jb, excIdx,
                                                          exc, out, c->st));
    m = G;
    if( e==cudaSuccess && pick ){
      /* the picked groups after out2's, their count copied back through the pinned word */
      dM = (int64_t*)(out2 + G);
      e = FI(FAULT_LAUNCH, ga_group_keep(temp, &nPick, out, G, &g->have, out2, dM, c->st));
      if( e==cudaSuccess ) e = FI(FAULT_COPY, cudaMemcpyAsync(c->hCount, dM, sizeof(int64_t), cudaMemcpyDeviceToHost,
                                                           c->st));
      if( e==cudaSuccess ) e = FI(FAULT_SYNC, cudaStreamSynchronize(c->st));
      if( e==cudaSuccess ) m = (int64_t)*c->hCount;
      if( e==cudaSuccess && (m<0 || m>G) ) e = cudaErrorUnknown;   /* (never) */
    }
    if( e==cudaSuccess && (g->res = malloc(sizeof(ga_grow)*(size_t)(m ? m : 1)))==0 ){
      strcpy(zErr, "gpuagg: out of memory");
      rc = 1;
    }
    if( e==cudaSuccess && rc==0 && m ) e = FI(FAULT_COPY, cudaMemcpyAsync(g->res, pick ? out2 : out, sizeof(ga_grow)*(size_t)m,
                                                                       cudaMemcpyDeviceToHost, c->st));
    if( e==cudaSuccess && rc==0 ) e = FI(FAULT_SYNC, cudaStreamSynchronize(c->st));
    if( e!=cudaSuccess ) rc = ga_cu_fail(e, zWhat, zErr);
    else if( rc==0 ) g->nRes = m;
  }
  ga_cu_free(idx); ga_cu_free(idx2); ga_cu_free(ord); ga_cu_free(ord2); ga_cu_free(out); ga_cu_free(out2);
  ga_cu_free(temp); ga_cu_free(excEnt); ga_cu_free(exc); ga_cu_free(excIdx);
  return rc;
}

/* count(DISTINCT)'s groups counted by code on the device (group_acc.h, 7),
** the counts copied into g->codes->aCount: only they cross the bus (TPC-H
** Q16: 187,500 codes; 118,000 groups at SF 1, 1.2M at SF 10). */
static int groupCodes(ga_group *g, cuGroup *c, char *zErr){
  const ga_gcodes *x = g->codes;
  unsigned long long *dCount = 0;
  int *dBad = 0;
  cudaError_t e;
  free(g->res);
  g->res = 0;
  g->nRes = 0;
  if( c->cap==0 ) return 0;
  e = ga_cu_alloc((void**)&dCount, sizeof(unsigned long long)*(size_t)x->nCode + sizeof(unsigned long long));
  if( e==cudaSuccess ){
    dBad = (int*)(dCount + x->nCode);
    e = FI(FAULT_COPY, cudaMemsetAsync(dCount, 0, sizeof(unsigned long long)*(size_t)(x->nCode + 1), c->st));
  }
  if( e==cudaSuccess ) e = FI(FAULT_LAUNCH, ga_group_codes(c->ent, c->cap, x, dCount, dBad, c->st));
  if( e==cudaSuccess ) e = FI(FAULT_COPY, cudaMemcpyAsync(x->aCount, dCount, sizeof(int64_t)*(size_t)x->nCode,
                                                       cudaMemcpyDeviceToHost, c->st));
  if( e==cudaSuccess ) e = FI(FAULT_COPY, cudaMemcpyAsync(c->hCount, dCount + x->nCode, sizeof(unsigned long long),
                                                       cudaMemcpyDeviceToHost, c->st));
  if( e==cudaSuccess ) e = FI(FAULT_SYNC, cudaStreamSynchronize(c->st));
  ga_cu_free(dCount);
  if( e!=cudaSuccess ) return ga_cu_fail(e, "counting count(DISTINCT)'s groups", zErr);
  if( *c->hCount ){
    strcpy(zErr, "gpuagg: a count(DISTINCT) group's code out of range");
    return 1;
  }
  return 0;
}

/* c's groups, carried, added into g's CPU table (6). */
static int groupExport(ga_group *g, cuGroup *c, char *zErr){
  ga_gent *ent = malloc(sizeof(ga_gent)*(size_t)(c->cap ? c->cap : 1));
  ga_gacc *acc = malloc(sizeof(ga_gacc)*(size_t)(c->cap ? c->cap : 1));
  cudaError_t e = cudaSuccess;
  int rc = 0;
  if( ent==0 || acc==0 ){
    strcpy(zErr, "gpuagg: out of memory");
    rc = 1;
  }else if( c->cap ){
    e = FI(FAULT_LAUNCH, ga_group_carry(c->ent, c->acc, c->cap, c->st));
    if( e==cudaSuccess ) e = FI(FAULT_COPY, cudaMemcpyAsync(ent, c->ent, sizeof(ga_gent)*(size_t)c->cap,
                                                         cudaMemcpyDeviceToHost, c->st));
    if( e==cudaSuccess ) e = FI(FAULT_COPY, cudaMemcpyAsync(acc, c->acc, sizeof(ga_gacc)*(size_t)c->cap,
                                                         cudaMemcpyDeviceToHost, c->st));
    if( e==cudaSuccess ) e = FI(FAULT_SYNC, cudaStreamSynchronize(c->st));
    if( e!=cudaSuccess ) rc = ga_cu_fail(e, "copying a device's groups", zErr);
    else if( ga_cpu_group_add(g, ent, acc, c->cap) ){
      strcpy(zErr, "gpuagg: out of memory");
      rc = 1;
    }
  }
  free(ent);
  free(acc);
  return rc;
}

int ga_cu_group_done(ga_group *g, int use, char *zErr){
  cuGroup *c = (cuGroup*)g->dev;
  int rc = 0;
  if( c==0 ) return 0;
  if( use && c->next==0 ){
    rc = ga_cu_set(c->dev)!=cudaSuccess ? ga_cu_fail(cudaGetLastError(), "cudaSetDevice", zErr)
                                        : g->codes ? groupCodes(g, c, zErr) : groupCollect(g, c, zErr);
  }else if( use ){
    for(; c && rc==0; c=c->next){
      rc = ga_cu_set(c->dev)!=cudaSuccess ? ga_cu_fail(cudaGetLastError(), "cudaSetDevice", zErr)
                                          : groupExport(g, c, zErr);
    }
    if( rc==0 ) rc = ga_cpu_group_done(g, 1, zErr);
  }
  if( rc ) g->lost = 1;
  while( (c = (cuGroup*)g->dev)!=0 ){
    (void)ga_cu_set(c->dev);
    ga_cu_stream_free(c->st);
    ga_cu_free(c->ent);
    ga_cu_free(c->acc);
    ga_cu_free(c->dCount);
    ga_cu_pinned_free(c->hCount);
    (void)cudaGetLastError();
    g->dev = c->next;
    free(c);
  }
  return rc;
}

/* Columns kept on the device (cuda_resident.c): pieces encoded on the
** grouping's stream into scratch and folded there, one after another, so
** the scratch is free again when the next piece is encoded into it. With
** the number of groups known (nGroup > 0: the key column's, from an earlier
** grouping of the same kept column) the table is made for them once and
** no count is read back; else it grows as group_acc.h (2) says, a piece at
** a time. */
int ga_cu_group_resident(ga_group *g, int dev, int64_t base, const int64_t *kv, const unsigned char *kc,
                         const int64_t *vv, const unsigned char *vc, const int64_t *dNum, const unsigned char *dNumReal,
                         int places, int64_t n, int64_t nGroup, void *scratch, int64_t nPiece, cudaEvent_t e0,
                         cudaEvent_t e1, char *zErr){
  uint64_t *keys = (uint64_t*)scratch, *vals = keys + nPiece;
  unsigned char *meta = (unsigned char*)(vals + nPiece);
  int64_t i;
  cuGroup *c;
  if( groupState(g, dev, &c, zErr) ) return 1;
  if( nGroup>0 && groupRoom(c, nGroup, zErr) ) return 1;
  CK(cudaEventRecord(e0, c->st), "cudaEventRecord");
  for(i=0; i<n; i+=nPiece){
    int64_t k = n - i < nPiece ? n - i : nPiece;
    CK(FI(FAULT_LAUNCH, ga_res_group_rows_launch(kv + i, kc + i, vv + i, vc + i, k, dNum, dNumReal, places, keys,
                                                          vals, meta, c->st)),
       "the row encoding kernel");
    if( nGroup<=0 && groupRoom(c, k, zErr) ) return 1;
    if( (c->nRows + k)/GA_CARRY_ROWS > c->nRows/GA_CARRY_ROWS ){
      CK(FI(FAULT_LAUNCH, ga_group_carry(c->ent, c->acc, c->cap, c->st)), "the carry kernel");
    }
    CK(FI(FAULT_LAUNCH, ga_group_launch(keys, vals, meta, k, base + i, g->jb, c->ent, c->acc, c->cap, c->dCount, c->st)),
       "the grouping kernel");
    c->nRows += k;
    c->nSince += k;
  }
  CK(cudaEventRecord(e1, c->st), "cudaEventRecord");
  return 0;
}

int ga_cu_group_fold(ga_group *g, int dev, const uint64_t *keys, const uint64_t *vals, const unsigned char *meta,
                     int64_t n, int64_t base, int64_t nGroup, cudaEvent_t ready, cudaEvent_t done, char *zErr){
  cuGroup *c;
  if( groupState(g, dev, &c, zErr) ) return 1;
  CK(cudaStreamWaitEvent(c->st, ready, 0), "cudaStreamWaitEvent");
  if( nGroup>0 ? c->cap==0 && groupRoom(c, nGroup, zErr) : groupRoom(c, n, zErr) ) return 1;
  if( (c->nRows + n)/GA_CARRY_ROWS > c->nRows/GA_CARRY_ROWS ){
    CK(FI(FAULT_LAUNCH, ga_group_carry(c->ent, c->acc, c->cap, c->st)), "the carry kernel");
  }
  CK(FI(FAULT_LAUNCH, ga_group_launch(keys, vals, meta, n, base, g->jb, c->ent, c->acc, c->cap, c->dCount, c->st)),
     "the grouping kernel");
  CK(cudaEventRecord(done, c->st), "cudaEventRecord");
  c->nRows += n;
  c->nSince += n;
  return 0;
}
