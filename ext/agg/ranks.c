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

int ga_ranks(ga_conn *c, uint64_t *a, int64_t n, const int64_t *r, int nr, uint64_t *out, char *zErr){
  const ga_backend *be = n>=c->threshold ? ga_conn_backend(c, zErr) : 0;
  if( be && be!=&ga_cpu_backend ){
    if( be->xRanks(a, n, r, nr, out, &c->stats, zErr)==0 ) return 0;
    if( ga_device_failed(c, zErr) ) return 1;
  }
  return ga_cpu_backend.xRanks(a, n, r, nr, out, &c->stats, zErr);
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
