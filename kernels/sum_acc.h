/*
** Exact summation, shared by the CPU backend (gcc) and the CUDA kernels
** (nvcc), so that both compute the same thing: the exact total, rounded
** once, at the end, to the nearest double.
**
**   1. Integers are summed exactly in 128 bits (two's complement, hi:lo);
**      2^63 rows of 64-bit values cannot overflow it.
**   2. Reals are summed exactly in a fixed-point accumulator ("words"): 68
**      signed 64-bit words, word i weighing 2^(32i-1074), i.e. 32-bit digits
**      from the smallest subnormal up to 2^1102, with 31 bits of headroom per
**      word for carries. A double adds to at most three words.
**   3. In front of the words sits an error-free expansion of three doubles
**      (ga_fpe): TwoSum cascades keep the exact running total of most data
**      in registers; only what does not fit (values far apart in magnitude,
**      overflow, ±Inf) goes to the words. On ordinary data nothing does.
**   4. ±Inf are not summed but flagged: +Inf and -Inf together give NaN (SQL
**      NULL), one sign gives that infinity, as SQLite's sum does.
**   5. Integer addition is associative: any order of folding, on any device,
**      with any chunking, gives the same bits. No float atomics anywhere.
*/
#ifndef GPUAGG_SUM_ACC_H
#define GPUAGG_SUM_ACC_H

#include <stdint.h>
#include <float.h>
#include <string.h>
#include "hd.h"

#define GA_WORDS 68             /* 2^-1074 .. 2^1102 in 32-bit digits */
#define GA_INF_POS 1u           /* ga_sum.inf: +Inf seen */
#define GA_INF_NEG 2u           /* ga_sum.inf: -Inf seen */

/* An exact partial total: what one thread, block, chunk or query folded. */
typedef struct ga_sum {
  uint64_t lo;                  /* integer total, low 64 bits */
  int64_t hi;                   /* integer total, high 64 bits */
  uint32_t inf;                 /* GA_INF_POS | GA_INF_NEG */
  uint32_t nAdd;                /* word additions since the last carry pass */
  int64_t w[GA_WORDS];          /* real total: sum of w[i] * 2^(32i-1074) */
} ga_sum;

/* Three doubles whose exact sum is the reals folded so far (minus what went
** to the words). a0 holds the leading part. */
typedef struct ga_fpe { double a0, a1, a2; } ga_fpe;

/* (hi:lo) += v, in 128 bits. */
GA_HD void ga_i128_add(uint64_t *lo, int64_t *hi, int64_t v){
  uint64_t l = *lo + (uint64_t)v;
  *hi += (v < 0 ? -1 : 0) + (l < *lo);
  *lo = l;
}

GA_HD void ga_sum_int(ga_sum *a, int64_t v){ ga_i128_add(&a->lo, &a->hi, v); }

/* The bits of x, and tests on them that keep the FP64 pipe free. */
GA_HD uint64_t ga_bits(double x){
#ifdef __CUDA_ARCH__
  return (uint64_t)__double_as_longlong(x);
#else
  uint64_t b;
  memcpy(&b, &x, sizeof(b));
  return b;
#endif
}
GA_HD int ga_is_zero(double x){ return (ga_bits(x) << 1) == 0; }
GA_HD int ga_is_finite(double x){ return ((ga_bits(x) >> 52) & 0x7ff) != 0x7ff; }

/* Error-free s + e = a + b where s = fl(a + b) is finite: Dekker's
** FastTwoSum with the larger magnitude taken first (a select, not a
** branch): three additions where Knuth's TwoSum needs six. */
GA_HD double ga_two_sum(double a, double b, double s){
  int bBig = fabs(b) > fabs(a);
  double big = bBig ? b : a, small = bBig ? a : b;
  return small - (s - big);
}

/* Add x to the expansion. Returns the part that did not fit (0.0 if none):
** x itself when the leading sum is not finite (x is ±Inf or it overflowed),
** else the rounding error left after the third level. The two lower sums
** cannot overflow: they hold rounding errors of the one above. */
GA_HD double ga_fpe_add(ga_fpe *f, double x){
  double s = f->a0 + x, e;
  if( !ga_is_finite(s) ) return x;
  e = ga_two_sum(f->a0, x, s);
  f->a0 = s;
  if( ga_is_zero(e) ) return 0.0;
  s = f->a1 + e;
  x = ga_two_sum(f->a1, e, s);
  f->a1 = s;
  if( ga_is_zero(x) ) return 0.0;
  s = f->a2 + x;
  e = ga_two_sum(f->a2, x, s);
  f->a2 = s;
  return e;
}

