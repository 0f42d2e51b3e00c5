/*
** Grouped statistics (gpu_group_by): a grouping chunk's rows, a group's
** accumulator and its finished result, shared by the CPU backend (gcc) and
** the CUDA kernels (nvcc), so that both compute the same thing.
**
**   1. A chunk holds rows as three arrays: keys (8 bytes), values (8 bytes:
**      an int64 or a double's bits) and a meta byte: the key's class and form
**      (GA_K_*, 3 bits) and the value's lane and flags (GA_V_*).
**   2. Keys are normalized so that equal SQL values have equal (class, key):
**      INTEGER keys, and REAL keys that hold an integer in int64's range, are
**      class GA_K_INT (1 and 1.0 are one group, so are 0 and -0.0); other
**      REAL keys GA_K_REAL (the double's bits); TEXT and BLOB keys the id the
**      host's dictionary gave them; NULL is one group. A row also keeps the
**      key's form (INTEGER, an integral REAL, -0.0), so that a group's key is
**      given as its first row in scan order had it, as GROUP BY gives it.
**   3. A group's accumulator counts rows and values by lane (what sum()
**      sees: integers, reals), sums integers exactly (two words of 32-bit
**      halves) and reals exactly in a fixed-point window of GA_GWORDS 32-bit
**      digits on sum_acc.h's grid, from word jb up, the same for all groups
**      of a query. A real that does not fit the window (too large, too fine,
**      ±Inf) is flagged GA_V_HOST by the host, which sums it in a ga_sum
**      merged at the end. Every part is a sum of integers: any order of
**      atomics, any chunking, gives the same bits.
**   4. Extremes are packed into 128 bits so that the larger pair is the
**      better candidate (ga_gext): the number's order (INTEGER and REAL
**      compared exactly), then the lower position, then its type. A compare
**      and swap keeps the best: ties go to the first row in scan order.
**      Values stored as TEXT or BLOB (GA_V_OTHER: summed as sum() reads
**      them) are no candidates: the host compares those.
**   5. The first row: its position and key form, ~(pos << 3 | class), kept by
**      max. Positions are below 2^51.
*/
#ifndef GPUAGG_GROUP_ACC_H
#define GPUAGG_GROUP_ACC_H

#include <stdint.h>
#include <string.h>
#include "hd.h"
#include "sum_acc.h"
#include "ext_acc.h"

/* Key class and form: the low 3 bits of a row's meta. */
#define GA_K_NULL  0
#define GA_K_INT   1                  /* INTEGER */
#define GA_K_INTR  2                  /* an integral REAL: a GA_K_INT group */
#define GA_K_INTZ  3                  /* REAL -0.0: the GA_K_INT group 0 */
#define GA_K_REAL  4                  /* any other REAL */
#define GA_K_TEXT  5
#define GA_K_BLOB  6
#define GA_K_MASK  7

/* Value lane and flags. Neither lane: NULL. */
#define GA_V_INT   0x08               /* the integer lane */
#define GA_V_REAL  0x10               /* the real lane */
#define GA_V_OTHER 0x20               /* stored as TEXT or BLOB: no extreme */
#define GA_V_HOST  0x40               /* a real the host sums */

#define GA_GWORDS  6                  /* digits of the real window */
#define GA_POSMAX  ((1ull << 51) - 1) /* positions are below this */

/* What sum() gives for a group (ga_grow.sumType). */
#define GA_SUM_NONE     0             /* no value: NULL */
#define GA_SUM_INT      1             /* only integers: isum */
#define GA_SUM_REAL     2             /* some real: total */
#define GA_SUM_OVERFLOW 3             /* only integers, and they overflow int64 */

/* The class a key groups under. */
GA_HD int ga_kgroup(int cls){ return cls == GA_K_INTR || cls == GA_K_INTZ ? GA_K_INT : cls; }

/* A hash table entry: tag = group class + 1 (0: empty). */
typedef struct ga_gent { uint64_t key, tag; } GA_ALIGN16 ga_gent;

/* A packed extreme: (hi, lo) compared as one unsigned 128-bit number. */
typedef struct ga_gext { uint64_t hi, lo; } GA_ALIGN16 ga_gext;

