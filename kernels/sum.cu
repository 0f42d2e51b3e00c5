/*
** Exact sum of a chunk: a 128-bit integer lane and an exact real lane,
** ending as a settled ga_sum (sum_acc.h), the same bits the CPU backend
** folds.
**
** Algorithms. Each is exact, so any order, grid or device gives the same
** bits: there is one exact total, rounded once, on the host.
**
**   1. Integers: a 128-bit two's complement total a thread (an add with
**      carry a value); shuffle trees for the warp and the block.
**
**   2. Reals, the fast path: three levels of pre-rounding to a fixed grid,
**      the binned summation of Demmel and Nguyen (ReproBLAS). Level i is a
**      double S_i that starts at B_i = 1.5 * 2^E_i and stays within
**      2^(E_i - 2) of it. Adding r: S' = fl(S_i + r), then q = S' - S_i and
**      r' = r - q are exact (S' and S_i share a binade: Sterbenz; r' is
**      FastTwoSum's error), q is a whole number of ulps (2^(E_i - 52)) and
**      |r'| <= 2^(E_i - 53), which the next level, W = 51 - H bits lower,
**      takes. H is fixed a launch so that 2^H exceeds the values one thread
**      folds and a value x enters only if |x| < 2^(E_0 - 2 - H): no level
**      leaves its binade, and S_i - B_i is an exact integer of ulps at the
**      end (the difference of the two bit patterns). What the last level
**      leaves (bits more than about 3W below the largest value), a value
**      too large for E_0 (which moves E_0 up, to a multiple of 16 one step
**      beyond the need, so that a warp's lanes agree and moves are rare),
**      and ±Inf take the slow path.
**      Why fast: nine FP64 additions and two integer tests a value, no
**      compare-and-select, and one addition of loop-carried latency a
**      level; ordinary data never leaves this path.
**
**   3. Reals, the slow path: exponent buckets in shared memory, Neal's
**      large superaccumulator in 32-bit pieces. A finite x = ±m * 2^e
**      (m < 2^53) adds m << (e mod 4) (< 2^56) to bucket e / 4 of its sign:
**      three unsigned 32-bit limbs updated by native shared atomics, a
**      carry seen in the returned value added to the next limb. Integer
**      additions commute. Why fast enough: two atomics a value, spread over
**      1,024 slots, where a fixed-point accumulator would need three on a
**      few hot words. The block gathers its buckets into the 68 words of
**      sum_acc.h at its end.
**
**   4. ±Inf and NaN are flagged, not summed (NaN as -Inf, as sum_acc.h's
**      ga_sum_word does).
**
** Layers, from the top: device (a launch over the chunk, then one block of
** 1,024 threads that folds the block partials, 15 threads a word), block
** (16 KB tiles copied into shared memory by the TMA while the previous tile
** is folded, so that loads never wait on the fold; the buckets; integer
** atomics only), warp (shuffle trees; the levels' ulps summed across the
** warp when its lanes share E_0), thread (eight values of a tile at a time:
** one cap test, the levels' additions of all eight overlapping, one test
** of the remainders; the integer total and the levels in registers).
*/
#include "gpuagg_kernels.h"
#include "grid.cuh"

