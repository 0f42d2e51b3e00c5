/*
** ORDER BY one term whose values are numbers: the rows' order by typed
** keys, not by comparing qvals (exec.c's sortCmp, q_cmp per pair).
**
**   1. The term's values must be all INTEGER, all REAL, or INTEGERs and
**      REALs where every INTEGER is exact as a double (|v| <= 2^53); NULLs
**      anywhere. Anything else (TEXT, BLOB, larger integers beside REALs)
**      is left to the caller: SQLITE_DONE.
**   2. A value's key is a 64-bit unsigned number in the value's order: an
**      integer with its sign bit flipped; a double's bits with the sign bit
**      flipped, or all bits flipped where it is negative, -0.0 taken as 0.0
**      (SQLite compares them equal). DESC flips every bit. Ties keep scan
**      order (the stable sort's), so the order is total: (key, row).
**   3. NULLs come first or last, in scan order, as the caller says.
**   4. Only the positions off..off+n of the order are produced: where n is
**      under half the rows, by a radix selection (the 16 highest bits of
**      the keys less the least key counted, the rows of the buckets the window falls
**      in taken in scan order and sorted: the median of 12M small integers
**      sorts the rows of one value); else every key sorted. Sorting is a
**      least-significant-digit radix sort, 11 bits a pass, stable, a pass
**      skipped where every key has the same digit (small integers take one
**      or two).
**   5. The values come as qvals (a row's nW, the term's first: exec.c's
**      result rows) or as runs of classes and values (q_order_segs: the
**      rows exec.c's scan workers held, in scan order, without copying).
*/
#include "query.h"
#include <assert.h>
#include <string.h>

typedef struct Pair { uint64_t k; int64_t row; } Pair;   /* a row and its key */

/* 2's key of one number; t is INTEGER or FLOAT (v its bits). */
uint64_t q_order_key(int t, int64_t v, int asReal){
  uint64_t b = (uint64_t)v;
  if( t==SQLITE_INTEGER && asReal ){
    double d = (double)v;
    memcpy(&b, &d, 8);
  }
  return ga_q_num_key(t==SQLITE_INTEGER && !asReal, b);   /* the device's keys (qprog.h, 5) */
}

/* One stable counting pass of p's keys (row numbers where byRow) by the
** digit at shift; the pairs move to *dst, which becomes the source. */
static void radixPass(Pair **src, Pair **dst, int64_t n, int byRow, int shift, int64_t *cnt){
  enum { R = 1<<11 };
  int64_t i;
  uint64_t sum = 0;
  Pair *s = *src, *d = *dst;
  int j;
  memset(cnt, 0, sizeof(int64_t)*R);
  for(i=0; i<n; i++) cnt[((byRow ? (uint64_t)s[i].row : s[i].k)>>shift) & (R - 1)]++;
  for(j=0; j<R; j++){ uint64_t c = (uint64_t)cnt[j]; cnt[j] = (int64_t)sum; sum += c; }
  for(i=0; i<n; i++) d[cnt[((byRow ? (uint64_t)s[i].row : s[i].k)>>shift) & (R - 1)]++] = s[i];
  *src = d;
  *dst = s;
}

/* p[0..n) sorted by (key, row): a least-significant-digit radix sort of
** (key, row), 11 bits a pass, a digit every pair shares skipped. */
static int radixPairs(Pair *p, int64_t n){
  Pair *tmp, *src = p, *dst;
  int64_t *cnt, i;
  uint64_t and[2] = { ~0ull, ~0ull }, or[2] = { 0, 0 };
  int f, shift;
  if( n<2 ) return SQLITE_OK;
  tmp = ga_malloc64(sizeof(Pair)*(uint64_t)n);
  cnt = ga_malloc64(sizeof(int64_t)<<11);
  if( tmp==0 || cnt==0 ){ ga_free(tmp); ga_free(cnt); return SQLITE_NOMEM; }
  dst = tmp;
  for(i=0; i<n; i++){
    and[0] &= (uint64_t)p[i].row; or[0] |= (uint64_t)p[i].row;
    and[1] &= p[i].k; or[1] |= p[i].k;
  }
  for(i=1; i<n && p[i-1].row<p[i].row; i++){}
  for(f=(i==n); f<2; f++){             /* rows first, unless already in order */
    for(shift=0; shift<64; shift+=11){
      uint64_t mask = 0x7ffull << shift;
      if( (and[f] & mask)!=(or[f] & mask) ) radixPass(&src, &dst, n, f==0, shift, cnt);
    }
  }
  if( src!=p ) memcpy(p, src, sizeof(Pair)*(size_t)n);
  ga_free(tmp);
  ga_free(cnt);
  return SQLITE_OK;
}

