/*
** gpu_query's tile interpreter (qprog.h): a program over kept columns, run
** on the device without compiling anything per query. Built with
** -fmad=false: a REAL multiply and add are two roundings, as in SQLite.
**
**   1. A block copies the program into shared memory once, then takes
**      tiles of R*kThreads rows; each thread runs the program over R rows
**      (rows t, t+kThreads, ...: loads stay coalesced), their registers in
**      shared memory (register r of slot q, row i0+q, at r*S + q, S =
**      R*kThreads). An instruction is dispatched once for a thread's rows.
**      R is 4, 2 or 1, as many as the program's registers leave room for.
**      Where compile.c's hint (qprog.h) says both operands have one class
**      and are never NULL, a comparison, logic or REAL arithmetic skips the
**      classes, a lookup in a column without NULLs its class, and a probe
**      by a key that is always an INTEGER the key's (the result is the one
**      qprog.h's ga_q_step gives); a column is loaded as it is, a joined
**      table's index probed (GA_Q_LOOK) and a NULL tested for every slot at
**      once; else each row is ga_q_step's.
**   2. Stages (qprog.h): after the filter's first conjunct (2a), and after
**      the whole filter, each warp gathers the slots whose stage register is
**      true and deals them out to its threads again, so that the rest of
**      the program runs on full warps over the rows left, and no warp waits
**      for another (a warp owns its threads' slots, tile after tile). Which
**      rows are left decides nothing else: every later value is the row's
**      own, and ties go by row position, not by the order rows are folded.
**   2a. The first stage runs over each tile; a warp queues the rows it
**      keeps (in shared memory, as offsets) and runs the whole program over
**      the queue's rows whenever they fill its slots (and once at the end),
**      so that a selective first stage leaves no warp running the rest for
**      a few rows: the first stage's values are computed again for the
**      rows kept, not kept. A first stage that is a probe by a column (a
**      GA_Q_LOOK, then GA_Q_NOTNULL of it: compile.c, 6) only tests the
**      index's entry, no instruction dispatched (bench_kernels' Q2.1 on the
**      H100: 0.20 -> 0.10 ms, the hand-written kernel 0.058).
**   3. qRange: for each fold, the least and greatest biased exponents of
**      the finite non-zero reals among the rows the filter keeps, and how
**      many are infinite (shared-memory atomics, then global ones), so that
**      the host can choose each fold's window (group_acc.h, 3) or decline;
**      for a numeric key, the least and greatest of the keys that group as
**      integers and how many others (not NULL) there are, so that the host
**      can size the groups' table for the keys' range, not the rows.
**   4. qRows: rows [first, first+n)'s group rows (key and key meta once; value and meta
**      per fold, fold f at f*stride), as group.cu folds them.
**   5. qOne: a program without keys and with at most GA_QONE folds, its
**      rows folded where they are evaluated: each thread keeps its share
**      of every fold in registers (group_acc.h's accumulator: counts,
**      integer halves, window words, extremes by position), then the warp
**      sums them by shuffles, the block in shared memory and the grid in
**      d_out; the grid is the blocks the device runs at once. No grouping
**      rows are written, no table is made.
**   6. qOrder: each row's class and ORDER BY key (qprog.h, 5), which
**      select.cu's ga_order_* pick and sort.
**   7. qGroup: keys that are dictionary ids (their code below nGroup), few
**      groups: each row the filter keeps is folded where it is evaluated
**      into the group's accumulators at its code (fold f's at f*nGroup +
**      code; fold 0's counts the rows and keeps the first), in a block's
**      table in shared memory where nGroup*nFold of them fit there (added
**      into the grid's at the block's end, the empty ones skipped), else in
**      the grid's table (global atomics). The grid is the blocks the device
**      runs at once, so that each block folds many tiles. No grouping rows
**      are written, no hash table is made. A code not below nGroup (the
**      caller's bound was not the product of the keys' ids: it checks that
**      it is) is counted in *bad and folded nowhere: the caller fails.
**   8. qFinish: where the codes are many (a joined table's rows as a
**      key: TPC-H Q3, Q10), the grid's table's groups with rows (picked in
**      order by select.cu's ga_query_pick) finished there, so that only
**      their results are copied back.
**   9. qMark, qMap: codes too many for an accumulator each (TPC-H Q3 and
**      Q10 at scale factor 10: 15M and 37.5M): a first pass marks the codes
**      with rows (a byte each), select.cu's ga_query_pick_flags picks them in
**      order and qMap gives each its place among them; qGroup then folds a
**      row at its code's place (a code's place is checked against the code
**      kept there), and qFinish finishes the places. The program runs twice;
**      the accumulators are the groups with rows, not the codes.
**  10. A number key (keyNum) whose integer keys span few more codes than
**      the rows, with no other key than NULL (qRange says), is folded by
**      code as 7 and 9 fold dictionary ids: code = key - keyLo, NULL the
**      last code, so that codes run in the order the rows' path (4, then
**      group.cu) sorts its groups; a key of another class, or past the
**      span, is counted in *bad. qFinish gives each group its key again.
**      No group rows are written, no hash table made (TPC-H Q18's IN: 60M
**      rows into 15M groups at scale factor 10).
** Determinism: pure maps, and minima, maxima and counts of integers.
*/
#include <climits>
#include "gpuagg_kernels.h"
#include "qprog.h"
#include "group_row.cuh"

