/*
** Grouping rows by key into a hash table of exact accumulators
** (group_acc.h), and finishing the groups in the order of their keys.
**
** Layers: device (one launch per chunk into the query's table; the table
** grows between launches, ga_group_rehash), block (a private table of
** kLocal groups in shared memory: the groups a block meets first, most
** rows when groups are few or skewed, added into the table once at the
** block's end; a row's group looked for in 8 places, the P of group_rows;
** bench_kernels' groupstudy measures this design against others at 4,
** 1,000 and 1,000,000 groups), thread (a grid-stride walk; the key's slot by linear
** probing with a 128-bit compare and swap on (key, tag); each field of
** the accumulator an integer atomic, extremes a 128-bit compare and swap
** tried only when the candidate can win).
**
** Determinism: integer sums, maxima and packed extremes (ties to the lower
** position) are the same whatever the order of the atomics, so every
** group's result is; which slot a group lands in is not, and nothing
** depends on it (groups come out sorted by key).
*/
#include <cub/device/device_radix_sort.cuh>
#include <cub/device/device_select.cuh>
#include "gpuagg_kernels.h"
#include "group_row.cuh"

namespace {

constexpr int kThreads = 256;
constexpr int kLocal = 512;           /* block-private groups: 4 KiB of slots + 64 KiB of totals */
constexpr size_t kSmem = sizeof(long long) * kLocal + sizeof(ga_gacc) * kLocal;

typedef unsigned long long ull;

int gBlocks[3];                       /* resident blocks of group_rows<8>, <1>, <0> (ga_group_prepare) */
int gProbes = -1;                     /* the places a block looks, where bench_kernels sets it */

/* ---- thread ------------------------------------------------------------- */

__device__ __forceinline__ uint64_t slot_hash(uint64_t key, uint64_t tag){
  uint64_t x = key ^ (tag << 56);
  x ^= x >> 30; x *= 0xbf58476d1ce4e5b9ull;
  x ^= x >> 27; x *= 0x94d049bb133111ebull;
  return x ^ (x >> 31);
}

/* An entry, read whole (a 128-bit load: never half of one entry and half
** of the one that replaced it). */
__device__ __forceinline__ ga_gent load_ent(const ga_gent *p){
  ga_gent v;
  asm volatile("{ .reg .b128 t; ld.relaxed.gpu.global.b128 t, [%2]; mov.b128 {%0, %1}, t; }"
               : "=l"(v.key), "=l"(v.tag) : "l"(p) : "memory");
  return v;
}

/* The slot of (key, tag), claimed if new (counted in *count if given); or,
** with find_only, -1 if there is none. The table is at most half full. */
__device__ int64_t find_slot(ga_gent *ent, uint64_t mask, uint64_t key, uint64_t tag, ull *count,
                             bool find_only = false){
  uint64_t h = slot_hash(key, tag) & mask;
  for( ;; h = (h + 1) & mask ){
    ga_gent e = load_ent(&ent[h]);
    if( e.tag == 0 ){
      ga_gent want = {0, 0}, mine = {key, tag};
      if( find_only ) return -1;
      e = atomicCAS(&ent[h], want, mine);
      if( e.tag == 0 ){
        if( count ) atomicAdd(count, 1ull);
        return (int64_t)h;
      }
    }
    if( e.tag == tag && e.key == key ) return (int64_t)h;
  }
}

/* ---- block -------------------------------------------------------------- */

template <int P>
__global__ void __launch_bounds__(kThreads)
group_rows(const uint64_t *__restrict__ keys, const uint64_t *__restrict__ vals,
           const unsigned char *__restrict__ meta, long long n, long long base, int jb,
           ga_gent *ent, ga_gacc *acc, uint64_t mask, ull *count){
  extern __shared__ __align__(16) unsigned char smem[];
  long long *lslot = (long long *)smem;                      /* the global slot, -1: free */
  ga_gacc *lacc = (ga_gacc *)(smem + sizeof(long long) * kLocal);
  if( P > 0 ){
    for( int i = threadIdx.x; i < kLocal; i += kThreads ) lslot[i] = -1;
    for( int i = threadIdx.x; i < kLocal * (int)(sizeof(ga_gacc) / 8); i += kThreads ) ((ull *)lacc)[i] = 0;
    __syncthreads();
  }
  for( long long i = (long long)blockIdx.x * kThreads + threadIdx.x; i < n; i += (long long)gridDim.x * kThreads ){
    unsigned m = meta[i];
    int64_t s = find_slot(ent, mask, keys[i], (uint64_t)ga_kgroup(m & GA_K_MASK) + 1, count);
    ga_gacc *a = &acc[s];
    int h = (int)(s & (kLocal - 1));
    for( int k = 0; k < P; k++, h = (h + 1) & (kLocal - 1) ){
      long long o = ((volatile long long *)lslot)[h];
      if( o == -1 ) o = (long long)atomicCAS((ull *)&lslot[h], ~0ull, (ull)s);
      if( o == -1 || o == s ){
        a = &lacc[h];
        break;
      }
    }
    acc_row(a, jb, m, vals[i], (uint64_t)(base + i));
  }
  if( P > 0 ){
    __syncthreads();
    for( int i = threadIdx.x; i < kLocal; i += kThreads ){
      if( lslot[i] >= 0 ) acc_merge(&acc[lslot[i]], &lacc[i]);
    }
  }
}

/* ---- table upkeep and results -------------------------------------------- */

__global__ void group_rehash(const ga_gent *old_ent, const ga_gacc *old_acc, long long old_cap,
                             ga_gent *ent, ga_gacc *acc, uint64_t mask){
  for( long long i = (long long)blockIdx.x * blockDim.x + threadIdx.x; i < old_cap; i += (long long)gridDim.x * blockDim.x ){
    if( old_ent[i].tag == 0 ) continue;
    acc[find_slot(ent, mask, old_ent[i].key, old_ent[i].tag, nullptr)] = old_acc[i];
  }
}

__global__ void group_carry(const ga_gent *ent, ga_gacc *acc, long long cap){
  for( long long i = (long long)blockIdx.x * blockDim.x + threadIdx.x; i < cap; i += (long long)gridDim.x * blockDim.x ){
    if( ent[i].tag ) ga_gacc_carry(&acc[i]);
  }
}

__global__ void group_compact(const ga_gent *ent, long long cap, int64_t *idx, uint64_t *order, ull *n){
  for( long long i = (long long)blockIdx.x * blockDim.x + threadIdx.x; i < cap; i += (long long)gridDim.x * blockDim.x ){
    ga_gent e = ent[i];
    if( e.tag == 0 ) continue;
    ull j = atomicAdd(n, 1ull);
    idx[j] = i;
    order[j] = ga_key_order((int)e.tag - 1, e.key);
  }
}

__global__ void group_exc(ga_gent *ent, uint64_t mask, const ga_gent *exc_ent, long long n, int *exc_idx){
  for( long long i = (long long)blockIdx.x * blockDim.x + threadIdx.x; i < n; i += (long long)gridDim.x * blockDim.x ){
    int64_t s = find_slot(ent, mask, exc_ent[i].key, exc_ent[i].tag, nullptr, true);
    if( s >= 0 ) exc_idx[s] = (int)i;
  }
}

__global__ void group_codes(const ga_gent *ent, long long cap, ga_gcodes c, ull *count, int *bad){
  for( long long i = (long long)blockIdx.x * blockDim.x + threadIdx.x; i < cap; i += (long long)gridDim.x * blockDim.x ){
    ga_gent e = ent[i];
    int64_t k;
    if( e.tag == 0 ) continue;
    k = ga_gcodes_at(&c, (int)e.tag - 1, e.key);
    if( k >= 0 ) atomicAdd(&count[k], 1ull);
    else if( k == -2 ) *bad = 1;
  }
}

__global__ void group_final(const ga_gent *ent, const ga_gacc *acc, const int64_t *idx, long long n, int jb,
                            const int *exc_idx, const ga_sum *exc, ga_grow *out){
  for( long long i = (long long)blockIdx.x * blockDim.x + threadIdx.x; i < n; i += (long long)gridDim.x * blockDim.x ){
    int64_t s = idx[i];
    int e = exc_idx ? exc_idx[s] : -1;
    ga_group_finish(&acc[s], ent[s].key, jb, e >= 0 ? &exc[e] : nullptr, &out[i]);
  }
}

/* A grid for a simple pass over n items. */
unsigned grid_for(long long n){
  long long b = (n + 255) / 256;
  return (unsigned)(b < 1 ? 1 : b > 65535 ? 65535 : b);
}

}  /* namespace */

