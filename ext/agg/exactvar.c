/*
** Exact variances: see exactvar.h. The integers: A = |S| * 2^1074 (the sum's
** words with the integer total, sum_acc.h) and B = Q * 2^2148 (sq_acc.h's
** words); then N = n*B - A^2 >= 0, the quotient N / n / d in integers, and
** the quotient times 2^-2148 rounded to a double.
*/
#include <math.h>
#include <string.h>
#include "exactvar.h"

#define LIMBS 160                     /* 32-bit limbs: 5120 bits, more than n*B needs */

typedef struct Big {
  int n;                              /* limbs in use */
  uint32_t d[LIMBS];                  /* the magnitude, least significant first */
} Big;

static void bigTrim(Big *b){
  while( b->n>0 && b->d[b->n-1]==0 ) b->n--;
}

/* |value| of carried words w[0..nw) (the top one signed) into b. */
static void bigFromWords(Big *b, const int64_t *w, int nw){
  int64_t t[GA_SQWORDS];
  int i;
  memcpy(t, w, sizeof(int64_t)*(size_t)nw);
  if( t[nw-1]<0 ){
    for(i=0; i<nw; i++) t[i] = -t[i];
    ga_carry(t, nw);
  }
  memset(b, 0, sizeof(*b));
  for(i=0; i<nw; i++) b->d[i] = (uint32_t)t[i];
  b->n = nw;
  bigTrim(b);
}

/* b *= m. */
static void bigMul(Big *b, uint64_t m){
  unsigned __int128 c = 0;
  int i;
  for(i=0; i<b->n; i++){
    c += (unsigned __int128)b->d[i] * m;
    b->d[i] = (uint32_t)c;
    c >>= 32;
  }
  while( c ){
    b->d[b->n++] = (uint32_t)c;
    c >>= 32;
  }
}

/* r = a * a. */
static void bigSquare(const Big *a, Big *r){
  int i, j;
  memset(r, 0, sizeof(*r));
  for(i=0; i<a->n; i++){
    uint64_t c = 0;
    for(j=0; j<a->n; j++){
      uint64_t t = (uint64_t)a->d[i] * a->d[j] + r->d[i+j] + c;
      r->d[i+j] = (uint32_t)t;
      c = t >> 32;
    }
    for(j=i+a->n; c; j++){
      uint64_t t = (uint64_t)r->d[j] + c;
      r->d[j] = (uint32_t)t;
      c = t >> 32;
    }
  }
  r->n = 2*a->n + 1;
  bigTrim(r);
}

/* a -= b; 0, or 1 (a unchanged... and meaningless) if b > a. */
static int bigSub(Big *a, const Big *b){
  int64_t c = 0;
  int i;
  if( b->n>a->n ) return 1;
  for(i=0; i<a->n; i++){
    c += (int64_t)a->d[i] - (i<b->n ? (int64_t)b->d[i] : 0);
    a->d[i] = (uint32_t)c;
    c >>= 32;                         /* 0 or -1 */
  }
  bigTrim(a);
  return c!=0;
}

/* b <<= k. */
static void bigShl(Big *b, int k){
  int w = k/32, sh = k%32, i;
  if( b->n==0 ) return;
  b->d[b->n] = 0;
  for(i=b->n; i>=0; i--){
    uint32_t hi = b->d[i] << sh, lo = (sh && i>0) ? b->d[i-1] >> (32 - sh) : 0;
    b->d[i + w] = hi | lo;
  }
  for(i=0; i<w; i++) b->d[i] = 0;
  b->n += w + 1;
  bigTrim(b);
}

/* b /= m (m > 0); the remainder is non-zero. */
static int bigDiv(Big *b, uint64_t m){
  unsigned __int128 r = 0;
  int i;
  for(i=b->n-1; i>=0; i--){
    r = (r << 32) | b->d[i];
    b->d[i] = (uint32_t)(r / m);
    r %= m;
  }
  bigTrim(b);
  return r!=0;
}

static int bigBits(const Big *b){
  int nb = 32*b->n;
  uint32_t top;
  if( b->n==0 ) return 0;
  for(top = b->d[b->n-1]; !(top & 0x80000000u); top <<= 1) nb--;
  return nb;
}

