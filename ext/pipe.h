/*
** The chunk pipeline of one aggregate context.
**
**   1. Values are appended to the fill chunk: integers from the front
**      (v[0..ni)), reals from the back (v[hi..cap)), so int64 stays exact and
**      a full chunk (ni==hi) is one contiguous transfer of cap values.
**   2. A full chunk is handed to the backend (asynchronously for CUDA) and
**      filling goes on in a second buffer; the aggregate waits only when it
**      needs the chunk in flight back, i.e. when the second one fills too.
**   3. Results are folded in chunk order: the same input order gives the same
**      bits.
**   4. A CUDA error redoes the chunk on the CPU from the host buffer, and the
**      rest of the pipeline stays on the CPU; in strict mode (backend forced
**      to cuda) it is an SQL error naming the CUDA error instead.
**   5. Closing lands what is in flight, folds the partial last chunk (on the
**      device only if it is warm and the tail is at least the threshold) and
**      gives both slots back to the pool, on every path, errors included.
*/
#ifndef GPUAGG_PIPE_H
#define GPUAGG_PIPE_H

#include "gpuagg.h"

typedef struct ga_pipe {
  ga_conn *conn;            /* owner of the slots */
  ga_slot *fill;            /* chunk being filled */
  ga_slot *flight;          /* chunk handed over and not yet folded, or NULL */
  int64_t *v;               /* fill->buf */
  int ni;                   /* integers fill v[0..ni) */
  int hi;                   /* reals fill v[hi..cap), growing down */
  int cap;                  /* values per chunk */
  int64_t flightN;          /* values of the chunk in flight */
  int64_t flightNi;         /* ... of which integers */
  int flightDone;           /* flight->res already holds its result */
  int cpu;                  /* reduce on the CPU from now on */
  int strict;               /* CUDA errors stop the query instead */
  int rc;                   /* non-zero once the pipeline failed */
  ga_sum acc;               /* chunk results folded so far, in order */
  int64_t nInt;             /* integer values handed to chunks */
  int64_t nReal;            /* real values handed to chunks */
  char zErr[GA_ERRLEN];     /* why it failed */
} ga_pipe;

/* A new pipeline on the connection's current backend. NULL with zErr empty:
** no buffer to be had (fold on the CPU); NULL with zErr set: the backend the
** mode demands cannot be used (an SQL error). */
ga_pipe *ga_pipe_open(ga_conn*, char *zErr);

/* The fill chunk is full: hand it over. Non-zero: failed, see p->zErr. */
int ga_pipe_flush(ga_pipe*);

/* Finish: fold everything into *acc (after what it holds), add the counts,
** free the pipeline. Non-zero: failed, message copied into zErr. */
int ga_pipe_close(ga_pipe*, ga_sum *acc, int64_t *nInt, int64_t *nReal, char *zErr);

/* Append one value: the whole per-row cost of the pipeline. */
static inline int ga_pipe_int(ga_pipe *p, int64_t x){
  p->v[p->ni++] = x;
  return p->ni==p->hi ? ga_pipe_flush(p) : 0;
}
static inline int ga_pipe_real(ga_pipe *p, double x){
  ((double*)p->v)[--p->hi] = x;
  return p->ni==p->hi ? ga_pipe_flush(p) : 0;
}

#endif /* GPUAGG_PIPE_H */
