/*
** TPC-H's eight tables (TPC-H 3.0, clause 4.2.3), made from a seed at a
** scale factor, for bench_sql's query section (part "tpchj"). Not dbgen:
** the columns have the spec's domains and distributions, not dbgen's exact
** rows or its text grammar. SF is the scale factor; every table but nation
** and region has round(n*SF) rows, at least 1. The tables, in the order
** they are made, all from one stream of random numbers:
**
**   1. region: 5 rows, the spec's.
**        r_regionkey      INTEGER PRIMARY KEY  0..4
**        r_name           TEXT     'AFRICA', 'AMERICA', 'ASIA', 'EUROPE',
**                                  'MIDDLE EAST'
**        r_comment        TEXT     31..115 characters of text
**
**   2. nation: 25 rows, the spec's names and regions.
**        n_nationkey      INTEGER PRIMARY KEY  0..24 ('ALGERIA' .. 'UNITED
**                                  STATES' in the spec's order)
**        n_name           TEXT
**        n_regionkey      INTEGER  the spec's (5 nations a region)
**        n_comment        TEXT     31..114 characters of text
**
**   3. supplier: 10,000 * SF rows, keys 1, 2, ...
**        s_suppkey        INTEGER PRIMARY KEY
**        s_name           TEXT     'Supplier#000000001'
**        s_address        TEXT     10..40 random letters, digits, commas
**                                  and periods
**        s_nationkey      INTEGER  uniform in 0..24
**        s_phone          TEXT     'nn-nnn-nnn-nnnn': the nation's key +
**                                  10, 100..999, 100..999, 1000..9999
**        s_acctbal        REAL     -999.99 .. 9999.99 (cents uniform)
**        s_comment        TEXT     25..100 characters of text; about 5 in
**                                  10,000 hold 'Customer Complaints' and 5
**                                  'Customer Recommends' at a random place
**                                  (each a chance of 1 in 2,000)
**
**   4. customer: 150,000 * SF rows, keys 1, 2, ...
**        c_custkey        INTEGER PRIMARY KEY
**        c_name           TEXT     'Customer#000000001'
**        c_address, c_nationkey, c_phone, c_acctbal  as the supplier's
**        c_mktsegment     TEXT     one of 'AUTOMOBILE', 'BUILDING',
**                                  'FURNITURE', 'MACHINERY', 'HOUSEHOLD'
**        c_comment        TEXT     29..116 characters of text
**
**   5. part: 200,000 * SF rows, keys 1, 2, ...
**        p_partkey        INTEGER PRIMARY KEY
**        p_name           TEXT     5 different words of the 92 colors
**        p_mfgr           TEXT     'Manufacturer#m', m uniform in 1..5
**        p_brand          TEXT     'Brand#mn', n uniform in 1..5 (25)
**        p_type           TEXT     one of the 150 types ('PROMO BURNISHED
**                                  COPPER'): 3 syllables, each uniform
**        p_size           INTEGER  1..50
**        p_container      TEXT     one of the 40 containers ('SM CASE')
**        p_retailprice    REAL     (90000 + (partkey/10) % 20001 + 100 *
**                                  (partkey % 1000))/100
**        p_comment        TEXT     5..22 characters of text
**
**   6. partsupp: 4 rows a part (a rowid table, no key; in part order):
**        ps_partkey       INTEGER  the part's key
**        ps_suppkey       INTEGER  its supplier i = 0..3 by the spec's
**                                  formula, (ps_partkey + i*(S/4 +
**                                  (ps_partkey-1)/S)) % S + 1 with S the
**                                  suppliers (4 different ones at least
**                                  from SF 0.025 up; below, the formula
**                                  can repeat one)
**        ps_availqty      INTEGER  1..9999
**        ps_supplycost    REAL     1.00 .. 1000.00 (cents uniform)
**        ps_comment       TEXT     49..198 characters of text
**
**   7. orders: 1,500,000 * SF rows, each with its lines in lineitem, made
**      in one pass (bench/lineitem.c's lineitem_gen_order draws an order's
**      key, date and lines, then this file its other columns):
**        o_orderkey       INTEGER PRIMARY KEY  sparse as dbgen's: the first
**                                  8 of every 32 keys (1..8, 33..40, ...)
**        o_custkey        INTEGER  uniform over the customers whose key is
**                                  not a multiple of 3 (the spec's: a third
**                                  of the customers have no orders)
**        o_orderstatus    TEXT     'F' if every line's l_linestatus is 'F',
**                                  'O' if every one is 'O', else 'P'
**        o_totalprice     REAL     the sum over its lines of l_extendedprice
**                                  * (1 - l_discount) * (1 + l_tax), in
**                                  cents rounded down after each product
**                                  (as dbgen does)
**        o_orderdate      TEXT     'YYYY-MM-DD', uniform in 1992-01-01 ..
**                                  1998-08-02 (ENDDATE - 151 days)
**        o_orderpriority  TEXT     one of '1-URGENT', '2-HIGH', '3-MEDIUM',
**                                  '4-NOT SPECIFIED', '5-LOW'
**        o_clerk          TEXT     'Clerk#000000001' .. of 1,000 * SF
**        o_shippriority   INTEGER  0
**        o_comment        TEXT     19..78 characters of text
**
**   8. lineitem: 1..7 lines an order (uniform; ~6,000,000 * SF rows), the
**      columns of bench/lineitem.c with its rules: l_orderkey the order's
**      key, l_partkey uniform over the parts, l_suppkey one of the part's
**      4 partsupp suppliers, l_shipdate o_orderdate + 1..121 days,
**      l_commitdate o_orderdate + 30..90, l_receiptdate l_shipdate + 1..30.
**
** So the joins hold as TPC-H's: every l_orderkey is an order's, every
** (l_partkey, l_suppkey) a partsupp row's, every key of customer,
** supplier, nation and region that a row names exists. "Text" is
** lineitem_text's: words of TPC-H's grammar's lists in random order (not
** its sentences). The rows go in through one prepared INSERT a table, in
** one transaction; the caller sets the connection's journal, sync and
** cache pragmas.
*/
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "lineitem.h"
#include "specwords.h"
#include "tpch.h"