/* The term's values: qvals q[i*nW] (one run), or runs of classes and
** values, row i the i-th of their concatenation. */
typedef struct Vals { const qval *q; int nW; const qseg *aSeg; int nSeg; qseg one; } Vals;

/* Each row i of a, in order, its class t and value v (body may continue,
** or break off the whole walk). */
#define EACH(a, i, t, v, ...) do{ \
  int64_t i = 0, j_ = 0; int s_; \
  for(s_=0; s_<(a)->nSeg; s_++){ \
    const qseg *g_ = &(a)->aSeg[s_]; \
    for(j_=0; j_<g_->n; j_++, i++){ \
      int t; int64_t v; \
      if( (a)->q ){ t = (a)->q[j_*(a)->nW].t; v = (a)->q[j_*(a)->nW].v; } \
      else{ t = g_->t[j_]; v = g_->v[j_]; } \
      __VA_ARGS__ \
    } \
    if( j_<g_->n ) break;                 /* the body broke off */ \
  } \
}while(0)

/* The pairs at places kOff..kOff+kN of the order of the rows' keys (NULL
** rows left out), into *pWin (ga_free it), by 4's radix selection,
** the keys made as they are read (mn, mx: the least and greatest): no pair
** for every row. SQLITE_DONE where most rows fall in the window's buckets
** (the caller sorts them all). */
static int windowVals(const Vals *a, int64_t nKey, uint64_t mn, uint64_t mx, int asReal, int desc, int64_t kOff,
                      int64_t kN, Pair **pWin){
  enum { B = 1<<16 };
  uint64_t flip = desc ? ~0ull : 0;
  int64_t *cnt, below, nc = 0, lo, hi, sum = 0, j;
  int shift, hb;
  Pair *c;
  *pWin = 0;
  hb = mx>mn ? 63 - __builtin_clzll(mx - mn) : 0; /* keys less the least: this many bits */
  shift = hb>=15 ? hb - 15 : 0;
  if( (cnt = ga_malloc64(sizeof(int64_t)*B))==0 ) return SQLITE_NOMEM;
  memset(cnt, 0, sizeof(int64_t)*B);
  EACH(a, i, t, v, {
    (void)i;
    if( t!=SQLITE_NULL ) cnt[((q_order_key(t, v, asReal) ^ flip) - mn)>>shift]++;
  });
  for(lo=0; sum + cnt[lo]<=kOff; lo++) sum += cnt[lo];      /* the bucket of place kOff */
  below = sum;
  for(hi=lo; sum + cnt[hi]<kOff + kN; hi++) sum += cnt[hi]; /* ... of place kOff+kN-1 */
  for(j=lo; j<=hi; j++) nc += cnt[j];
  ga_free(cnt);
  if( nc>nKey/2 ) return SQLITE_DONE;
  if( (c = ga_malloc64(sizeof(Pair)*(uint64_t)(nc + 1)))==0 ) return SQLITE_NOMEM;
  sum = 0;
  EACH(a, i, t, v, {
    uint64_t k;
    int64_t d;
    if( t==SQLITE_NULL ) continue;
    k = q_order_key(t, v, asReal) ^ flip;
    d = (int64_t)((k - mn)>>shift);
    if( d>=lo && d<=hi ){ c[sum].k = k; c[sum++].row = i; }   /* in row order */
  });
  assert( sum==nc );
  if( radixPairs(c, nc)!=SQLITE_OK ){
    ga_free(c);
    return SQLITE_NOMEM;
  }
  memmove(c, c + (kOff - below), sizeof(Pair)*(size_t)kN);
  *pWin = c;
  return SQLITE_OK;
}

