/*
** The C face of gpuagg's CUDA kernels. Host code (ext/backend/cuda.c, the
** benchmarks) calls these launchers; every one only enqueues work on the
** given stream and returns the launch's error code, never synchronizes.
**
** A chunk is an array of 8-byte values: the first ni are int64 (the integer
** lane), the remaining n-ni are doubles (the real lane). It must be 16-byte
** aligned (cudaMalloc memory is).
*/
#ifndef GPUAGG_KERNELS_H
#define GPUAGG_KERNELS_H

#include <stdint.h>
#include <cuda_runtime_api.h>
#include "sum_acc.h"
#include "ext_acc.h"
#include "hist_acc.h"
#include "group_acc.h"
#include "sq_acc.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Threads per block of the sum kernels (a fixed launch shape). */
#define GA_SUM_THREADS 256

/* Blocks of one sum launch over n values, given the most blocks the device
** keeps resident (ga_sum_max_blocks). A function of n and the device only,
** so the reduction tree, and with it every bit of the result, is fixed. */
int ga_sum_blocks(int64_t n, int max_blocks);

/* Most sum blocks resident on the current device at once. */
cudaError_t ga_sum_max_blocks(int *max_blocks);

/*
** Sum the chunk d_vals[0..n) into *d_out (device memory). d_part is scratch
** for ga_sum_blocks(n, max_blocks) per-block partials.
**
** Determinism: every lane is exact (integers in 128 bits, reals in binned
** levels and exponent buckets whose shared-memory integer atomics commute;
** sum.cu), so the settled total has the same bits in any order, on any grid
** or device, and equals the CPU backend's (sum_acc.h).
*/
cudaError_t ga_sum_launch(const int64_t *d_vals, int64_t n, int64_t ni,
                          ga_sum *d_part, int max_blocks, ga_sum *d_out,
                          cudaStream_t stream);

/* The same over values in scan order whose types the bitmap d_bits says
** (bit i set: value i is a double), as the extremes' chunks hold them. */
cudaError_t ga_sum_bits_launch(const int64_t *d_vals, const uint64_t *d_bits, int64_t n,
                               ga_sum *d_part, int max_blocks, ga_sum *d_out, cudaStream_t stream);

/*
** The exact sum of squares (sq_acc.h) of d_vals[0..n), typed by d_bits as
** above, into *d_out. d_part: scratch for ga_sum_blocks(n, max_blocks)
** partials.
**
** Determinism: squares are kept in integers, or in an error-free expansion
** whose overflow goes to integer words: the exact total, the same bits on
** any launch shape.
*/
cudaError_t ga_sq_launch(const int64_t *d_vals, const uint64_t *d_bits, int64_t n,
                         ga_sq *d_part, int max_blocks, ga_sq *d_out, cudaStream_t stream);

/* Most extreme-kernel blocks resident on the current device at once. */
cudaError_t ga_ext_max_blocks(int *max_blocks);

/*
** The extreme (is_max: largest, else smallest) of d_vals[0..n) in SQLite's
** order and its first position, into *d_out. mode: GA_T_INT or GA_T_REAL if
** every value has that type (d_bits unused), 0 if d_bits (bit i set: value i
** is a double) says. d_part: scratch for ga_sum_blocks(n, max_blocks)
** partials.
**
** Determinism: ties go to the lower position at every level (thread, warp,
** block, final block): the first occurrence, whatever the launch shape.
*/
cudaError_t ga_ext_launch(const int64_t *d_vals, const uint64_t *d_bits, int64_t n,
                          int mode, int is_max, ga_ext *d_part, int max_blocks,
                          ga_ext *d_out, cudaStream_t stream);

/*
** Count the doubles d_vals[0..n) into d_counts[0..h->bins) (added to what is
** there), bins as hist_acc.h computes them. Launches on any number of
** streams may add into the same counts at once.
**
** Determinism: integer counts, exact whatever the order of the atomics.
*/
cudaError_t ga_hist_launch(const double *d_vals, int64_t n, const ga_hparams *h,
                           unsigned long long *d_counts, cudaStream_t stream);

/* Once per process, on the device the launches will use, before the first
** ga_hist_launch: raise the kernels' shared-memory limits and count how many
** blocks of each stay resident. */
cudaError_t ga_hist_prepare(void);