/* A table's row count: n * sf, rounded, at least 1. */
static int64_t rows(double n, double sf){
  int64_t k = (int64_t)(n*sf + 0.5);
  return k<1 ? 1 : k;
}

/* lo..hi random letters, digits, commas and periods into z (NUL-
** terminated). */
static void vstring(LineitemRng *r, char *z, int lo, int hi){
  static const char zAlpha[] = "0123456789abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ,.";
  int n = (int)lineitem_rng_range(r, lo, hi), i;
  for(i=0; i<n; i++) z[i] = zAlpha[lineitem_rng_next(r) & 63];
  z[n] = 0;
}

/* A phone number of nation nat into z: 'nn-nnn-nnn-nnnn' (4.2.2.9). */
static void phone(LineitemRng *r, char *z, size_t n, int nat){
  int a = (int)lineitem_rng_range(r, 100, 999), b = (int)lineitem_rng_range(r, 100, 999);
  int c = (int)lineitem_rng_range(r, 1000, 9999);
  snprintf(z, n, "%02d-%03d-%03d-%04d", nat + 10, a, b, c);
}

/* Steps a prepared INSERT once and resets it (its bindings stay): 0, or
** nonzero on an error (the message in sqlite3_errmsg). */
static int ins(sqlite3_stmt *st){
  int rc = sqlite3_step(st);
  return sqlite3_reset(st)!=SQLITE_OK || rc!=SQLITE_DONE;
}

#define TEXT(st, i, z) sqlite3_bind_text(st, i, z, -1, SQLITE_STATIC)

int tpch_keys(void){
  return getenv("BENCH_TPCH_KEYS") && atoi(getenv("BENCH_TPCH_KEYS"))!=0;
}

