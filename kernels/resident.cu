/*
** What a column kept on the device (ext/backend/cuda_resident.c) needs
** besides the chunk kernels: its numbers as doubles, for the histogram
** kernel, and a key column and a value column encoded as grouping rows
** (group_acc.h), for the grouping kernel. One thread per value, in
** grid-stride loops: each is a copy with a few instructions a value, bound
** by memory. Determinism: pure maps, no reductions.
**
** And a kept column's numbers made from its rows where it is kept (its
** values and classes copied over, the rest made here): the numbers in
** scan order and the bitmap of its reals. Tiles of kTile rows, a block a
** tile, kPer rows a thread (one 16-byte load of classes): the tiles'
** counts of numbers, their exclusive sum (one block), then each tile's
** numbers at its place (a block scan) and its bitmap words built in
** shared memory, the two words a tile may share with its neighbours
** or-ed atomically into the zeroed bitmap. Deterministic: the result is a
** function of the rows.
*/
#include <cub/block/block_reduce.cuh>
#include <cub/block/block_scan.cuh>
#include "gpuagg_kernels.h"

namespace {

constexpr int kThreads = 256;

/* SQLite's storage classes, as the column sources hand them over. */
constexpr unsigned char kInteger = 1, kFloat = 2, kText = 3, kBlob = 4;

__global__ void doubles(const long long *__restrict__ v, const unsigned long long *__restrict__ bits, long long n,
                        double *__restrict__ out){
  for( long long i = (long long)blockIdx.x * kThreads + threadIdx.x; i < n; i += (long long)gridDim.x * kThreads ){
    long long x = v[i];
    out[i] = (bits[i >> 6] >> (i & 63)) & 1 ? __longlong_as_double(x) : (double)x;
  }
}

/* group_acc.h (2): the key's class and form, and the value's lane, as
** tvf/groupby.c encodes a row of a batch; a TEXT or BLOB key is its place
** in the key column's dictionary (one id space: the places differ). A TEXT
** or BLOB value: with places 0, the number sum() reads from it, by its
** place in the value column's dictionary numbers (dNum, dNumReal; none: no
** lane), flagged GA_V_OTHER (summed, no extreme); with places 1, its place
** itself as an integer (the extremes of places are those of the values),
** and every other row has no value. */
__global__ void groupRows(const long long *__restrict__ kv, const unsigned char *__restrict__ kc,
                          const long long *__restrict__ vv, const unsigned char *__restrict__ vc, long long n,
                          const long long *__restrict__ dNum, const unsigned char *__restrict__ dNumReal, int places,
                          unsigned long long *__restrict__ keys, unsigned long long *__restrict__ vals,
                          unsigned char *__restrict__ meta){
  for( long long i = (long long)blockIdx.x * kThreads + threadIdx.x; i < n; i += (long long)gridDim.x * kThreads ){
    long long k = kv[i], v = vv[i];
    unsigned char m = GA_K_NULL, c = vc[i];
    unsigned long long key = 0;
    if( kc[i] == kInteger ){
      m = GA_K_INT;
      key = (unsigned long long)k;
    }else if( kc[i] == kFloat ){
      double d = __longlong_as_double(k);
      if( d >= -9223372036854775808.0 && d < 9223372036854775808.0 && (double)(long long)d == d ){
        m = d == 0.0 && k < 0 ? GA_K_INTZ : GA_K_INTR;
        key = (unsigned long long)(long long)d;
      }else{
        m = GA_K_REAL;
        key = (unsigned long long)k;
      }
    }else if( kc[i] == kText || kc[i] == kBlob ){
      m = kc[i] == kText ? GA_K_TEXT : GA_K_BLOB;   /* the place in the column's dictionary */
      key = (unsigned long long)k;
    }
    if( places ){
      if( c == kText || c == kBlob ) m |= GA_V_INT;
      else v = 0;
    }else if( c == kInteger ){
      m |= GA_V_INT;
    }else if( c == kFloat ){
      m |= GA_V_REAL;
    }else if( (c == kText || c == kBlob) && dNum ){
      m |= GA_V_OTHER | (dNumReal[v] ? GA_V_REAL : GA_V_INT);
      v = dNum[v];
    }
    keys[i] = key;
    vals[i] = (unsigned long long)v;
    meta[i] = m;
  }
}

constexpr int kPer = 16, kTileThreads = 256, kTile = kPer * kTileThreads;

__device__ __forceinline__ bool isNum(unsigned char c){ return c == kInteger || c == kFloat; }

/* Thread t's kPer classes of tile `tile` (past n: 0, no number). */
__device__ __forceinline__ void tileClasses(const unsigned char *__restrict__ c, long long n, long long tile,
                                            unsigned char out[kPer]){
  long long r0 = tile * kTile + (long long)threadIdx.x * kPer;
  if( r0 + kPer <= n ){                      /* (c is 16-byte aligned, r0 a multiple of 16) */
    uint4 w = *reinterpret_cast<const uint4 *>(c + r0);
    memcpy(out, &w, kPer);
  }else{
    for( int j = 0; j < kPer; j++ ) out[j] = r0 + j < n ? c[r0 + j] : 0;
  }
}

__global__ void tileCounts(const unsigned char *__restrict__ c, long long n, long long nTile,
                           long long *__restrict__ counts){
  typedef cub::BlockReduce<int, kTileThreads> Reduce;
  __shared__ typename Reduce::TempStorage tmp;
  for( long long t = blockIdx.x; t < nTile; t += gridDim.x ){
    unsigned char cc[kPer];
    int k = 0;
    tileClasses(c, n, t, cc);
    for( int j = 0; j < kPer; j++ ) k += isNum(cc[j]);
    k = Reduce(tmp).Sum(k);
    if( threadIdx.x == 0 ) counts[t] = k;
    __syncthreads();
  }
}

/* counts[0..nTile) into their exclusive sums, in place (one block). */
__global__ void tileBases(long long *__restrict__ counts, long long nTile){
  typedef cub::BlockScan<long long, kTileThreads> Scan;
  __shared__ typename Scan::TempStorage tmp;
  long long carry = 0;
  for( long long t0 = 0; t0 < nTile; t0 += kTileThreads ){
    long long t = t0 + threadIdx.x, x = t < nTile ? counts[t] : 0, total;
    Scan(tmp).ExclusiveSum(x, x, total);
    if( t < nTile ) counts[t] = carry + x;
    carry += total;
    __syncthreads();
  }
}

__global__ void tileNumbers(const long long *__restrict__ v, const unsigned char *__restrict__ c, long long n,
                            long long nTile, const long long *__restrict__ base, long long *__restrict__ num,
                            unsigned long long *__restrict__ bits){
  typedef cub::BlockScan<int, kTileThreads> Scan;
  __shared__ typename Scan::TempStorage tmp;
  __shared__ unsigned char real[kTile];     /* the tile's numbers in order: 1 a real */
  for( long long t = blockIdx.x; t < nTile; t += gridDim.x ){
    unsigned char cc[kPer];
    int k = 0, at, total;
    long long b0 = base[t], r0 = t * kTile + (long long)threadIdx.x * kPer;
    tileClasses(c, n, t, cc);
    for( int j = 0; j < kPer; j++ ) k += isNum(cc[j]);
    Scan(tmp).ExclusiveSum(k, at, total);
    for( int j = 0; j < kPer; j++ ){
      if( !isNum(cc[j]) ) continue;
      if( num ) num[b0 + at] = v[r0 + j];
      real[at++] = cc[j] == kFloat;
    }
    __syncthreads();
    for( long long w = (b0 >> 6) + threadIdx.x; w < (b0 + total + 63) >> 6; w += kTileThreads ){
      long long lo = w * 64 - b0;            /* the word's bit 0, as a place in the tile */
      unsigned long long word = 0;
      for( int i = 0; i < 64; i++ ){
        if( lo + i >= 0 && lo + i < total && real[lo + i] ) word |= 1ull << i;
      }
      if( word == 0 ) continue;
      if( lo >= 0 && lo + 64 <= total ) bits[w] = word;
      else atomicOr(&bits[w], word);         /* shared with the tile before or after */
    }
    __syncthreads();
  }
}

int blocksFor(long long n){
  long long b = (n + kThreads - 1) / kThreads;
  return b < 1 ? 1 : b > 8192 ? 8192 : (int)b;
}

}  // namespace

