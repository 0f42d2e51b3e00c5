/*
** What a column kept on the device (ext/backend/cuda_resident.c) needs
** besides the chunk kernels: its numbers as doubles, for the histogram
** kernel, and a key column and a value column encoded as grouping rows
** (group_acc.h), for the grouping kernel. One thread per value, in
** grid-stride loops: each is a copy with a few instructions a value, bound
** by memory. Determinism: pure maps, no reductions.
*/
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
