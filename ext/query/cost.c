/*
** SQLite's own plan of a SELECT, costed against the engine's read of every
** table whole (plan.c, 8): which one answers a query whose plan SQLite
** would run by searching an index.
**
**   1. SQLite's plan is its EXPLAIN QUERY PLAN: its loops, outer first,
**      each a SCAN of a table (every row, once for each row before it) or a
**      SEARCH (a b-tree descent for each row before it, then the rows the
**      key or range holds). Rows a search visits: 1 by the rowid or a
**      unique index's every column; else sqlite_stat1's rows per key where
**      ANALYZE wrote them, else a sample's (1b), else SQLite's own guess
**      without them, 10 a key (what building an automatic index costs is
**      in 2);
**      a range on the next column keeps a quarter of those for one bound
**      and 1/64 for two (SQLite's guess is a quarter a bound; a BETWEEN is
**      most often a narrow slice, which SQLite should keep). Rows reaching
**      the next loop are those visited: no other condition is counted, so
**      the estimate is SQLite's work at most.
**   1a. Where that bound leaves the engine's read cheaper, the first loop,
**      a SCAN, keeps the share of its rows that its table's own conditions
**      keep of a sample (plan_sqlite.c's sampleShare: SQLite evaluates them over 8
**      runs of 128 rows spread over the rowids; TPC-H Q2's `p_size = 15 AND
**      p_type LIKE '%BRASS'` keeps 0.4% of part), for a plan whose later
**      reads kept columns never serve (plan_sqlite.c's neverKept).
**   1b. An automatic index, or a user's that ANALYZE has not counted, on
**      a table of 4,096 rows or more: its rows per key of the columns the
**      search binds by equality are estimated from a sample of the table
**      (plan_sqlite.c's sampledPerKey: 8 runs of 128 rowids spread over
**      its span), the keys' distinct values by the GEE estimator (Charikar
**      et al., PODS 2000: sqrt(rows / sampled) times the values seen once,
**      plus those seen more). SQLite's guess of 10 a key is far under where
**      keys repeat: TPC-H Q8's plan searched customer by c_nationkey and
**      part by p_type (about 6,000 and 1,300 rows a key at scale factor 1)
**      through automatic indexes, a cross product of the two, and the
**      guess costed it below the engine's read (SQLite took 136 s, the
**      engine 0.2 s).
**   2. Costs in rows the engine reads on a first read, as measured: on
**      TPC-H SF 0.1 with its keys, here, SQLite's plans search and visit at
**      about 60 ns each (150,000 searches of lineitem's key from orders and
**      600,000 rows in 0.06 s, hot pages, keys in order); the engine's first
**      read of a join costs about 20 ns a row on 16 cores (~150 ns on this
**      machine's 2), and over kept columns about 1. So SQLite visits a row
**      or searches for COST_ROW or COST_SEARCH; the engine reads each table
**      of the query whole, a row for 1. An automatic index SQLite builds
**      reads its table whole. A point lookup (a few searches) stays
**      SQLite's by orders of magnitude; an analytic join, whose searches
**      run once per row of its outer tables, is the engine's.
**   3. Those figures are one machine's, and the engine's later reads may
**      cost a fraction of its first (kept columns, the device): on a GPU
**      host TPC-H Q2's engine read took 10.9 ms a read, SQLite's plan 39 ms,
**      here (2 cores) 7.9 ms and 3.1 ms, both costed alike. So where SQLite's
**      plan wins by cost alone and the engine's cost is at most
**      Q_COST_CLOSE times its own, a gpu_query table that reads the SELECT
**      again (no parameters, no constraints on its results: one query)
**      measures the two (vtab.c, 6): SQLite's plan first (two reads), then
**      the engine for three (its first read, the one that keeps columns,
**      one over them), then whichever was faster at its fastest. What the
**      trials can lose is bounded by those reads; a point lookup (an engine
**      cost far above SQLite's) is never tried.
*/
#include <string.h>
#include <stdlib.h>
#include "cost.h"

#define COST_ROW 3.0               /* a row SQLite's plan visits */
#define COST_SEARCH 3.0            /* a b-tree descent */

/* The name that starts at z (up to a space), its length into *pn. */
static const char *word(const char *z, int *pn){
  *pn = (int)strcspn(z, " ");
  return z;
}

int q_loop_parse(const char *z, qloop *p){
  const char *u, *c;
  memset(p, 0, sizeof(*p));
  if( strncmp(z, "SCAN ", 5)==0 ) z += 5;
  else if( strncmp(z, "SEARCH ", 7)==0 ){ z += 7; p->search = 1; }
  else return 0;
  if( strncmp(z, "TABLE ", 6)==0 ) z += 6;          /* (older SQLite's form) */
  p->zName = word(z, &p->nName);
  if( p->nName==0 ) return 0;
  if( (u = strstr(z, " USING "))==0 ) return 1;
  u += 7;
  p->automatic = strncmp(u, "AUTOMATIC ", 10)==0;
  if( strncmp(u, "INTEGER PRIMARY KEY", 19)==0 ){
    p->rowid = 1;
  }else if( (c = strstr(u, "INDEX "))!=0 ){
    p->zIndex = word(c + 6, &p->nIndex);
  }
  if( p->search && (c = strchr(u, '('))!=0 ){
    /* "(a=? AND b=? AND c>? AND c<?)": = binds, a range bounds the next */
    p->zCols = c + 1;
    p->nCols = (int)strcspn(c + 1, ")");
    for(; *c && *c!=')'; c++){
      if( c[0]=='=' && c[1]=='?' && c[-1]!='<' && c[-1]!='>' && c[-1]!='!' ) p->nEq++;
      else if( (c[0]=='>' || c[0]=='<') && (c[1]=='?' || (c[1]=='=' && c[2]=='?')) ) p->nRange++;
    }
    if( p->nRange>2 ) p->nRange = 2;
  }
  return 1;
}

double q_loop_rows(const qloop *p, int64_t nRows, int nKey, int isUnique, const int64_t *aStat, int nStat){
  double per;
  if( !p->search ) return (double)nRows;
  if( p->rowid || (isUnique && p->nEq>=nKey && nKey>0) ){
    per = p->nEq ? 1.0 : (double)nRows;
  }else if( p->nEq && aStat && p->nEq<nStat ){
    per = (double)aStat[p->nEq];
  }else if( p->nEq ){
    per = 10.0;
  }else{
    per = (double)nRows;
  }
  if( p->nRange==1 ) per /= 4.0;
  else if( p->nRange==2 ) per /= 64.0;
  return per<1.0 ? 1.0 : per;
}

void q_cost_add(qcost *c, const qloop *p, double nPer, int64_t nRows){
  double visit;
  if( c->outer<=0.0 ) c->outer = 1.0;
  visit = c->outer*nPer;
  if( p->search ) c->nSearch += c->outer;
  c->nVisit += visit;
  c->sqlite += (p->search && !p->automatic ? c->outer*COST_SEARCH : 0.0) + visit*COST_ROW
             + (p->automatic ? (double)nRows*COST_ROW : 0.0);
  c->engine += (double)nRows;
  c->outer = visit;
}