/* Split finite x into the signed 32-bit digits it adds to words w, w+1, w+2.
** Returns 1 (and nothing else) if x is ±Inf or NaN. */
GA_HD int ga_split(double x, int *pw, int64_t p[3]){
  uint64_t b = ga_bits(x), m, lo, hi;
  int e, sh;
  e = (int)((b >> 52) & 0x7ff);
  m = b & 0xfffffffffffffull;
  if( e == 0x7ff ) return 1;
  if( e ) m |= 1ull << 52; else e = 1;
  e -= 1;                       /* weight of m's lowest bit: 2^(e-1074) */
  sh = e & 31;
  lo = m << sh;                 /* m << sh is at most 84 bits: split it */
  hi = sh ? m >> (64 - sh) : 0;
  p[0] = (int64_t)(lo & 0xffffffffu);
  p[1] = (int64_t)(lo >> 32);
  p[2] = (int64_t)hi;
  if( b >> 63 ){ p[0] = -p[0]; p[1] = -p[1]; p[2] = -p[2]; }
  *pw = e >> 5;
  return 0;
}

/* Carry pass over n words: every word but the top one into [0, 2^32); the
** top one keeps the sign. The value is unchanged. */
GA_HD void ga_carry(int64_t *w, int n){
  int64_t carry = 0;
  int i;
  for(i = 0; i < n - 1; i++){
    int64_t v = w[i] + carry;
    carry = v >> 32;            /* floor(v / 2^32): arithmetic shift */
    w[i] = v & 0xffffffff;
  }
  w[n - 1] += carry;
}
GA_HD void ga_words_norm(int64_t *w){ ga_carry(w, GA_WORDS); }

/* Add finite x's digits to words w, no carry. Returns 1 (adding nothing)
** if x is ±Inf or NaN. */
GA_HD int ga_words_add(int64_t *w, double x){
  int k;
  int64_t p[3];
  if( ga_split(x, &k, p) ) return 1;
  w[k] += p[0];
  w[k+1] += p[1];
  w[k+2] += p[2];
  return 0;
}

/* Add the 128-bit integer iv to words w, no carry: its 32-bit pieces at
** 2^0 = grid bit 1074 = word 33, bit 18. */
GA_HD void ga_words_add_int(int64_t *w, __int128 iv){
  unsigned __int128 u = iv < 0 ? -(unsigned __int128)iv : (unsigned __int128)iv;
  int j;
  for(j = 0; j < 4; j++){
    uint64_t v = ((uint64_t)(u >> (32*j)) & 0xffffffffu) << 18;   /* 1074 = 33*32 + 18 */
    int64_t d0 = (int64_t)(v & 0xffffffffu), d1 = (int64_t)(v >> 32);
    w[33+j] += iv < 0 ? -d0 : d0;
    w[34+j] += iv < 0 ? -d1 : d1;
  }
}

/* Add x to the words (no atomics: one thread owns a). */
GA_HD void ga_sum_word(ga_sum *a, double x){
  if( ga_words_add(a->w, x) ){
    a->inf |= x > 0 ? GA_INF_POS : GA_INF_NEG;
    return;
  }
  if( ++a->nAdd >= (1u << 30) ){   /* stay far from 2^63 per word */
    ga_words_norm(a->w);
    a->nAdd = 0;
  }
}

/* Add a real: into the expansion, the overflow into the words. */
GA_HD void ga_sum_real(ga_sum *a, ga_fpe *f, double x){
  double r = ga_fpe_add(f, x);
  if( r != 0.0 ) ga_sum_word(a, r);
}

/* Empty the expansion into the words and carry: a alone holds the total. */
GA_HD void ga_sum_settle(ga_sum *a, ga_fpe *f){
  if( f->a0 != 0.0 ) ga_sum_word(a, f->a0);
  if( f->a1 != 0.0 ) ga_sum_word(a, f->a1);
  if( f->a2 != 0.0 ) ga_sum_word(a, f->a2);
  f->a0 = f->a1 = f->a2 = 0.0;
  ga_words_norm(a->w);
  a->nAdd = 0;
}

/* a += b; both settled. */
GA_HD void ga_sum_merge(ga_sum *a, const ga_sum *b){
  uint64_t lo = a->lo + b->lo;
  int i;
  a->hi += b->hi + (lo < a->lo);
  a->lo = lo;
  a->inf |= b->inf;
  for(i = 0; i < GA_WORDS; i++) a->w[i] += b->w[i];
  ga_words_norm(a->w);
}

/* The exact integer total. */
GA_HD __int128 ga_sum_int128(const ga_sum *a){
  return (__int128)(((unsigned __int128)(uint64_t)a->hi << 64) | a->lo);
}

/* The exact total of integers and reals as carried words w: the integer
** total's 32-bit pieces placed at 2^0 = grid bit 1074, every word but the
** top one in [0, 2^32), the top one signed. a must be settled. */
GA_HD void ga_sum_total_words(const ga_sum *a, int64_t *w){
  memcpy(w, a->w, sizeof(int64_t)*GA_WORDS);
  ga_words_add_int(w, ga_sum_int128(a));
  ga_words_norm(w);
}