namespace {

constexpr int kThreads = 256;
/* Blocks an SM runs at once: the registers' shared memory (kRegBytes) and
** the queues (2a) let three where a program's registers leave room (Q2.1's
** five at R 4: 63 KB a block; seven, the most at R 4, let two), and so 80
** registers a thread; bounded, the compiler keeps to them. Four (64 registers) spilled: bench_kernels on the
** H100, Q2.1 0.144 -> 0.125 ms and Q6 0.156 -> 0.131 ms with three.
** Not for qOne with several folds: their sums would go to local memory. */
constexpr int kBlocksPerSM = 3;
/* qRange's shared memory past the registers: the key's least, greatest and
** others (long longs, room for 4), then each fold's exponents and infinities. */
constexpr size_t kRangeExtra = 4 * sizeof(long long) + 3 * GA_QFOLD * sizeof(int);

typedef unsigned long long ull;

struct Shared {
  ga_qprog p;
  const unsigned char *colC[GA_QCOL];
  const int64_t *colV[GA_QCOL];
};

__device__ void loadProg(Shared *s, const ga_qprog *p, const unsigned char *const *colC,
                         const int64_t *const *colV){
  const int *src = (const int *)p;
  int *dst = (int *)&s->p;
  for( int i = threadIdx.x; i < (int)(sizeof(ga_qprog) / sizeof(int)); i += kThreads ) dst[i] = src[i];
  for( int i = threadIdx.x; i < GA_QCOL; i += kThreads ){ s->colC[i] = colC[i]; s->colV[i] = colV[i]; }
  __syncthreads();
}

/* Operand o of slot q (row i), its value only (a hinted instruction's
** operands are never NULL, their class known). */
template <int R>
__device__ __forceinline__ int64_t opV(const Shared *s, int o, const int64_t *rv, int q, long long i){
  if( o < GA_QO_LIT ) return rv[o * (R * kThreads) + q];
  if( o < GA_QO_COL ) return s->p.litV[o - GA_QO_LIT];
  return __ldg(&s->colV[o - GA_QO_COL][i]);
}

/* Operand o of slot q (row i), class and value (a register, a literal, or
** a kept column's row), as qprog.h's ga_q_in reads it. */
template <int R>
__device__ __forceinline__ void opCV(const Shared *s, int o, const unsigned char *rc, const int64_t *rv, int q,
                                     long long i, int &c, int64_t &v){
  if( o < GA_QO_LIT ){ c = rc[o * (R * kThreads) + q]; v = rv[o * (R * kThreads) + q]; }
  else if( o < GA_QO_COL ){ c = s->p.litT[o - GA_QO_LIT]; v = s->p.litV[o - GA_QO_LIT]; }
  else { c = __ldg(&s->colC[o - GA_QO_COL][i]); v = __ldg(&s->colV[o - GA_QO_COL][i]); }
}

/* sl[j], its index not known when compiling (the list stays in registers). */
template <int R>
__device__ __forceinline__ int pick(const int *sl, int j){
  int q = sl[0];
  #pragma unroll
  for( int k = 1; k < R; k++ ) if( j == k ) q = sl[k];
  return q;
}

template <class T> __device__ __forceinline__ T fromBits(int64_t v);
template <> __device__ __forceinline__ double fromBits<double>(int64_t v){ return __longlong_as_double(v); }
template <> __device__ __forceinline__ int64_t fromBits<int64_t>(int64_t v){ return v; }

/* A hinted comparison over the thread's slots: its operands both T (REAL or
** INTEGER), never NULL; cmp says which of <, =, > is true (bits 0, 1, 2). */
template <int R, class T, class Row>
__device__ __forceinline__ void compareRows(const Shared *s, const ga_qins &in, int cmp, unsigned char *oc, int64_t *ov,
                                            const int64_t *rv, const int *sl, int m, Row row){
  #pragma unroll
  for( int j = 0; j < R; j++ ){
    if( j >= m ) break;
    int q = sl[j];
    T a = fromBits<T>(opV<R>(s, in.a, rv, q, row(q))), b = fromBits<T>(opV<R>(s, in.b, rv, q, row(q)));
    oc[q] = GA_QC_INT;
    ov[q] = (cmp >> (a < b ? 0 : a == b ? 1 : 2)) & 1;
  }
}

/* Instructions [from, to) over the thread's m slots sl[], slot q's row
** row(q) (register r of slot q at r*S + q), dispatched once for them. B: a kernel whose
** registers are not bounded (kBlocksPerSM) issues a column's R loads
** before it stores them (a store could alias a column for all the compiler
** knows): the totals' form, bench_kernels on the H100, 0.305 -> 0.218 ms;
** under the bound it spills (Q6 0.192 -> 0.207 ms). */
template <int R, bool B, class Row>
__device__ void run(const Shared *s, unsigned char *rc, int64_t *rv, const int *sl, int m, Row row, int from,
                    int to, const unsigned char *tabC, const int64_t *tabV){
  const ga_qprog *p = &s->p;
  constexpr int S = R * kThreads;
  for( int k = from; k < to; k++ ){
    const ga_qins in = p->ins[k];
    unsigned char *oc = rc + in.dst * S;
    int64_t *ov = rv + in.dst * S;
    bool step = false;                              /* not served here: ga_q_step's */
    switch( in.op ){
      case GA_Q_COL:
        if( B ){                                    /* every load first, then the stores */
          unsigned char c[R];
          int64_t x[R];
          #pragma unroll
          for( int j = 0; j < R; j++ ) if( j < m ){ c[j] = __ldg(&s->colC[in.x][row(sl[j])]); x[j] = __ldg(&s->colV[in.x][row(sl[j])]); }
          #pragma unroll
          for( int j = 0; j < R; j++ ) if( j < m ){ oc[sl[j]] = c[j]; ov[sl[j]] = x[j]; }
        }else{
          #pragma unroll
          for( int j = 0; j < R; j++ ){
            if( j >= m ) break;
            int q = sl[j];
            oc[q] = __ldg(&s->colC[in.x][row(q)]);
            ov[q] = __ldg(&s->colV[in.x][row(q)]);
          }
        }
        break;
      case GA_Q_LOOK: {
        /* a joined table's index (qprog.h, 2a): every slot's probe loaded, then stored */
        const uint64_t lo = (uint64_t)p->tabLo[in.x], nt = (uint64_t)p->tabN[in.x];
        const int64_t off = p->tabOff[in.x];
        unsigned char c[R];
        int64_t x[R];
        #pragma unroll
        for( int j = 0; j < R; j++ ){
          if( j >= m ) break;
          int ca = GA_QC_INT;
          int64_t va;
          if( in.b ) va = opV<R>(s, in.a, rv, sl[j], row(sl[j]));   /* always an INTEGER */
          else opCV<R>(s, in.a, rc, rv, sl[j], row(sl[j]), ca, va);
          uint64_t k = (uint64_t)va - lo;
          if( ca != GA_QC_INT || k >= nt ){ c[j] = GA_QC_NULL; x[j] = 0; }
          else{ c[j] = __ldg(&tabC[off + (int64_t)k]); x[j] = __ldg(&tabV[off + (int64_t)k]); }
        }
        #pragma unroll
        for( int j = 0; j < R; j++ ) if( j < m ){ oc[sl[j]] = c[j]; ov[sl[j]] = x[j]; }
        break;
      }
      case GA_Q_NOTNULL: case GA_Q_ISNULL:
        #pragma unroll
        for( int j = 0; j < R; j++ ){
          if( j >= m ) break;
          int q = sl[j], ca;
          int64_t va;
          opCV<R>(s, in.a, rc, rv, q, row(q), ca, va);
          oc[q] = GA_QC_INT;
          ov[q] = (in.op == GA_Q_ISNULL) == (ca == GA_QC_NULL);
        }
        break;
      case GA_Q_MAP:
        if( !in.b ){ step = true; break; }
        #pragma unroll
        for( int j = 0; j < R; j++ ){
          if( j >= m ) break;
          int q = sl[j];
          int64_t t = __ldg(&s->colV[in.a][row(q)]) + p->tabOff[in.x];  /* no NULL: the row's place */
          oc[q] = tabC[t];
          ov[q] = tabV[t];
        }
        break;
      case GA_Q_LT: case GA_Q_LE: case GA_Q_EQ: case GA_Q_IS: case GA_Q_NE: case GA_Q_ISNOT: case GA_Q_GT: case GA_Q_GE: {
        /* compareRows' bits */
        const int cmp = in.op == GA_Q_LT ? 1 : in.op == GA_Q_LE ? 3 : in.op == GA_Q_EQ || in.op == GA_Q_IS ? 2
                      : in.op == GA_Q_GT ? 4 : in.op == GA_Q_GE ? 6 : 5;
        if( in.x == GA_QT_RR ) compareRows<R, double>(s, in, cmp, oc, ov, rv, sl, m, row);
        else if( in.x == GA_QT_II ) compareRows<R, int64_t>(s, in, cmp, oc, ov, rv, sl, m, row);
        else step = true;
        break;
      }
      case GA_Q_AND: case GA_Q_OR:
        if( in.x != GA_QT_II ){ step = true; break; }
        #pragma unroll
        for( int j = 0; j < R; j++ ){
          if( j >= m ) break;
          int q = sl[j];
          int a = opV<R>(s, in.a, rv, q, row(q)) != 0, b = opV<R>(s, in.b, rv, q, row(q)) != 0;
          oc[q] = GA_QC_INT;
          ov[q] = in.op == GA_Q_AND ? (a & b) : (a | b);
        }
        break;
      case GA_Q_ADD: case GA_Q_SUB: case GA_Q_MUL: case GA_Q_DIV:
        if( in.x != GA_QT_RR ){ step = true; break; }
        #pragma unroll
        for( int j = 0; j < R; j++ ){
          if( j >= m ) break;
          int q = sl[j];
          double a = __longlong_as_double(opV<R>(s, in.a, rv, q, row(q)));
          double b = __longlong_as_double(opV<R>(s, in.b, rv, q, row(q)));
          unsigned char c;
          int64_t v;
          if( in.op == GA_Q_DIV && b == 0.0 ){ c = GA_QC_NULL; v = 0; }
          else ga_q_setreal(in.op == GA_Q_ADD ? a + b : in.op == GA_Q_SUB ? a - b : in.op == GA_Q_MUL ? a * b : a / b, &c, &v);
          oc[q] = c;
          ov[q] = v;
        }
        break;
      default:
        step = true;
        break;
    }
    if( step ){
      #pragma unroll 1
      for( int j = 0; j < m; j++ ){
        int q = pick<R>(sl, j);
        ga_q_step(p, &in, rc + q, rv + q, S, s->colC, s->colV, row(q), tabC, tabV);
      }
    }
  }
}

/* Which row slot q holds: a tile's (i0 + q: loads stay coalesced), or a
** row of its warp's queue (2a): its offset k*S + q names the tile the
** block took k-th, from row base on, every step rows, and the slot. */
struct TileRows {
  long long i0;
  __device__ __forceinline__ long long operator()(int q) const { return i0 + q; }
};
template <int R>
struct QueuedRows {
  const unsigned *wq;
  long long base, step;
  __device__ __forceinline__ long long at(unsigned o) const {
    constexpr unsigned S = R * kThreads;
    return base + (long long)(o / S) * step + o % S;
  }
  __device__ __forceinline__ long long operator()(int q) const { return at(wq[(q / kThreads) * 32 + (q & 31)]); }
};

/* The stages from st0 on (instructions from `from`), then the rest of the
** program, over the thread's *pm slots sl[] (valid slots first). A warp
** owns its threads' slots (t + j*kThreads): after a stage it gathers the
** slots it keeps (through its part of sel) and deals them out to its
** threads again, so that later instructions run on full warps, and no
** warp waits for another. */
template <int R, bool B, class Row>
__device__ void runStages(const Shared *s, unsigned char *rc, int64_t *rv, int *sel, int *sl, int *pm, Row row, int st0,
                          int from, const unsigned char *tabC, const int64_t *tabV){
  constexpr int S = R * kThreads;
  const ga_qprog *p = &s->p;
  const int lane = threadIdx.x & 31;
  int *ws = sel + (threadIdx.x >> 5) * (32 * R);     /* the warp's gathered slots */
  int m = *pm;
  for( int st = st0;; st++ ){
    const int to = st < p->nStage ? p->stageEnd[st] : p->nIns, r = p->stageReg[st < p->nStage ? st : 0] * S;
    int tot = 0;
    run<R, B>(s, rc, rv, sl, m, row, from, to, tabC, tabV);
    if( st >= p->nStage ) break;
    from = to;
    #pragma unroll
    for( int j = 0; j < R; j++ ){
      int keep = j < m && ga_q_truth(rc[r + sl[j]], rv[r + sl[j]]) == 1;
      unsigned b = __ballot_sync(0xffffffffu, keep);
      if( keep ) ws[tot + __popc(b & ((1u << lane) - 1))] = sl[j];
      tot += __popc(b);
    }
    __syncwarp();
    m = 0;
    #pragma unroll
    for( int j = 0; j < R; j++ ){
      sl[j] = lane + 32 * j < tot ? ws[lane + 32 * j] : 0;
      m += lane + 32 * j < tot;
    }
    __syncwarp();                                     /* ws is read before the next stage writes it */
  }
  *pm = m;
}

/* A block's shared memory: the program (loadProg), the registers of its
** R-row threads (values, then classes), the warps' slot lists, their
** queues (2a), then what the kernel keeps besides (16-byte aligned). */
struct Tile {
  Shared *s;
  int64_t *rv;
  unsigned char *rc;
  int *sel;
  unsigned *queue;
  unsigned char *extra;
};

template <int R>
__device__ Tile tileStart(unsigned char *sm, int nReg, const ga_qprog *gp, const unsigned char *const *colC,
                          const int64_t *const *colV){
  constexpr int S = R * kThreads;
  Tile t;
  t.s = (Shared *)sm;
  t.rv = (int64_t *)(sm + ((sizeof(Shared) + 15) & ~(size_t)15));
  t.rc = (unsigned char *)(t.rv + nReg * S);
  t.sel = (int *)(((uintptr_t)(t.rc + nReg * S) + 15) & ~(uintptr_t)15);
  t.queue = (unsigned *)(t.sel + S);
  t.extra = (unsigned char *)(t.queue + 2 * S);
  loadProg(t.s, gp, colC, colV);
  return t;
}

/* Rows [0, n) of a kernel (their columns' rows first + i) through the
** program (2, 2a): pre(i0, nValid) for each tile, then f(q, i) for each
** row i the stages keep, its registers at slot q. The first stage runs
** over each tile; the rows it keeps join the warp's queue, and the rest
** of the program runs over the queue's rows whenever they fill the warp's
** slots, and once at the end. (Offsets are 32 bits: 2^32 rows a block.) */
template <int R, bool B = false, class Pre, class F>
__device__ void eachRow(const Tile &t, long long first, long long n, const unsigned char *tabC, const int64_t *tabV,
                        Pre pre, F f){
  constexpr int S = R * kThreads, W = 32 * R;
  const Shared *s = t.s;
  const ga_qprog *p = &s->p;
  const int lane = threadIdx.x & 31, end0 = p->nStage ? p->stageEnd[0] : 0, r0 = p->stageReg[0] * S;
  unsigned *wq = t.queue + (threadIdx.x >> 5) * (2 * W);
  const QueuedRows<R> queued = {wq, (long long)blockIdx.x * S, (long long)gridDim.x * S};
  int sl[R], m, cnt = 0;
  /* the first stage a probe (compile.c, 6: GA_Q_LOOK of a column, then
  ** GA_Q_NOTNULL of it, the stage's register): no instruction dispatched */
  const ga_qins i0s = p->ins[0], i1s = p->ins[1];
  const bool probe0 = end0 == 2 && i0s.op == GA_Q_LOOK && i0s.a >= GA_QO_COL && i1s.op == GA_Q_NOTNULL
                      && i1s.a == i0s.dst && p->stageReg[0] == i1s.dst;
  const unsigned char *probeC = probe0 ? s->colC[i0s.a - GA_QO_COL] : 0;
  const int64_t *probeV = probe0 ? s->colV[i0s.a - GA_QO_COL] : 0;
  const uint64_t probeLo = probe0 ? (uint64_t)p->tabLo[i0s.x] : 0, probeN = probe0 ? (uint64_t)p->tabN[i0s.x] : 0;
  const int64_t probeOff = probe0 ? p->tabOff[i0s.x] : 0;
  /* the warp's first k queued rows, from the program's start (the first
  ** stage's values again: cheaper than keeping them) */
  auto batch = [&](int k){
    __syncwarp();                                     /* the rows queued, the last slots read */
    m = 0;
    #pragma unroll
    for( int j = 0; j < R; j++ ){
      sl[j] = threadIdx.x + j * kThreads;
      m += lane + 32 * j < k;
    }
    runStages<R, B>(s, t.rc, t.rv, t.sel, sl, &m, QueuedRows<R>{wq, first + queued.base, queued.step}, 1, 0, tabC, tabV);
    #pragma unroll 1
    for( int j = 0; j < m; j++ ){
      const int q = pick<R>(sl, j);
      f(q, queued(q));
    }
  };
  unsigned k0 = 0;                                    /* the tile's first offset */
  for( long long i0 = queued.base; i0 < n; i0 += queued.step, k0 += S ){
    const int nValid = n - i0 < S ? (int)(n - i0) : S;
    pre(i0, nValid);
    __syncwarp();                                     /* the last tile's slots were other threads' */
    m = 0;
    #pragma unroll
    for( int j = 0; j < R; j++ ){                     /* valid slots first: j < m */
      sl[j] = threadIdx.x + j * kThreads;
      m += sl[j] < nValid;
    }
    int hit[R];                                       /* the first stage's outcome */
    if( probe0 ){
      /* a probe of a joined table's index by a column: only whether it hits (the queue's rows run it again) */
      #pragma unroll
      for( int j = 0; j < R; j++ ){
        const long long i = first + i0 + sl[j];
        hit[j] = 0;
        if( j < m ){
          const uint64_t k = (uint64_t)__ldg(&probeV[i]) - probeLo;
          hit[j] = (i0s.b || __ldg(&probeC[i]) == GA_QC_INT) && k < probeN && __ldg(&tabC[probeOff + (int64_t)k]) != GA_QC_NULL;
        }
      }
    }else{
      run<R, B>(s, t.rc, t.rv, sl, m, TileRows{first + i0}, 0, end0, tabC, tabV);
      #pragma unroll
      for( int j = 0; j < R; j++ ) hit[j] = j < m && (p->nStage == 0 || ga_q_truth(t.rc[r0 + sl[j]], t.rv[r0 + sl[j]]) == 1);
    }
    #pragma unroll
    for( int j = 0; j < R; j++ ){
      int keep = hit[j];
      unsigned b = __ballot_sync(0xffffffffu, keep);
      if( keep ) wq[cnt + __popc(b & ((1u << lane) - 1))] = k0 + (unsigned)sl[j];
      cnt += __popc(b);
    }
    if( cnt >= W ){
      batch(W);
      __syncwarp();                                   /* its rows read */
      for( int k = lane; k < cnt - W; k += 32 ) wq[k] = wq[W + k];
      cnt -= W;
    }
  }
  if( cnt > 0 ) batch(cnt);
}

/* No work before a tile. */
struct NoPre {
  __device__ __forceinline__ void operator()(long long, int) const {}
};

template <int R>
__global__ void __launch_bounds__(kThreads, kBlocksPerSM)
qRange(const ga_qprog *gp, int nReg, const unsigned char *const *colC, const int64_t *const *colV,
       const unsigned char *tabC, const int64_t *tabV, long long n, int *range, long long *keyStat){
  extern __shared__ __align__(16) unsigned char sm[];
  constexpr int S = R * kThreads;
  const Tile t = tileStart<R>(sm, nReg, gp, colC, colV);
  const Shared *s = t.s;
  long long *bKey = (long long *)t.extra;
  int *bMin = (int *)(bKey + 4), *bMax = bMin + GA_QFOLD, *bInf = bMax + GA_QFOLD;
  long long tMin = LLONG_MAX, tMax = LLONG_MIN, tOther = 0;   /* this thread's keys */
  for( int f = threadIdx.x; f < GA_QFOLD; f += kThreads ){ bMin[f] = 0x7ff; bMax[f] = -1; bInf[f] = 0; }
  if( threadIdx.x == 0 ){ bKey[0] = LLONG_MAX; bKey[1] = LLONG_MIN; bKey[2] = 0; }
  __syncthreads();
  eachRow<R>(t, 0, n, tabC, tabV, NoPre(), [&](int q, long long){
    uint64_t key;
    unsigned char km;
    ga_q_key(&s->p, t.rc + q, t.rv + q, S, &key, &km);
    if( km == GA_Q_DROPPED_META ) return;
    if( ga_kgroup(km & GA_K_MASK) == GA_K_INT ){
      tMin = min(tMin, (long long)key);
      tMax = max(tMax, (long long)key);
    }else if( (km & GA_K_MASK) != GA_K_NULL ){
      tOther++;
    }
    for( int f = 0; f < s->p.nFold; f++ ){
      int r = s->p.foldReg[f] * S + q;
      if( t.rc[r] == GA_QC_REAL ){
        uint64_t b = (uint64_t)t.rv[r];
        int e = (int)((b >> 52) & 0x7ff);
        if( e == 0x7ff ) atomicAdd(&bInf[f], 1);
        else if( (b << 1) != 0 ){ atomicMin(&bMin[f], e); atomicMax(&bMax[f], e); }
      }
    }
  });
  if( keyStat && s->p.keyNum ){
    if( tMax >= tMin ){ atomicMin(&bKey[0], tMin); atomicMax(&bKey[1], tMax); }
    if( tOther ) atomicAdd((ull *)&bKey[2], (ull)tOther);
  }
  __syncthreads();
  for( int f = threadIdx.x; f < s->p.nFold; f += kThreads ){
    if( bMax[f] >= 0 ){ atomicMin(&range[3 * f], bMin[f]); atomicMax(&range[3 * f + 1], bMax[f]); }
    if( bInf[f] ) atomicAdd(&range[3 * f + 2], bInf[f]);
  }
  if( threadIdx.x == 0 && keyStat && s->p.keyNum ){
    if( bKey[1] >= bKey[0] ){ atomicMin(&keyStat[0], bKey[0]); atomicMax(&keyStat[1], bKey[1]); }
    if( bKey[2] ) atomicAdd((ull *)&keyStat[2], (ull)bKey[2]);
  }
}

/* (Every row of the tile is first written as dropped; a row the filter
** keeps is written again, later, by a thread of the same warp: the queue's
** rows are its own, run after a __syncwarp.) */
template <int R>
__global__ void __launch_bounds__(kThreads, kBlocksPerSM)
qRows(const ga_qprog *gp, int nReg, const unsigned char *const *colC, const int64_t *const *colV,
      const unsigned char *tabC, const int64_t *tabV, long long first, long long n,
      unsigned long long *keys, unsigned long long *vals, unsigned char *meta, long long stride){
  extern __shared__ __align__(16) unsigned char sm[];
  constexpr int S = R * kThreads;
  const Tile t = tileStart<R>(sm, nReg, gp, colC, colV);
  const Shared *s = t.s;
  eachRow<R>(t, first, n, tabC, tabV, [&](long long i0, int nValid){
    for( int q = threadIdx.x; q < nValid; q += kThreads ){
      keys[i0 + q] = GA_Q_DROPPED_KEY;
      for( int f = 0; f < s->p.nFold; f++ ){
        vals[f * stride + i0 + q] = 0;
        meta[f * stride + i0 + q] = GA_Q_DROPPED_META;
      }
    }
  }, [&](int q, long long i){
    uint64_t key;
    unsigned char km;
    ga_q_key(&s->p, t.rc + q, t.rv + q, S, &key, &km);
    keys[i] = key;
    for( int f = 0; f < s->p.nFold; f++ ){
      uint64_t v;
      unsigned char mt;
      ga_q_val(t.rc + q, t.rv + q, S, s->p.foldReg[f], &v, &mt);
      vals[f * stride + i] = v;
      meta[f * stride + i] = km == GA_Q_DROPPED_META ? km : (unsigned char)(km | mt);
    }
  });
}

/* ORDER BY one term (6): each row's class and key (dropped rows written
** first, as qRows writes them). */
template <int R>
__global__ void __launch_bounds__(kThreads, kBlocksPerSM)
qOrder(const ga_qprog *gp, int nReg, const unsigned char *const *colC, const int64_t *const *colV,
       const unsigned char *tabC, const int64_t *tabV, long long n, int desc, unsigned long long *keys,
       unsigned char *cls, int *mask){
  extern __shared__ __align__(16) unsigned char sm[];
  constexpr int S = R * kThreads;
  const Tile t = tileStart<R>(sm, nReg, gp, colC, colV);
  int seen = 0;
  eachRow<R>(t, 0, n, tabC, tabV, [&](long long i0, int nValid){
    for( int q = threadIdx.x; q < nValid; q += kThreads ) cls[i0 + q] = GA_QO_DROPPED;
  }, [&](int q, long long i){
    uint64_t key = 0;
    int c = ga_q_order_key(&t.s->p, t.rc + q, t.rv + q, S, desc, &key);
    cls[i] = (unsigned char)c;
    keys[i] = key;
    seen |= 1 << c;
  });
  seen = __reduce_or_sync(0xffffffffu, seen);
  if( (threadIdx.x & 31) == 0 && seen ) atomicOr(mask, seen);
}

/* ---- one group: rows folded where they are evaluated (5) -------------------- */

struct Jb { int jb[GA_QONE]; };

/* A thread's share of one fold: group_acc.h's accumulator, in registers. */
struct Acc {
  ull nInt, nReal, ilo;
  long long ihi, w[GA_GWORDS];
  ga_gext mx, mn;
};

__device__ __forceinline__ void keepBetter(ga_gext *b, ga_gext c){
  if( ga_gext_better(c, *b) ) *b = c;
}

__device__ __forceinline__ void extKeep(ga_gext *p, ga_gext c){
  ga_gext cur;
  if( c.hi == 0 && c.lo == 0 ) return;
  cur.hi = *(volatile ull *)&p->hi;
  if( c.hi < cur.hi ) return;
  cur.lo = 0;
  for( ;; ){
    ga_gext old = atomicCAS(p, cur, c);
    if( (old.hi == cur.hi && old.lo == cur.lo) || !ga_gext_better(c, old) ) return;
    cur = old;
  }
}

__device__ __forceinline__ void addU(ull *p, ull v){ if( v ) atomicAdd(p, v); }

/* The warp's sum of v, in lane 0 (64-bit adds wrap: any order gives the
** same bits as adding one by one). */
__device__ __forceinline__ ull warpSum(ull v){
  #pragma unroll
  for( int o = 16; o > 0; o >>= 1 ) v += __shfl_down_sync(0xffffffffu, v, o);
  return v;
}

/* The warp's best of x (ga_gext_better: a total order), in lane 0. */
__device__ __forceinline__ ga_gext warpBest(ga_gext x){
  #pragma unroll
  for( int o = 16; o > 0; o >>= 1 ){
    ga_gext c;
    c.hi = __shfl_down_sync(0xffffffffu, x.hi, o);
    c.lo = __shfl_down_sync(0xffffffffu, x.lo, o);
    if( ga_gext_better(c, x) ) x = c;
  }
  return x;
}

/* a summed over the warp, in lane 0's (every lane calls it). */
__device__ void accWarp(Acc &a){
  a.nInt = warpSum(a.nInt);
  a.nReal = warpSum(a.nReal);
  a.ilo = warpSum(a.ilo);
  a.ihi = (long long)warpSum((ull)a.ihi);
  #pragma unroll
  for( int j = 0; j < GA_GWORDS; j++ ) a.w[j] = (long long)warpSum((ull)a.w[j]);
  a.mx = warpBest(a.mx);
  a.mn = warpBest(a.mn);
}

/* d += a (d in shared or global memory). */
__device__ void accAdd(ga_gacc *d, const Acc &a){
  addU((ull *)&d->nInt, a.nInt);
  addU((ull *)&d->nReal, a.nReal);
  addU((ull *)&d->ilo, a.ilo);
  addU((ull *)&d->ihi, (ull)a.ihi);
  for( int j = 0; j < GA_GWORDS; j++ ) addU((ull *)&d->w[j], (ull)a.w[j]);
  extKeep(&d->mx, a.mx);
  extKeep(&d->mn, a.mn);
}

template <int NF, int R>
__global__ void __launch_bounds__(kThreads, NF == 1 ? kBlocksPerSM : 1)  /* more folds' sums stay in registers */
qOne(const ga_qprog *gp, int nReg, const unsigned char *const *colC, const int64_t *const *colV,
     const unsigned char *tabC, const int64_t *tabV, long long n, long long base, Jb jbs, ga_gacc *out){
  extern __shared__ __align__(16) unsigned char sm[];
  constexpr int S = R * kThreads;
  const Tile t = tileStart<R>(sm, nReg, gp, colC, colV);
  const Shared *s = t.s;
  ga_gacc *sh = (ga_gacc *)t.extra;
  Acc a[NF];
  ull rows = 0, first = 0;
  for( int i = threadIdx.x; i < NF * (int)(sizeof(ga_gacc) / 8); i += kThreads ) ((ull *)sh)[i] = 0;
  #pragma unroll
  for( int f = 0; f < NF; f++ ){
    a[f].nInt = a[f].nReal = a[f].ilo = 0;
    a[f].ihi = 0;
    for( int j = 0; j < GA_GWORDS; j++ ) a[f].w[j] = 0;
    a[f].mx.hi = a[f].mx.lo = a[f].mn.hi = a[f].mn.lo = 0;
  }
  __syncthreads();
  eachRow<R, NF != 1>(t, 0, n, tabC, tabV, NoPre(), [&](int q, long long i){
    const unsigned char *c = t.rc + q;
    const int64_t *v = t.rv + q;
    uint64_t key;
    unsigned char km;
    ga_q_key(&s->p, c, v, S, &key, &km);
    if( km == GA_Q_DROPPED_META ) return;
    rows++;
    first = max(first, ~((ull)(base + i) << 3 | GA_K_INT));
    #pragma unroll
    for( int f = 0; f < NF; f++ ){
      int r = s->p.foldReg[f], cl = c[r * S];
      uint64_t x = (uint64_t)v[r * S];
      if( cl == GA_QC_INT ){
        a[f].nInt++;
        a[f].ilo += x & 0xffffffffull;
        a[f].ihi += (long long)((int64_t)x >> 32);
      }else if( cl == GA_QC_REAL ){
        int w;
        int64_t p[3];
        a[f].nReal++;
        if( !ga_split(__longlong_as_double((long long)x), &w, p) ){
          int o = w - jbs.jb[f];                      /* the window holds it (the range pass) */
          #pragma unroll
          for( int k = 0; k < GA_GWORDS; k++ ){
            a[f].w[k] += (k == o ? p[0] : 0) + (k == o + 1 ? p[1] : 0) + (k == o + 2 ? p[2] : 0);
          }
        }
      }else{
        continue;
      }
      if( s->p.foldExt[f] ){
        keepBetter(&a[f].mx, ga_gext_make(x, cl == GA_QC_REAL, (uint64_t)(base + i), 1));
        keepBetter(&a[f].mn, ga_gext_make(x, cl == GA_QC_REAL, (uint64_t)(base + i), 0));
      }
    }
  });
  /* the warp's, the block's, then the grid's */
  rows = warpSum(rows);
  #pragma unroll
  for( int o = 16; o > 0; o >>= 1 ) first = max(first, __shfl_down_sync(0xffffffffu, first, o));
  #pragma unroll
  for( int f = 0; f < NF; f++ ) accWarp(a[f]);
  if( (threadIdx.x & 31) == 0 ){
    if( rows ){
      atomicAdd((ull *)&sh[0].rows, rows);
      atomicMax((ull *)&sh[0].first, first);
    }
    #pragma unroll
    for( int f = 0; f < NF; f++ ) accAdd(&sh[f], a[f]);
  }
  __syncthreads();
  if( threadIdx.x < NF ){
    const ga_gacc *b = &sh[threadIdx.x];
    Acc t;
    ga_gacc *d = &out[threadIdx.x];
    t.nInt = b->nInt; t.nReal = b->nReal; t.ilo = b->ilo; t.ihi = b->ihi;
    for( int j = 0; j < GA_GWORDS; j++ ) t.w[j] = b->w[j];
    t.mx = b->mx; t.mn = b->mn;
    accAdd(d, t);
    if( threadIdx.x == 0 && sh[0].rows ){
      atomicAdd((ull *)&out[0].rows, (ull)sh[0].rows);
      atomicMax((ull *)&out[0].first, (ull)sh[0].first);
    }
  }
}

/* ---- dictionary keys, few groups: rows folded at their code (7) --------------- */

/* A row's code (10): a dictionary program's key as it is; a number key's
** place from keyLo, NULL's nCode - 1; nCode (counted as bad) for a key of
** another class or past the span. */
__device__ __forceinline__ uint64_t keyCode(const ga_qprog *p, uint64_t key, unsigned km, long long nCode){
  uint64_t c;
  if( !p->keyNum ) return key;
  if( (km & GA_K_MASK) == GA_K_NULL ) return (uint64_t)nCode - 1;
  if( ga_kgroup(km & GA_K_MASK) != GA_K_INT ) return (uint64_t)nCode;
  c = key - (uint64_t)p->keyLo;       /* (a key below keyLo wraps past nCode) */
  return c < (uint64_t)nCode - 1 ? c : (uint64_t)nCode;
}

struct JbAll { int jb[GA_QFOLD]; };

/* A fold's value folded into a (shared or global): group_row.cuh's acc_row
** without the rows and the first row (fold 0's), its extremes only where
** a min() or max() reads them. */
__device__ __forceinline__ void foldValue(ga_gacc *a, int jb, int cl, uint64_t x, uint64_t pos, bool ext){
  if( cl == GA_QC_INT ){
    atomicAdd((ull *)&a->nInt, 1ull);
    addU((ull *)&a->ilo, x & 0xffffffffull);
    addU((ull *)&a->ihi, (ull)((int64_t)x >> 32));
  }else if( cl == GA_QC_REAL ){
    int w;
    int64_t p[3];
    atomicAdd((ull *)&a->nReal, 1ull);
    if( !ga_split(__longlong_as_double((long long)x), &w, p) ){   /* the window holds it (the range pass) */
      for( int k = 0; k < 3; k++ ) addU((ull *)&a->w[w - jb + k], (ull)p[k]);
    }
  }else{
    return;
  }
  if( ext ){
    extKeep(&a->mx, ga_gext_make(x, cl == GA_QC_REAL, pos, 1));
    extKeep(&a->mn, ga_gext_make(x, cl == GA_QC_REAL, pos, 0));
  }
}

template <int R, bool SH>
__global__ void __launch_bounds__(kThreads, kBlocksPerSM)
qGroup(const ga_qprog *gp, int nReg, const unsigned char *const *colC, const int64_t *const *colV,
       const unsigned char *tabC, const int64_t *tabV, long long n, long long base, JbAll jbs, long long nGroup,
       ga_gacc *out, int *bad, long long nCode, const uint32_t *map, const uint32_t *codes){
  extern __shared__ __align__(16) unsigned char sm[];
  constexpr int S = R * kThreads;
  const Tile t = tileStart<R>(sm, nReg, gp, colC, colV);
  const Shared *s = t.s;
  ga_gacc *tab = (ga_gacc *)t.extra;
  const long long nAcc = nGroup * s->p.nFold;
  if( !SH ) tab = out;
  else{
    for( long long i = threadIdx.x; i < nAcc * (long long)(sizeof(ga_gacc) / 8); i += kThreads ) ((ull *)tab)[i] = 0;
    __syncthreads();
  }
  eachRow<R>(t, 0, n, tabC, tabV, NoPre(), [&](int q, long long i){
    const uint64_t pos = (uint64_t)(base + i);
    uint64_t key;
    unsigned char km;
    ga_q_key(&s->p, t.rc + q, t.rv + q, S, &key, &km);
    if( km == GA_Q_DROPPED_META ) return;
    key = keyCode(&s->p, key, km, nCode);
    if( key >= (uint64_t)nCode ){
      atomicAdd(bad, 1);
      return;
    }
    if( map ){
      /* 9: the code's place among those marked; one never marked (not
      ** this program's) is caught by the code kept there */
      const uint32_t k = map[key];
      if( k >= (uint64_t)nGroup || codes[k] != key ){
        atomicAdd(bad, 1);
        return;
      }
      key = k;
    }
    atomicAdd((ull *)&tab[key].rows, 1ull);
    {
      ull f = ~(pos << 3 | (km & GA_K_MASK));       /* (a number key's form: 10) */
      if( f > *(volatile ull *)&tab[key].first ) atomicMax((ull *)&tab[key].first, f);
    }
    for( int f = 0; f < s->p.nFold; f++ ){
      int r = s->p.foldReg[f] * S + q;
      foldValue(&tab[f * nGroup + (long long)key], jbs.jb[f], t.rc[r], (uint64_t)t.rv[r], pos, s->p.foldExt[f] != 0);
    }
  });
  if( SH ){
    __syncthreads();
    for( long long i = threadIdx.x; i < nAcc; i += kThreads ){
      if( tab[i % nGroup].rows ) acc_merge(&out[i], &tab[i]);
    }
  }
}

/* 9: each code with a row the filter keeps marked in flag (nCode bytes,
** zeroed before); a code not below nCode counted in *bad. */
template <int R>
__global__ void __launch_bounds__(kThreads, kBlocksPerSM)
qMark(const ga_qprog *gp, int nReg, const unsigned char *const *colC, const int64_t *const *colV,
      const unsigned char *tabC, const int64_t *tabV, long long n, long long nCode, unsigned char *flag, int *bad){
  extern __shared__ __align__(16) unsigned char sm[];
  constexpr int S = R * kThreads;
  const Tile t = tileStart<R>(sm, nReg, gp, colC, colV);
  const Shared *s = t.s;
  eachRow<R>(t, 0, n, tabC, tabV, NoPre(), [&](int q, long long){
    uint64_t key;
    unsigned char km;
    ga_q_key(&s->p, t.rc + q, t.rv + q, S, &key, &km);
    if( km == GA_Q_DROPPED_META ) return;
    key = keyCode(&s->p, key, km, nCode);
    if( key >= (uint64_t)nCode ) atomicAdd(bad, 1);
    else flag[key] = 1;
  });
}

/* 9: the picked codes' places, map[codes[i]] = i for the *pn of them. */
__global__ void qMap(const uint32_t *codes, const int *pn, uint32_t *map){
  const long long m = *pn;
  for( long long i = blockIdx.x * (long long)blockDim.x + threadIdx.x; i < m; i += (long long)gridDim.x * blockDim.x ){
    map[codes[i]] = (uint32_t)i;
  }
}

/* Rows a thread takes (1): as many as keep a block's registers within
** kRegBytes, or gTileRows where bench_kernels sets it. */
constexpr int kRegBytes = 64 * 1024;
int gTileRows = 0;

/* Accumulators a block's table in shared memory holds (7): 16 KiB, so that
** the blocks an SM runs are still about as many as the registers let
** (SSB Q3.2's 601 groups, 77 KiB a block: one block an SM, and its device
** operators 0.69 ms on the H100; Q4.3's 801 in the grid's table, 0.34 ms). */
constexpr long long kGroupShared = 128;

constexpr int regsFor(int R){ return R == 1 ? GA_QREG : kRegBytes / (R * kThreads * 9); }

int tileRows(int nReg){
  if( gTileRows && nReg <= regsFor(gTileRows) ) return gTileRows;
  return nReg <= regsFor(4) ? 4 : nReg <= regsFor(2) ? 2 : 1;
}

/* Shared memory of a block (tileStart): the program, nReg registers of R
** rows a thread, the slot lists and the queues, extra. */
size_t smemBytes(int nReg, int R, int extra){
  return ((sizeof(Shared) + 15) & ~(size_t)15) + (size_t)nReg * R * kThreads * 9 + 16 + (size_t)R * kThreads * 12
         + (size_t)extra;
}

int blocksFor(long long n, int R){
  long long b = (n + R * kThreads - 1) / (R * kThreads);
  return b < 1 ? 1 : b > 4096 ? 4096 : (int)b;
}

template <int R>
cudaError_t prepare(void){
  int one = (int)smemBytes(regsFor(R), R, 16 + GA_QONE * sizeof(ga_gacc));
  cudaError_t e = cudaFuncSetAttribute(qRange<R>, cudaFuncAttributeMaxDynamicSharedMemorySize,
                                       (int)smemBytes(regsFor(R), R, kRangeExtra));
  if( e == cudaSuccess ) e = cudaFuncSetAttribute(qRows<R>, cudaFuncAttributeMaxDynamicSharedMemorySize,
                                                  (int)smemBytes(regsFor(R), R, 0));
  if( e == cudaSuccess ) e = cudaFuncSetAttribute(qOrder<R>, cudaFuncAttributeMaxDynamicSharedMemorySize,
                                                  (int)smemBytes(regsFor(R), R, 0));
  if( e == cudaSuccess ) e = cudaFuncSetAttribute(qGroup<R, true>, cudaFuncAttributeMaxDynamicSharedMemorySize,
                                                  (int)smemBytes(regsFor(R), R, kGroupShared * sizeof(ga_gacc)));
  if( e == cudaSuccess ) e = cudaFuncSetAttribute(qGroup<R, false>, cudaFuncAttributeMaxDynamicSharedMemorySize,
                                                  (int)smemBytes(regsFor(R), R, 0));
  if( e == cudaSuccess ) e = cudaFuncSetAttribute(qMark<R>, cudaFuncAttributeMaxDynamicSharedMemorySize,
                                                  (int)smemBytes(regsFor(R), R, 0));
  if( e == cudaSuccess ) e = cudaFuncSetAttribute(qOne<1, R>, cudaFuncAttributeMaxDynamicSharedMemorySize, one);
  if( e == cudaSuccess ) e = cudaFuncSetAttribute(qOne<2, R>, cudaFuncAttributeMaxDynamicSharedMemorySize, one);
  if( e == cudaSuccess ) e = cudaFuncSetAttribute(qOne<3, R>, cudaFuncAttributeMaxDynamicSharedMemorySize, one);
  if( e == cudaSuccess ) e = cudaFuncSetAttribute(qOne<4, R>, cudaFuncAttributeMaxDynamicSharedMemorySize, one);
  return e;
}

/* The blocks of kernel k (sm bytes of shared memory) the device runs at
** once, in *pn: qOne's grid, so that each block folds many tiles and the
** grid's atomics are few. */
template <class K>
cudaError_t oneGrid(K k, size_t sm, int *pn){
  int dev, nSM, per;
  cudaError_t e = cudaGetDevice(&dev);
  if( e == cudaSuccess ) e = cudaDeviceGetAttribute(&nSM, cudaDevAttrMultiProcessorCount, dev);
  if( e == cudaSuccess ) e = cudaOccupancyMaxActiveBlocksPerMultiprocessor(&per, k, kThreads, sm);
  if( e == cudaSuccess ) *pn = nSM * per;
  return e;
}

template <int R>
cudaError_t launchOne(const ga_qprog *d_p, const ga_qprog *h_p, const unsigned char *const *d_colC,
                      const int64_t *const *d_colV, const unsigned char *d_tabC, const int64_t *d_tabV, int64_t n,
                      int64_t base, Jb j, ga_gacc *d_out, int blocks, cudaStream_t stream){
  size_t sm = smemBytes(h_p->nReg, R, 16 + GA_QONE * sizeof(ga_gacc));
  int b = blocksFor(n, R), res = 0;
  cudaError_t e;
  switch( h_p->nFold ){
    case 1: e = oneGrid(qOne<1, R>, sm, &res); break;
    case 2: e = oneGrid(qOne<2, R>, sm, &res); break;
    case 3: e = oneGrid(qOne<3, R>, sm, &res); break;
    case 4: e = oneGrid(qOne<4, R>, sm, &res); break;
    default: return cudaErrorInvalidValue;
  }
  if( e != cudaSuccess ) return e;
  if( res > 0 && b > res ) b = res;
  if( blocks > 0 && b > blocks ) b = blocks;
  switch( h_p->nFold ){
    case 1: qOne<1, R><<<b, kThreads, sm, stream>>>(d_p, h_p->nReg, d_colC, d_colV, d_tabC, d_tabV, n, base, j, d_out); break;
    case 2: qOne<2, R><<<b, kThreads, sm, stream>>>(d_p, h_p->nReg, d_colC, d_colV, d_tabC, d_tabV, n, base, j, d_out); break;
    case 3: qOne<3, R><<<b, kThreads, sm, stream>>>(d_p, h_p->nReg, d_colC, d_colV, d_tabC, d_tabV, n, base, j, d_out); break;
    default: qOne<4, R><<<b, kThreads, sm, stream>>>(d_p, h_p->nReg, d_colC, d_colV, d_tabC, d_tabV, n, base, j, d_out); break;
  }
  return cudaGetLastError();
}

template <int R>
cudaError_t launchGroup(const ga_qprog *d_p, const ga_qprog *h_p, const unsigned char *const *d_colC,
                        const int64_t *const *d_colV, const unsigned char *d_tabC, const int64_t *d_tabV, int64_t n,
                        int64_t base, const JbAll &j, int64_t nGroup, ga_gacc *d_out, int *d_bad, int64_t nCode,
                        const uint32_t *d_map, const uint32_t *d_codes, cudaStream_t stream){
  const bool sh = !d_map && nGroup * h_p->nFold <= kGroupShared;
  size_t sm = smemBytes(h_p->nReg, R, sh ? (int)(nGroup * h_p->nFold * (int64_t)sizeof(ga_gacc)) : 0);
  int b = blocksFor(n, R), res = 0;
  cudaError_t e = sh ? oneGrid(qGroup<R, true>, sm, &res) : oneGrid(qGroup<R, false>, sm, &res);
  if( e != cudaSuccess ) return e;
  if( res > 0 && b > res ) b = res;
  if( sh ) qGroup<R, true><<<b, kThreads, sm, stream>>>(d_p, h_p->nReg, d_colC, d_colV, d_tabC, d_tabV, n, base, j, nGroup,
                                                        d_out, d_bad, nCode, d_map, d_codes);
  else qGroup<R, false><<<b, kThreads, sm, stream>>>(d_p, h_p->nReg, d_colC, d_colV, d_tabC, d_tabV, n, base, j, nGroup,
                                                     d_out, d_bad, nCode, d_map, d_codes);
  return cudaGetLastError();
}

template <int R>
cudaError_t launchMark(const ga_qprog *d_p, const ga_qprog *h_p, const unsigned char *const *d_colC,
                       const int64_t *const *d_colV, const unsigned char *d_tabC, const int64_t *d_tabV, int64_t n,
                       int64_t nCode, unsigned char *d_flag, int *d_bad, cudaStream_t stream){
  size_t sm = smemBytes(h_p->nReg, R, 0);
  int b = blocksFor(n, R), res = 0;
  cudaError_t e = oneGrid(qMark<R>, sm, &res);
  if( e != cudaSuccess ) return e;
  if( res > 0 && b > res ) b = res;
  qMark<R><<<b, kThreads, sm, stream>>>(d_p, h_p->nReg, d_colC, d_colV, d_tabC, d_tabV, n, nCode, d_flag, d_bad);
  return cudaGetLastError();
}

/* qGroup at the tile rows the program's registers allow (1); a map places
** the codes (9). */
cudaError_t groupLaunch(const ga_qprog *d_p, const ga_qprog *h_p, const unsigned char *const *d_colC,
                        const int64_t *const *d_colV, const unsigned char *d_tabC, const int64_t *d_tabV, int64_t n,
                        int64_t base, const int *jb, int64_t nGroup, ga_gacc *d_out, int *d_bad, int64_t nCode,
                        const uint32_t *d_map, const uint32_t *d_codes, cudaStream_t stream){
  JbAll j;
  for( int f = 0; f < GA_QFOLD; f++ ) j.jb[f] = f < h_p->nFold ? jb[f] : 0;
  switch( tileRows(h_p->nReg) ){
    case 4: return launchGroup<4>(d_p, h_p, d_colC, d_colV, d_tabC, d_tabV, n, base, j, nGroup, d_out, d_bad, nCode, d_map,
                                  d_codes, stream);
    case 2: return launchGroup<2>(d_p, h_p, d_colC, d_colV, d_tabC, d_tabV, n, base, j, nGroup, d_out, d_bad, nCode, d_map,
                                  d_codes, stream);
    default: return launchGroup<1>(d_p, h_p, d_colC, d_colV, d_tabC, d_tabV, n, base, j, nGroup, d_out, d_bad, nCode, d_map,
                                   d_codes, stream);
  }
}

}  // namespace