/* One group's running totals (128 bytes). */
typedef struct ga_gacc {
  uint64_t rows;                      /* count(*) */
  uint64_t first;                     /* ~(pos << 3 | key class) of the first row, by max */
  uint64_t nInt;                      /* values in the integer lane */
  uint64_t nReal;                     /* values in the real lane */
  uint64_t ilo;                       /* integers: sum of their low 32 bits, unsigned */
  int64_t ihi;                        /* ... and of their high 32 bits, signed */
  int64_t w[GA_GWORDS];               /* reals: sum of w[j] * 2^(32(jb+j)-1074) */
  ga_gext mx, mn;                     /* best candidates for max and min */
} GA_ALIGN16 ga_gacc;

/* A group's result. */
typedef struct ga_grow {
  uint64_t key;                       /* the normalized key */
  int32_t kclass;                     /* class and form of the first row's key */
  int32_t sumType;                    /* GA_SUM_* */
  int64_t rows;                       /* count(*) */
  int64_t nInt, nReal;                /* values by lane: count(VALUE) is their sum */
  int64_t isum;                       /* GA_SUM_INT: the total */
  double total;                       /* the exact total rounded once (total()) */
  ga_gext mx, mn;                     /* numeric extremes; (0, 0): none */
} ga_grow;

GA_HD int ga_gext_better(ga_gext a, ga_gext b){
  return a.hi > b.hi || (a.hi == b.hi && a.lo > b.lo);
}

/* A double's place in the order of numbers (-0.0 as 0.0), as an unsigned. */
GA_HD uint64_t ga_order_bits(double d){
  uint64_t b = ga_bits(d == 0.0 ? 0.0 : d);
  return (b >> 63) ? ~b : b | (1ull << 63);
}
GA_HD double ga_order_value(uint64_t k){
  return ga_bits_real((k >> 63) ? k & ~(1ull << 63) : ~k);
}

/* The largest double not above i. (Only a rounded, so nonzero, d can be
** above i: its neighbour below is one step of its bits.) */
GA_HD double ga_floor_double(int64_t i){
  double d = (double)i;
  if( ga_cmp_int_real(i, d) >= 0 ) return d;
  return ga_bits_real(ga_bits(d) + (d > 0 ? (uint64_t)-1 : 1));
}

/* The candidate for max (isMax) or min: value bits (a REAL's if isReal, else
** an int64) at position pos. An integer is its floor double and the rest
** (below 1024). */
GA_HD ga_gext ga_gext_make(uint64_t bits, int isReal, uint64_t pos, int isMax){
  uint64_t delta = 0, t = 0, ok;
  double d;
  ga_gext g;
  if( isReal ){
    d = ga_bits_real(bits);
    t = (d == 0.0 && (bits >> 63)) ? 2 : 1;   /* -0.0 keeps its sign */
  }else{
    d = ga_floor_double((int64_t)bits);
    delta = (uint64_t)((int64_t)bits - (int64_t)d);
  }
  ok = ga_order_bits(d);
  g.hi = isMax ? ok : ~ok;
  g.lo = ((isMax ? delta : 1023 - delta) << 53) | ((GA_POSMAX - pos) << 2) | t;
  return g;
}

/* The value in g (GA_T_NONE if empty): its bits and position. */
GA_HD int ga_gext_value(ga_gext g, int isMax, uint64_t *pBits, uint64_t *pPos){
  uint64_t t = g.lo & 3, delta = (g.lo >> 53) & 1023;
  double d;
  if( g.hi == 0 && g.lo == 0 ) return GA_T_NONE;
  d = ga_order_value(isMax ? g.hi : ~g.hi);
  *pPos = GA_POSMAX - ((g.lo >> 2) & GA_POSMAX);
  if( t == 0 ){
    *pBits = (uint64_t)((int64_t)d + (int64_t)(isMax ? delta : 1023 - delta));
    return GA_T_INT;
  }
  *pBits = t == 2 ? ga_bits(-0.0) : ga_bits(d);
  return GA_T_REAL;
}

/* A group's place in GROUP BY's order (class gcls, as ga_kgroup gives):
** numbers by their floor double, ascending (big integers that share it
** tie), every other class after them. */
GA_HD uint64_t ga_key_order(int gcls, uint64_t key){
  if( gcls == GA_K_INT ) return ga_order_bits(ga_floor_double((int64_t)key));
  if( gcls == GA_K_REAL ) return ga_order_bits(ga_bits_real(key));
  return UINT64_MAX;
}

/* Split finite x for a window from word jb: its digits p[0..2] go to words
** *pj - jb + 0..2 of it. 0 if every non-zero digit lands inside, else 1
** (±Inf too). */
GA_HD int ga_window_split(double x, int jb, int *pj, int64_t p[3]){
  int w, k;
  if( ga_split(x, &w, p) ) return 1;
  for(k = 0; k < 3; k++){
    if( p[k] != 0 && (w + k < jb || w + k >= jb + GA_GWORDS) ) return 1;
  }
  *pj = w - jb;
  return 0;
}

