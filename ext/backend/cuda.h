/*
** What the CUDA backend's files share (cuda.c: the context, slots, sums,
** extremes and histograms; cuda_group.c: groupings): a slot's device
** state, checked and counted allocations, fault injection, errors.
*/
#ifndef GPUAGG_CUDA_H
#define GPUAGG_CUDA_H

#include <cuda_runtime_api.h>
#include "gpuagg.h"

extern const ga_backend ga_cuda_backend;

/* The backend's process-wide operations (cuda.c; ga_backend's contracts).
** ga_cuda_usable probes the driver once per process (no context is
** created: that waits for the first reduction). Devices: a connection uses
** the first min(N, visible) devices that CUDA_VISIBLE_DEVICES shows (N:
** gpuagg_config 'devices'; 0, the default: all, at most GA_DEV_MAX), less
** any that failed with a sticky error. */
int ga_cuda_usable(char *zWhy);
/* Requirement 1a: 1 where the device serves, 0 where it does not, -1 not
** known yet (the driver being asked on a thread of its own); and that
** thread joined (none: nothing done). */
int ga_cuda_probe_soon(void);
void ga_cuda_probe_join(void);
/* Requirement 1b: the first device's context made on a thread of its own
** (once a process): 1 while that thread is at it, else 0 (done, failed,
** or no thread could start); that thread joined. */
int ga_cuda_warm_soon(void);
void ga_cuda_warm_join(void);
void ga_cuda_describe(sqlite3_str*);
int ga_cuda_allowed(int d, int nDev);
const char *ga_cuda_device_name(int d);
int ga_cuda_fault(const char *zKind, int64_t n, int iDev);
int ga_cuda_ranks(uint64_t *keys, int64_t n, const int64_t *rank, int nRank, uint64_t *out, ga_stats *stats,
                  char *zErr);

/* Kept columns (cuda_resident.c; ga_backend's xCol* contracts). */
int ga_dcol_make(ga_dres **ppRes, const unsigned char *type, const int64_t *v, int64_t n, const int64_t *dictNum,
                 const unsigned char *dictReal, int64_t nDict, int nDev, ga_dcol **pp, int64_t *pBytes, char *zErr);
void ga_dcol_free(ga_dcol*);
int64_t ga_dcol_bytes(int64_t n, int64_t nNum, int64_t nDict);
int64_t ga_dcol_bytes_on(const ga_dcol *d, int iDev);
int64_t ga_cuda_free_bytes(int nDev);
void ga_dres_free(ga_dres*);
int64_t ga_dres_bytes(const ga_dres*);
void ga_dres_trim(ga_dres*);
int ga_dcol_stats(ga_dres**, ga_stats*, ga_dcol *const *a, int n, ga_stat *out, char *zErr);
int ga_dcol_range(ga_dres**, ga_stats*, ga_dcol *d, ga_ext *mn, ga_ext *mx, char *zErr);
int ga_dcol_hist(ga_dres**, ga_stats*, ga_dcol *d, ga_hist *hist, char *zErr);
int ga_dcol_group(ga_dres**, ga_stats*, ga_dcol *k, ga_dcol *v, int64_t nGroup, int places, ga_group *g,
                  char *zErr);
int ga_dcol_ranks(ga_dres**, ga_stats*, ga_dcol *d, const int64_t *rank, int nRank, uint64_t *out, char *zErr);
int ga_dcol_distinct(ga_dres**, ga_stats*, ga_dcol *d, int64_t *pn, char *zErr);
int ga_dcol_query(ga_dres**, ga_stats*, const struct ga_qprog *p, const ga_qcol *a, int64_t nRow,
                  const unsigned char *tabC, const int64_t *tabV, int64_t nTab, ga_group *const *g, char *zErr);
int ga_dcol_order(ga_dres**, ga_stats*, const struct ga_qprog *p, const ga_qcol *a, int64_t nRow,
                  const unsigned char *tabC, const int64_t *tabV, int64_t nTab, int desc, int nullsFirst,
                  int64_t off, int64_t n, int64_t *aRow, int64_t *pnRow, char *zErr);

