/*
** TPC-H's lineitem table for the benchmarks (bench/lineitem.c), made from a
** seed: no data shipped. Its generator is shared with bench/tpch.c, which
** makes TPC-H's other tables around the same lines: the random numbers,
** the comments' text, a part's price and suppliers, and an order's lines.
*/
#ifndef GPUAGG_LINEITEM_H
#define GPUAGG_LINEITEM_H
#include <stdint.h>
#include <sqlite3.h>

/* The version of the rows lineitem_fill makes (the same seed and row count
** give the same rows while it holds), and of the lines lineitem_gen_order
** draws. */
#define LINEITEM_VERSION 1

/* Drops and makes the table lineitem in db's main schema with n rows from
** seed, in one transaction. 0, or nonzero with the message in zErr[nErr]. */
int lineitem_fill(sqlite3 *db, int64_t n, uint64_t seed, char *zErr, int nErr);

/* The table's columns, for CREATE TABLE lineitem(...), and its INSERT with
** the 16 parameters lineitem_bind binds. */
#define LINEITEM_COLUMNS \
  "l_orderkey INTEGER, l_partkey INTEGER, l_suppkey INTEGER, l_linenumber INTEGER, l_quantity REAL," \
  " l_extendedprice REAL, l_discount REAL, l_tax REAL, l_returnflag TEXT, l_linestatus TEXT, l_shipdate TEXT," \
  " l_commitdate TEXT, l_receiptdate TEXT, l_shipinstruct TEXT, l_shipmode TEXT, l_comment TEXT"
#define LINEITEM_INSERT \
  "INSERT INTO lineitem VALUES(?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11, ?12, ?13, ?14, ?15, ?16)"

/* The generator's random numbers: xoshiro256**, seeded through splitmix64,
** so the rows depend on nothing but the seed. */
typedef struct LineitemRng { uint64_t s[4]; } LineitemRng;
void lineitem_rng_init(LineitemRng*, uint64_t seed);
uint64_t lineitem_rng_next(LineitemRng*);
/* Uniform in [lo, hi] (hi-lo small: the modulo's bias is below 2^-40). */
int64_t lineitem_rng_range(LineitemRng*, int64_t lo, int64_t hi);

/* lo..hi characters (uniform) of words from TPC-H's text grammar's lists
** (4.2.2.10), in random order, into z (hi+1 bytes, NUL-terminated); the
** length. */
int lineitem_text(LineitemRng*, char *z, int lo, int hi);

/* A part's retail price in cents (4.2.3: 90000 + (partkey/10) % 20001 +
** 100*(partkey % 1000)), and its supplier i (0..3) of nSupp (4.2.3's
** formula: (partkey + i*(nSupp/4 + (partkey-1)/nSupp)) % nSupp + 1). */
int64_t lineitem_price_cents(int64_t partkey);
int64_t lineitem_supplier(int64_t partkey, int i, int64_t nSupp);

/* Days from 1992-01-01 that dates can take: enough for the latest receipt
** date (1998-08-02 + 121 + 30 days). */
#define LINEITEM_DAYS 2600

/* One line of an order, as drawn. */
typedef struct LineitemLine {
  int64_t partkey;          /* l_partkey: uniform in 1..nPart */
  int64_t suppkey;          /* l_suppkey: one of the part's 4 suppliers */
  int64_t quantity;         /* l_quantity: 1..50 */
  int64_t cents;            /* l_extendedprice in cents: quantity * the part's price */
  int discount, tax;        /* l_discount, l_tax in percent: 0..10, 0..8 */
  char returnflag;          /* 'R', 'A' or 'N' */
  char linestatus;          /* 'O' or 'F' */
  int ship, commit, receipt;  /* the three dates as days from 1992-01-01 */
  int instruct, mode;       /* indexes into TPC-H's 4 instructions and 7 modes */
  int nComment;             /* zComment's length, 10..43 */
  char zComment[44];
} LineitemLine;

/* One order: its key, date and 1..7 lines. */
typedef struct LineitemOrder {
  int64_t orderkey;         /* sparse as dbgen's: order k (0, 1, ...) is (k/8)*32 + k%8 + 1 */
  int orderdate;            /* days from 1992-01-01: 1992-01-01 .. 1998-08-02 */
  int nLine;
  LineitemLine aLine[7];
} LineitemOrder;

/* The lines' generator: orders one after another, from a seed. */
typedef struct LineitemGen {
  LineitemRng r;            /* the random numbers (a caller may draw its own between orders) */
  int64_t nPart, nSupp;     /* parts and suppliers the lines refer to */
  int64_t nOrder;           /* orders made so far */
  int lastOrder, today;     /* 1998-08-02 and 1995-06-17 (CURRENTDATE) as day numbers */
  char azDay[LINEITEM_DAYS][11];  /* each day's 'YYYY-MM-DD' */
} LineitemGen;

void lineitem_gen_init(LineitemGen*, uint64_t seed, int64_t nPart, int64_t nSupp);
/* The next order's key, date and lines into *pOrder. */
void lineitem_gen_order(LineitemGen*, LineitemOrder *pOrder);
/* Binds pOrder's line j (0-based) to st's 16 parameters (LINEITEM_INSERT);
** its texts are static or pOrder's, which must outlive the step. */
void lineitem_bind(const LineitemGen*, sqlite3_stmt *st, const LineitemOrder *pOrder, int j);

#endif
