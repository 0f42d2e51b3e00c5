/*
** Extremes (min, max, argmin, argmax) of numbers in SQLite's order, shared
** by the CPU backend (gcc) and the CUDA kernels (nvcc).
**
**   1. A chunk for an extreme holds its numbers in scan order: value i is
**      8 bytes, an int64 or a double as bit i of a type bitmap says (1: REAL).
**   2. INTEGER against REAL compares exactly, as SQLite does: no rounding of
**      the integer to a double (9007199254740993 > 9007199254740992.0).
**      -0.0 equals 0.0; ±Inf are ordinary values; NaN never occurs (SQLite
**      stores it as NULL).
**   3. The result is the best value and its position in scan order; on a
**      tie the lower position wins, so folding chunks in order keeps the
**      first occurrence, as the builtins do. The value's own bits are kept:
**      INTEGER stays INTEGER, REAL stays REAL, -0.0 stays -0.0.
*/
#ifndef GPUAGG_EXT_ACC_H
#define GPUAGG_EXT_ACC_H

#include <stdint.h>
#include <string.h>
#include "hd.h"

#define GA_T_NONE 0             /* no value yet */
#define GA_T_INT  1
#define GA_T_REAL 2

/* The best number of a chunk (or thread, block, query) and where it was. */
typedef struct ga_ext {
  uint64_t bits;                /* the value's 8 bytes */
  int64_t pos;                  /* its position in scan order */
  int32_t type;                 /* GA_T_NONE, GA_T_INT or GA_T_REAL */
  int32_t pad;                  /* keeps the size a multiple of 8 */
} ga_ext;

GA_HD double ga_bits_real(uint64_t b){
#ifdef __CUDA_ARCH__
  return __longlong_as_double((long long)b);
#else
  double r;
  memcpy(&r, &b, sizeof(r));
  return r;
#endif
}

/* Sign of a - b for an integer and a (non-NaN) double, exactly. */
GA_HD int ga_cmp_int_real(int64_t a, double b){
  int64_t t;
  double f;
  if( b >= 9223372036854775808.0 ) return -1;
  if( b < -9223372036854775808.0 ) return 1;
  t = (int64_t)b;               /* toward zero; exact, |b| < 2^63 */
  if( a < t ) return -1;
  if( a > t ) return 1;
  f = b - (double)t;            /* exact: t is b without its fraction */
  return f > 0 ? -1 : (f < 0 ? 1 : 0);
}

/* Sign of a - b for two numbers of either type. */
GA_HD int ga_num_cmp(uint64_t a, int at, uint64_t b, int bt){
  if( at == GA_T_INT && bt == GA_T_INT ){
    return (int64_t)a < (int64_t)b ? -1 : ((int64_t)a > (int64_t)b);
  }
  if( at == GA_T_REAL && bt == GA_T_REAL ){
    double x = ga_bits_real(a), y = ga_bits_real(b);
    return x < y ? -1 : (x > y);
  }
  if( at == GA_T_INT ) return ga_cmp_int_real((int64_t)a, ga_bits_real(b));
  return -ga_cmp_int_real((int64_t)b, ga_bits_real(a));
}

/* Does candidate c beat the best so far, b? (isMax: larger wins, else
** smaller.) Anything beats no value; on equal values the lower position. */
GA_HD int ga_ext_better(const ga_ext *c, const ga_ext *b, int isMax){
  int r;
  if( c->type == GA_T_NONE ) return 0;
  if( b->type == GA_T_NONE ) return 1;
  r = ga_num_cmp(c->bits, c->type, b->bits, b->type);
  if( !isMax ) r = -r;
  return r > 0 || (r == 0 && c->pos < b->pos);
}

#endif /* GPUAGG_EXT_ACC_H */
