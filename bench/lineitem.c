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
**
** The generator is in parts that bench/tpch.c shares (lineitem.h): the
** random numbers, the comments' text, a part's price and suppliers, and
** lineitem_gen_order, which draws an order's key, date and lines in the
** order lineitem_fill always has, so its rows are those of version 1.
*/
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "lineitem.h"
#include "specwords.h"

static uint64_t rotl(uint64_t x, int k){ return (x<<k) | (x>>(64-k)); }

void lineitem_rng_init(LineitemRng *r, uint64_t seed){
  int i;
  for(i=0; i<4; i++){
    uint64_t z = (seed += 0x9e3779b97f4a7c15ull);
    z = (z ^ (z>>30))*0xbf58476d1ce4e5b9ull;
    z = (z ^ (z>>27))*0x94d049bb133111ebull;
    r->s[i] = z ^ (z>>31);
  }
}

uint64_t lineitem_rng_next(LineitemRng *r){
  uint64_t *s = r->s, v = rotl(s[1]*5, 7)*9, t = s[1]<<17;
  s[2] ^= s[0]; s[3] ^= s[1]; s[1] ^= s[2]; s[0] ^= s[3];
  s[2] ^= t;
  s[3] = rotl(s[3], 45);
  return v;
}

int64_t lineitem_rng_range(LineitemRng *r, int64_t lo, int64_t hi){
  return lo + (int64_t)(lineitem_rng_next(r) % (uint64_t)(hi - lo + 1));
}

/* Day number (from 1992-01-01) of y-m-d, y >= 1992. */
static int dayOf(int y, int m, int d){
  static const int aCum[12] = { 0, 31, 59, 90, 120, 151, 181, 212, 243, 273, 304, 334 };
  int n = 0, k;
  for(k=1992; k<y; k++) n += bench_is_leap(k) ? 366 : 365;
  return n + aCum[m-1] + (m>2 && bench_is_leap(y)) + d - 1;
}

/* TPC-H's instructions (4.2.2.13; its ship modes are specwords.h's), and
** words of its text grammar's lists (4.2.2.10) for the comments. */
static const char *const azInstruct[] = { "DELIVER IN PERSON", "COLLECT COD", "NONE", "TAKE BACK RETURN" };
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

