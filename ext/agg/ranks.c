/*
** Order statistics: see ranks.h.
*/
#include <string.h>
#include "ranks.h"

uint64_t ga_key(double y){
  uint64_t b;
  memcpy(&b, &y, sizeof(b));
  return b >> 63 ? ~b : b | ((uint64_t)1 << 63);
}

double ga_key_value(uint64_t k){
  double y;
  k = k >> 63 ? k & ~((uint64_t)1 << 63) : ~k;
  memcpy(&y, &k, sizeof(y));
  return y;
}

/* Rearrange a[0..n) so that a[k] is the key of rank k, the ones before it
** no greater, the ones after no less (Hoare's selection, median of three). */
static void selectRank(uint64_t *a, int64_t n, int64_t k){
  int64_t lo = 0, hi = n - 1;
  while( hi>lo ){
    int64_t i = lo, j = hi, m = lo + (hi - lo)/2;
    uint64_t x, t;
    if( a[m]<a[lo] ){ t = a[m]; a[m] = a[lo]; a[lo] = t; }
    if( a[hi]<a[lo] ){ t = a[hi]; a[hi] = a[lo]; a[lo] = t; }
    if( a[hi]<a[m] ){ t = a[hi]; a[hi] = a[m]; a[m] = t; }
    x = a[m];
    while( i<=j ){
      while( a[i]<x ) i++;
      while( a[j]>x ) j--;
      if( i<=j ){ t = a[i]; a[i] = a[j]; a[j] = t; i++; j--; }
    }
    if( k<=j ) hi = j; else if( k>=i ) lo = i; else return;
  }
}

int ga_ranks(ga_conn *c, uint64_t *a, int64_t n, const int64_t *r, int nr, uint64_t *out, char *zErr){
  int64_t done = 0;             /* a[0..done) holds the ranks below it, in place */
  int i;
  const ga_backend *be = n>=c->threshold ? ga_conn_backend(c, zErr) : 0;
  (void)be;
#ifdef GPUAGG_CUDA
  if( be==&ga_cuda_backend ){
    if( ga_cuda_ranks(a, n, r, nr, out, &c->stats, zErr)==0 ) return 0;
    memcpy(c->stats.zLastErr, zErr, GA_ERRLEN);
    if( c->mode==GA_CUDA ) return 1;
    c->stats.nFallback++;
  }
#endif
  for(i=0; i<nr; i++){
    if( r[i]>=done ){
      selectRank(a + done, n - done, r[i] - done);
      done = r[i] + 1;
    }
    out[i] = a[r[i]];
  }
  return 0;
}

int ga_pct_ranks(double frac, int64_t n, int disc, int64_t r[2], double *pIx){
  double ix = frac*(double)(n - 1);
  r[0] = r[1] = (int64_t)ix;
  *pIx = ix;
  if( disc || ix==(double)r[0] || r[0]==n - 1 ) return 1;
  r[1] = r[0] + 1;
  return 2;
}

double ga_pct_value(double ix, const int64_t r[2], int nr, const uint64_t k[2], int disc){
  double v1 = ga_key_value(k[0]), v2 = nr==2 ? ga_key_value(k[1]) : v1;
  return disc ? v1 : v1 + (v2 - v1)*(ix - (double)r[0]);
}
