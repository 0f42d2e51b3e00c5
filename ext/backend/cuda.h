/*
** What the CUDA backend's files share (cuda.c: the context, slots, sums,
** extremes and histograms; cuda_group.c: groupings): a slot's device
** state, checked and counted allocations, fault injection, errors.
*/
#ifndef GPUAGG_CUDA_H
#define GPUAGG_CUDA_H

#include <cuda_runtime_api.h>
#include "gpuagg.h"

/* What a CUDA slot holds besides its host buffer. */
typedef struct cuSlot {
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
cudaError_t ga_cu_pinned(void **p, size_t n);
void ga_cu_pinned_free(void *p);
cudaError_t ga_cu_stream(cudaStream_t *p);
void ga_cu_stream_free(cudaStream_t st);   /* waits for its work first */

/* Create the context (once per process) and load the kernels; non-zero
** (zErr set) if CUDA cannot be used. The resident blocks of the sum and
** extreme kernels, once live. */
int ga_cu_live(char *zErr);
void ga_cu_blocks(int *pSum, int *pExt);

/* Groupings (cuda_group.c): start a GA_OP_GROUP job on slot s (the context
** and the slot's device side exist), and the backend's xGroupDone. */
int ga_cu_group_start(ga_slot *s, const ga_job *j, char *zErr);
int ga_cu_group_done(ga_group *g, int use, char *zErr);
/* Fold n rows of a key column and a value column kept on the device (values
** kv/vv, classes kc/vc) into g, a piece of at most nPiece rows at a time
** encoded into scratch (17*nPiece bytes); nGroup: the key column's groups
** if known, else 0. g's window (g->jb) holds every real of the values. */
int ga_cu_group_resident(ga_group *g, const int64_t *kv, const unsigned char *kc, const int64_t *vv,
                         const unsigned char *vc, int64_t n, int64_t nGroup, void *scratch, int64_t nPiece,
                         char *zErr);

/* Order statistics of n device numbers (cuda_select.c; ga_cuda_ranks's
** contract). */
int ga_cuda_ranks_num(const int64_t *num, const uint64_t *bits, int64_t n, const int64_t *rank, int nRank,
                      uint64_t *out, ga_stats *stats, char *zErr);

#endif /* GPUAGG_CUDA_H */