/* The highest word of sum_acc.h's grid a finite x reaches (-1 for 0). */
GA_HD int ga_window_top(double x){
  int w, k;
  int64_t p[3];
  if( ga_split(x, &w, p) ) return -1;
  for(k = 2; k >= 0 && p[k] == 0; k--){}
  return k < 0 ? -1 : w + k;
}

/* The window for a query whose largest real reaches word top: one word of
** room above it, the rest below. */
GA_HD int ga_window_base(int top){
  int jb = top + 2 - GA_GWORDS;
  if( jb < 0 ) jb = 0;
  if( jb > GA_WORDS - GA_GWORDS ) jb = GA_WORDS - GA_GWORDS;
  return jb;
}

/* Carry: the integer words and the window back into 32-bit digits (the top
** word keeps the sign), the value unchanged. Each word takes 2^31 additions
** between two carries. */
GA_HD void ga_gacc_carry(ga_gacc *a){
  int64_t c = 0;
  int j;
  a->ihi += (int64_t)(a->ilo >> 32);
  a->ilo &= 0xffffffffu;
  for(j = 0; j < GA_GWORDS - 1; j++){
    int64_t v = a->w[j] + c;
    c = v >> 32;
    a->w[j] = v & 0xffffffff;
  }
  a->w[GA_GWORDS - 1] += c;
}
#define GA_CARRY_ROWS ((int64_t)1 << 30)  /* rows between two carries */

/* Finish a group: totals rounded once, the exact integer sum or overflow.
** exc: the reals the host summed for it (settled), or NULL. Without exc,
** when the integers' words and the window lie within 16 words, the total is
** carried and rounded there (ga_round_words), not over all of sum_acc.h's. */
#define GA_NEAR 16
GA_HD void ga_group_finish(const ga_gacc *a, uint64_t key, int jb, const ga_sum *exc, ga_grow *out){
  __int128 iv = (__int128)a->ihi * ((__int128)1 << 32) + (__int128)a->ilo;
  uint64_t f = ~a->first;
  int lo = jb >= 0 && jb < 33 ? jb : 33;                  /* the integers sit at words 33..38 */
  int hi = (jb >= 0 && jb + GA_GWORDS > 38 ? jb + GA_GWORDS : 38) + 2;
  int j;
  out->key = key;
  out->kclass = (int32_t)(f & GA_K_MASK);
  out->rows = (int64_t)a->rows;
  out->nInt = (int64_t)a->nInt;
  out->nReal = (int64_t)a->nReal;
  out->isum = (int64_t)iv;
  if( exc == 0 && hi - lo <= GA_NEAR ){
    int64_t w[GA_NEAR];
    unsigned __int128 u = iv < 0 ? -(unsigned __int128)iv : (unsigned __int128)iv;
    memset(w, 0, sizeof(w));
    if( jb >= 0 ) for(j = 0; j < GA_GWORDS; j++) w[jb - lo + j] = a->w[j];
    for(j = 0; j < 4; j++){                               /* as ga_sum_total_words */
      uint64_t v = ((uint64_t)(u >> (32*j)) & 0xffffffffu) << 18;
      int64_t d0 = (int64_t)(v & 0xffffffffu), d1 = (int64_t)(v >> 32);
      w[33 - lo + j] += iv < 0 ? -d0 : d0;
      w[34 - lo + j] += iv < 0 ? -d1 : d1;
    }
    ga_carry(w, GA_NEAR);
    out->total = ga_round_words(w, GA_NEAR, lo);
  }else{
    ga_sum s;
    memset(&s, 0, sizeof(s));
    s.lo = (uint64_t)iv;
    s.hi = (int64_t)(iv >> 64);
    if( jb >= 0 ) for(j = 0; j < GA_GWORDS; j++) s.w[jb + j] = a->w[j];
    ga_words_norm(s.w);
    if( exc ) ga_sum_merge(&s, exc);
    out->total = ga_sum_value(&s);
  }
  if( a->nReal > 0 ) out->sumType = GA_SUM_REAL;
  else if( a->nInt == 0 ) out->sumType = GA_SUM_NONE;
  else out->sumType = iv < INT64_MIN || iv > INT64_MAX ? GA_SUM_OVERFLOW : GA_SUM_INT;
  out->mx = a->mx;
  out->mn = a->mn;
}

