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
**      under half the rows, by selection of the first off then of the n
**      (expected linear), and the n sorted; else every key sorted. Sorting
**      is a least-significant-digit radix sort, 11 bits a pass, stable, a
**      pass skipped where every key has the same digit (small integers take
**      one or two).
*/
#include "query.h"
#include <assert.h>
#include <string.h>

typedef struct Pair { uint64_t k; int64_t row; } Pair;   /* a row and its key */

static int pairLess(const Pair *a, const Pair *b){
  return a->k<b->k || (a->k==b->k && a->row<b->row);
}

/* 2's key of one number; t is INTEGER or FLOAT (v its bits). */
static uint64_t keyOf(int t, int64_t v, int asReal){
  uint64_t b;
  double d;
  if( t==SQLITE_INTEGER && !asReal ) return (uint64_t)v ^ 0x8000000000000000ull;
  if( t==SQLITE_INTEGER ) d = (double)v;
  else memcpy(&d, &v, 8);
  if( d==0.0 ) d = 0.0;
  memcpy(&b, &d, 8);
  return (b>>63) ? ~b : b | 0x8000000000000000ull;
}

/* Reorder p[0..n) so that p[k] is the k-th by pairLess, those before it
** less, those after it greater (Hoare's selection, middle of three). */
static void selectPair(Pair *p, int64_t n, int64_t k){
  int64_t lo = 0, hi = n - 1;
  while( hi>lo ){
    int64_t m = lo + (hi - lo)/2, i = lo, j = hi;
    Pair t, x;
    if( pairLess(&p[m], &p[lo]) ){ t = p[m]; p[m] = p[lo]; p[lo] = t; }
    if( pairLess(&p[hi], &p[lo]) ){ t = p[hi]; p[hi] = p[lo]; p[lo] = t; }
    if( pairLess(&p[hi], &p[m]) ){ t = p[hi]; p[hi] = p[m]; p[m] = t; }
    x = p[m];
    while( i<=j ){
      while( pairLess(&p[i], &x) ) i++;
      while( pairLess(&x, &p[j]) ) j--;
      if( i<=j ){ t = p[i]; p[i] = p[j]; p[j] = t; i++; j--; }
    }
    if( k<=j ) hi = j;
    else if( k>=i ) lo = i;
    else break;
  }
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

/* p[0..n) sorted by pairLess: a least-significant-digit radix sort of
** (key, row), 11 bits a pass, a digit every pair shares skipped. */
static int radixPairs(Pair *p, int64_t n){
  Pair *tmp, *src = p, *dst;
  int64_t *cnt, i;
  uint64_t and[2] = { ~0ull, ~0ull }, or[2] = { 0, 0 };
  int f, shift;
  if( n<2 ) return SQLITE_OK;
  tmp = sqlite3_malloc64(sizeof(Pair)*(uint64_t)n);
  cnt = sqlite3_malloc64(sizeof(int64_t)<<11);
  if( tmp==0 || cnt==0 ){ sqlite3_free(tmp); sqlite3_free(cnt); return SQLITE_NOMEM; }
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
  sqlite3_free(tmp);
  sqlite3_free(cnt);
  return SQLITE_OK;
}

int q_order_numeric(const qval *a, int64_t nRow, int nW, int desc, int nullsFirst,
                    int64_t off, int64_t n, int64_t *idx){
  int64_t i, nNull = 0, nKey, kOff, kN, o = 0;
  int seenInt = 0, seenReal = 0, bigInt = 0, asReal, rc = SQLITE_OK;
  Pair *p;
  for(i=0; i<nRow; i++){
    const qval *x = &a[i*nW];
    if( x->t==SQLITE_NULL ) nNull++;
    else if( x->t==SQLITE_INTEGER ){
      seenInt = 1;
      if( x->v>(1ll<<53) || x->v<-(1ll<<53) ) bigInt = 1;
    }else if( x->t==SQLITE_FLOAT ) seenReal = 1;
    else return SQLITE_DONE;
  }
  if( seenInt && seenReal && bigInt ) return SQLITE_DONE;
  asReal = seenReal;
  nKey = nRow - nNull;
  /* the wanted positions that fall among the keyed rows: kOff.. kOff+kN */
  kOff = nullsFirst ? off - nNull : off;
  kN = n;
  if( kOff<0 ){ kN += kOff; kOff = 0; }
  if( kOff + kN>nKey ) kN = nKey - kOff;
  if( kN<0 ) kN = 0;
  if( (p = sqlite3_malloc64(sizeof(Pair)*(uint64_t)(nKey + 1)))==0 ) return SQLITE_NOMEM;
  for(i=0; i<nRow; i++){
    const qval *x = &a[i*nW];
    if( x->t==SQLITE_NULL ) continue;
    p[o].k = keyOf(x->t, x->v, asReal) ^ (desc ? ~0ull : 0);
    p[o++].row = i;
  }
  assert( o==nKey );
  if( kN>0 && kN<nKey/2 ){
    selectPair(p, nKey, kOff);
    selectPair(p + kOff, nKey - kOff, kN - 1);
    rc = radixPairs(p + kOff, kN);
  }else if( kN>0 ){
    rc = radixPairs(p, nKey);
  }
  if( rc==SQLITE_OK ){
    /* position q of the order: the (q - firstNull)-th NULL, or a key */
    int64_t firstKey = nullsFirst ? nNull : 0, firstNull = nullsFirst ? 0 : nKey;
    int64_t r = 0, seen = 0;          /* the scan for NULLs: at row r, seen before it */
    for(i=0; i<n; i++){
      int64_t q = off + i;
      if( q>=firstNull && q<firstNull + nNull ){
        for(;; r++){
          if( a[r*nW].t!=SQLITE_NULL ) continue;
          if( seen==q - firstNull ) break;
          seen++;
        }
        idx[i] = r++;
        seen++;
      }else{
        idx[i] = p[q - firstKey].row;
      }
    }
  }
  sqlite3_free(p);
  return rc;
}