extern "C" cudaError_t ga_res_doubles_launch(const int64_t *d_v, const uint64_t *d_bits, int64_t n, double *d_out,
                                             cudaStream_t stream){
  if( n <= 0 ) return cudaSuccess;
  doubles<<<blocksFor(n), kThreads, 0, stream>>>((const long long *)d_v, (const unsigned long long *)d_bits, n, d_out);
  return cudaGetLastError();
}

extern "C" cudaError_t ga_res_group_rows_launch(const int64_t *d_kv, const unsigned char *d_kc, const int64_t *d_vv,
                                                const unsigned char *d_vc, int64_t n, const int64_t *d_num,
                                                const unsigned char *d_numReal, int places, uint64_t *d_keys,
                                                uint64_t *d_vals, unsigned char *d_meta, cudaStream_t stream){
  if( n <= 0 ) return cudaSuccess;
  groupRows<<<blocksFor(n), kThreads, 0, stream>>>((const long long *)d_kv, d_kc, (const long long *)d_vv, d_vc, n,
                                                   (const long long *)d_num, d_numReal, places,
                                                   (unsigned long long *)d_keys, (unsigned long long *)d_vals, d_meta);
  return cudaGetLastError();
}

extern "C" int64_t ga_res_numbers_tiles(int64_t n){
  return (n + kTile - 1) / kTile;
}

extern "C" cudaError_t ga_res_numbers_launch(const int64_t *d_v, const unsigned char *d_c, int64_t n,
                                             int64_t *d_tiles, int64_t *d_num, uint64_t *d_bits, int64_t nWords,
                                             cudaStream_t stream){
  long long nTile = ga_res_numbers_tiles(n);
  int grid = nTile > 8192 ? 8192 : (int)nTile;
  cudaError_t e;
  if( n <= 0 ) return cudaSuccess;
  if( (e = cudaMemsetAsync(d_bits, 0, sizeof(uint64_t) * (size_t)nWords, stream)) != cudaSuccess ) return e;
  tileCounts<<<grid, kTileThreads, 0, stream>>>(d_c, n, nTile, (long long *)d_tiles);
  tileBases<<<1, kTileThreads, 0, stream>>>((long long *)d_tiles, nTile);
  tileNumbers<<<grid, kTileThreads, 0, stream>>>((const long long *)d_v, d_c, n, nTile, (const long long *)d_tiles,
                                                 (long long *)d_num, (unsigned long long *)d_bits);
  return cudaGetLastError();
}