/*
** Grouping (group_acc.h): a hash table of cap slots (a power of two) of
** entries and accumulators, zeroed before its first use, at most half full,
** and the count of slots in use (*d_count).
**
** ga_group_launch folds rows d_keys/d_vals/d_meta[0..n), the first at scan
** position base, into it. Each block keeps a small table of its own in
** shared memory for the groups it meets first and adds it in at its end;
** other rows go to the table's accumulators with atomics.
**
** Determinism: every accumulator field is an integer sum, a max, or a
** packed extreme kept by compare and swap (ties by position): the same
** table whatever the order of the atomics. Slots differ between runs; the
** caller orders groups by key.
*/
cudaError_t ga_group_launch(const uint64_t *d_keys, const uint64_t *d_vals, const unsigned char *d_meta,
                            int64_t n, int64_t base, int jb, ga_gent *d_ent, ga_gacc *d_acc, int64_t cap,
                            unsigned long long *d_count, cudaStream_t stream);

/* Place every group of a table of old_cap slots into an empty one of cap. */
cudaError_t ga_group_rehash(const ga_gent *d_old_ent, const ga_gacc *d_old_acc, int64_t old_cap,
                            ga_gent *d_ent, ga_gacc *d_acc, int64_t cap, cudaStream_t stream);

/* Carry every accumulator's words (ga_gacc_carry): due each GA_CARRY_ROWS rows. */
cudaError_t ga_group_carry(const ga_gent *d_ent, ga_gacc *d_acc, int64_t cap, cudaStream_t stream);

/* The slots in use into d_idx[0..*d_n) with their places in the order of
** keys (ga_key_order) in d_order; *d_n must be zero before. */
cudaError_t ga_group_compact(const ga_gent *d_ent, int64_t cap, int64_t *d_idx, uint64_t *d_order,
                             unsigned long long *d_n, cudaStream_t stream);

/* Sort n (order, slot) pairs by order (CUB's radix sort, stable): from
** d_order/d_idx into d_order2/d_idx2. d_temp NULL: *temp_bytes gets the
** scratch it needs. */
cudaError_t ga_group_sort(void *d_temp, size_t *temp_bytes, const uint64_t *d_order, uint64_t *d_order2,
                          const int64_t *d_idx, int64_t *d_idx2, int64_t n, cudaStream_t stream);

/* Point the slot of each of the n groups (key, tag) in d_exc_ent at its
** index in d_exc_idx (the other slots must hold -1). */
cudaError_t ga_group_exc(const ga_gent *d_ent, int64_t cap, const ga_gent *d_exc_ent, int64_t n,
                         int *d_exc_idx, cudaStream_t stream);

/* Finish the groups at slots d_idx[0..n) into d_out[0..n), in that order,
** with the reals the host summed (d_exc, by d_exc_idx; NULL if none). */
cudaError_t ga_group_final(const ga_gent *d_ent, const ga_gacc *d_acc, const int64_t *d_idx, int64_t n, int jb,
                           const int *d_exc_idx, const ga_sum *d_exc, ga_grow *d_out, cudaStream_t stream);

/* The groups of d_in[0..n) that may meet h (ga_grow_may) into d_out, in
** order, their number into *d_m (CUB's select, stable). d_temp NULL:
** *temp_bytes gets the scratch it needs. */
cudaError_t ga_group_keep(void *d_temp, size_t *temp_bytes, const ga_grow *d_in, int64_t n, const ga_ghaves *h,
                          ga_grow *d_out, int64_t *d_m, cudaStream_t stream);

/* count(DISTINCT)'s groups at slots of the table counted by code
** (group_acc.h, 7) into d_count[0..c->nCode) (zeroed before); *d_bad set
** where a slot's code is out of range (never). Determinism: counts of
** groups, the same in any order. */
cudaError_t ga_group_codes(const ga_gent *d_ent, int64_t cap, const ga_gcodes *c, unsigned long long *d_count,
                           int *d_bad, cudaStream_t stream);

/* Once per process, with the other preparations: the grouping kernel's
** shared memory and occupancy. */
cudaError_t ga_group_prepare(void);
/* bench_kernels: the places a block looks for its own copy of a group (8, 1 or
** 0: none); else (-1) group.cu's choice. */
void ga_group_probes(int p);