extern "C" cudaError_t ga_query_group_launch(const ga_qprog *d_p, const ga_qprog *h_p, const unsigned char *const *d_colC,
                                             const int64_t *const *d_colV, const unsigned char *d_tabC,
                                             const int64_t *d_tabV, int64_t n, int64_t base, const int *jb,
                                             int64_t nGroup, ga_gacc *d_out, int *d_bad, cudaStream_t stream){
  if( n <= 0 ) return cudaSuccess;
  if( nGroup <= 0 || nGroup * h_p->nFold > GA_QGROUP_SPARSE ) return cudaErrorInvalidValue;
  return groupLaunch(d_p, h_p, d_colC, d_colV, d_tabC, d_tabV, n, base, jb, nGroup, d_out, d_bad, nGroup, 0, 0, stream);
}

extern "C" cudaError_t ga_query_mark_launch(const ga_qprog *d_p, const ga_qprog *h_p, const unsigned char *const *d_colC,
                                            const int64_t *const *d_colV, const unsigned char *d_tabC,
                                            const int64_t *d_tabV, int64_t n, int64_t nCode, unsigned char *d_flag,
                                            int *d_bad, cudaStream_t stream){
  if( n <= 0 ) return cudaSuccess;
  if( nCode <= 0 || nCode > GA_QGROUP_MAPPED ) return cudaErrorInvalidValue;
  switch( tileRows(h_p->nReg) ){
    case 4: return launchMark<4>(d_p, h_p, d_colC, d_colV, d_tabC, d_tabV, n, nCode, d_flag, d_bad, stream);
    case 2: return launchMark<2>(d_p, h_p, d_colC, d_colV, d_tabC, d_tabV, n, nCode, d_flag, d_bad, stream);
    default: return launchMark<1>(d_p, h_p, d_colC, d_colV, d_tabC, d_tabV, n, nCode, d_flag, d_bad, stream);
  }
}