/* The bits of t up to its top one (0 for 0). */
GA_HD int ga_bits128(unsigned __int128 t){
  uint64_t h = (uint64_t)(t >> 64), l = (uint64_t)t;
#ifdef __CUDA_ARCH__
  return h ? 128 - __clzll((long long)h) : l ? 64 - __clzll((long long)l) : 0;
#else
  return h ? 128 - __builtin_clzll(h) : l ? 64 - __builtin_clzll(l) : 0;
#endif
}

/* Carried words w[0..n), the top one signed, w[0] at grid word lo (weight
** 2^(32lo-1074)), rounded once to the nearest double (ties to even). The
** words above the top non-zero one must include one of room (a carry). */
GA_HD double ga_round_words(int64_t *w, int n, int lo){
  unsigned __int128 t;
  int neg, h, i, nbits, exp2;
  uint64_t sticky = 0;
  /* Magnitude and sign. */
  neg = w[n-1] < 0;
  if( neg ){
    for(i = 0; i < n; i++) w[i] = -w[i];
    ga_carry(w, n);
  }
  for(h = n-1; h >= 0 && w[h] == 0; h--){}
  if( h < 0 ) return 0.0;
  /* The top three digits, and whether anything lies below them. */
  t = 0;
  for(i = h; i >= h-2; i--) t = (t << 32) | (uint64_t)(i >= 0 ? w[i] : 0);
  for(i = h-3; i >= 0; i--) sticky |= (uint64_t)w[i];
  exp2 = 32*(lo + h - 2) - 1074;  /* weight of t's lowest bit */
  nbits = ga_bits128(t);
  if( nbits > 53 ){
    int sh = nbits - 53;
    unsigned __int128 rest = t & (((unsigned __int128)1 << sh) - 1);
    unsigned __int128 half = (unsigned __int128)1 << (sh - 1);
    t >>= sh;
    exp2 += sh;
    /* Nearest; on a tie (nothing below rest either), even. */
    if( rest > half || (rest == half && (sticky || (t & 1))) ) t++;
    if( t >> 53 ){ t >>= 1; exp2 += 1; }
  }
  /* Below 2^-1022 the exact total is a multiple of 2^-1074 of fewer than 53
  ** bits, so no rounding happened above and ldexp is exact; above DBL_MAX
  ** ldexp gives Inf, the correctly rounded overflow. */
  {
    double v = ldexp((double)(uint64_t)t, exp2);
    return neg ? -v : v;
  }
}

/* The total of integers and reals, rounded once to the nearest double (ties
** to even); ±Inf beyond the double range or from infinite inputs; NaN when
** both infinities were seen. a must be settled. */
GA_HD double ga_sum_value(const ga_sum *a){
  int64_t w[GA_WORDS];
  if( a->inf == (GA_INF_POS|GA_INF_NEG) ) return NAN;
  if( a->inf ) return a->inf == GA_INF_POS ? INFINITY : -INFINITY;
  ga_sum_total_words(a, w);
  return ga_round_words(w, GA_WORDS, 0);
}


/* The total of finite expansion f and the integer total iv alone (no
** words), rounded once as ga_sum_value rounds it: the same digits, carried
** and rounded over the few words f's and iv's digits reach, not all
** GA_WORDS (a group's total is finished this way a million times over). A
** double's digits reach three words and carry into no fourth; one more word
** takes the sign. */
GA_HD double ga_fpe_value(const ga_fpe *f, __int128 iv){
  double x[3];
  int64_t w[GA_WORDS], p[3][3];
  int k[3], i, lo = GA_WORDS, hi = -1;
  x[0] = f->a0; x[1] = f->a1; x[2] = f->a2;
  for(i = 0; i < 3; i++){
    k[i] = -1;
    if( x[i] == 0.0 ) continue;
    ga_split(x[i], &k[i], p[i]);
    if( k[i] < lo ) lo = k[i];
    if( k[i] + 2 > hi ) hi = k[i] + 2;
  }
  if( iv ){                     /* ga_words_add_int's words */
    if( 33 < lo ) lo = 33;
    if( 37 > hi ) hi = 37;
  }
  if( hi < 0 ) return 0.0;
  hi += 2;                      /* room: a carry, and the sign (hi <= 67) */
  for(i = lo; i <= hi; i++) w[i] = 0;
  for(i = 0; i < 3; i++){
    if( k[i] < 0 ) continue;
    w[k[i]] += p[i][0];
    w[k[i]+1] += p[i][1];
    w[k[i]+2] += p[i][2];
  }
  if( iv ) ga_words_add_int(w, iv);
  ga_carry(w + lo, hi - lo + 1);
  return ga_round_words(w + lo, hi - lo + 1, lo);
}

#endif /* GPUAGG_SUM_ACC_H */
