/*
** What SQLite's own plan of a SELECT would cost against the engine's read
** of every table whole: see cost.c.
*/
#ifndef GPUAGG_COST_H
#define GPUAGG_COST_H

#include <stdint.h>

/* One loop of SQLite's plan: a line of EXPLAIN QUERY PLAN that reads a
** table ("SCAN t ...", "SEARCH t USING ..."), parsed. */
typedef struct qloop {
  int search;                      /* SEARCH: it looks its rows up, once for each row before it */
  const char *zName; int nName;    /* the table as the plan names it (its alias, where it has one) */
  const char *zIndex; int nIndex;  /* the index it searches (NULL: the rowids, or a SCAN) */
  int automatic;                   /* an index SQLite builds for the statement (reads the table whole) */
  int rowid;                       /* ... by the rowid (INTEGER PRIMARY KEY) */
  int nEq;                         /* columns bound by = (or IN) */
  int nRange;                      /* bounds of a range on the next column: 0, 1 or 2 */
  const char *zCols; int nCols;    /* a SEARCH's terms as written, "a=? AND b>?" (NULL: none) */
} qloop;

/* Line z of EXPLAIN QUERY PLAN as a loop into *p: 1, or 0 where it reads no
** table (a temp b-tree, a bloom filter, a subquery's heading). */
int q_loop_parse(const char *z, qloop *p);

/* Rows one search (or the scan) of loop p visits, of a table of nRows
** rows whose index p->zIndex has nKey columns and is unique where isUnique;
** aStat[0..nStat), where given, sqlite_stat1's figures for that index
** (rows, then rows per key of its first 1, 2, ... columns), or a sample's
** (cost.c, 1b). */
double q_loop_rows(const qloop *p, int64_t nRows, int nKey, int isUnique, const int64_t *aStat, int nStat);

/* The running estimate of SQLite's plan: each loop's searches and rows. */
typedef struct qcost {
  double outer;                    /* rows reaching the next loop (1 before the first) */
  double nSearch;                  /* searches made */
  double nVisit;                   /* rows visited */
  double sqlite;                   /* SQLite's cost, in rows the engine reads (cost.c, 2) */
  double engine;                   /* the engine's: every table's rows */
} qcost;

/* Loop p, whose one search (or scan) visits nPer rows of a table of nRows,
** added to c. */
void q_cost_add(qcost *c, const qloop *p, double nPer, int64_t nRows);

/* A choice of SQLite's plan by cost is close where the engine's cost is at
** most this many times SQLite's: a table's repeated reads may try the
** engine and measure both (cost.c, 3). */
#define Q_COST_CLOSE 4.0

#endif /* GPUAGG_COST_H */