extern "C" cudaError_t ga_query_map_launch(const uint32_t *d_codes, const int *d_n, uint32_t *d_map, cudaStream_t stream){
  int dev = 0, nSM = 0;
  cudaError_t e = cudaGetDevice(&dev);
  if( e == cudaSuccess ) e = cudaDeviceGetAttribute(&nSM, cudaDevAttrMultiProcessorCount, dev);
  if( e != cudaSuccess ) return e;
  qMap<<<4 * nSM, 256, 0, stream>>>(d_codes, d_n, d_map);
  return cudaGetLastError();
}

extern "C" cudaError_t ga_query_group_mapped_launch(const ga_qprog *d_p, const ga_qprog *h_p,
                                                    const unsigned char *const *d_colC, const int64_t *const *d_colV,
                                                    const unsigned char *d_tabC, const int64_t *d_tabV, int64_t n,
                                                    int64_t base, const int *jb, int64_t nCode, const uint32_t *d_map,
                                                    const uint32_t *d_codes, int64_t nGroup, ga_gacc *d_out, int *d_bad,
                                                    cudaStream_t stream){
  if( n <= 0 ) return cudaSuccess;
  if( nGroup <= 0 || nCode <= 0 || nCode > GA_QGROUP_MAPPED || nGroup > nCode ) return cudaErrorInvalidValue;
  return groupLaunch(d_p, h_p, d_colC, d_colV, d_tabC, d_tabV, n, base, jb, nGroup, d_out, d_bad, nCode, d_map, d_codes,
                     stream);
}

