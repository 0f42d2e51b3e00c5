/*
** The chunk pipeline of one aggregate context.
**
**   1. Values are appended to the fill chunk in the layout of the pipeline's
**      operation. GA_OP_SUM: integers from the front (v[0..ni)), reals from
**      the back (v[hi..cap)), so a full chunk (ni==hi) is one contiguous
**      transfer. GA_OP_MIN/MAX: values in scan order, a type bit set for each
**      real (hi stays cap). GA_OP_HIST and GA_OP_KEEP: doubles in scan
**      order. GA_OP_GROUP: rows (key, value, meta) in scan order, prepared
**      by ga_group_window as each chunk is handed over. GA_OP_STATS: each
**      column's numbers in scan order in its own segment (ga_pipe_columns
**      says how many columns); a chunk goes when one segment is full.
**   2. A full chunk is handed to the backend (asynchronously for CUDA) and
**      filling goes on in a second buffer; the aggregate waits only when it
**      needs the chunk in flight back, i.e. when the second one fills too.
**   3. Each chunk's result is handed to the owner's fold function in chunk
**      order, with the scan position of the chunk's first value, before its
**      slot (and the side data the owner keeps in slot->aux) is reused.
**   4. A CUDA error redoes the chunk on the CPU from the host buffer, and the
**      rest of the pipeline stays on the CPU; in 'cuda' mode it is an SQL
**      error naming the CUDA error instead (ga_device_failed decides).
**   5. Closing lands what is in flight, folds the partial last chunk (on the
**      device only if it is warm and the tail is at least the threshold; a
**      grouping's where its other chunks went) and gives both slots back to
**      the pool, on every path, errors included.
*/
#ifndef GPUAGG_PIPE_H
#define GPUAGG_PIPE_H

#include <string.h>
#include "gpuagg.h"

/* Receives each chunk's result (s->res or s->ext) in order; base is the
** scan position of the chunk's first value. */
typedef void (*ga_fold_fn)(void *pArg, ga_slot *s, const ga_job *j, int64_t base);

typedef struct ga_pipe {
  ga_conn *conn;            /* owner of the slots */
  int op;                   /* enum ga_op: the layout and the reduction */
  ga_fold_fn xFold;         /* where results go */
  void *pFoldArg;           /* its first argument */
  ga_slot *fill;            /* chunk being filled */
  ga_slot *flight;          /* chunk handed over and not yet folded, or NULL */
  int64_t *v;               /* fill->buf */
  uint64_t *bits;           /* fill's type bitmap (GA_OP_MIN/MAX) */
  int ni;                   /* values (GA_OP_SUM: integers) in v[0..ni) */
  int hi;                   /* GA_OP_SUM: reals in v[hi..cap); else cap */
  int cap;                  /* values per chunk */
  int64_t nReal;            /* GA_OP_MIN/MAX: reals in the fill chunk */
  ga_hist *hist;            /* GA_OP_HIST, GA_OP_KEEP: the histogram the chunks feed */
  ga_group *group;          /* GA_OP_GROUP: the grouping the chunks feed */
  uint64_t *gKey, *gVal;    /* GA_OP_GROUP: the fill chunk's keys and values */
  unsigned char *gMeta;     /* ... and meta bytes */
  int nSeg;                 /* GA_OP_STATS: columns (segments of the chunk) */
  int64_t segCap;           /* ... values each segment holds */
  int32_t segN[GA_COLS_MAX];    /* ... values in each segment of the fill chunk */
  int32_t segReal[GA_COLS_MAX]; /* ... how many of them are reals */
  int64_t base;             /* scan position of the fill chunk's first value */
  ga_job flightJob;         /* the job of the chunk in flight */
  int64_t flightBase;       /* ... and its base */
  int flightDone;           /* the flight's result is already in its slot */
  int cpu;                  /* reduce on the CPU from now on */
  int rc;                   /* non-zero once the pipeline failed */
  char zErr[GA_ERRLEN];     /* why it failed */
} ga_pipe;

