/*
** TPC-H's lineitem table, made from a seed (TPC-H 3.0, clause 4.2.3), for
** bench_sql's query section. Not dbgen: the columns have dbgen's domains
** and distributions, not its exact rows or its text grammar.
**
**   l_orderkey       INTEGER  the order's key, sparse as dbgen's: of every
**                             32 keys the first 8 are used (1..8, 33..40, ...)
**   l_partkey        INTEGER  uniform in 1..SF*200,000
**   l_suppkey        INTEGER  one of the part's 4 suppliers (4.2.3's formula,
**                             S = SF*10,000 suppliers)
**   l_linenumber     INTEGER  1..7: an order has 1..7 lines (uniform)
**   l_quantity       REAL     a whole number in 1..50 (stored as REAL)
**   l_extendedprice  REAL     l_quantity * the part's retail price,
**                             (90000 + (partkey/10) % 20001 + 100*(partkey
**                             % 1000))/100: cents, the double nearest them
**   l_discount       REAL     0.00..0.10 in steps of 0.01
**   l_tax            REAL     0.00..0.08 in steps of 0.01
**   l_returnflag     TEXT     'R' or 'A' (even odds) if l_receiptdate <=
**                             1995-06-17 (CURRENTDATE), else 'N'
**   l_linestatus     TEXT     'O' if l_shipdate > 1995-06-17, else 'F'
**   l_shipdate       TEXT     'YYYY-MM-DD': the order's date + 1..121 days;
**                             the order's date uniform in 1992-01-01 ..
**                             1998-08-02 (ENDDATE 1998-12-31 - 151 days),
**                             the same for all of an order's lines
**   l_commitdate     TEXT     the order's date + 30..90 days
**   l_receiptdate    TEXT     l_shipdate + 1..30 days
**   l_shipinstruct   TEXT     one of TPC-H's 4 instructions
**   l_shipmode       TEXT     one of TPC-H's 7 modes
**   l_comment        TEXT     10..43 characters of words from TPC-H's
**                             grammar's lists, in random order
**
** SF is n / 6,001,215 (SF 1's lineitem rows), with at least 200 parts and
** 10 suppliers; orders are made until n lines are (the last one cut short).
** The rows go in through one prepared INSERT in one transaction; the caller
** sets the connection's journal, sync and cache pragmas.
*/
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "lineitem.h"

/* xoshiro256**, seeded through splitmix64: the generator's own, so the rows
** depend on nothing but the seed. */
typedef struct Rng { uint64_t s[4]; } Rng;

static uint64_t rotl(uint64_t x, int k){ return (x<<k) | (x>>(64-k)); }

static void rngInit(Rng *r, uint64_t seed){
  int i;
  for(i=0; i<4; i++){
    uint64_t z = (seed += 0x9e3779b97f4a7c15ull);
    z = (z ^ (z>>30))*0xbf58476d1ce4e5b9ull;
    z = (z ^ (z>>27))*0x94d049bb133111ebull;
    r->s[i] = z ^ (z>>31);
  }
}

static uint64_t rngNext(Rng *r){
  uint64_t *s = r->s, v = rotl(s[1]*5, 7)*9, t = s[1]<<17;
  s[2] ^= s[0]; s[3] ^= s[1]; s[1] ^= s[2]; s[0] ^= s[3];
  s[2] ^= t;
  s[3] = rotl(s[3], 45);
  return v;
}

/* Uniform in [lo, hi] (hi-lo small: the modulo's bias is below 2^-40). */
static int64_t rngRange(Rng *r, int64_t lo, int64_t hi){
  return lo + (int64_t)(rngNext(r) % (uint64_t)(hi - lo + 1));
}

static void setErr(char *zErr, int nErr, const char *zFmt, ...){
  va_list ap;
  if( zErr==0 || nErr<=0 ) return;
  va_start(ap, zFmt);
  vsnprintf(zErr, (size_t)nErr, zFmt, ap);
  va_end(ap);
}

/* Days from 1992-01-01: enough for the latest receipt date (1998-08-02 +
** 121 + 30 days). */
#define LI_DAYS 2600

static int isLeap(int y){ return y%4==0 && (y%100!=0 || y%400==0); }

/* Day number (from 1992-01-01) of y-m-d, y >= 1992. */
static int dayOf(int y, int m, int d){
  static const int aCum[12] = { 0, 31, 59, 90, 120, 151, 181, 212, 243, 273, 304, 334 };
  int n = 0, k;
  for(k=1992; k<y; k++) n += isLeap(k) ? 366 : 365;
  return n + aCum[m-1] + (m>2 && isLeap(y)) + d - 1;
}