template <int P>
cudaError_t prepareRows(int sms, int *pBlocks){
  int per;
  size_t sm = P > 0 ? kSmem : 0;
  cudaError_t e = cudaFuncSetAttribute(group_rows<P>, cudaFuncAttributeMaxDynamicSharedMemorySize, (int)sm);
  if( e == cudaSuccess ) e = cudaOccupancyMaxActiveBlocksPerMultiprocessor(&per, group_rows<P>, kThreads, sm);
  if( e == cudaSuccess ) *pBlocks = sms * (per > 0 ? per : 1);
  return e;
}

extern "C" cudaError_t ga_group_prepare(void){
  int dev, sms;
  cudaError_t e = cudaGetDevice(&dev);
  if( e == cudaSuccess ) e = cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, dev);
  if( e == cudaSuccess ) e = prepareRows<8>(sms, &gBlocks[0]);
  if( e == cudaSuccess ) e = prepareRows<1>(sms, &gBlocks[1]);
  if( e == cudaSuccess ) e = prepareRows<0>(sms, &gBlocks[2]);
  return e;
}

extern "C" void ga_group_probes(int p){ gProbes = p == 8 || p == 1 || p == 0 ? p : -1; }

extern "C" cudaError_t ga_group_launch(const uint64_t *d_keys, const uint64_t *d_vals, const unsigned char *d_meta,
                                       int64_t n, int64_t base, int jb, ga_gent *d_ent, ga_gacc *d_acc, int64_t cap,
                                       unsigned long long *d_count, cudaStream_t stream){
  long long want = (n + kThreads - 1) / kThreads;
  int p = gProbes >= 0 ? gProbes : 8, v = p == 8 ? 0 : p == 1 ? 1 : 2;
  unsigned b;
  if( gBlocks[v] == 0 ) return cudaErrorNotReady;     /* ga_group_prepare first */
  if( n == 0 ) return cudaSuccess;
  b = (unsigned)(want < gBlocks[v] ? (want < 1 ? 1 : want) : gBlocks[v]);
  switch( p ){
    case 8: group_rows<8><<<b, kThreads, kSmem, stream>>>(d_keys, d_vals, d_meta, n, base, jb, d_ent, d_acc, (uint64_t)cap - 1, d_count); break;
    case 1: group_rows<1><<<b, kThreads, kSmem, stream>>>(d_keys, d_vals, d_meta, n, base, jb, d_ent, d_acc, (uint64_t)cap - 1, d_count); break;
    default: group_rows<0><<<b, kThreads, 0, stream>>>(d_keys, d_vals, d_meta, n, base, jb, d_ent, d_acc, (uint64_t)cap - 1, d_count); break;
  }
  return cudaGetLastError();
}

