/*
** The Star Schema Benchmark's tables (P. O'Neil, E. O'Neil, X. Chen, "Star
** Schema Benchmark", revision 3, June 2009), made from a seed, for
** bench_sql's query section (part "ssb"). Not the SSB's dbgen: the columns
** have its domains and distributions, not its exact rows or texts. SF is
** the scale factor; the five tables, in the order they are made:
**
**   1. date: one row a day from 1992-01-01 to 1998-12-31 (7 years, 2,557
**      days), in order.
**        d_datekey           INTEGER PRIMARY KEY  yyyymmdd (19980327)
**        d_date              TEXT     'December 22, 1998'
**        d_dayofweek         TEXT     'Sunday' .. 'Saturday'
**        d_month             TEXT     'January' .. 'December'
**        d_year              INTEGER  1992..1998
**        d_yearmonthnum      INTEGER  yyyymm (199803)
**        d_yearmonth         TEXT     'Mar1998'
**        d_daynuminweek      INTEGER  1 (Sunday) .. 7 (Saturday)
**        d_daynuminmonth     INTEGER  1..31
**        d_daynuminyear      INTEGER  1..366
**        d_monthnuminyear    INTEGER  1..12
**        d_weeknuminyear     INTEGER  1..53: days 1-7 of the year are week
**                                     1, days 8-14 week 2, ...
**        d_sellingseason     TEXT     'Winter' (Jan, Feb), 'Spring' (Mar-
**                                     May), 'Summer' (Jun-Aug), 'Fall' (Sep,
**                                     Oct), 'Christmas' (Nov, Dec)
**        d_lastdayinweekfl   INTEGER  1 on Saturdays, else 0
**        d_lastdayinmonthfl  INTEGER  1 on a month's last day, else 0
**        d_holidayfl         INTEGER  1 on New Year's Day, Memorial Day,
**                                     July 4, Labor Day, Thanksgiving and
**                                     Christmas Day, else 0
**        d_weekdayfl         INTEGER  1 Monday to Friday, else 0
**
**   2. part: 200,000 * floor(1 + log2 SF) rows (below SF 1, where that
**      formula has no meaning, 200,000 * SF), keys 1, 2, ...
**        p_partkey           INTEGER PRIMARY KEY
**        p_name              TEXT     two different words of TPC-H's 92
**                                     colors ('lace spring')
**        p_mfgr              TEXT     'MFGR#m', m uniform in 1..5
**        p_category          TEXT     p_mfgr || c, c uniform in 1..5:
**                                     'MFGR#11' .. 'MFGR#55' (25)
**        p_brand1            TEXT     p_category || b, b uniform in 1..40
**                                     as two digits: 'MFGR#1101' ..
**                                     'MFGR#5540' (1,000)
**        p_color             TEXT     one of the 92 colors
**        p_type              TEXT     one of TPC-H's 150 types
**                                     ('PROMO BURNISHED COPPER')
**        p_size              INTEGER  1..50
**        p_container         TEXT     one of TPC-H's 40 containers
**                                     ('JUMBO PKG')
**
**   3. supplier: 2,000 * SF rows, keys 1, 2, ...
**        s_suppkey           INTEGER PRIMARY KEY
**        s_name              TEXT     'Supplier#000000001'
**        s_address           TEXT     10..25 random letters and digits
**        s_city              TEXT     the nation's first 9 characters,
**                                     padded with blanks, and a digit 0..9
**                                     ('UNITED KI1', 'PERU     3'): 250
**        s_nation            TEXT     one of TPC-H's 25 nations (uniform)
**        s_region            TEXT     its region, one of 5 ('AMERICA'); 5
**                                     nations each
**        s_phone             TEXT     'nn-nnn-nnn-nnnn', the first number
**                                     the nation's key + 10
**
**   4. customer: 30,000 * SF rows, keys 1, 2, ...
**        c_custkey           INTEGER PRIMARY KEY
**        c_name              TEXT     'Customer#000000001'
**        c_address, c_city, c_nation, c_region, c_phone  TEXT  as the
**                                     supplier's
**        c_mktsegment        TEXT     one of TPC-H's 5 market segments
**
**   5. lineorder: 1,500,000 * SF orders of 1..7 lines (uniform), a row a
**      line: ~6,000,000 * SF rows; a rowid table, no key.
**        lo_orderkey         INTEGER  sparse as dbgen's: the first 8 of
**                                     every 32 keys (1..7, 32..39, 64..71)
**        lo_linenumber       INTEGER  1..7
**        lo_custkey          INTEGER  uniform in 1..customers
**        lo_partkey          INTEGER  uniform in 1..parts
**        lo_suppkey          INTEGER  uniform in 1..suppliers
**        lo_orderdate        INTEGER  a d_datekey, uniform in 1992-01-01 ..
**                                     1998-08-02 (dbgen's: TPC-H's order
**                                     dates, 151 days short of the end)
**        lo_orderpriority    TEXT     one of TPC-H's 5 ('1-URGENT')
**        lo_shippriority     TEXT     '0'
**        lo_quantity         INTEGER  1..50
**        lo_extendedprice    INTEGER  lo_quantity * the part's retail price
**                                     in cents, 90000 + (partkey/10) % 20001
**                                     + 100*(partkey % 1000) (TPC-H's)
**        lo_ordtotalprice    INTEGER  the order's lines' extended prices,
**                                     less discount, plus tax (cents, each
**                                     line's rounded down as dbgen does)
**        lo_discount         INTEGER  0..10 (percent)
**        lo_revenue          INTEGER  lo_extendedprice*(100-lo_discount)/100
**                                     (integer division)
**        lo_supplycost       INTEGER  6/10 of the part's retail price
**                                     (cents, rounded down; a unit's cost)
**        lo_tax              INTEGER  0..8 (percent)
**        lo_commitdate       INTEGER  a d_datekey: lo_orderdate + 30..90
**                                     days
**        lo_shipmode         TEXT     one of TPC-H's 7 modes ('TRUCK')
**
** So the queries' filters keep the spec's fractions: a region 1/5 of the
** customers or suppliers, a nation 1/25, a city 1/250, a manufacturer 1/5
** of the parts, a category 1/25, a brand 1/1,000; a year ~1/7 of the lines
** (1998 only ~7/12 of that: order dates stop at 1998-08-02), lo_discount
** in 1..3 3/11, lo_quantity < 25 24/50. Every table gets at least one row.
** The rows go in through one prepared INSERT a table, in one transaction;
** the caller sets the connection's journal, sync and cache pragmas.
*/
#include <stdarg.h>
#include <stdio.h>
#include <string.h>
#include "ssb.h"
#include "lineitem.h"
#include "specwords.h"

