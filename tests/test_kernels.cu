/*
** The exact sum kernel (kernels/sum.cu) against sum_acc.h folded on the
** host, bit for bit (the whole settled ga_sum), on seeded data:
**
**   1. every kind of input the kernel treats differently: ordinary values,
**      wide exponents, subnormals, the largest doubles (beyond every level),
**      zeros of both signs, ±Inf and NaN, all equal, alternating signs,
**      magnitudes from 1e-300 to 1e300, growing values, int64 limits;
**   2. chunks typed by a split point (INTEGER values first, odd splits
**      included) and by a type bitmap;
**   3. grids from one block to the device's most, so that a thread folds
**      from one value to tens of thousands (the levels' spacing follows).
**
** GPUAGG_SEED repeats a run; a failure prints the seed; under
** GPUAGG_UNDER_SANITIZER at most 65,537 values a launch. Without a device
** the suite is skipped (77), unless GPUAGG_TEST_REQUIRE_CUDA=1.
*/
#include <check.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <vector>
#include "gpuagg_kernels.h"

static unsigned long long gSeed;     /* the run's seed */
static int gMaxBlocks;               /* ga_sum_max_blocks() */
static ga_sum *dPart;                /* partials and the result */
static long long *dVals;             /* device values */
static uint64_t *dBits;             /* device type bitmap */
static const long long kMaxN = (1 << 22) + 3;
static long long gMaxN = kMaxN;      /* fewer under compute-sanitizer */

static unsigned long long next(unsigned long long *s){
  unsigned long long z = (*s += 0x9e3779b97f4a7c15ull);
  z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
  z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
  return z ^ (z >> 31);
}
static double unit(unsigned long long *s){ return (double)(next(s) >> 11) * 0x1p-53; }

enum { kTypical, kWide, kSubnormal, kHuge, kZeros, kInfNaN, kEqual, kAlternating, kMagnitudes, kGrowing,
       kInts, kKinds };
static const char *kName[kKinds] = {"typical", "wide", "subnormal", "huge", "zeros", "inf/nan", "equal",
                                    "alternating", "magnitudes", "growing", "ints"};

/* Value i of a kind, as the 8 bytes the kernel reads. */
static long long value(int kind, long long i, unsigned long long *s){
  double sign = next(s) & 1 ? 1.0 : -1.0, x;
  long long v;
  switch( kind ){
    case kWide: x = sign * ldexp(1.0 + unit(s), (int)(next(s) % 2098) - 1074); break;
    case kSubnormal: x = sign * unit(s) * 0x1p-1022; break;
    case kHuge: x = sign * ldexp(1.0 + unit(s), 1000 + (int)(next(s) % 24)); break;
    case kZeros: x = sign * 0.0; break;
    case kInfNaN: {
      unsigned long long k = next(s) % 200;
      x = k == 0 ? INFINITY : k == 1 ? -INFINITY : k == 2 ? NAN : (unit(s) - 0.5) * 2e6;
      break;
    }
    case kEqual: x = 0.1; break;
    case kAlternating: x = (i & 1 ? -1e6 : 1e6) * unit(s); break;
    case kMagnitudes: x = sign * pow(10.0, unit(s) * 600 - 300); break;
    case kGrowing: x = 1.25 * (double)i + unit(s); break;
    case kInts: {
      static const long long lim[] = {INT64_MAX, INT64_MIN, INT64_MAX - 1, INT64_MIN + 1, 0, -1};
      return next(s) % 4 == 0 ? lim[next(s) % 6] : (long long)next(s);
    }
    default: x = (unit(s) - 0.5) * 2e6; break;
  }
  memcpy(&v, &x, sizeof(v));
  return v;
}

/* The host's exact total of vals: isReal(j) says how value j is typed. */
template <class F> static ga_sum hostSum(const std::vector<long long> &vals, F isReal){
  ga_sum a;
  ga_fpe f = {0.0, 0.0, 0.0};
  memset(&a, 0, sizeof(a));
  for( size_t j = 0; j < vals.size(); j++ ){
    double x;
    memcpy(&x, &vals[j], sizeof(x));
    if( isReal(j) ) ga_sum_real(&a, &f, x); else ga_sum_int(&a, vals[j]);
  }
  ga_sum_settle(&a, &f);
  return a;
}

/* Fail unless the device's total is the host's, field by field. */
static void expectSame(const ga_sum *dev, const ga_sum *host, const char *what, long long n, int nb){
  const char *field = dev->lo != host->lo ? "integer total (low)" : dev->hi != host->hi ? "integer total (high)"
                    : dev->inf != host->inf ? "infinities"
                    : memcmp(dev->w, host->w, sizeof(dev->w)) != 0 ? "real words" : NULL;
  ck_assert_msg(field == NULL, "%s, %lld values, %d blocks: %s differ (device %.17g, host %.17g); "
                "GPUAGG_SEED=%llu", what, n, nb, field, ga_sum_value(dev), ga_sum_value(host), gSeed);
}

static void check(cudaError_t e, const char *what){
  ck_assert_msg(e == cudaSuccess, "%s: %s", what, cudaGetErrorString(e));
}