static int bigBit(const Big *b, int i){
  return i>=0 && i/32<b->n ? (b->d[i/32] >> (i%32)) & 1 : 0;
}

/* q * 2^-scale (+ something below q's lowest bit if sticky) to the nearest
** double, ties to even; below 2^-1022 on the subnormal grid. */
static double bigToDouble(const Big *q, int sticky, int scale){
  int L = bigBits(q), k, i;
  uint64_t m = 0;
  if( L==0 ) return 0.0;
  k = L - 53;
  if( k < scale - 1074 ) k = scale - 1074;    /* the subnormal grid */
  for(i=L-1; i>=k; i--) m = (m << 1) | (uint64_t)bigBit(q, i);
  if( bigBit(q, k-1) ){
    int below = sticky;
    for(i=k-2; i>=0 && !below; i--) below = bigBit(q, i);
    if( below || (m & 1) ) m++;
  }
  return ldexp((double)m, k - scale);
}

#define SCALE (2*1074)                /* A^2 and B are scaled by 2^2148 */

/* floor((n*B - A^2) * 2^*pShift / n / d) into b; 1 if that is short of the
** exact quotient, 0 if exact, -1 if there is no variance. *pShift is 0, or
** the least even shift that leaves the quotient at least minBits bits. */
static int varQuotient(const ga_sum *s, const ga_sq *q, int64_t n, int64_t d, int minBits, int *pShift, Big *b){
  int64_t w[GA_WORDS];
  Big a, a2;
  int sticky;
  if( n<=0 || d<=0 || s->inf || q->inf ) return -1;
  ga_sum_total_words(s, w);
  bigFromWords(&a, w, GA_WORDS);
  bigSquare(&a, &a2);
  bigFromWords(b, q->w, GA_SQWORDS);
  bigMul(b, (uint64_t)n);
  if( bigSub(b, &a2) ) return -1;     /* cannot happen: n*sum(x^2) >= sum(x)^2 */
  *pShift = 0;
  if( minBits && b->n && bigBits(b) < minBits + 128 ){
    *pShift = (minBits + 128 - bigBits(b) + 1) & ~1;
    bigShl(b, *pShift);
  }
  sticky = bigDiv(b, (uint64_t)n);
  sticky |= bigDiv(b, (uint64_t)d);
  return sticky;
}

double ga_variance(const ga_sum *s, const ga_sq *q, int64_t n, int64_t d){
  Big b;
  int sh, sticky = varQuotient(s, q, n, d, 0, &sh, &b);
  return sticky<0 ? NAN : bigToDouble(&b, sticky, SCALE);
}

/* floor(sqrt(t)) for t below 2^112. */
static uint64_t isqrt128(unsigned __int128 t){
  uint64_t r = (uint64_t)sqrtl((long double)t);
  while( r>0 && (unsigned __int128)r*r > t ) r--;
  while( (unsigned __int128)(r + 1)*(r + 1) <= t ) r++;
  return r;
}

double ga_stddev(const ga_sum *s, const ga_sq *q, int64_t n, int64_t d){
  Big b, r;
  unsigned __int128 t = 0;
  uint64_t root;
  int up, sticky = varQuotient(s, q, n, d, 112, &up, &b), sh, i;
  if( sticky<0 ) return NAN;
  /* sqrt(b * 2^-(2148+up)) = sqrt(b) * 2^-(1074+up/2), b of 112 bits or
  ** more. Of b, the top 112 bits or fewer, from an even bit 2*sh: sqrt(b)
  ** lies in [root, root + 1) * 2^sh. */
  sh = (bigBits(&b) - 112 + 1)/2;
  if( sh<0 ) sh = 0;
  for(i=bigBits(&b)-1; i>=2*sh; i--) t = (t << 1) | (unsigned)bigBit(&b, i);
  for(i=2*sh-1; i>=0 && !sticky; i--) sticky = bigBit(&b, i);
  root = isqrt128(t);
  sticky |= (unsigned __int128)root*root != t;
  memset(&r, 0, sizeof(r));
  r.d[0] = (uint32_t)root;
  r.d[1] = (uint32_t)(root >> 32);
  r.n = 2;
  bigTrim(&r);
  return bigToDouble(&r, sticky, 1074 + up/2 - sh);
}