int lineitem_text(LineitemRng *r, char *z, int lo, int hi){
  const int nWord = (int)(sizeof(azWord)/sizeof(azWord[0]));
  int len = (int)lineitem_rng_range(r, lo, hi), n = 0;
  while( n<len ){
    const char *w = azWord[lineitem_rng_range(r, 0, nWord - 1)];
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

int64_t lineitem_price_cents(int64_t pk){
  return 90000 + (pk/10) % 20001 + 100*(pk % 1000);
}

int64_t lineitem_supplier(int64_t pk, int i, int64_t nSupp){
  return (pk + i*(nSupp/4 + (pk - 1)/nSupp)) % nSupp + 1;
}

void lineitem_gen_init(LineitemGen *g, uint64_t seed, int64_t nPart, int64_t nSupp){
  static const int aLen[12] = { 31, 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31 };
  int y = 1992, m = 1, d = 1, i;
  lineitem_rng_init(&g->r, seed);
  g->nPart = nPart;
  g->nSupp = nSupp;
  g->nOrder = 0;
  g->lastOrder = dayOf(1998, 8, 2);
  g->today = dayOf(1995, 6, 17);
  for(i=0; i<LINEITEM_DAYS; i++){
    char z[40];
    snprintf(z, sizeof(z), "%04d-%02d-%02d", y, m, d);
    memcpy(g->azDay[i], z, sizeof(g->azDay[i]));
    if( ++d > aLen[m-1] + (m==2 && bench_is_leap(y)) ){
      d = 1;
      if( ++m>12 ){ m = 1; y++; }
    }
  }
}

/* The draws in the order version 1 made them: the order's line count and
** date; each line's part, quantity, supplier, ship, commit and receipt
** dates, return flag (where received by CURRENTDATE), discount, tax,
** instruction, mode and comment. */
void lineitem_gen_order(LineitemGen *g, LineitemOrder *o){
  LineitemRng *r = &g->r;
  int64_t k = g->nOrder++;
  int j;
  o->nLine = (int)lineitem_rng_range(r, 1, 7);
  o->orderkey = (k/8)*32 + k%8 + 1;
  o->orderdate = (int)lineitem_rng_range(r, 0, g->lastOrder);
  for(j=0; j<o->nLine; j++){
    LineitemLine *p = &o->aLine[j];
    p->partkey = lineitem_rng_range(r, 1, g->nPart);
    p->quantity = lineitem_rng_range(r, 1, 50);
    p->suppkey = lineitem_supplier(p->partkey, (int)lineitem_rng_range(r, 0, 3), g->nSupp);
    p->cents = p->quantity*lineitem_price_cents(p->partkey);
    p->ship = o->orderdate + (int)lineitem_rng_range(r, 1, 121);
    p->commit = o->orderdate + (int)lineitem_rng_range(r, 30, 90);
    p->receipt = p->ship + (int)lineitem_rng_range(r, 1, 30);
    p->returnflag = p->receipt<=g->today ? (lineitem_rng_range(r, 0, 1) ? 'R' : 'A') : 'N';
    p->linestatus = p->ship>g->today ? 'O' : 'F';
    p->discount = (int)lineitem_rng_range(r, 0, 10);
    p->tax = (int)lineitem_rng_range(r, 0, 8);
    p->instruct = (int)lineitem_rng_range(r, 0, 3);
    p->mode = (int)lineitem_rng_range(r, 0, 6);
    p->nComment = lineitem_text(r, p->zComment, 10, 43);
  }
}

void lineitem_bind(const LineitemGen *g, sqlite3_stmt *st, const LineitemOrder *o, int j){
  const LineitemLine *p = &o->aLine[j];
  sqlite3_bind_int64(st, 1, o->orderkey);
  sqlite3_bind_int64(st, 2, p->partkey);
  sqlite3_bind_int64(st, 3, p->suppkey);
  sqlite3_bind_int64(st, 4, j + 1);
  sqlite3_bind_double(st, 5, (double)p->quantity);
  sqlite3_bind_double(st, 6, (double)p->cents/100.0);
  sqlite3_bind_double(st, 7, (double)p->discount/100.0);
  sqlite3_bind_double(st, 8, (double)p->tax/100.0);
  sqlite3_bind_text(st, 9, &p->returnflag, 1, SQLITE_STATIC);
  sqlite3_bind_text(st, 10, &p->linestatus, 1, SQLITE_STATIC);
  sqlite3_bind_text(st, 11, g->azDay[p->ship], 10, SQLITE_STATIC);
  sqlite3_bind_text(st, 12, g->azDay[p->commit], 10, SQLITE_STATIC);
  sqlite3_bind_text(st, 13, g->azDay[p->receipt], 10, SQLITE_STATIC);
  sqlite3_bind_text(st, 14, azInstruct[p->instruct], -1, SQLITE_STATIC);
  sqlite3_bind_text(st, 15, azMode[p->mode], -1, SQLITE_STATIC);
  sqlite3_bind_text(st, 16, p->zComment, p->nComment, SQLITE_STATIC);
}

int lineitem_fill(sqlite3 *db, int64_t n, uint64_t seed, char *zErr, int nErr){
  const double sf = (double)n/6001215.0;
  const int64_t nPart = sf*200000 > 200 ? (int64_t)(sf*200000 + 0.5) : 200;
  const int64_t nSupp = sf*10000 > 10 ? (int64_t)(sf*10000 + 0.5) : 10;
  LineitemGen *g = malloc(sizeof(*g));
  LineitemOrder o;
  sqlite3_stmt *st = 0;
  int64_t k = 0;
  int rc = 1, j;

  if( g==0 ){ bench_set_err(zErr, nErr, "lineitem: no memory"); return 1; }
  lineitem_gen_init(g, seed, nPart, nSupp);
  if( sqlite3_exec(db, "DROP TABLE IF EXISTS lineitem; CREATE TABLE lineitem(" LINEITEM_COLUMNS ")", 0, 0, 0)!=SQLITE_OK
   || sqlite3_exec(db, "BEGIN", 0, 0, 0)!=SQLITE_OK
   || sqlite3_prepare_v2(db, LINEITEM_INSERT, -1, &st, 0)!=SQLITE_OK ){
    bench_set_err(zErr, nErr, "lineitem: %s", sqlite3_errmsg(db));
    goto done;
  }
  /* Orders until n lines are made, the last one cut short. */
  while( k<n ){
    lineitem_gen_order(g, &o);
    for(j=0; j<o.nLine && k<n; j++, k++){
      lineitem_bind(g, st, &o, j);
      if( sqlite3_step(st)!=SQLITE_DONE ){
        bench_set_err(zErr, nErr, "lineitem: %s", sqlite3_errmsg(db));
        goto done;
      }
      sqlite3_reset(st);
    }
  }
  if( sqlite3_exec(db, "COMMIT", 0, 0, 0)!=SQLITE_OK ){
    bench_set_err(zErr, nErr, "lineitem: %s", sqlite3_errmsg(db));
    goto done;
  }
  rc = 0;
done:
  sqlite3_finalize(st);
  if( rc && sqlite3_get_autocommit(db)==0 ) sqlite3_exec(db, "ROLLBACK", 0, 0, 0);
  free(g);
  return rc;
}