/*
** Columns kept on the device (resident.cu). ga_res_doubles_launch: the
** numbers d_v[0..n) (bit i of d_bits set: a double's bits, else an int64)
** as doubles into d_out. ga_res_group_rows_launch: rows 0..n) of a key
** column and a value column (values, and SQLite's storage classes: 1
** INTEGER, 2 REAL, 3 TEXT, 4 BLOB, 5 NULL; a TEXT or BLOB value is its
** place in its column's dictionary) as grouping rows (group_acc.h, 1-2)
** into d_keys, d_vals and d_meta; a TEXT or BLOB value, with places 0, as
** the number d_num/d_numReal gives its place (GA_V_OTHER; NULL d_num: no
** value), with places 1, the place itself (GA_V_INT; other rows no
** value); no real is flagged GA_V_HOST (the caller has checked that the
** window holds them all).
*/
/* A kept column's numbers from its n rows (resident.cu): d_v values, d_c
** classes (16-byte aligned); its numbers in scan order into d_num (NULL:
** every row is one, and d_v serves) and bit i of d_bits (nWords words,
** zeroed here) set where number i is a real. d_tiles: scratch of
** ga_res_numbers_tiles(n) int64s. */
int64_t ga_res_numbers_tiles(int64_t n);
cudaError_t ga_res_numbers_launch(const int64_t *d_v, const unsigned char *d_c, int64_t n, int64_t *d_tiles,
                                  int64_t *d_num, uint64_t *d_bits, int64_t nWords, cudaStream_t stream);
cudaError_t ga_res_doubles_launch(const int64_t *d_v, const uint64_t *d_bits, int64_t n, double *d_out,
                                  cudaStream_t stream);
cudaError_t ga_res_group_rows_launch(const int64_t *d_kv, const unsigned char *d_kc, const int64_t *d_vv,
                                     const unsigned char *d_vc, int64_t n, const int64_t *d_num,
                                     const unsigned char *d_numReal, int places, uint64_t *d_keys, uint64_t *d_vals,
                                     unsigned char *d_meta, cudaStream_t stream);

/* Sort n keys ascending (CUB's radix sort, select.cu): from d_in into
** d_out. d_temp NULL: *temp_bytes gets the scratch it needs. */
cudaError_t ga_sort_keys(void *d_temp, size_t *temp_bytes, const uint64_t *d_in, uint64_t *d_out, int n,
                         cudaStream_t stream);
/* The order keys (ranks.h) of n numbers d_num (int64, or double where the
** bitmap d_bits says) into d_keys. */
cudaError_t ga_keys_launch(const int64_t *d_num, const uint64_t *d_bits, int64_t n, uint64_t *d_keys,
                           cudaStream_t stream);

/* Distinct numbers (select.cu), in two steps around ga_sort_keys. First,
** for each of n numbers (int64, or double where d_bits says), its order key
** where |x| < 2^53 (the double is exact there, so equal keys are equal SQL
** values, 1 and 1.0 alike); else the key ~0 (no number has it: SQLite
** stores no NaN), and the number itself appended to d_big (its bits; its
** class in d_bigReal) at *d_nBig (zeroed by the caller) for the host to
** compare exactly. Then, over the sorted keys, *d_count (zeroed by the
** caller) gets how many distinct keys other than ~0 there are. */
cudaError_t ga_distinct_keys_launch(const int64_t *d_num, const uint64_t *d_bits, int64_t n, uint64_t *d_keys,
                                    int64_t *d_big, unsigned char *d_bigReal, unsigned long long *d_nBig,
                                    cudaStream_t stream);
/* gpu_query's ORDER BY (select.cu): the rows [0, n) whose class d_cls
** gives is want (GA_QO_NULL) or a number (want GA_QO_INT), in scan order,
** into d_rows[0..*d_n); their keys d_keys[d_rows[i]] into d_out[i]; n
** (key, row) pairs sorted by key, stable (ties keep their order). d_temp
** NULL: *temp_bytes gets the scratch a call needs. */
cudaError_t ga_order_rows(void *d_temp, size_t *temp_bytes, const unsigned char *d_cls, int n, int want,
                          uint32_t *d_rows, int *d_n, cudaStream_t stream);
cudaError_t ga_order_gather(const uint64_t *d_keys, const uint32_t *d_rows, int n, uint64_t *d_out,
                            cudaStream_t stream);