namespace {

constexpr int kThreads = GA_SUM_THREADS;
constexpr int kUnroll = 4;            /* 16-byte pieces a thread takes from a tile */
constexpr int kStages = 2;            /* tiles in shared memory: one folded, one landing */
constexpr int kTile = 2 * kUnroll * kThreads;   /* values a tile: 16 KB */
constexpr int kMinBlocks = 4;         /* per SM: registers capped at 64 */
constexpr unsigned kAll = 0xffffffffu;
constexpr int kLevels = 3;            /* levels of the fast path */
constexpr int kLattice = 16;          /* E_0 is a multiple of this, at least this
                                         much above what the value moving it needs */
constexpr int kBuckets = 512;         /* exponents e = 0..2045, four a bucket */
constexpr int kSlots = 2 * kBuckets;  /* the positive buckets, then the negative */

/* A block's shared state: what the slow path and the levels' ends add to. */
struct Block {
  long long w[GA_WORDS];              /* the buckets gathered: sum_acc.h's words */
  unsigned limb[3][kSlots];           /* bucket values: limb k weighs 2^(32k) */
  int used;                           /* a bucket was touched out of line */
};
__shared__ Block sb;
__shared__ alignas(128) longlong2 sStage[kStages][kTile / 2];   /* tiles, copied in by the TMA */
__shared__ alignas(8) unsigned long long sFull[kStages];        /* a tile's bytes have landed */

/* The launch's level spacing, the same for every thread. */
struct Grid {
  int h;                              /* 2^h > the values one thread folds */
  int w;                              /* bits between levels: 51 - h */
  int e0min;                          /* lowest E_0: the last level stays normal */
};

/* What one thread holds. */
struct Thread {
  uint64_t lo;                        /* integer total, low 64 bits */
  int64_t hi;                         /* integer total, high 64 bits */
  unsigned inf;                       /* GA_INF_POS | GA_INF_NEG */
  double s[kLevels];                  /* the levels S_i */
  int e0;                             /* E_0; E_i = E_0 - i*W */
  unsigned cap;                       /* |x|'s high word enters below this */
  bool used;                          /* a batch touched a bucket */
};

__device__ __forceinline__ Grid grid_of(long long n){
  const long long stride = (long long)gridDim.x * kThreads;
  const long long most = 2 * (((n >> 1) + stride - 1) / stride) + 2;
  Grid g;
  g.h = 64 - __clzll(most);
  if( g.h > 50 ) g.h = 50;            /* 2^50 values a thread: beyond any memory */
  g.w = 51 - g.h;
  g.e0min = (-1022 + (kLevels - 1) * g.w + kLattice - 1) & -kLattice;
  return g;
}

/* B = 1.5 * 2^e. */
__device__ __forceinline__ double level_base(int e){
  return __longlong_as_double((long long)(((unsigned long long)(e + 1023) << 52) | (1ull << 51)));
}

/* Start the levels at E_0 = e: x enters if its biased exponent is at most
** e + 1020 - h, i.e. its high word (sign cleared) is below cap. */
__device__ __forceinline__ void levels_start(Thread &t, const Grid &g, int e){
  int top = e + 1021 - g.h;
  t.e0 = e;
  t.cap = top > 0 ? (unsigned)top << 20 : 0;
#pragma unroll
  for( int i = 0; i < kLevels; i++ ) t.s[i] = level_base(e - i * g.w);
}

/* ---- block: the slow path's stores ------------------------------------- */

/* Add m * 2^(e - 1074) (m < 2^56, e in [0, 2045]), or its negation, to the
** buckets: bucket e / 4 takes m << (e mod 4) < 2^59, so a carry into limb 1
** still fits it. */
__device__ __forceinline__ void bucket_add(unsigned long long m, int e, int neg){
  const int s = neg * kBuckets + (e >> 2);
  m <<= e & 3;
  const unsigned v0 = (unsigned)m;
  unsigned v1 = (unsigned)(m >> 32);
  unsigned o = atomicAdd(&sb.limb[0][s], v0);
  if( o + v0 < o ) v1++;
  o = atomicAdd(&sb.limb[1][s], v1);
  if( o + v1 < o ) atomicAdd(&sb.limb[2][s], 1u);
}

/* Add x to the buckets; return inf with x's flag if x is ±Inf or NaN. */
__device__ __forceinline__ unsigned bucket_real(unsigned inf, double x){
  const unsigned long long b = (unsigned long long)__double_as_longlong(x);
  int e = (int)((b >> 52) & 0x7ff);
  unsigned long long m = b & 0xfffffffffffffull;
  if( e == 0x7ff ) return inf | (x > 0 ? GA_INF_POS : GA_INF_NEG);
  if( e ) m |= 1ull << 52; else e = 1;
  if( m ) bucket_add(m, e - 1, (int)(b >> 63));   /* m's lowest bit weighs 2^(e - 1 - 1074) */
  return inf;
}
/* The same out of line, for the rare paths. */
__device__ __noinline__ unsigned to_buckets(unsigned inf, double x){
  sb.used = 1;
  return bucket_real(inf, x);
}

/* Add k * 2^(off - 1074) (|k| < 2^56) to the buckets. */
__device__ __noinline__ void to_buckets_int(long long k, int off){
  if( k ){
    sb.used = 1;
    bucket_add((unsigned long long)(k < 0 ? -k : k), off, k < 0);
  }
}

/* Level i's content: S_i - B_i in ulps, and where its ulp sits. */
__device__ __forceinline__ long long level_ulps(const Thread &t, const Grid &g, int i){
  return __double_as_longlong(t.s[i]) - __double_as_longlong(level_base(t.e0 - i * g.w));
}
__device__ __forceinline__ int level_off(const Thread &t, const Grid &g, int i){
  return t.e0 - i * g.w - 52 + 1074;
}

/* ---- block: the walk ----------------------------------------------------- */

/* The Hopper tensor memory accelerator's bulk copy into shared memory, and
** the transaction barrier that says when its bytes have landed. */
__device__ __forceinline__ unsigned smem(const void *p){ return (unsigned)__cvta_generic_to_shared(p); }
__device__ __forceinline__ void bar_init(unsigned long long *b){
  asm volatile("mbarrier.init.shared::cta.b64 [%0], 1;" :: "r"(smem(b)));
}
__device__ __forceinline__ void bulk_load(void *dst, const void *src, unsigned bytes, unsigned long long *b){
  asm volatile("mbarrier.arrive.expect_tx.shared::cta.b64 _, [%0], %1;" :: "r"(smem(b)), "r"(bytes) : "memory");
  asm volatile("cp.async.bulk.shared::cluster.global.mbarrier::complete_tx::bytes [%0], [%1], %2, [%3];"
               :: "r"(smem(dst)), "l"(src), "r"(bytes), "r"(smem(b)) : "memory");
}
__device__ __forceinline__ void bar_wait(unsigned long long *b, unsigned parity){
  asm volatile("{\n\t.reg .pred p;\n"
               "WAIT_%=:\n\t"
               "mbarrier.try_wait.parity.shared::cta.b64 p, [%0], %1;\n\t"
               "@!p bra WAIT_%=;\n}" :: "r"(smem(b)), "r"(parity) : "memory");
}

/* This block's share of vals[lo..hi), in tiles of 16 KB that the TMA copies
** into shared memory while the threads fold the previous one: a tile or two
** of loads always in flight a block whatever the folding costs (loads into
** registers stall on the fold's latency; per-thread cp.async costs an
** instruction a piece). fb(w, pos) gets a thread's kUnroll pieces of a
** tile (w[k]: the values at pos[k] and pos[k] + 1); f(value, position) the
** values outside whole tiles. Every thread of the block must call it. */
template <class FB, class F>
__device__ __forceinline__ void for_each_staged(const long long *__restrict__ vals, long long lo, long long hi,
                                                FB &&fb, F &&f){
  if( lo < hi && (lo & 1) ){           /* tiles start at even positions: 16-byte aligned */
    if( blockIdx.x == 0 && threadIdx.x == 0 ) f(vals[lo], lo);
    lo++;
  }
  if( lo >= hi ) return;
  const long long nt = (hi - lo) / kTile;
  const long long *src = vals + lo;
  const bool issuer = threadIdx.x == 0;
  if( issuer ){
    for( int s = 0; s < kStages; s++ ) bar_init(&sFull[s]);
    asm volatile("fence.mbarrier_init.release.cluster;" ::: "memory");
    for( int s = 0; s < kStages; s++ ){
      const long long t = blockIdx.x + (long long)s * gridDim.x;
      if( t < nt ) bulk_load(sStage[s], src + t * kTile, kTile * 8, &sFull[s]);
    }
  }
  __syncthreads();
  long long j = 0;                     /* this block's tile count */
  for( long long t = blockIdx.x; t < nt; t += gridDim.x, j++ ){
    const int s = (int)(j % kStages);
    longlong2 w[kUnroll];
    long long pos[kUnroll];
    bar_wait(&sFull[s], (unsigned)(j / kStages) & 1);
#pragma unroll
    for( int k = 0; k < kUnroll; k++ ){
      const int c = k * kThreads + threadIdx.x;
      w[k] = sStage[s][c];
      pos[k] = lo + t * kTile + 2 * c;
    }
    __syncthreads();                   /* stage s read by everyone: refill it */
    const long long tn = t + (long long)kStages * gridDim.x;
    if( issuer && tn < nt ){
      asm volatile("fence.proxy.async.shared::cta;" ::: "memory");
      bulk_load(sStage[s], src + tn * kTile, kTile * 8, &sFull[s]);
    }
    fb(w, pos);
  }
  for_each_value<kThreads, kUnroll>(vals, lo + nt * kTile, hi, f);
}

/* ---- thread ------------------------------------------------------------ */

__device__ __forceinline__ void fold_int(Thread &t, long long v){ ga_i128_add(&t.lo, &t.hi, v); }

/* x is too large for E_0 (or not finite). Move E_0 up and return true (the
** caller adds x), or, where no E_0 holds it, send x to the buckets. */
__device__ __forceinline__ bool levels_raise(Thread &t, const Grid &g, double x){
  const int need = (int)((__double_as_longlong(x) >> 52) & 0x7ff) - 1020 + g.h;
  const int e = min(((need + kLattice - 1) & -kLattice) + kLattice, 1023);
  if( e < need ){
    t.inf = to_buckets(t.inf, x);
    return false;
  }
  for( int i = 0; i < kLevels; i++ ) to_buckets_int(level_ulps(t, g, i), level_off(t, g, i));
  levels_start(t, g, e);
  return true;
}

__device__ __forceinline__ void fold_real(Thread &t, const Grid &g, long long v){
  double x = __longlong_as_double(v);
  if( ((unsigned)((unsigned long long)v >> 32) & 0x7fffffffu) >= t.cap && !levels_raise(t, g, x) ) return;
#pragma unroll
  for( int i = 0; i < kLevels; i++ ){
    const double s = t.s[i] + x;
    x -= s - t.s[i];
    t.s[i] = s;
  }
  if( x != 0.0 ) t.inf = to_buckets(t.inf, x);
}

/* A batch of 2*kUnroll values, value k REAL if bit k of real is set, else
** INTEGER. One test of the largest magnitude against the cap and one of the
** remainders for the whole batch, and no call in between, so that the
** levels' additions of different values overlap; a batch that needs E_0
** moved goes value by value. */
__device__ __forceinline__ void fold_batch(Thread &t, const Grid &g, const longlong2 (&w)[kUnroll], unsigned real){
  constexpr int N = 2 * kUnroll;
  long long v[N];
  double x[N];
  unsigned top = 0;
#pragma unroll
  for( int k = 0; k < kUnroll; k++ ){ v[2 * k] = w[k].x; v[2 * k + 1] = w[k].y; }
#pragma unroll
  for( int k = 0; k < N; k++ ){
    const bool r = (real >> k) & 1;
    fold_int(t, r ? 0 : v[k]);
    x[k] = r ? __longlong_as_double(v[k]) : 0.0;
    top = max(top, r ? (unsigned)((unsigned long long)v[k] >> 32) & 0x7fffffffu : 0u);
  }
  if( top >= t.cap ){
#pragma unroll
    for( int k = 0; k < N; k++ ) if( (real >> k) & 1 ) fold_real(t, g, v[k]);
    return;
  }
#pragma unroll
  for( int i = 0; i < kLevels; i++ ){
#pragma unroll
    for( int k = 0; k < N; k++ ){
      const double s = t.s[i] + x[k];
      x[k] -= s - t.s[i];
      t.s[i] = s;
    }
  }
  bool any = false;
#pragma unroll
  for( int k = 0; k < N; k++ ) any |= x[k] != 0.0;
  if( any ){                           /* inline: the batch's atomics overlap */
    t.used = true;
#pragma unroll
    for( int k = 0; k < N; k++ ) if( x[k] != 0.0 ) t.inf = bucket_real(t.inf, x[k]);
  }
}

/* ---- warp --------------------------------------------------------------- */

__device__ __forceinline__ long long warp_sum(long long v){
  for( int d = 16; d > 0; d >>= 1 ) v += __shfl_down_sync(kAll, v, d);
  return v;
}

/* Every lane's levels into the words: summed across the warp first when
** the lanes share E_0 (|ulps| < 2^50 a lane). */
__device__ __forceinline__ void warp_levels(const Thread &t, const Grid &g){
  const bool same = __all_sync(kAll, t.e0 == __shfl_sync(kAll, t.e0, 0));
  for( int i = 0; i < kLevels; i++ ){
    long long k = level_ulps(t, g, i);
    if( same ){
      k = warp_sum(k);
      if( (threadIdx.x & 31) == 0 ) to_buckets_int(k, level_off(t, g, i));
    }else{
      to_buckets_int(k, level_off(t, g, i));
    }
  }
}

/* Lane 0 ends with the warp's integer total and infinities. */
__device__ __forceinline__ void warp_ints(uint64_t &lo, int64_t &hi, unsigned &inf){
  for( int d = 16; d > 0; d >>= 1 ){
    uint64_t l = __shfl_down_sync(kAll, (unsigned long long)lo, d);
    int64_t h = __shfl_down_sync(kAll, (long long)hi, d);
    uint64_t s = lo + l;
    hi += h + (s < lo);
    lo = s;
  }
  inf = __reduce_or_sync(kAll, inf);
}

/* ---- block -------------------------------------------------------------- */

/* Thread 0 ends with the block's integer total and infinities (T threads). */
template <int T>
__device__ __forceinline__ void block_ints(uint64_t &lo, int64_t &hi, unsigned &inf){
  constexpr int kW = T / 32;
  __shared__ uint64_t slo[kW];
  __shared__ int64_t shi[kW];
  __shared__ unsigned sinf[kW];
  const int lane = threadIdx.x & 31, warp = threadIdx.x >> 5;
  warp_ints(lo, hi, inf);
  if( lane == 0 ){ slo[warp] = lo; shi[warp] = hi; sinf[warp] = inf; }
  __syncthreads();
  if( warp == 0 ){
    lo = lane < kW ? slo[lane] : 0;
    hi = lane < kW ? shi[lane] : 0;
    inf = lane < kW ? sinf[lane] : 0;
    warp_ints(lo, hi, inf);
  }
}

/* The buckets into the words: thread k gathers word k's digits from the
** buckets that reach it (bucket b starts at bit 4b of the grid, i.e. in word
** b / 8, and spans at most four words). Sums of at most 64 digits. */
__device__ __forceinline__ void block_buckets(bool mine){
  __syncthreads();                    /* every bucket atomic has landed */
  const bool used = __syncthreads_or(mine || sb.used);
  for( int k = threadIdx.x; k < GA_WORDS; k += kThreads ){
    long long acc = 0;
    for( int b = max(0, 8 * (k - 3)); used && b <= min(kBuckets - 1, 8 * k + 7); b++ ){
      for( int neg = 0; neg < 2; neg++ ){
        const int s = neg * kBuckets + b;
        unsigned __int128 v = sb.limb[0][s] | (unsigned __int128)sb.limb[1][s] << 32
                            | (unsigned __int128)sb.limb[2][s] << 64;
        const long long d = (long long)(unsigned)((v << 4 * (b & 7)) >> (32 * (k - (b >> 3))));
        acc += neg ? -d : d;
      }
    }
    sb.w[k] = acc;
  }
}

/* Write the block's total: words carried by thread 0, then copied out. */
template <int T>
__device__ __forceinline__ void block_store(ga_sum *out, long long *w, uint64_t lo, int64_t hi, unsigned inf){
  __syncthreads();                    /* every atomic and gather on w has landed */
  if( threadIdx.x == 0 ){
    ga_words_norm((int64_t *)w);
    out->lo = lo;
    out->hi = hi;
    out->inf = inf;
    out->nAdd = 0;
  }
  __syncthreads();
  for( int i = threadIdx.x; i < GA_WORDS; i += T ) out->w[i] = w[i];
}

/* ---- device ------------------------------------------------------------- */

/* Four blocks an SM: latency is hidden by warps (bench/NOTES.md). */
template <bool Bits>
__global__ void __launch_bounds__(kThreads, kMinBlocks)
sum_blocks(const long long *__restrict__ vals, const unsigned long long *__restrict__ bits, long long n,
           long long ni, ga_sum *__restrict__ part){
  const Grid g = grid_of(n);
  Thread t;
  t.lo = 0;
  t.hi = 0;
  t.inf = 0;
  t.used = false;
  levels_start(t, g, g.e0min);
  for( int k = threadIdx.x; k < 3 * kSlots; k += kThreads ) (&sb.limb[0][0])[k] = 0;
  if( threadIdx.x == 0 ) sb.used = 0;
  __syncthreads();

  if( Bits ){
    for_each_staged(vals, 0, n, [&](const longlong2 (&w)[kUnroll], const long long (&pos)[kUnroll]){
      unsigned real = 0;
#pragma unroll
      for( int k = 0; k < kUnroll; k++ ){   /* pos[k] is even: its pair shares a bitmap word */
        real |= (unsigned)((__ldg(&bits[pos[k] >> 6]) >> (pos[k] & 63)) & 3) << 2 * k;
      }
      fold_batch(t, g, w, real);
    }, [&](long long v, long long j){
      if( (__ldg(&bits[j >> 6]) >> (j & 63)) & 1 ) fold_real(t, g, v); else fold_int(t, v);
    });
  }else{
    for_each_staged(vals, 0, ni, [&](const longlong2 (&w)[kUnroll], const long long (&)[kUnroll]){
#pragma unroll
      for( int k = 0; k < kUnroll; k++ ){ fold_int(t, w[k].x); fold_int(t, w[k].y); }
    }, [&](long long v, long long){ fold_int(t, v); });
    for_each_staged(vals, ni, n, [&](const longlong2 (&w)[kUnroll], const long long (&)[kUnroll]){
      fold_batch(t, g, w, ~0u);
    }, [&](long long v, long long){ fold_real(t, g, v); });
  }

  warp_levels(t, g);
  block_buckets(t.used);
  block_ints<kThreads>(t.lo, t.hi, t.inf);
  block_store<kThreads>(&part[blockIdx.x], sb.w, t.lo, t.hi, t.inf);
}

/* The block partials, carried (each word below 2^32 but the top one): sums
** of 2^31 of them cannot overflow. kGroups threads a word, each over every
** kGroups-th partial with its loads in flight together (the fold is a few
** L2 round trips, not one per partial), then a word's groups added. */
constexpr int kFinalThreads = 1024;
constexpr int kGroups = kFinalThreads / GA_WORDS;

__global__ void __launch_bounds__(kFinalThreads)
sum_final(const ga_sum *__restrict__ part, int nb, ga_sum *__restrict__ out){
  __shared__ long long acc[kGroups][GA_WORDS];
  __shared__ long long w[GA_WORDS];
  const int k = threadIdx.x % GA_WORDS, grp = threadIdx.x / GA_WORDS;
  uint64_t lo = 0;
  int64_t hi = 0;
  unsigned inf = 0;
  if( grp < kGroups ){
    long long s = 0;
#pragma unroll 8
    for( int b = grp; b < nb; b += kGroups ) s += part[b].w[k];
    acc[grp][k] = s;
  }
  for( int b = threadIdx.x; b < nb; b += kFinalThreads ){
    uint64_t s = lo + part[b].lo;
    hi += part[b].hi + (s < lo);
    lo = s;
    inf |= part[b].inf;
  }
  __syncthreads();
  if( threadIdx.x < GA_WORDS ){
    long long s = 0;
    for( int g = 0; g < kGroups; g++ ) s += acc[g][threadIdx.x];
    w[threadIdx.x] = s;
  }
  block_ints<kFinalThreads>(lo, hi, inf);
  block_store<kFinalThreads>(out, w, lo, hi, inf);
}

}  /* namespace */

