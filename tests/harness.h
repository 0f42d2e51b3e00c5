/*
** What the tests and the benchmark share: a connection with the module
** loaded, seeded random data, statements in one call, exact reference sums.
** Functions return error codes; the tests assert on them, so a failure
** names the statement, the message and the seed.
*/
#ifndef GPUAGG_HARNESS_H
#define GPUAGG_HARNESS_H

#include <sqlite3.h>
#include <stdint.h>

/* The run's seed: GPUAGG_SEED if set, else fresh. Every test derives its own
** generator from it and prints it on failure. */
extern uint64_t h_seed;
void h_seed_init(void);

/* xoshiro256**: fast, seedable. */
typedef struct h_rng { uint64_t s[4]; } h_rng;
void h_rng_init(h_rng*, uint64_t seed);
uint64_t h_next(h_rng*);
int64_t h_range(h_rng*, int64_t lo, int64_t hi);   /* uniform in [lo, hi] */
double h_unit(h_rng*);                              /* uniform in [0, 1) */

/* A :memory: connection with the module (GPUAGG_MODULE) loaded, using the
** first GPUAGG_TEST_DEVICES devices if that is set; NULL with a message in
** *pzErr (sqlite3_free it) on failure. */
sqlite3 *h_open(char **pzErr);
/* The same on zFile (a file: URI too). */
sqlite3 *h_open_file(const char *zFile, char **pzErr);

/* A CTE naming the integers 1..n "series(value)": put it before the SELECT or
** INSERT that reads it (libsqlite3 has no generate_series). */
#define SERIES(n) "WITH RECURSIVE series(value) AS (VALUES(1) UNION ALL " \
                  "SELECT value+1 FROM series WHERE value<" #n ") "

/* Run SQL (printf-style); SQLITE_OK or the error, message in h_errmsg. */
int h_exec(sqlite3*, const char *zFmt, ...);
extern char h_errmsg[512];

/* The first column of the first row as int64 / text (malloc'd, or NULL). */
int64_t h_int(sqlite3*, const char *zFmt, ...);
char *h_text(sqlite3*, const char *zFmt, ...);

/* A result cell: type, value, error. */
typedef struct h_val {
  int rc;                   /* SQLITE_OK, or the statement's error */
  int type;                 /* SQLITE_INTEGER, SQLITE_FLOAT, SQLITE_NULL, ... */
  int64_t i;                /* the value if INTEGER */
  double r;                 /* the value if FLOAT */
  char zErr[512];           /* the error message if rc!=SQLITE_OK */
} h_val;
h_val h_query(sqlite3*, const char *zFmt, ...);

/* Is the CUDA backend usable on this connection? If not, why (static). */
int h_cuda_usable(sqlite3*, const char **pzWhy);

/* Exact reference sum of SQLite numeric values. */
typedef struct h_exact {
  __int128 isum;            /* exact integer total */
  double part[128];         /* Shewchuk partials of the real values, exact */
  int np;                   /* partials in use */
  int64_t nInt, nReal;      /* values seen, by lane */
  int posInf, negInf;       /* an infinity of that sign was seen */
  double absSum;            /* sum of |value| (for error bounds) */
} h_exact;
void h_exact_init(h_exact*);
void h_exact_add(h_exact*, sqlite3_value*);   /* classifies as sum() does */
double h_exact_value(const h_exact*);         /* correctly rounded total */

/* Is the primary CUDA context of device 0 active in this process? -1 if the
** driver cannot be asked. Independent of the module: asks libcuda itself. */
int h_cuda_context_active(void);

/* Is libcuda mapped into this process (any CUDA call made at all)? */
int h_libcuda_loaded(void);

double h_now(void);  /* monotonic seconds */

/* Is z strict UTF-8 (as Python's decoder takes it: no overlong form,
** surrogate, or value past U+10FFFF)? */
int h_utf8(const char *z);

/* The page-source benchmarks' table p(k, g, x, y, z) of n rows in db
** (zName names db in the progress line): made, or made again, if it is
** missing or of another size. */
void h_bench_table(sqlite3 *db, const char *zName, int64_t n);

/* The process's resident bytes now, and the most since h_peak_reset (which
** returns non-zero where the kernel cannot reset the mark: then the peak is
** the process's). 0 where /proc cannot tell. */
int64_t h_rss_bytes(void);
int h_peak_reset(void);
int64_t h_peak_bytes(void);

#endif