/* Days in the date table: 1992-01-01 .. 1998-12-31. */
#define SSB_DAYS 2557



static const char *const azMonth[12] = {
  "January", "February", "March", "April", "May", "June", "July", "August", "September", "October", "November",
  "December",
};
static const char *const azWeekday[7] = { "Sunday", "Monday", "Tuesday", "Wednesday", "Thursday", "Friday", "Saturday" };

/* 10..25 random letters, digits, commas and periods into z (NUL-
** terminated). */
static void address(LineitemRng *r, char *z){
  static const char zAlpha[] = "0123456789abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ,.";
  int n = (int)lineitem_rng_range(r, 10, 25), i;
  for(i=0; i<n; i++) z[i] = zAlpha[lineitem_rng_next(r) & 63];
  z[n] = 0;
}

/* Nation k's city number d (0..9) into z: its name's first 9 characters,
** blank-padded, and the digit. */
static void city(char *z, int k, int d){
  size_t n = strlen(azNation[k]);
  memset(z, ' ', 9);
  memcpy(z, azNation[k], n<9 ? n : 9);
  z[9] = (char)('0' + d);
  z[10] = 0;
}

/* Is y-m-d (wd: 0 Sunday .. 6 Saturday; nMonth days in the month) one of
** the date table's holidays? */
static int holiday(int m, int d, int wd, int nMonth){
  return (m==1 && d==1) || (m==5 && wd==1 && d + 7 > nMonth) || (m==7 && d==4)
      || (m==9 && wd==1 && d<=7) || (m==11 && wd==4 && d>=22 && d<=28) || (m==12 && d==25);
}

/* The selling season of month m. */
static const char *season(int m){
  return m<=2 ? "Winter" : m<=5 ? "Spring" : m<=8 ? "Summer" : m<=10 ? "Fall" : "Christmas";
}

/* One line of an order, kept until the order's total price is known. */
typedef struct Line {
  int64_t pk;                 /* lo_partkey */
  int64_t sk;                 /* lo_suppkey */
  int64_t qty;                /* lo_quantity */
  int64_t ext;                /* lo_extendedprice, cents */
  int64_t disc;               /* lo_discount, percent */
  int64_t rev;                /* lo_revenue, cents */
  int64_t cost;               /* lo_supplycost, cents */
  int64_t tax;                /* lo_tax, percent */
  int commit;                 /* lo_commitdate, as a day number */
  int mode;                   /* lo_shipmode, an index into azMode */
} Line;