/* A new pipeline on the connection's current backend. NULL with zErr empty:
** no buffer to be had (fold on the CPU); NULL with zErr set: the backend the
** mode demands cannot be used (an SQL error). */
ga_pipe *ga_pipe_open(ga_conn*, int op, ga_fold_fn, void *pFoldArg, char *zErr);

/* GA_OP_STATS: the chunks hold nSeg columns. Non-zero: a chunk is too
** small for that many (fold on the CPU instead). */
int ga_pipe_columns(ga_pipe*, int nSeg);

/* For an aggregate past its threshold: ga_pipe_open for ctx's connection.
** 1: *pp is open; 0: no buffer, keep folding on the CPU; -1: an SQL error was
** set on ctx. */
int ga_pipe_attach(sqlite3_context *ctx, int op, ga_fold_fn, void *pFoldArg, ga_pipe **pp);

/* The fill chunk is full: hand it over. Non-zero: failed, see p->zErr. */
int ga_pipe_flush(ga_pipe*);

/* Finish: fold every chunk, free the pipeline. Non-zero: failed, the
** message copied into zErr. */
int ga_pipe_close(ga_pipe*, char *zErr);

/* Append one value: the whole per-row cost of the pipeline. */
static inline int ga_pipe_int(ga_pipe *p, int64_t x){
  p->v[p->ni++] = x;
  return p->ni==p->hi ? ga_pipe_flush(p) : 0;
}
static inline int ga_pipe_real(ga_pipe *p, double x){
  ((double*)p->v)[--p->hi] = x;
  return p->ni==p->hi ? ga_pipe_flush(p) : 0;
}
/* GA_OP_HIST, GA_OP_KEEP: append n doubles. */
static inline int ga_pipe_doubles(ga_pipe *p, const double *x, int64_t n){
  while( n>0 ){
    int64_t k = p->hi - p->ni < n ? p->hi - p->ni : n;
    memcpy((double*)p->v + p->ni, x, sizeof(double)*(size_t)k);
    p->ni += (int)k;
    x += k;
    n -= k;
    if( p->ni==p->hi && ga_pipe_flush(p) ) return 1;
  }
  return 0;
}
/* GA_OP_GROUP: append n rows. */
static inline int ga_pipe_rows(ga_pipe *p, const uint64_t *key, const uint64_t *val, const unsigned char *meta,
                               int64_t n){
  while( n>0 ){
    int64_t k = p->hi - p->ni < n ? p->hi - p->ni : n;
    memcpy(p->gKey + p->ni, key, sizeof(uint64_t)*(size_t)k);
    memcpy(p->gVal + p->ni, val, sizeof(uint64_t)*(size_t)k);
    memcpy(p->gMeta + p->ni, meta, (size_t)k);
    p->ni += (int)k;
    key += k; val += k; meta += k;
    n -= k;
    if( p->ni==p->hi && ga_pipe_flush(p) ) return 1;
  }
  return 0;
}
/* GA_OP_STATS: append number x (a real's bits if isReal) to column c. */
static inline int ga_pipe_num(ga_pipe *p, int c, int64_t x, int isReal){
  int64_t i = p->segN[c]++;
  GA_STATS_VALS(p->v, p->segCap, c)[i] = x;
  if( isReal ){
    GA_STATS_BITS(p->v, p->cap, p->segCap, c)[i>>6] |= (uint64_t)1 << (i & 63);
    p->segReal[c]++;
  }
  p->ni++;
  return p->segN[c]==p->segCap ? ga_pipe_flush(p) : 0;
}
/* GA_OP_MIN/MAX: append at the position p->ni (side data for it first). */
static inline int ga_pipe_ordered(ga_pipe *p, int64_t x, int isReal){
  int i = p->ni++;
  p->v[i] = x;
  if( isReal ){
    p->bits[i>>6] |= (uint64_t)1 << (i & 63);
    p->nReal++;
  }
  return p->ni==p->hi ? ga_pipe_flush(p) : 0;
}

#endif /* GPUAGG_PIPE_H */