extern "C" cudaError_t ga_group_rehash(const ga_gent *d_old_ent, const ga_gacc *d_old_acc, int64_t old_cap,
                                       ga_gent *d_ent, ga_gacc *d_acc, int64_t cap, cudaStream_t stream){
  group_rehash<<<grid_for(old_cap), 256, 0, stream>>>(d_old_ent, d_old_acc, old_cap, d_ent, d_acc, (uint64_t)cap - 1);
  return cudaGetLastError();
}

extern "C" cudaError_t ga_group_carry(const ga_gent *d_ent, ga_gacc *d_acc, int64_t cap, cudaStream_t stream){
  group_carry<<<grid_for(cap), 256, 0, stream>>>(d_ent, d_acc, cap);
  return cudaGetLastError();
}

extern "C" cudaError_t ga_group_compact(const ga_gent *d_ent, int64_t cap, int64_t *d_idx, uint64_t *d_order,
                                        unsigned long long *d_n, cudaStream_t stream){
  group_compact<<<grid_for(cap), 256, 0, stream>>>(d_ent, cap, d_idx, d_order, d_n);
  return cudaGetLastError();
}

extern "C" cudaError_t ga_group_sort(void *d_temp, size_t *temp_bytes, const uint64_t *d_order, uint64_t *d_order2,
                                     const int64_t *d_idx, int64_t *d_idx2, int64_t n, cudaStream_t stream){
  return cub::DeviceRadixSort::SortPairs(d_temp, *temp_bytes, d_order, d_order2, d_idx, d_idx2, n, 0, 64, stream);
}

extern "C" cudaError_t ga_group_exc(const ga_gent *d_ent, int64_t cap, const ga_gent *d_exc_ent, int64_t n,
                                    int *d_exc_idx, cudaStream_t stream){
  group_exc<<<grid_for(n), 256, 0, stream>>>((ga_gent *)d_ent, (uint64_t)cap - 1, d_exc_ent, n, d_exc_idx);
  return cudaGetLastError();
}

extern "C" cudaError_t ga_group_final(const ga_gent *d_ent, const ga_gacc *d_acc, const int64_t *d_idx, int64_t n, int jb,
                                      const int *d_exc_idx, const ga_sum *d_exc, ga_grow *d_out, cudaStream_t stream){
  group_final<<<grid_for(n), 256, 0, stream>>>(d_ent, d_acc, d_idx, n, jb, d_exc_idx, d_exc, d_out);
  return cudaGetLastError();
}

extern "C" cudaError_t ga_group_codes(const ga_gent *d_ent, int64_t cap, const ga_gcodes *c, unsigned long long *d_count,
                                     int *d_bad, cudaStream_t stream){
  group_codes<<<grid_for(cap), 256, 0, stream>>>(d_ent, cap, *c, d_count, d_bad);
  return cudaGetLastError();
}

namespace {
/* ga_grow_may as CUB's selection. */
struct MayMeet {
  ga_ghaves h;
  __device__ bool operator()(const ga_grow &x) const { return ga_grow_may(&x, &h) != 0; }
};
}

extern "C" cudaError_t ga_group_keep(void *d_temp, size_t *temp_bytes, const ga_grow *d_in, int64_t n, const ga_ghaves *h,
                                     ga_grow *d_out, int64_t *d_m, cudaStream_t stream){
  MayMeet f;
  f.h = *h;
  return cub::DeviceSelect::If(d_temp, *temp_bytes, d_in, d_out, d_m, n, f, stream);
}