/* Steps a prepared INSERT once and resets it (its bindings stay): 0, or
** nonzero on an error (the message in sqlite3_errmsg). */
static int ins(sqlite3_stmt *st){
  int rc = sqlite3_step(st);
  return sqlite3_reset(st)!=SQLITE_OK || rc!=SQLITE_DONE;
}

#define TEXT(st, i, z) sqlite3_bind_text(st, i, z, -1, SQLITE_STATIC)

/* A table's row count: n * sf, rounded, at least 1. */
static int64_t rows(double n, double sf){
  int64_t k = (int64_t)(n*sf + 0.5);
  return k<1 ? 1 : k;
}

int ssb_fill(sqlite3 *db, double sf, uint64_t seed, char *zErr, int nErr){
  static const char zDdl[] =
    "DROP TABLE IF EXISTS lineorder; DROP TABLE IF EXISTS customer; DROP TABLE IF EXISTS supplier;"
    "DROP TABLE IF EXISTS part; DROP TABLE IF EXISTS date;"
    "CREATE TABLE date(d_datekey INTEGER PRIMARY KEY, d_date TEXT, d_dayofweek TEXT, d_month TEXT, d_year INTEGER,"
    " d_yearmonthnum INTEGER, d_yearmonth TEXT, d_daynuminweek INTEGER, d_daynuminmonth INTEGER,"
    " d_daynuminyear INTEGER, d_monthnuminyear INTEGER, d_weeknuminyear INTEGER, d_sellingseason TEXT,"
    " d_lastdayinweekfl INTEGER, d_lastdayinmonthfl INTEGER, d_holidayfl INTEGER, d_weekdayfl INTEGER);"
    "CREATE TABLE part(p_partkey INTEGER PRIMARY KEY, p_name TEXT, p_mfgr TEXT, p_category TEXT, p_brand1 TEXT,"
    " p_color TEXT, p_type TEXT, p_size INTEGER, p_container TEXT);"
    "CREATE TABLE supplier(s_suppkey INTEGER PRIMARY KEY, s_name TEXT, s_address TEXT, s_city TEXT, s_nation TEXT,"
    " s_region TEXT, s_phone TEXT);"
    "CREATE TABLE customer(c_custkey INTEGER PRIMARY KEY, c_name TEXT, c_address TEXT, c_city TEXT, c_nation TEXT,"
    " c_region TEXT, c_phone TEXT, c_mktsegment TEXT);"
    "CREATE TABLE lineorder(lo_orderkey INTEGER, lo_linenumber INTEGER, lo_custkey INTEGER, lo_partkey INTEGER,"
    " lo_suppkey INTEGER, lo_orderdate INTEGER, lo_orderpriority TEXT, lo_shippriority TEXT, lo_quantity INTEGER,"
    " lo_extendedprice INTEGER, lo_ordtotalprice INTEGER, lo_discount INTEGER, lo_revenue INTEGER,"
    " lo_supplycost INTEGER, lo_tax INTEGER, lo_commitdate INTEGER, lo_shipmode TEXT)";
  static const char *const azIns[5] = {
    "INSERT INTO date VALUES(?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11, ?12, ?13, ?14, ?15, ?16, ?17)",
    "INSERT INTO part VALUES(?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9)",
    "INSERT INTO supplier VALUES(?1, ?2, ?3, ?4, ?5, ?6, ?7)",
    "INSERT INTO customer VALUES(?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8)",
    "INSERT INTO lineorder VALUES(?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11, ?12, ?13, ?14, ?15, ?16, ?17)",
  };
  static const int aLen[12] = { 31, 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31 };
  sqlite3_stmt *aSt[5] = { 0, 0, 0, 0, 0 }, *st;
  int *aKey = sqlite3_malloc64(sizeof(int)*SSB_DAYS);
  int64_t nPart, nSupp = rows(2000, sf), nCust = rows(30000, sf), nOrder = rows(1500000, sf), k;
  int rc = 1, lastOrder = 0, t, i;
  char z1[64], z2[64], z3[64], z4[64], z5[64], z6[64];
  LineitemRng r;

  if( aKey==0 ){ bench_set_err(zErr, nErr, "ssb: no memory"); return 1; }
  if( sf>=1 ){
    double p = 2;
    for(nPart=200000; p<=sf; p *= 2) nPart += 200000;     /* 200,000 * floor(1 + log2 sf) */
  }else{
    nPart = rows(200000, sf);
  }
  lineitem_rng_init(&r, seed);
  if( sqlite3_exec(db, "BEGIN", 0, 0, 0)!=SQLITE_OK || sqlite3_exec(db, zDdl, 0, 0, 0)!=SQLITE_OK ) goto sqlErr;
  for(t=0; t<5; t++){
    if( sqlite3_prepare_v2(db, azIns[t], -1, &aSt[t], 0)!=SQLITE_OK ) goto sqlErr;
  }

  /* 1. date */
  {
    int y = 1992, m = 1, d = 1, doy = 1, wd = 3;   /* 1992-01-01 was a Wednesday */
    st = aSt[0];
    for(i=0; i<SSB_DAYS; i++){
      int nMonth = aLen[m-1] + (m==2 && bench_is_leap(y));
      aKey[i] = y*10000 + m*100 + d;
      if( aKey[i]==19980802 ) lastOrder = i;
      snprintf(z1, sizeof(z1), "%s %d, %d", azMonth[m-1], d, y);
      snprintf(z2, sizeof(z2), "%.3s%d", azMonth[m-1], y);
      sqlite3_bind_int(st, 1, aKey[i]);
      TEXT(st, 2, z1);
      TEXT(st, 3, azWeekday[wd]);
      TEXT(st, 4, azMonth[m-1]);
      sqlite3_bind_int(st, 5, y);
      sqlite3_bind_int(st, 6, y*100 + m);
      TEXT(st, 7, z2);
      sqlite3_bind_int(st, 8, wd + 1);
      sqlite3_bind_int(st, 9, d);
      sqlite3_bind_int(st, 10, doy);
      sqlite3_bind_int(st, 11, m);
      sqlite3_bind_int(st, 12, (doy - 1)/7 + 1);
      TEXT(st, 13, season(m));
      sqlite3_bind_int(st, 14, wd==6);
      sqlite3_bind_int(st, 15, d==nMonth);
      sqlite3_bind_int(st, 16, holiday(m, d, wd, nMonth));
      sqlite3_bind_int(st, 17, wd>=1 && wd<=5);
      if( ins(st) ) goto sqlErr;
      wd = (wd + 1) % 7;
      doy++;
      if( ++d > nMonth ){
        d = 1;
        if( ++m>12 ){ m = 1; y++; doy = 1; }
      }
    }
  }

  /* 2. part */
  st = aSt[1];
  for(k=1; k<=nPart; k++){
    int mf = (int)lineitem_rng_range(&r, 1, 5), ct = (int)lineitem_rng_range(&r, 1, 5), br = (int)lineitem_rng_range(&r, 1, 40);
    int c1 = (int)lineitem_rng_range(&r, 0, N(azColor) - 1), c2 = (int)lineitem_rng_range(&r, 0, N(azColor) - 2);
    if( c2>=c1 ) c2++;
    snprintf(z1, sizeof(z1), "%s %s", azColor[c1], azColor[c2]);
    snprintf(z2, sizeof(z2), "MFGR#%d", mf);
    snprintf(z3, sizeof(z3), "MFGR#%d%d", mf, ct);
    snprintf(z4, sizeof(z4), "MFGR#%d%d%02d", mf, ct, br);
    snprintf(z5, sizeof(z5), "%s %s %s", azType1[lineitem_rng_range(&r, 0, N(azType1) - 1)],
             azType2[lineitem_rng_range(&r, 0, N(azType2) - 1)], azType3[lineitem_rng_range(&r, 0, N(azType3) - 1)]);
    sqlite3_bind_int64(st, 1, k);
    TEXT(st, 2, z1);
    TEXT(st, 3, z2);
    TEXT(st, 4, z3);
    TEXT(st, 5, z4);
    TEXT(st, 6, azColor[lineitem_rng_range(&r, 0, N(azColor) - 1)]);
    TEXT(st, 7, z5);
    sqlite3_bind_int(st, 8, (int)lineitem_rng_range(&r, 1, 50));
    snprintf(z6, sizeof(z6), "%s %s", azCont1[lineitem_rng_range(&r, 0, N(azCont1) - 1)], azCont2[lineitem_rng_range(&r, 0, N(azCont2) - 1)]);
    TEXT(st, 9, z6);
    if( ins(st) ) goto sqlErr;
  }

  /* 3. supplier and 4. customer: the same columns, the customer's segment. */
  for(t=2; t<=3; t++){
    int64_t n = t==2 ? nSupp : nCust;
    st = aSt[t];
    for(k=1; k<=n; k++){
      int nat = (int)lineitem_rng_range(&r, 0, 24);
      snprintf(z1, sizeof(z1), "%s#%09lld", t==2 ? "Supplier" : "Customer", (long long)k);
      address(&r, z2);
      city(z3, nat, (int)lineitem_rng_range(&r, 0, 9));
      snprintf(z4, sizeof(z4), "%02d-%03d-%03d-%04d", nat + 10, (int)lineitem_rng_range(&r, 100, 999),
               (int)lineitem_rng_range(&r, 100, 999), (int)lineitem_rng_range(&r, 1000, 9999));
      sqlite3_bind_int64(st, 1, k);
      TEXT(st, 2, z1);
      TEXT(st, 3, z2);
      TEXT(st, 4, z3);
      TEXT(st, 5, azNation[nat]);
      TEXT(st, 6, azRegion[aRegionOf[nat]]);
      TEXT(st, 7, z4);
      if( t==3 ) TEXT(st, 8, azSegment[lineitem_rng_range(&r, 0, N(azSegment) - 1)]);
      if( ins(st) ) goto sqlErr;
    }
  }

  /* 5. lineorder: an order's lines drawn, then inserted with its total. */
  st = aSt[4];
  TEXT(st, 8, "0");
  for(k=1; k<=nOrder; k++){
    Line aL[7];
    int nLine = (int)lineitem_rng_range(&r, 1, 7), od = (int)lineitem_rng_range(&r, 0, lastOrder), j;
    int64_t total = 0;
    sqlite3_bind_int64(st, 1, ((k>>3)<<5) | (k&7));
    sqlite3_bind_int64(st, 3, lineitem_rng_range(&r, 1, nCust));
    sqlite3_bind_int(st, 6, aKey[od]);
    TEXT(st, 7, azPriority[lineitem_rng_range(&r, 0, N(azPriority) - 1)]);
    for(j=0; j<nLine; j++){
      Line *p = &aL[j];
      int64_t price;
      p->pk = lineitem_rng_range(&r, 1, nPart);
      p->sk = lineitem_rng_range(&r, 1, nSupp);
      p->qty = lineitem_rng_range(&r, 1, 50);
      p->disc = lineitem_rng_range(&r, 0, 10);
      p->tax = lineitem_rng_range(&r, 0, 8);
      price = 90000 + (p->pk/10) % 20001 + 100*(p->pk % 1000);
      p->ext = p->qty*price;
      p->rev = p->ext*(100 - p->disc)/100;
      p->cost = 6*price/10;
      p->commit = od + (int)lineitem_rng_range(&r, 30, 90);
      p->mode = (int)lineitem_rng_range(&r, 0, N(azMode) - 1);
      total += p->rev*(100 + p->tax)/100;
    }
    sqlite3_bind_int64(st, 11, total);
    for(j=0; j<nLine; j++){
      const Line *p = &aL[j];
      sqlite3_bind_int(st, 2, j + 1);
      sqlite3_bind_int64(st, 4, p->pk);
      sqlite3_bind_int64(st, 5, p->sk);
      sqlite3_bind_int64(st, 9, p->qty);
      sqlite3_bind_int64(st, 10, p->ext);
      sqlite3_bind_int64(st, 12, p->disc);
      sqlite3_bind_int64(st, 13, p->rev);
      sqlite3_bind_int64(st, 14, p->cost);
      sqlite3_bind_int64(st, 15, p->tax);
      sqlite3_bind_int(st, 16, aKey[p->commit]);
      TEXT(st, 17, azMode[p->mode]);
      if( ins(st) ) goto sqlErr;
    }
  }
  if( sqlite3_exec(db, "COMMIT", 0, 0, 0)!=SQLITE_OK ) goto sqlErr;
  rc = 0;
  goto done;
sqlErr:
  bench_set_err(zErr, nErr, "ssb: %s", sqlite3_errmsg(db));
done:
  for(t=0; t<5; t++) sqlite3_finalize(aSt[t]);
  if( rc && sqlite3_get_autocommit(db)==0 ) sqlite3_exec(db, "ROLLBACK", 0, 0, 0);
  sqlite3_free(aKey);
  return rc;
}