cudaError_t ga_order_sort(void *d_temp, size_t *temp_bytes, const uint64_t *d_kin, uint64_t *d_kout,
                          const uint32_t *d_rin, uint32_t *d_rout, int n, cudaStream_t stream);
cudaError_t ga_distinct_count_launch(const uint64_t *d_sorted, int64_t n, unsigned long long *d_count,
                                     cudaStream_t stream);

/*
** gpu_query's tile interpreter (query.cu, qprog.h): program d_p (nReg
** registers, as the host's copy says) over n rows
** of kept columns (d_colC[c], d_colV[c]: device arrays of the columns'
** classes and values, in device memory) with the lookup tables. Range: each
** fold's least and greatest biased exponents of finite non-zero reals and
** its infinities into d_range[3f..3f+2] (set to 0x7ff, -1, 0 before), and,
** d_keyStat not NULL and the key numeric, the least and greatest keys that
** group as integers and the count of other keys not NULL into
** d_keyStat[0..2] (set to INT64_MAX, INT64_MIN, 0 before). Rows:
** row first+i's grouping row, the key at d_keys[i], fold f's value and meta
** at d_vals/d_meta[f*stride + i], for i in [0, n). ga_query_prepare: once per process, with the
** other preparations (shared memory).
** Determinism: pure maps, and integer minima, maxima and counts.
*/
struct ga_qprog;
cudaError_t ga_query_prepare(void);
/* Rows a thread of the tile interpreter takes: 1, 2 or 4 (bench_kernels
** compares them); 0: as many as the program's registers leave room for. */
void ga_query_tile_rows(int r);
cudaError_t ga_query_range_launch(const struct ga_qprog *d_p, int nReg, const unsigned char *const *d_colC,
                                  const int64_t *const *d_colV, const unsigned char *d_tabC, const int64_t *d_tabV,
                                  int64_t n, int *d_range, int64_t *d_keyStat, cudaStream_t stream);
/* Order: row i's class (qprog.h, 5: GA_QO_*) into d_cls[i] and, a number,
** its key into d_keys[i] (DESC's where desc); the classes met ORed into
** *d_mask as bits 1 << class (the caller zeroes it). */
cudaError_t ga_query_order_launch(const struct ga_qprog *d_p, int nReg, const unsigned char *const *d_colC,
                                  const int64_t *const *d_colV, const unsigned char *d_tabC, const int64_t *d_tabV,
                                  int64_t n, int desc, uint64_t *d_keys, unsigned char *d_cls, int *d_mask,
                                  cudaStream_t stream);
cudaError_t ga_query_rows_launch(const struct ga_qprog *d_p, int nReg, const unsigned char *const *d_colC,
                                 const int64_t *const *d_colV, const unsigned char *d_tabC, const int64_t *d_tabV,
                                 int64_t first, int64_t n, uint64_t *d_keys, uint64_t *d_vals, unsigned char *d_meta,
                                 int64_t stride,
                                 cudaStream_t stream);

/* A program without keys and with 1..GA_QONE folds (h_p: the host's copy of
** d_p): rows [0, n) of the columns, the first at scan position base, each
** fold f's values (within the window from word jb[f]) added into d_out[f]
** (zeroed before; d_out[0] also counts the rows and keeps the first), on at
** most blocks blocks (0: as many as the rows make).
** Determinism: integer sums, maxima, and extremes by position. */
cudaError_t ga_query_one_launch(const struct ga_qprog *d_p, const struct ga_qprog *h_p, const unsigned char *const *d_colC,
                                const int64_t *const *d_colV, const unsigned char *d_tabC, const int64_t *d_tabV, int64_t n,
                                int64_t base, const int *jb, ga_gacc *d_out, int blocks, cudaStream_t stream);