/* 8: fold f's accumulators of each picked code, its rows and first row
** fold 0's, finished as the host would (ga_group_finish); a number key's
** code (nullCode >= 0: 10) its key again. */
__global__ void qFinish(const ga_gacc *tab, long long nGroup, int nFold, JbAll jbs, const uint32_t *codes,
                        const int *pn, int mapped, long long keyLo, long long nullCode, ga_grow *out){
  const long long m = *pn, all = m * nFold;
  for( long long j = blockIdx.x * (long long)blockDim.x + threadIdx.x; j < all; j += (long long)gridDim.x * blockDim.x ){
    long long f = j / m, i = j - f * m, c = codes[i], at = mapped ? i : c;
    uint64_t key = nullCode < 0 ? (uint64_t)c : c == nullCode ? 0 : (uint64_t)keyLo + (uint64_t)c;
    ga_gacc a = tab[f * nGroup + at];
    a.rows = tab[at].rows;
    a.first = tab[at].first;
    ga_group_finish(&a, key, jbs.jb[f], 0, &out[j]);
  }
}

extern "C" cudaError_t ga_query_finish_launch(const ga_gacc *d_tab, int64_t nGroup, int nFold, const int *jb,
                                              const uint32_t *d_codes, const int *d_n, int mapped, int64_t keyLo,
                                              int64_t nullCode, ga_grow *d_out, cudaStream_t stream){
  JbAll j;
  int dev = 0, nSM = 0;
  cudaError_t e = cudaGetDevice(&dev);
  if( e == cudaSuccess ) e = cudaDeviceGetAttribute(&nSM, cudaDevAttrMultiProcessorCount, dev);
  if( e != cudaSuccess ) return e;
  if( nGroup <= 0 || nFold <= 0 || nFold > GA_QFOLD ) return cudaErrorInvalidValue;
  for( int f = 0; f < GA_QFOLD; f++ ) j.jb[f] = f < nFold ? jb[f] : 0;
  qFinish<<<4 * nSM, 128, 0, stream>>>(d_tab, nGroup, nFold, j, d_codes, d_n, mapped, keyLo, nullCode, d_out);
  return cudaGetLastError();
}