/*
** 6. A finished group's value compared with a number (gpu_query's HAVING
**    conjuncts of that form, ext/query/kept.c): a group that fails one is
**    dropped where it is finished, before its row is copied or made, as
**    HAVING would drop it. The values are what SQL shows: count(*) the
**    rows, count the values, sum (NULL without values: it fails; integers
**    that overflow: kept, SQLite's error is the finish's to raise) and
**    total; compared as SQLite compares two numbers (an INTEGER with a REAL
**    exactly).
*/
#define GA_HAVE_MAX 4
enum { GA_HAVE_ROWS, GA_HAVE_COUNT, GA_HAVE_SUM, GA_HAVE_TOTAL };      /* fn */
enum { GA_HAVE_LT, GA_HAVE_LE, GA_HAVE_GT, GA_HAVE_GE, GA_HAVE_EQ, GA_HAVE_NE };  /* op */
typedef struct ga_ghave {
  int32_t fn, op;                     /* GA_HAVE_*: value op number */
  int32_t litType;                    /* the number's GA_T_INT or GA_T_REAL */
  uint64_t lit;                       /* ... an int64 or a double's bits */
} ga_ghave;
typedef struct ga_ghaves { int32_t n; ga_ghave a[GA_HAVE_MAX]; } ga_ghaves;   /* all of them (n 0: none) */

/* May group x meet every condition of h? */
GA_HD int ga_grow_may(const ga_grow *x, const ga_ghaves *h){
  int i, c;
  for(i = 0; i < h->n; i++){
    const ga_ghave *a = &h->a[i];
    int64_t n = x->nInt + x->nReal;
    uint64_t v;
    int t = GA_T_INT;
    double d;
    if( a->fn == GA_HAVE_ROWS ) v = (uint64_t)x->rows;
    else if( a->fn == GA_HAVE_COUNT ) v = (uint64_t)n;
    else if( a->fn == GA_HAVE_SUM && n == 0 ) return 0;
    else if( a->fn == GA_HAVE_SUM && x->sumType == GA_SUM_OVERFLOW ) continue;
    else if( a->fn == GA_HAVE_SUM && x->sumType == GA_SUM_INT ) v = (uint64_t)x->isum;
    else{
      d = n ? x->total : 0.0;
      if( d != d ) return 0;                                    /* NaN: NULL */
      v = ga_bits(d);
      t = GA_T_REAL;
    }
    c = ga_num_cmp(v, t, a->lit, a->litType);
    switch( a->op ){
      case GA_HAVE_LT: if( !(c < 0) ) return 0; break;
      case GA_HAVE_LE: if( !(c <= 0) ) return 0; break;
      case GA_HAVE_GT: if( !(c > 0) ) return 0; break;
      case GA_HAVE_GE: if( !(c >= 0) ) return 0; break;
      case GA_HAVE_EQ: if( c != 0 ) return 0; break;
      default: if( c == 0 ) return 0; break;
    }
  }
  return 1;
}

/*
** 7. count(DISTINCT x) counted where the groups are (ext/query/kept.c's
**    keptDistinct): a grouping whose keys are codes of dictionary ids, x's
**    id one digit of its own (the digit's place div, nId ids), has one group
**    for each distinct x of each group of the query; that group counts once
**    for the query's group, its code without x's digit (below nCode). Groups
**    of dropped rows (class GA_K_BLOB: qprog.h's GA_Q_DROPPED_META) and of
**    x's NULL id count for none. So the counts, not the groups, are what
**    leaves the table; each is a count of groups: any order gives the same.
*/
typedef struct ga_gcodes {
  uint64_t div, nId;                  /* x's digit: id = key / div % nId */
  uint64_t nullId;                    /* x's NULL's id (nId: none) */
  uint64_t nCode;                     /* codes without x's digit are below this */
  int64_t *aCount;                    /* the host's counts by code (nCode), zeroed by the caller */
} ga_gcodes;

/* The code group (cls: its class, key) counts for; -1: none; -2: a code
** not below nCode or a class no such grouping has (never: an error). */
GA_HD int64_t ga_gcodes_at(const ga_gcodes *c, int cls, uint64_t key){
  uint64_t code;
  if( cls == GA_K_BLOB ) return -1;
  if( cls != GA_K_INT ) return -2;
  if( key / c->div % c->nId == c->nullId ) return -1;
  code = key / (c->div * c->nId) * c->div + key % c->div;
  return code < c->nCode ? (int64_t)code : -2;
}

#endif /* GPUAGG_GROUP_ACC_H */