/* TPC-H's instructions and modes (4.2.2.13), and words of its text
** grammar's lists (4.2.2.10) for the comments. */
static const char *const azInstruct[] = { "DELIVER IN PERSON", "COLLECT COD", "NONE", "TAKE BACK RETURN" };
static const char *const azMode[] = { "REG AIR", "AIR", "RAIL", "SHIP", "TRUCK", "MAIL", "FOB" };
static const char *const azWord[] = {
  "foxes", "ideas", "theodolites", "pinto", "beans", "instructions", "dependencies", "excuses", "platelets",
  "asymptotes", "courts", "dolphins", "multipliers", "sauternes", "warthogs", "frets", "dinos", "attainments",
  "somas", "Tiresias", "patterns", "forges", "braids", "hockey", "players", "frays", "warhorses", "dugouts",
  "notornis", "epitaphs", "pearls", "tithes", "waters", "orbits", "gifts", "sheaves", "depths", "sentiments",
  "decoys", "realms", "pains", "grouches", "escapades", "packages", "requests", "accounts", "deposits",
  "sleep", "wake", "are", "cajole", "haggle", "nag", "use", "boost", "affix", "detect", "integrate",
  "maintain", "nod", "was", "lose", "sublate", "solve", "thrash", "promise", "engage", "hinder", "print",
  "x-ray", "breach", "eat", "grow", "impress", "mold", "poach", "serve", "run", "dazzle", "snooze", "doze",
  "unwind", "kindle", "play", "hang", "believe", "doubt", "furious", "sly", "careful", "blithe", "quick",
  "fluffy", "slow", "quiet", "ruthless", "thin", "close", "dogged", "daring", "brave", "stealthy",
  "permanent", "enticing", "idle", "busy", "regular", "final", "ironic", "even", "bold", "silent",
  "sometimes", "always", "never", "furiously", "slyly", "carefully", "blithely", "quickly", "fluffily",
  "slowly", "quietly", "ruthlessly", "thinly", "closely", "doggedly", "daringly", "bravely", "stealthily",
  "permanently", "enticingly", "idly", "busily", "regularly", "finally", "ironically", "evenly", "boldly",
  "silently", "about", "above", "according", "to", "across", "after", "against", "along", "alongside",
  "among", "around", "at", "atop", "before", "behind", "beneath", "beside", "besides", "between", "beyond",
  "by", "despite", "during", "except", "for", "from", "in", "place", "of", "inside", "instead", "into",
  "near", "on", "outside", "over", "past", "since", "through", "throughout", "toward", "under", "until",
  "up", "upon", "without", "with", "within", "do", "may", "might", "shall", "will", "would", "can",
  "could", "should", "ought", "must", "have", "need",
};

/* A comment of 10..43 characters into z (NUL-terminated); its length. */
static int comment(Rng *r, char *z){
  const int nWord = (int)(sizeof(azWord)/sizeof(azWord[0]));
  int len = (int)rngRange(r, 10, 43), n = 0;
  while( n<len ){
    const char *w = azWord[rngRange(r, 0, nWord - 1)];
    int k = (int)strlen(w);
    if( n ) z[n++] = ' ';
    if( n + k > len ) k = len - n;
    memcpy(z + n, w, (size_t)k);
    n += k;
  }
  if( z[len-1]==' ' ) z[len-1] = '.';
  z[len] = 0;
  return len;
}