extern "C" void ga_query_tile_rows(int r){ gTileRows = r == 1 || r == 2 || r == 4 ? r : 0; }

extern "C" cudaError_t ga_query_prepare(void){
  cudaError_t e = prepare<1>();
  if( e == cudaSuccess ) e = prepare<2>();
  if( e == cudaSuccess ) e = prepare<4>();
  return e;
}

extern "C" cudaError_t ga_query_one_launch(const ga_qprog *d_p, const ga_qprog *h_p, const unsigned char *const *d_colC,
                                           const int64_t *const *d_colV, const unsigned char *d_tabC,
                                           const int64_t *d_tabV, int64_t n, int64_t base, const int *jb,
                                           ga_gacc *d_out, int blocks, cudaStream_t stream){
  Jb j;
  if( n <= 0 ) return cudaSuccess;
  for( int f = 0; f < GA_QONE; f++ ) j.jb[f] = f < h_p->nFold ? jb[f] : 0;
  switch( tileRows(h_p->nReg) ){
    case 4: return launchOne<4>(d_p, h_p, d_colC, d_colV, d_tabC, d_tabV, n, base, j, d_out, blocks, stream);
    case 2: return launchOne<2>(d_p, h_p, d_colC, d_colV, d_tabC, d_tabV, n, base, j, d_out, blocks, stream);
    default: return launchOne<1>(d_p, h_p, d_colC, d_colV, d_tabC, d_tabV, n, base, j, d_out, blocks, stream);
  }
}