static int orderVals(const Vals *a, int desc, int nullsFirst, int64_t off, int64_t n, int64_t *idx){
  int64_t nNull = 0, nKey = 0, kOff, kN, o = 0, p0 = 0, j;
  int seenInt = 0, seenReal = 0, bigInt = 0, other = 0, asReal, rc = SQLITE_OK;
  uint64_t flip = desc ? ~0ull : 0, mn[2] = { ~0ull, ~0ull }, mx[2] = { 0, 0 };
  Pair *p = 0;
  /* the classes, and the least and greatest key both ways (as integers, as reals) */
  EACH(a, i, t, v, {
    (void)i;
    if( t==SQLITE_NULL ){ nNull++; continue; }
    if( t==SQLITE_INTEGER ){
      seenInt = 1;
      if( v>(1ll<<53) || v<-(1ll<<53) ) bigInt = 1;
    }else if( t==SQLITE_FLOAT ){
      seenReal = 1;
    }else{
      other = 1;
      break;
    }
    nKey++;
    {
      uint64_t k0 = q_order_key(t, v, 0) ^ flip, k1 = q_order_key(t, v, 1) ^ flip;
      if( k0<mn[0] ) mn[0] = k0;
      if( k0>mx[0] ) mx[0] = k0;
      if( k1<mn[1] ) mn[1] = k1;
      if( k1>mx[1] ) mx[1] = k1;
    }
  });
  if( other || (seenInt && seenReal && bigInt) ) return SQLITE_DONE;
  asReal = seenReal;
  /* the wanted positions that fall among the keyed rows: kOff.. kOff+kN */
  kOff = nullsFirst ? off - nNull : off;
  kN = n;
  if( kOff<0 ){ kN += kOff; kOff = 0; }
  if( kOff + kN>nKey ) kN = nKey - kOff;
  if( kN<0 ) kN = 0;
  /* p: the pairs at places kOff.. of the keys' order (p0 of them: a window, or all) */
  rc = kN>0 && kN<nKey/2 ? windowVals(a, nKey, mn[asReal], mx[asReal], asReal, desc, kOff, kN, &p) : SQLITE_DONE;
  if( rc==SQLITE_OK ){
    p0 = kOff;
  }else if( rc==SQLITE_DONE ){
    if( (p = ga_malloc64(sizeof(Pair)*(uint64_t)(nKey + 1)))==0 ) return SQLITE_NOMEM;
    EACH(a, i, t, v, {
      if( t==SQLITE_NULL ) continue;
      p[o].k = q_order_key(t, v, asReal) ^ flip;
      p[o++].row = i;
    });
    assert( o==nKey );
    rc = kN>0 ? radixPairs(p, nKey) : SQLITE_OK;
  }
  if( rc==SQLITE_OK ){
    /* position q of the order: the (q - firstNull)-th NULL, or a key */
    int64_t firstKey = nullsFirst ? nNull : 0, firstNull = nullsFirst ? 0 : nKey;
    int64_t nLo = off - firstNull, nHi = off + n - firstNull, seen = 0;   /* the NULLs wanted */
    for(j=0; j<n; j++){
      int64_t q = off + j;
      if( q<firstNull || q>=firstNull + nNull ) idx[j] = p[q - firstKey - p0].row;
    }
    if( nHi>0 && nLo<nNull ){
      EACH(a, i, t, v, {
        (void)v;
        if( t!=SQLITE_NULL ) continue;
        if( seen>=nLo && seen<nHi ) idx[firstNull + seen - off] = i;
        if( ++seen>=nHi ) break;
      });
    }
  }
  ga_free(p);
  return rc;
}

int q_order_numeric(const qval *a, int64_t nRow, int nW, int desc, int nullsFirst,
                    int64_t off, int64_t n, int64_t *idx){
  Vals x;
  memset(&x, 0, sizeof(x));
  x.q = a;
  x.nW = nW;
  x.one.n = nRow;
  x.aSeg = &x.one;
  x.nSeg = 1;
  return orderVals(&x, desc, nullsFirst, off, n, idx);
}

int q_order_segs(const qseg *aSeg, int nSeg, int desc, int nullsFirst, int64_t off, int64_t n, int64_t *idx){
  Vals x;
  memset(&x, 0, sizeof(x));
  x.aSeg = aSeg;
  x.nSeg = nSeg;
  return orderVals(&x, desc, nullsFirst, off, n, idx);
}