/* What a CUDA slot holds besides its host buffer. */
typedef struct cuSlot {
  int dev;                  /* the device its device side is on (hRes set) */
  int pinned;               /* slot->buf is registered (page-locked) */
  cudaStream_t st;          /* stream for this slot's work; 0 until first use */
  int64_t *dBuf;            /* device copy of the chunk and its bitmap */
  ga_sum *dPart;            /* per-block partials; the result at [maxBlocks] */
  ga_sum *hRes;             /* pinned: the result lands here (a ga_sum or a ga_ext) */
  int op;                   /* the operation of the job in flight */
  ga_hist *hist;            /* ... and its histogram (GA_OP_HIST, GA_OP_KEEP) */
  cudaEvent_t e0, e1;       /* around the kernels, for kernel time (GA_OP_GROUP:
                            ** e1 is on the grouping's stream: the chunk is done) */
  ga_stat *dStat;           /* GA_OP_STATS: each column's result (device) */
  ga_stat *hStat;           /* ... landed here (pinned) */
  ga_sq *dSqPart;           /* ... per-block partials of squares */
  int nStat;                /* room in dStat and hStat */
  int nStatJob;             /* columns of the job in flight */
} cuSlot;

/* Kinds of CUDA call, for fault injection (gpuagg_fault). */
enum { FAULT_NONE, FAULT_HOST, FAULT_DEVICE, FAULT_COPY, FAULT_LAUNCH, FAULT_SYNC };

/* Does this call of kind k fail on purpose? Always no unless built with
** GPUAGG_FAULTS and gpuagg_fault() armed it. */
int ga_cu_fault_hit(int k);

/* call, unless a fault of kind k is due: then an error that leaves the
** context usable, and the call is not made. */
#define FI(k, call) (ga_cu_fault_hit(k) ? ((k)==FAULT_DEVICE ? cudaErrorMemoryAllocation \
                                        : (k)==FAULT_LAUNCH ? cudaErrorLaunchOutOfResources \
                                        : cudaErrorInvalidValue) : (call))

/* Report e (from zWhat) in zErr; switch CUDA off if the error is sticky.
** Returns 1. */
int ga_cu_fail(cudaError_t e, const char *zWhat, char *zErr);
#define CK(call, zWhat) do{ cudaError_t e_ = (call); \
  if( e_!=cudaSuccess ) return ga_cu_fail(e_, zWhat, zErr); }while(0)

/* Device memory, pinned host memory and streams, counted process-wide
** (gpuagg_info) and open to fault injection ('device'). */
cudaError_t ga_cu_alloc(void **p, size_t n);
void ga_cu_free(void *p);
/* Device blocks kept for reuse (cuda_blocks.c, which ga_cu_alloc and
** ga_cu_free go through): a device's cap from its memory; a live
** allocation recorded; a waiting block of dev that holds n taken (1, into
** *pp) once the device's work queued before its free is done; p freed into
** the waiting blocks (1) or not (0: the caller cudaFrees it); the waiting
** blocks of dev (-1: every device) cudaFree'd, how many; the bytes waiting
** on dev. */
void ga_cu_blocks_device(int dev, size_t nTotal);
size_t ga_cu_blocks_cached(int dev);
void ga_cu_blocks_live(void *p, size_t n, int dev);
int ga_cu_blocks_take(int dev, size_t n, void **pp);
int ga_cu_blocks_put(void *p);
int ga_cu_blocks_trim(int dev);
cudaError_t ga_cu_pinned(void **p, size_t n);
void ga_cu_pinned_free(void *p);
cudaError_t ga_cu_stream(cudaStream_t *p);
void ga_cu_stream_free(cudaStream_t st);   /* waits for its work first */

/* Large host-to-device copies (cuda_upload.c): nb bytes from pageable
** src to dst on device dev, staged through the pinned buffers *pp (made
** at the first large copy, freed by ga_stage_free) by ga_cu_fan_threads()
** workers; every transfer done when it returns. ga_cu_fan: xWork(pArg, i,
** nThr) for i in [0, nThr) on as many threads (the caller's the first). */
#define GA_FAN_MAX 8
typedef struct ga_stage ga_stage;
int ga_cu_upload(ga_stage **pp, int dev, void *dst, const void *src, size_t nb, char *zErr);
void ga_stage_free(ga_stage*);
int ga_cu_fan_threads(void);
void ga_cu_fan(int nThr, void (*xWork)(void *pArg, int iThr, int nThr), void *pArg);