int tpch_fill(sqlite3 *db, double sf, uint64_t seed, char *zErr, int nErr){
  static const char zDdl[] =
    "DROP TABLE IF EXISTS lineitem; DROP TABLE IF EXISTS orders; DROP TABLE IF EXISTS partsupp;"
    "DROP TABLE IF EXISTS part; DROP TABLE IF EXISTS customer; DROP TABLE IF EXISTS supplier;"
    "DROP TABLE IF EXISTS nation; DROP TABLE IF EXISTS region;"
    "CREATE TABLE region(r_regionkey INTEGER PRIMARY KEY, r_name TEXT, r_comment TEXT);"
    "CREATE TABLE nation(n_nationkey INTEGER PRIMARY KEY, n_name TEXT, n_regionkey INTEGER, n_comment TEXT);"
    "CREATE TABLE supplier(s_suppkey INTEGER PRIMARY KEY, s_name TEXT, s_address TEXT, s_nationkey INTEGER,"
    " s_phone TEXT, s_acctbal REAL, s_comment TEXT);"
    "CREATE TABLE customer(c_custkey INTEGER PRIMARY KEY, c_name TEXT, c_address TEXT, c_nationkey INTEGER,"
    " c_phone TEXT, c_acctbal REAL, c_mktsegment TEXT, c_comment TEXT);"
    "CREATE TABLE part(p_partkey INTEGER PRIMARY KEY, p_name TEXT, p_mfgr TEXT, p_brand TEXT, p_type TEXT,"
    " p_size INTEGER, p_container TEXT, p_retailprice REAL, p_comment TEXT);"
    "CREATE TABLE orders(o_orderkey INTEGER PRIMARY KEY, o_custkey INTEGER, o_orderstatus TEXT, o_totalprice REAL,"
    " o_orderdate TEXT, o_orderpriority TEXT, o_clerk TEXT, o_shippriority INTEGER, o_comment TEXT);";
  /* partsupp and lineitem, with the spec's composite keys where asked (as a
  ** user loads TPC-H: SQLite then has an index to search each by) */
  static const char *azKeyed[2][2] = {
    { "CREATE TABLE partsupp(ps_partkey INTEGER, ps_suppkey INTEGER, ps_availqty INTEGER, ps_supplycost REAL,"
      " ps_comment TEXT)", "CREATE TABLE lineitem(" LINEITEM_COLUMNS ")" },
    { "CREATE TABLE partsupp(ps_partkey INTEGER, ps_suppkey INTEGER, ps_availqty INTEGER, ps_supplycost REAL,"
      " ps_comment TEXT, PRIMARY KEY (ps_partkey, ps_suppkey))",
      "CREATE TABLE lineitem(" LINEITEM_COLUMNS ", PRIMARY KEY (l_orderkey, l_linenumber))" },
  };
  const int keys = tpch_keys();
  enum { REGION, NATION, SUPPLIER, CUSTOMER, PART, PARTSUPP, ORDERS, LINEITEM, NTAB };
  static const char *const azIns[NTAB] = {
    "INSERT INTO region VALUES(?1, ?2, ?3)",
    "INSERT INTO nation VALUES(?1, ?2, ?3, ?4)",
    "INSERT INTO supplier VALUES(?1, ?2, ?3, ?4, ?5, ?6, ?7)",
    "INSERT INTO customer VALUES(?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8)",
    "INSERT INTO part VALUES(?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9)",
    "INSERT OR IGNORE INTO partsupp VALUES(?1, ?2, ?3, ?4, ?5)",   /* (keyed below SF 0.025: a repeat) */
    "INSERT INTO orders VALUES(?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9)",
    LINEITEM_INSERT,
  };
  const int64_t nSupp = rows(10000, sf), nCust = rows(150000, sf), nPart = rows(200000, sf);
  const int64_t nOrder = rows(1500000, sf), nClerk = rows(1000, sf);
  const int64_t nCustOrdering = nCust - nCust/3;     /* customers whose key is not a multiple of 3 */
  sqlite3_stmt *aSt[NTAB], *st;
  LineitemGen *g = malloc(sizeof(*g));
  LineitemRng *r;
  LineitemOrder o;
  int aColor[N(azColor)];
  int64_t k;
  int rc = 1, t, i, j;
  char z1[256], z2[256], z3[256], z4[256], z5[64], z6[64];

  memset(aSt, 0, sizeof(aSt));
  if( g==0 ){ bench_set_err(zErr, nErr, "tpch: no memory"); return 1; }
  lineitem_gen_init(g, seed, nPart, nSupp);
  r = &g->r;
  if( sqlite3_exec(db, "BEGIN", 0, 0, 0)!=SQLITE_OK || sqlite3_exec(db, zDdl, 0, 0, 0)!=SQLITE_OK
   || sqlite3_exec(db, azKeyed[keys][0], 0, 0, 0)!=SQLITE_OK || sqlite3_exec(db, azKeyed[keys][1], 0, 0, 0)!=SQLITE_OK ){
    goto sqlErr;
  }
  for(t=0; t<NTAB; t++){
    if( sqlite3_prepare_v2(db, azIns[t], -1, &aSt[t], 0)!=SQLITE_OK ) goto sqlErr;
  }

  /* 1. region and 2. nation */
  st = aSt[REGION];
  for(i=0; i<N(azRegion); i++){
    lineitem_text(r, z1, 31, 115);
    sqlite3_bind_int(st, 1, i);
    TEXT(st, 2, azRegion[i]);
    TEXT(st, 3, z1);
    if( ins(st) ) goto sqlErr;
  }
  st = aSt[NATION];
  for(i=0; i<N(azNation); i++){
    lineitem_text(r, z1, 31, 114);
    sqlite3_bind_int(st, 1, i);
    TEXT(st, 2, azNation[i]);
    sqlite3_bind_int(st, 3, aRegionOf[i]);
    TEXT(st, 4, z1);
    if( ins(st) ) goto sqlErr;
  }

  /* 3. supplier and 4. customer: the same first columns. */
  for(t=SUPPLIER; t<=CUSTOMER; t++){
    int64_t n = t==SUPPLIER ? nSupp : nCust;
    st = aSt[t];
    for(k=1; k<=n; k++){
      int nat, nc;
      snprintf(z1, sizeof(z1), "%s#%09lld", t==SUPPLIER ? "Supplier" : "Customer", (long long)k);
      vstring(r, z2, 10, 40);
      nat = (int)lineitem_rng_range(r, 0, 24);
      phone(r, z3, sizeof(z3), nat);
      sqlite3_bind_int64(st, 1, k);
      TEXT(st, 2, z1);
      TEXT(st, 3, z2);
      sqlite3_bind_int(st, 4, nat);
      TEXT(st, 5, z3);
      sqlite3_bind_double(st, 6, (double)lineitem_rng_range(r, -99999, 999999)/100.0);
      if( t==SUPPLIER ){
        int bbb;
        nc = lineitem_text(r, z4, 25, 100);
        bbb = (int)lineitem_rng_range(r, 0, 1999);
        if( bbb<2 ){
          /* The Better Business Bureau's comments (4.2.3), 19 characters. */
          memcpy(z4 + lineitem_rng_range(r, 0, nc - 19), bbb ? "Customer Recommends" : "Customer Complaints", 19);
        }
        TEXT(st, 7, z4);
      }else{
        TEXT(st, 7, azSegment[lineitem_rng_range(r, 0, N(azSegment) - 1)]);
        lineitem_text(r, z4, 29, 116);
        TEXT(st, 8, z4);
      }
      if( ins(st) ) goto sqlErr;
    }
  }

  /* 5. part: p_name's 5 colors by a partial shuffle of aColor (a
  ** permutation of the colors, kept from part to part). */
  for(i=0; i<N(azColor); i++) aColor[i] = i;
  st = aSt[PART];
  for(k=1; k<=nPart; k++){
    int mfgr, n = 0;
    for(i=0; i<5; i++){
      int c = (int)lineitem_rng_range(r, i, N(azColor) - 1), x = aColor[c];
      aColor[c] = aColor[i];
      aColor[i] = x;
      n += snprintf(z1 + n, sizeof(z1) - (size_t)n, "%s%s", i ? " " : "", azColor[x]);
    }
    mfgr = (int)lineitem_rng_range(r, 1, 5);
    snprintf(z2, sizeof(z2), "Manufacturer#%d", mfgr);
    snprintf(z3, sizeof(z3), "Brand#%d%d", mfgr, (int)lineitem_rng_range(r, 1, 5));
    snprintf(z4, sizeof(z4), "%s %s %s", azType1[lineitem_rng_range(r, 0, N(azType1) - 1)],
             azType2[lineitem_rng_range(r, 0, N(azType2) - 1)], azType3[lineitem_rng_range(r, 0, N(azType3) - 1)]);
    sqlite3_bind_int64(st, 1, k);
    TEXT(st, 2, z1);
    TEXT(st, 3, z2);
    TEXT(st, 4, z3);
    TEXT(st, 5, z4);
    sqlite3_bind_int(st, 6, (int)lineitem_rng_range(r, 1, 50));
    snprintf(z5, sizeof(z5), "%s %s", azCont1[lineitem_rng_range(r, 0, N(azCont1) - 1)],
             azCont2[lineitem_rng_range(r, 0, N(azCont2) - 1)]);
    TEXT(st, 7, z5);
    sqlite3_bind_double(st, 8, (double)lineitem_price_cents(k)/100.0);
    lineitem_text(r, z6, 5, 22);
    TEXT(st, 9, z6);
    if( ins(st) ) goto sqlErr;
  }

  /* 6. partsupp: the part's 4 suppliers, in part order. */
  st = aSt[PARTSUPP];
  for(k=1; k<=nPart; k++){
    for(i=0; i<4; i++){
      sqlite3_bind_int64(st, 1, k);
      sqlite3_bind_int64(st, 2, lineitem_supplier(k, i, nSupp));
      sqlite3_bind_int(st, 3, (int)lineitem_rng_range(r, 1, 9999));
      sqlite3_bind_double(st, 4, (double)lineitem_rng_range(r, 100, 100000)/100.0);
      lineitem_text(r, z1, 49, 198);
      TEXT(st, 5, z1);
      if( ins(st) ) goto sqlErr;
    }
  }

  /* 7. orders and 8. lineitem: an order's lines drawn (lineitem.c), then
  ** its own columns; the order inserted, then its lines. */
  sqlite3_bind_int(aSt[ORDERS], 8, 0);
  for(k=0; k<nOrder; k++){
    int64_t c, total = 0;
    int nF = 0, nO = 0;
    lineitem_gen_order(g, &o);
    c = lineitem_rng_range(r, 1, nCustOrdering);
    for(j=0; j<o.nLine; j++){
      const LineitemLine *p = &o.aLine[j];
      total += p->cents*(100 - p->discount)/100*(100 + p->tax)/100;
      if( p->linestatus=='F' ) nF++; else nO++;
    }
    st = aSt[ORDERS];
    sqlite3_bind_int64(st, 1, o.orderkey);
    sqlite3_bind_int64(st, 2, c + (c - 1)/2);      /* the c-th key that is not a multiple of 3 */
    TEXT(st, 3, nO==0 ? "F" : nF==0 ? "O" : "P");
    sqlite3_bind_double(st, 4, (double)total/100.0);
    sqlite3_bind_text(st, 5, g->azDay[o.orderdate], 10, SQLITE_STATIC);
    TEXT(st, 6, azPriority[lineitem_rng_range(r, 0, N(azPriority) - 1)]);
    snprintf(z1, sizeof(z1), "Clerk#%09lld", (long long)lineitem_rng_range(r, 1, nClerk));
    TEXT(st, 7, z1);
    lineitem_text(r, z2, 19, 78);
    TEXT(st, 9, z2);
    if( ins(st) ) goto sqlErr;
    for(j=0; j<o.nLine; j++){
      lineitem_bind(g, aSt[LINEITEM], &o, j);
      if( ins(aSt[LINEITEM]) ) goto sqlErr;
    }
  }
  if( sqlite3_exec(db, "COMMIT", 0, 0, 0)!=SQLITE_OK ) goto sqlErr;
  if( keys && sqlite3_exec(db, "ANALYZE", 0, 0, 0)!=SQLITE_OK ) goto sqlErr;
  rc = 0;
  goto done;
sqlErr:
  bench_set_err(zErr, nErr, "tpch: %s", sqlite3_errmsg(db));
done:
  for(t=0; t<NTAB; t++) sqlite3_finalize(aSt[t]);
  if( rc && sqlite3_get_autocommit(db)==0 ) sqlite3_exec(db, "ROLLBACK", 0, 0, 0);
  free(g);
  return rc;
}