int lineitem_fill(sqlite3 *db, int64_t n, uint64_t seed, char *zErr, int nErr){
  static const char zDdl[] =
    "DROP TABLE IF EXISTS lineitem;"
    "CREATE TABLE lineitem(l_orderkey INTEGER, l_partkey INTEGER, l_suppkey INTEGER, l_linenumber INTEGER,"
    " l_quantity REAL, l_extendedprice REAL, l_discount REAL, l_tax REAL, l_returnflag TEXT, l_linestatus TEXT,"
    " l_shipdate TEXT, l_commitdate TEXT, l_receiptdate TEXT, l_shipinstruct TEXT, l_shipmode TEXT,"
    " l_comment TEXT)";
  const double sf = (double)n/6001215.0;
  const int64_t nPart = sf*200000 > 200 ? (int64_t)(sf*200000 + 0.5) : 200;
  const int64_t nSupp = sf*10000 > 10 ? (int64_t)(sf*10000 + 0.5) : 10;
  const int lastOrder = dayOf(1998, 8, 2), today = dayOf(1995, 6, 17);
  char (*azDay)[11] = malloc(sizeof(*azDay)*LI_DAYS), zComment[48];
  sqlite3_stmt *st = 0;
  int64_t k = 0, order = 0;
  int rc = 1, y = 1992, m = 1, d = 1, i;
  Rng r;

  if( azDay==0 ){ setErr(zErr, nErr, "lineitem: no memory"); return 1; }
  for(i=0; i<LI_DAYS; i++){
    static const int aLen[12] = { 31, 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31 };
    char z[40];
    snprintf(z, sizeof(z), "%04d-%02d-%02d", y, m, d);
    memcpy(azDay[i], z, sizeof(azDay[i]));
    if( ++d > aLen[m-1] + (m==2 && isLeap(y)) ){
      d = 1;
      if( ++m>12 ){ m = 1; y++; }
    }
  }
  rngInit(&r, seed);
  if( sqlite3_exec(db, zDdl, 0, 0, 0)!=SQLITE_OK || sqlite3_exec(db, "BEGIN", 0, 0, 0)!=SQLITE_OK
   || sqlite3_prepare_v2(db, "INSERT INTO lineitem VALUES(?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11, ?12, ?13, ?14,"
                         " ?15, ?16)", -1, &st, 0)!=SQLITE_OK ){
    setErr(zErr, nErr, "lineitem: %s", sqlite3_errmsg(db));
    goto done;
  }
  while( k<n ){
    int nLine = (int)rngRange(&r, 1, 7), line;
    int64_t okey = (order/8)*32 + order%8 + 1;
    int od = (int)rngRange(&r, 0, lastOrder);
    for(line=1; line<=nLine && k<n; line++, k++){
      int64_t pk = rngRange(&r, 1, nPart), qty = rngRange(&r, 1, 50);
      int64_t sk = (pk + rngRange(&r, 0, 3)*(nSupp/4 + (pk - 1)/nSupp)) % nSupp + 1;
      int64_t cents = 90000 + (pk/10) % 20001 + 100*(pk % 1000);
      int ship = od + (int)rngRange(&r, 1, 121), commit = od + (int)rngRange(&r, 30, 90);
      int receipt = ship + (int)rngRange(&r, 1, 30), nc;
      const char *zFlag = receipt<=today ? (rngRange(&r, 0, 1) ? "R" : "A") : "N";
      sqlite3_bind_int64(st, 1, okey);
      sqlite3_bind_int64(st, 2, pk);
      sqlite3_bind_int64(st, 3, sk);
      sqlite3_bind_int64(st, 4, line);
      sqlite3_bind_double(st, 5, (double)qty);
      sqlite3_bind_double(st, 6, (double)(qty*cents)/100.0);
      sqlite3_bind_double(st, 7, (double)rngRange(&r, 0, 10)/100.0);
      sqlite3_bind_double(st, 8, (double)rngRange(&r, 0, 8)/100.0);
      sqlite3_bind_text(st, 9, zFlag, 1, SQLITE_STATIC);
      sqlite3_bind_text(st, 10, ship>today ? "O" : "F", 1, SQLITE_STATIC);
      sqlite3_bind_text(st, 11, azDay[ship], 10, SQLITE_STATIC);
      sqlite3_bind_text(st, 12, azDay[commit], 10, SQLITE_STATIC);
      sqlite3_bind_text(st, 13, azDay[receipt], 10, SQLITE_STATIC);
      sqlite3_bind_text(st, 14, azInstruct[rngRange(&r, 0, 3)], -1, SQLITE_STATIC);
      sqlite3_bind_text(st, 15, azMode[rngRange(&r, 0, 6)], -1, SQLITE_STATIC);
      nc = comment(&r, zComment);
      sqlite3_bind_text(st, 16, zComment, nc, SQLITE_STATIC);
      if( sqlite3_step(st)!=SQLITE_DONE ){
        setErr(zErr, nErr, "lineitem: %s", sqlite3_errmsg(db));
        goto done;
      }
      sqlite3_reset(st);
    }
    order++;
  }
  if( sqlite3_exec(db, "COMMIT", 0, 0, 0)!=SQLITE_OK ){
    setErr(zErr, nErr, "lineitem: %s", sqlite3_errmsg(db));
    goto done;
  }
  rc = 0;
done:
  sqlite3_finalize(st);
  if( rc && sqlite3_get_autocommit(db)==0 ) sqlite3_exec(db, "ROLLBACK", 0, 0, 0);
  free(azDay);
  return rc;
}