extern "C" int ga_sum_blocks(int64_t n, int max_blocks){
  int64_t want = ((n >> 1) + kThreads - 1) / kThreads;
  if( want < 1 ) want = 1;
  return want < max_blocks ? (int)want : max_blocks;
}

extern "C" cudaError_t ga_sum_max_blocks(int *max_blocks){
  int dev, sms, per_sm;
  cudaError_t e = cudaGetDevice(&dev);
  if( e == cudaSuccess ) e = cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, dev);
  /* The staging wants shared memory before L1: four blocks take 180 KB. */
  if( e == cudaSuccess ) e = cudaFuncSetAttribute(sum_blocks<false>, cudaFuncAttributePreferredSharedMemoryCarveout,
                                                  cudaSharedmemCarveoutMaxShared);
  if( e == cudaSuccess ) e = cudaFuncSetAttribute(sum_blocks<true>, cudaFuncAttributePreferredSharedMemoryCarveout,
                                                  cudaSharedmemCarveoutMaxShared);
  if( e == cudaSuccess ) e = cudaOccupancyMaxActiveBlocksPerMultiprocessor(&per_sm, sum_blocks<false>, kThreads, 0);
  if( e == cudaSuccess ) *max_blocks = sms * (per_sm > 0 ? per_sm : 1);
  return e;
}