/* Make device d the calling thread's current one, create its context
** (once per process) and load the kernels there; non-zero (zErr set) if it
** cannot be used. The resident blocks of the sum and extreme kernels on d,
** once live. */
int ga_cu_live(int d, char *zErr);
void ga_cu_blocks(int d, int *pSum, int *pExt);
/* Make d the current device again (for work on it after ga_cu_live). */
cudaError_t ga_cu_set(int d);
/* The next of those devices, round robin across the process; -1: none. */
int ga_cu_pick(int nDev);
/* The first of them; -1: none. */
int ga_cu_first(int nDev);
/* Let devices a and b (both live) reach each other's memory directly where
** they can (NVLink or PCIe peer to peer), once per process: peer copies
** between them then go device to device instead of through the host. May
** change the current device. */
void ga_cu_peer(int a, int b);

/* Work on device d, for gpuagg_info: a chunk (or a reduction of kept
** columns) of nb bytes copied over; kernel time. */
static inline void ga_cu_count(ga_stats *st, int d, int64_t nb){
  st->nDevChunk++;
  st->nBytes += nb;
  st->dev[d].nChunk++;
  st->dev[d].nBytes += nb;
}
static inline void ga_cu_ms(ga_stats *st, int d, double ms){
  st->kernelMs += ms;
  st->dev[d].kernelMs += ms;
}

/* Groupings (cuda_group.c): start a GA_OP_GROUP job on slot s (the context
** and the slot's device side exist), and the backend's xGroupDone. */
int ga_cu_group_start(ga_slot *s, const ga_job *j, char *zErr);
int ga_cu_group_done(ga_group *g, int use, char *zErr);
/* Fold n rows of a key column and a value column kept on device dev (values
** kv/vv, classes kc/vc; the first at scan position base) into g's table on
** dev, a piece of at most nPiece rows at a time encoded into scratch
** (17*nPiece bytes); TEXT and BLOB values as ga_res_group_rows_launch says
** (dNum, dNumReal: the value column's dictionary numbers on dev, or NULL;
** places); nGroup: the key column's groups if known, else 0. g's window
** (g->jb) holds every real of the values. e0 and e1 are recorded around the
** work on the table's stream. */
int ga_cu_group_resident(ga_group *g, int dev, int64_t base, const int64_t *kv, const unsigned char *kc,
                         const int64_t *vv, const unsigned char *vc, const int64_t *dNum, const unsigned char *dNumReal,
                         int places, int64_t n, int64_t nGroup, void *scratch, int64_t nPiece, cudaEvent_t e0,
                         cudaEvent_t e1, char *zErr);
/* gpu_query's folds (cuda_resident.c): n grouping rows already on device dev
** (the current one), the first at scan position base, made on another
** stream and ready at event ready, folded into g on g's stream, which then
** records done. nGroup > 0: the groups there can be, at most (the table is
** made for them once, no count read back); else the table grows as it must.
** g->jb holds every real of the values. */
int ga_cu_group_fold(ga_group *g, int dev, const uint64_t *keys, const uint64_t *vals, const unsigned char *meta,
                     int64_t n, int64_t base, int64_t nGroup, cudaEvent_t ready, cudaEvent_t done, char *zErr);

/* Order statistics (cuda_select.c; ga_cuda_ranks's contract) of n keys that
** xFill makes on device dev (the current one) at dKeys, in stream order on
** st; xFill returns non-zero with zErr set on failure. */
typedef int (*ga_keys_fill)(void *pArg, uint64_t *dKeys, cudaStream_t st, char *zErr);
int ga_cuda_ranks_dev(int dev, int64_t n, ga_keys_fill xFill, void *pArg, const int64_t *rank, int nRank,
                      uint64_t *out, ga_stats *stats, char *zErr);

#endif /* GPUAGG_CUDA_H */