/* Run the kernel over vals (INTEGER first ni, or typed by bits) and compare. */
static void compare(const std::vector<long long> &vals, long long ni, const std::vector<unsigned long long> *bits,
                    int maxBlocks, const char *what){
  long long n = (long long)vals.size();
  ga_sum dev;
  if( n ) check(cudaMemcpy(dVals, vals.data(), n * sizeof(long long), cudaMemcpyHostToDevice), "copy");
  if( bits ){
    check(cudaMemcpy(dBits, bits->data(), bits->size() * 8, cudaMemcpyHostToDevice), "copy bits");
    check(ga_sum_bits_launch((const int64_t *)dVals, dBits, n, dPart, maxBlocks, dPart + gMaxBlocks, 0), "launch");
  }else{
    check(ga_sum_launch((const int64_t *)dVals, n, ni, dPart, maxBlocks, dPart + gMaxBlocks, 0), "launch");
  }
  check(cudaMemcpy(&dev, dPart + gMaxBlocks, sizeof(dev), cudaMemcpyDeviceToHost), "result");
  ga_sum host = bits ? hostSum(vals, [&](size_t j){ return (int)(((*bits)[j >> 6] >> (j & 63)) & 1); })
                     : hostSum(vals, [&](size_t j){ return (long long)j >= ni; });
  expectSame(&dev, &host, what, n, ga_sum_blocks(n, maxBlocks));
}

static const long long kSizes[] = {0, 1, 2, 3, 31, 1000, 65537, (1 << 20) + 3};

/* 1: every kind, all REAL (or all INTEGER), every size, three grids. */
START_TEST(test_kinds){
  unsigned long long s = gSeed;
  for( int kind = 0; kind < kKinds; kind++ ){
    for( long long n : kSizes ){
      if( n > gMaxN ) continue;
      std::vector<long long> vals(n);
      for( long long i = 0; i < n; i++ ) vals[i] = value(kind, i, &s);
      for( int nb : {1, 3, gMaxBlocks} ){
        compare(vals, kind == kInts ? n : 0, nullptr, nb, kName[kind]);
      }
    }
  }
}
END_TEST

/* 2: INTEGER values then REAL ones, at odd and even split points; and the
** same values typed by a random bitmap. */
START_TEST(test_typed){
  unsigned long long s = gSeed ^ 0x5eed;
  for( int kind = 0; kind < kInts; kind++ ){
    for( long long n : {3ll, 1001ll, (1ll << 20) + 1} ){
      if( n > gMaxN ) continue;
      std::vector<long long> vals(n);
      std::vector<unsigned long long> bits((n + 63) / 64, 0);
      long long ni = (long long)(next(&s) % (unsigned long long)n) | 1;
      for( long long i = 0; i < n; i++ ){
        vals[i] = i < ni ? value(kInts, i, &s) : value(kind, i, &s);
        if( next(&s) & 1 ) bits[i >> 6] |= 1ull << (i & 63);
      }
      compare(vals, ni, nullptr, gMaxBlocks, kName[kind]);
      compare(vals, ni, nullptr, 5, kName[kind]);
      compare(vals, 0, &bits, gMaxBlocks, kName[kind]);
    }
  }
}
END_TEST

/* 3: many values a thread (one block: up to 16,384), where the levels are
** spaced closest and E_0 climbs with growing values. */
START_TEST(test_long_threads){
  unsigned long long s = gSeed ^ 0x1009;
  for( int kind : {kTypical, kWide, kMagnitudes, kGrowing, kAlternating} ){
    std::vector<long long> vals(gMaxN);
    for( long long i = 0; i < gMaxN; i++ ) vals[i] = value(kind, i, &s);
    compare(vals, 0, nullptr, 1, kName[kind]);
  }
}
END_TEST

int main(void){
  int nDev = 0;
  const char *zSeed = getenv("GPUAGG_SEED");
  const char *zReq = getenv("GPUAGG_TEST_REQUIRE_CUDA");
  if( cudaGetDeviceCount(&nDev) != cudaSuccess || nDev == 0 ){
    if( zReq && atoi(zReq) ){ fprintf(stderr, "no CUDA device, and GPUAGG_TEST_REQUIRE_CUDA=1\n"); return 1; }
    printf("no CUDA device: skipped\n");
    return 77;
  }
  if( getenv("GPUAGG_UNDER_SANITIZER") ) gMaxN = 65537;
  gSeed = zSeed ? strtoull(zSeed, 0, 10) : (unsigned long long)time(0) * 2654435761ull;
  printf("seed %llu\n", gSeed);
  if( ga_sum_max_blocks(&gMaxBlocks) != cudaSuccess
   || cudaMalloc(&dPart, sizeof(ga_sum) * (gMaxBlocks + 1)) != cudaSuccess
   || cudaMalloc(&dVals, kMaxN * sizeof(long long)) != cudaSuccess
   || cudaMalloc(&dBits, (kMaxN + 63) / 64 * 8) != cudaSuccess ){
    fprintf(stderr, "CUDA setup failed\n");
    return 1;
  }
  Suite *su = suite_create("kernels");
  TCase *tc = tcase_create("sum");
  tcase_set_timeout(tc, 600);
  tcase_add_test(tc, test_kinds);
  tcase_add_test(tc, test_typed);
  tcase_add_test(tc, test_long_threads);
  suite_add_tcase(su, tc);
  SRunner *sr = srunner_create(su);
  srunner_set_fork_status(sr, CK_NOFORK);  /* one CUDA context */
  srunner_run_all(sr, CK_NORMAL);
  int nFail = srunner_ntests_failed(sr);
  srunner_free(sr);
  if( nFail ) printf("FAILED: %d (reproduce with GPUAGG_SEED=%llu)\n", nFail, gSeed);
  cudaFree(dPart);
  cudaFree(dVals);
  cudaFree(dBits);
  return nFail ? 1 : 0;
}