extern "C" cudaError_t ga_sum_launch(const int64_t *d_vals, int64_t n, int64_t ni,
                                     ga_sum *d_part, int max_blocks, ga_sum *d_out,
                                     cudaStream_t stream){
  int nb = ga_sum_blocks(n, max_blocks);
  sum_blocks<false><<<nb, kThreads, 0, stream>>>((const long long *)d_vals, nullptr, n, ni, d_part);
  cudaError_t e = cudaGetLastError();
  if( e != cudaSuccess ) return e;
  sum_final<<<1, kFinalThreads, 0, stream>>>(d_part, nb, d_out);
  return cudaGetLastError();
}

extern "C" cudaError_t ga_sum_bits_launch(const int64_t *d_vals, const uint64_t *d_bits, int64_t n,
                                          ga_sum *d_part, int max_blocks, ga_sum *d_out, cudaStream_t stream){
  int nb = ga_sum_blocks(n, max_blocks);
  sum_blocks<true><<<nb, kThreads, 0, stream>>>((const long long *)d_vals, (const unsigned long long *)d_bits,
                                                n, 0, d_part);
  cudaError_t e = cudaGetLastError();
  if( e != cudaSuccess ) return e;
  sum_final<<<1, kFinalThreads, 0, stream>>>(d_part, nb, d_out);
  return cudaGetLastError();
}
