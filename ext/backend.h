/*
** The backend interface: what the chunk pipeline asks of whatever reduces
** its chunks. Two implementations give the same answers (integers bit for
** bit, reals within a few ulps): backend_cpu.c and backend_cuda.c.
**
**   1. A slot is one chunk buffer and what a backend needs to reduce it.
**      Slots live in a per-connection pool (conn.c) and are reused across
**      queries and groups; only xOpen and xClose allocate or free.
**   2. xStart hands a filled chunk to the backend and may return before the
**      work is done; xWait returns when slot->res holds the result. Between
**      the two, nothing may touch slot->buf.
**   3. Errors return non-zero with a message in zErr (GA_ERRLEN bytes). After
**      any error the chunk is still intact in slot->buf, so the caller can
**      reduce it on the CPU instead (ga_cpu_reduce).
*/
#ifndef GPUAGG_BACKEND_H
#define GPUAGG_BACKEND_H

#ifdef HAVE_CONFIG_H
# include "config.h"
#endif
#include <stdint.h>
#include "sum_acc.h"

#define GA_ERRLEN 256

/* Counters of one connection, reported by gpuagg_info(). */
typedef struct ga_stats {
  int64_t nDevChunk;        /* chunks reduced on the device */
  int64_t nCpuChunk;        /* chunks reduced on the CPU */
  int64_t nBytes;           /* bytes copied host to device */
  double kernelMs;          /* device time of the reduction kernels, ms */
  double waitMs;            /* time queries spent waiting for chunk results, ms */
  int64_t nFallback;        /* chunks redone on the CPU after a CUDA error */
  char zLastErr[GA_ERRLEN]; /* the last CUDA error, "" if none */
} ga_stats;

typedef struct ga_backend ga_backend;
typedef struct ga_slot ga_slot;

struct ga_slot {
  const ga_backend *be;     /* backend that made this slot */
  int64_t *buf;             /* host chunk: cap values of 8 bytes */
  int cap;                  /* values buf holds */
  ga_sum res;               /* result of the last reduction */
  ga_stats *stats;          /* the owning connection's counters */
  void *priv;               /* the backend's own state */
  int bad;                  /* a CUDA error touched it: destroy, never reuse */
  ga_slot *next;            /* next idle slot of the pool */
};

struct ga_backend {
  const char *zName;        /* "cpu" or "cuda" */
  /* Allocate slot->buf for slot->cap values and any backend state. */
  int (*xOpen)(ga_slot*, char *zErr);
  /* A slot leaves the pool for a new pipeline (may upgrade its buffer). */
  void (*xReady)(ga_slot*);
  /* Free everything xOpen and later calls allocated; waits for work first. */
  void (*xClose)(ga_slot*);
  /* Start reducing buf[0..n): ni int64 values, then n-ni doubles. */
  int (*xStart)(ga_slot*, int64_t n, int64_t ni, char *zErr);
  /* Wait for the reduction started last; the result goes to slot->res. */
  int (*xWait)(ga_slot*, char *zErr);
  /* True when a reduction costs no one-time setup (CUDA: a context exists). */
  int (*xWarm)(void);
};

extern const ga_backend ga_cpu_backend;

/* Memory for a chunk buffer (free() it). */
void *ga_host_alloc(size_t n);

/* Reduce buf[0..n) (ni ints, then doubles) on the calling thread into *out
** (which is reset first). Both backends' fallback and the CPU backend. */
void ga_cpu_reduce(const int64_t *buf, int64_t n, int64_t ni, ga_sum *out);

/*
** CUDA. ga_cuda_usable probes the driver once per process (no context is
** created: that waits for the first reduction) and says why not when it
** cannot be used. ga_cuda_describe writes the device's JSON fields.
*/
#ifdef GPUAGG_CUDA
extern const ga_backend ga_cuda_backend;
int ga_cuda_usable(char *zWhy);
struct sqlite3_str;
void ga_cuda_describe(struct sqlite3_str*);
#else
#include <string.h>
static inline int ga_cuda_usable(char *zWhy){
  strcpy(zWhy, "this gpuagg was built without CUDA");
  return 0;
}
#endif

#endif /* GPUAGG_BACKEND_H */