extern "C" cudaError_t ga_query_range_launch(const ga_qprog *d_p, int nReg, const unsigned char *const *d_colC,
                                             const int64_t *const *d_colV, const unsigned char *d_tabC,
                                             const int64_t *d_tabV, int64_t n, int *d_range, int64_t *d_keyStat,
                                             cudaStream_t stream){
  int R = tileRows(nReg);
  size_t sm = smemBytes(nReg, R, kRangeExtra);
  long long *k = (long long *)d_keyStat;
  if( n <= 0 ) return cudaSuccess;
  switch( R ){
    case 4: qRange<4><<<blocksFor(n, 4), kThreads, sm, stream>>>(d_p, nReg, d_colC, d_colV, d_tabC, d_tabV, n, d_range, k); break;
    case 2: qRange<2><<<blocksFor(n, 2), kThreads, sm, stream>>>(d_p, nReg, d_colC, d_colV, d_tabC, d_tabV, n, d_range, k); break;
    default: qRange<1><<<blocksFor(n, 1), kThreads, sm, stream>>>(d_p, nReg, d_colC, d_colV, d_tabC, d_tabV, n, d_range, k); break;
  }
  return cudaGetLastError();
}

extern "C" cudaError_t ga_query_rows_launch(const ga_qprog *d_p, int nReg, const unsigned char *const *d_colC,
                                            const int64_t *const *d_colV, const unsigned char *d_tabC,
                                            const int64_t *d_tabV, int64_t first, int64_t n, uint64_t *d_keys, uint64_t *d_vals,
                                            unsigned char *d_meta, int64_t stride, cudaStream_t stream){
  int R = tileRows(nReg);
  size_t sm = smemBytes(nReg, R, 0);
  unsigned long long *k = (unsigned long long *)d_keys, *v = (unsigned long long *)d_vals;
  if( n <= 0 ) return cudaSuccess;
  switch( R ){
    case 4: qRows<4><<<blocksFor(n, 4), kThreads, sm, stream>>>(d_p, nReg, d_colC, d_colV, d_tabC, d_tabV, first, n, k, v,
                                                               d_meta, stride); break;
    case 2: qRows<2><<<blocksFor(n, 2), kThreads, sm, stream>>>(d_p, nReg, d_colC, d_colV, d_tabC, d_tabV, first, n, k, v,
                                                               d_meta, stride); break;
    default: qRows<1><<<blocksFor(n, 1), kThreads, sm, stream>>>(d_p, nReg, d_colC, d_colV, d_tabC, d_tabV, first, n, k, v,
                                                                d_meta, stride); break;
  }
  return cudaGetLastError();
}