/* Keys that are dictionary ids combined into codes below nGroup (qprog.h's
** keyNum 0; or a number key's codes from d_p->keyLo, query.cu's 10),
** nGroup*nFold at most GA_QGROUP_MAX: rows [0, n) of the
** columns, the first at scan position base, folded into d_out (nGroup*nFold
** accumulators, fold f's group at f*nGroup + code, zeroed before; fold 0's
** count the rows and keep the first); a code not below nGroup is counted in
** *d_bad (zeroed before) and folded nowhere (query.cu, 7).
** Determinism: integer sums, maxima, and extremes by position. Up to
** GA_QGROUP_SPARSE accumulators where the caller picks and finishes the
** groups with rows on the device (ga_query_pick, ga_query_finish_launch)
** rather than copying them all back. */
#define GA_QGROUP_MAX 65536
#define GA_QGROUP_SPARSE ((int64_t)1 << 22)
cudaError_t ga_query_group_launch(const struct ga_qprog *d_p, const struct ga_qprog *h_p,
                                  const unsigned char *const *d_colC, const int64_t *const *d_colV,
                                  const unsigned char *d_tabC, const int64_t *d_tabV, int64_t n, int64_t base,
                                  const int *jb, int64_t nGroup, ga_gacc *d_out, int *d_bad, cudaStream_t stream);

/* The codes of d_tab's groups (ga_query_group_launch's, nGroup codes) with
** rows, in order, into d_codes, *d_n of them (select.cu: CUB's
** DeviceSelect::If); with d_temp NULL, the scratch it needs into
** *temp_bytes. Determinism: a stable selection. */
cudaError_t ga_query_pick(void *d_temp, size_t *temp_bytes, const ga_gacc *d_tab, int nGroup, uint32_t *d_codes,
                          int *d_n, cudaStream_t stream);
/* Those groups finished (group_acc.h's ga_group_finish, fold f's window
** jb[f]) into d_out, fold f's group i at f * *d_n + i (query.cu, 8); with
** mapped, d_tab's accumulators are the picked codes' (i for codes[i]:
** ga_query_group_mapped_launch's), not every code's. nullCode >= 0: the
** codes are a number key's (query.cu, 10), each group's key keyLo + code,
** NULL's code nullCode; -1: dictionary codes, the key the code.
** Determinism: the host's bits (pure integer steps, one rounding). */
cudaError_t ga_query_finish_launch(const ga_gacc *d_tab, int64_t nGroup, int nFold, const int *jb,
                                   const uint32_t *d_codes, const int *d_n, int mapped, int64_t keyLo,
                                   int64_t nullCode, ga_grow *d_out, cudaStream_t stream);

/* Codes too many for an accumulator each (query.cu, 9), nCode at most
** GA_QGROUP_MAPPED: ga_query_mark_launch sets d_flag[code] (nCode bytes,
** zeroed before) for each row the filter keeps, a code not below nCode
** counted in *d_bad; ga_query_pick_flags picks the marked codes in order
** into d_codes, *d_n of them (CUB's DeviceSelect::If, scratch as
** ga_query_pick's); ga_query_map_launch sets d_map[d_codes[i]] = i;
** ga_query_group_mapped_launch folds each kept row into d_out at its
** code's place (nGroup = *d_n places, fold f's at f*nGroup + place, zeroed
** before), a code not marked counted in *d_bad.
** Determinism: as ga_query_group_launch's; the selection is stable. */
#define GA_QGROUP_MAPPED ((int64_t)1 << 28)
cudaError_t ga_query_mark_launch(const struct ga_qprog *d_p, const struct ga_qprog *h_p,
                                 const unsigned char *const *d_colC, const int64_t *const *d_colV,
                                 const unsigned char *d_tabC, const int64_t *d_tabV, int64_t n, int64_t nCode,
                                 unsigned char *d_flag, int *d_bad, cudaStream_t stream);
cudaError_t ga_query_pick_flags(void *d_temp, size_t *temp_bytes, const unsigned char *d_flag, int nCode,
                                uint32_t *d_codes, int *d_n, cudaStream_t stream);
cudaError_t ga_query_map_launch(const uint32_t *d_codes, const int *d_n, uint32_t *d_map, cudaStream_t stream);
cudaError_t ga_query_group_mapped_launch(const struct ga_qprog *d_p, const struct ga_qprog *h_p,
                                         const unsigned char *const *d_colC, const int64_t *const *d_colV,
                                         const unsigned char *d_tabC, const int64_t *d_tabV, int64_t n, int64_t base,
                                         const int *jb, int64_t nCode, const uint32_t *d_map, const uint32_t *d_codes,
                                         int64_t nGroup, ga_gacc *d_out, int *d_bad, cudaStream_t stream);

#ifdef __cplusplus
}
#endif
#endif /* GPUAGG_KERNELS_H */
