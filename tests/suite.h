/*
** What the differential suites share: the backend pass being run, asserts
** that name it and the seed, connections set up for a pass, checks that the
** device was really used and the pool left idle, and the two-pass main.
**
** A suite runs on the CPU backend, then on the CUDA backend when one is
** usable (skipped, not failed, when none is; GPUAGG_TEST_REQUIRE_CUDA=1 makes
** that a failure; GPUAGG_TEST_ONLY=cpu|cuda runs one pass).
*/
#ifndef GPUAGG_SUITE_H
#define GPUAGG_SUITE_H

#include <check.h>
#include "harness.h"

extern const char *g_backend;           /* "cpu" or "cuda": this pass */

/* Assert, naming the backend and the seed that reproduces the failure. */
#define CHECK(cond, fmt, ...) ck_assert_msg(cond, fmt " (backend %s, GPUAGG_SEED=%llu)", \
                                            ##__VA_ARGS__, g_backend, (unsigned long long)h_seed)
#define EXEC(db, ...) CHECK(h_exec(db, __VA_ARGS__)==SQLITE_OK, "%s", h_errmsg)

/* A connection on this pass's backend with the given chunk and threshold. */
sqlite3 *s_open(int chunk, int64_t threshold);

/* On the CUDA pass, chunks must really have gone to the device. */
void s_expect_device(sqlite3*, const char *zWhat);

/* Every pool slot is back when no statement runs. */
void s_expect_pool_idle(sqlite3*);

/* Columns i and j of the current row hold the same value: same type, same
** integer, same double bits, same bytes. s_same_cells: column i of a's
** row and column j of b's. */
int s_same_cell(sqlite3_stmt*, int i, int j);
int s_same_cells(sqlite3_stmt *a, int i, sqlite3_stmt *b, int j);

/* Cell i of st holds the double x, bit for bit (NULL where x is NaN, as
** SQLite stores it). */
int s_is_double(sqlite3_stmt *st, int i, double x);

/* Each statement of a fails with an error message that contains its text. */
typedef struct s_error { const char *zSql; const char *zErr; } s_error;
void s_expect_errors(sqlite3*, const s_error *a, int n);

/* zSql, stopped by the progress handler after 1000 + 50000*k VM steps,
** fails with SQLITE_INTERRUPT, and leaves the pool idle. */
void s_expect_interrupt(sqlite3*, const char *zSql, int k);

/* Every cell of every row of zSql rendered exactly (type, int64, the
** double's bits, text), or "error: ..." if it fails; malloc'd. Uses no
** shared state: safe from any thread. */
char *s_render(sqlite3*, const char *zSql);

/* A scratch directory /tmp/gpuagg-TAG-XXXXXX made into z (64 bytes), and
** removed with everything in it. */
void s_dir_make(char *z, const char *zTag);
void s_dir_drop(const char *z);

/* A connection to zFile without the module (writers), 5 s busy timeout. */
sqlite3 *s_open_plain(const char *zFile);

/* Run the suite made by make() on each backend; the process's exit code. */
int s_main(Suite *(*make)(void));

#endif