extern "C" cudaError_t ga_query_order_launch(const ga_qprog *d_p, int nReg, const unsigned char *const *d_colC,
                                             const int64_t *const *d_colV, const unsigned char *d_tabC,
                                             const int64_t *d_tabV, int64_t n, int desc, uint64_t *d_keys,
                                             unsigned char *d_cls, int *d_mask, cudaStream_t stream){
  int R = tileRows(nReg);
  size_t sm = smemBytes(nReg, R, 0);
  unsigned long long *k = (unsigned long long *)d_keys;
  if( n <= 0 ) return cudaSuccess;
  switch( R ){
    case 4: qOrder<4><<<blocksFor(n, 4), kThreads, sm, stream>>>(d_p, nReg, d_colC, d_colV, d_tabC, d_tabV, n, desc, k,
                                                                d_cls, d_mask); break;
    case 2: qOrder<2><<<blocksFor(n, 2), kThreads, sm, stream>>>(d_p, nReg, d_colC, d_colV, d_tabC, d_tabV, n, desc, k,
                                                                d_cls, d_mask); break;
    default: qOrder<1><<<blocksFor(n, 1), kThreads, sm, stream>>>(d_p, nReg, d_colC, d_colV, d_tabC, d_tabV, n, desc, k,
                                                                 d_cls, d_mask); break;
  }
  return cudaGetLastError();
}
