/*
** gpu_query's planner (plan.c and the plan_*.c files beside it): what its
** files share. Each file has one job:
**
**   plan.c           q_plan: a SELECT planned, its parts in turn (qpPlanCore)
**   plan_bind.c      names and expressions bound (requirements 1, 2, 5)
**   plan_sub.c       constants and subqueries computed once (3, 3a)
**   plan_template.c  what SQLite computes for the engine, as a template (4)
**   plan_compound.c  compounds (6)
**   plan_from.c      FROM a subquery or a WITH table (7, 9b)
**   plan_sqlite.c    SQLite's own plan, costed (8)
**   plan_join.c      a join's tables, conditions and builds (9)
**   plan_semi.c      correlated subqueries as joins (9a, 9c, 9e)
**   plan_order.c     rows in the order SQLite gives them (9d, 9f)
**   plan_set.c       IN's subquery of rows grouped by its result (3b)
**   plan_explain.c   the plan as the tree of operators gpu_explain prints
**
** The requirements are plan.c's header's. Bind is one planning's state;
** qpWhy records why the engine does not cover a query (the first reason
** stays), and a binding stops at the first reason or error (qpStopped).
*/
#ifndef GPUAGG_PLANINT_H
#define GPUAGG_PLANINT_H

#include <string.h>
#include <stdarg.h>
#include <stdlib.h>
#include "query.h"
#include "table.h"
#include "vtab.h"
#include "text.h"
#include "cost.h"

typedef struct Bind {
  qplan *pl;
  qselect *s;
  sqlite3_vtab *vt;                /* the virtual table the plan reads for (its errors) */
  sqlite3 *db;
  qsqlkeep *keep;                  /* statements kept between the table's reads (NULL: none) */
  sqlite3_value **apParam; int nParam;
  int nSubq;                       /* subqueries' values numbered after the parameters */
  const qexpr *aSubq[8]; int nSubqDone; /* subqueries the engine computed (their text, value
                                   ** and affinity): the same text again is the same value */
  char *zWhy;                      /* not covered: why */
  int rc;                          /* an error */
  char *zErr;                      /* ... its message */
  /* a join (requirement 9): FROM's tables, in FROM's order */
  struct JTab {
    const ga_table *t;             /* the table */
    const char *zQual;             /* the name that qualifies its columns */
    int iJoin;                     /* its pl->aJoin, or -1: the scan's table */
    int left;                      /* LEFT JOIN */
    int derived;                   /* a subquery or WITH table (9b) */
    int semi;                      /* a correlated subquery's table (9a): Q_SEMI, Q_ANTI; its
                                   ** columns are named only qualified (qpQualify), never outside */
    const char *zFrom;             /* its FROM text ([schema.]name) */
    unsigned char aUsing[GA_COLS_MAX];  /* its columns a USING or NATURAL shares with a table
                                   ** before it (SELECT * shows them there, once) */
  } aTab[Q_MAXTAB];
  int nTab;                        /* 0: one table, or none */
  int nFrom;                       /* ... FROM's (the subqueries' tables follow: 9a) */
  struct Semi {
    qexpr *pTerm;                  /* the WHERE conjunct it is (left out of WHERE's) */
    qselect *sel;                  /* its SELECT, parsed with the statement's text positions */
    qexpr *pIn;                    /* IN: its left operand (NULL: EXISTS) */
    int anti;                      /* NOT EXISTS */
    int count;                     /* a correlated count(*) of the result list (9e): pTerm its node */
  } aSemi[Q_MAXTAB];               /* correlated EXISTS, NOT EXISTS, IN (SELECT) of WHERE (9a) */
  int nSemi;
} Bind;


int qpWhy(Bind *b, const char *zFmt, ...);
static inline int qpStopped(const Bind *b){ return b->zWhy!=0 || b->rc!=SQLITE_OK; }

/* Calls f on each child slot of e. */
#define EACH_CHILD(e, pp, body) do{ int i_; qexpr **pp; \
  pp = &(e)->a; if( *pp ){ body; } pp = &(e)->b; if( *pp ){ body; } \
  for(i_=0; i_<(e)->nArg; i_++){ pp = &(e)->arg[i_]; body; } }while(0)

enum { CTX_ROW, CTX_GROUP };

/* Table place i's bit in a mask of tables (Q_MAXTAB of them at most: the
** sign bit stays clear, -1 says "not known"). */
#define TAB_BIT(i) ((int64_t)1<<(i))

/* A conjunct of a join's WHERE or ON, and where it goes. */
typedef struct JConj {
  qexpr *e;                        /* the conjunct (unbound) */
  int from;                        /* -1: WHERE; else the FROM place of the table whose ON or
                                   ** USING it is */
  int64_t m;                       /* the tables it reads (qpTabsOf) */
} JConj;

/* A join's conjuncts, sorted out (qpPlanJoin) before they are bound. */
typedef struct JSort {
  JConj *a; int n, nAlloc;         /* every conjunct */
  int aOrder[Q_MAXTAB];            /* FROM places in join order: the scan's table first */
  int aPos[Q_MAXTAB];              /* ... each place's position in it */
} JSort;

/* Does FROM place i join by its own conditions alone: a LEFT JOIN's ON, a
** correlated subquery's WHERE (9a)? */
#define ONLY_ON(b, i) ((b)->aTab[i].left || (b)->aTab[i].semi)

/* plan_bind.c */
int qpBinaryOf(sqlite3 *db, sqlite3_vtab *vt);
int qpCollOf(int bin, const char *z);
int qpSame(const qselect *s, const qexpr *a, const qexpr *b);
int qpIsConst(const qexpr *e);
int qpCollWalk(const qexpr *e);
int qpCmpAffinity(const qexpr *a, const qexpr *b);
int qpCmpColl(int bin, const qexpr *a, const qexpr *b);
int qpAliasIndex(const qselect *s, const char *z);
int qpQualifies(const qselect *s, const ga_table *t, const char *zQual);
int qpColIndex(const ga_table *t, const char *zName);
int qpTabOfCol(const Bind *b, const qexpr *e);
int qpIsTabCol(const Bind *b, const qexpr *e);
int64_t qpTabsOf(const Bind *b, const qexpr *e);
qexpr *qpCopyTree(Bind *b, const qexpr *e);
int qpBindTop(Bind *b, qexpr **pe, int ctx);

/* plan_sub.c */
int qpTakeValue(Bind *b, qexpr *e, sqlite3_value *v);
int qpCorrelated(Bind *b, const qexpr *q, char **pzName);
int qpSubqueryValue(Bind *b, qexpr *e);
int qpInSubquery(Bind *b, qexpr *e);
int qpFold(Bind *b, qexpr *e);
int qpFoldAll(Bind *b, qexpr *e);

/* plan_template.c */
int qpToSql(Bind *b, qexpr *e, const char *zWhat);

/* plan.c */
void qpConjuncts(qplan *pl, qexpr *e, Bind *b);
int qpSortTerms(Bind *b, int n);
void qpKeyOrder(Bind *b, const int *aDesc);
void qpLimits(Bind *b);
void qpPlanFree(qplan *sp);
int qpPlanCore(sqlite3_vtab *vt, sqlite3 *db, qsqlkeep *keep, qselect *s, sqlite3_value **apParam, int nParam,
               const qpush *aPush, int nPush, qplan *pl, char **pzWhy, int isArm);
int qpPlanAny(sqlite3_vtab *vt, sqlite3 *db, qsqlkeep *keep, qselect *s, sqlite3_value **apParam, int nParam,
              const qpush *aPush, int nPush, qplan *pl, char **pzWhy);

/* plan_from.c */
int qpFromPlan(sqlite3_vtab *vt, sqlite3 *db, qsqlkeep *keep, qselect *sub, sqlite3_value **apParam, int nParam,
               const char *zWhat, qplan **pp, char **pzWhy);
int qpSubTable(const qplan *sp, const qselect *sub, const char *zAlias, ga_table *t, char **pzWhy);
int qpFromSub(sqlite3_vtab *vt, sqlite3 *db, qsqlkeep *keep, qselect *s, sqlite3_value **apParam, int nParam,
              qplan *pl, char **pzWhy);
int qpGroupJoin(sqlite3_vtab *vt, sqlite3 *db, qselect *s);

/* plan_semi.c */
const char *qpSemiWord(const Bind *b, int i);
void qpCountJoins(Bind *b);
void qpSemiJoins(Bind *b);
void qpAggJoins(Bind *b);
int qpQualify(Bind *b, qexpr *e, int self);

/* plan_join.c */
int64_t qpSpanOf(sqlite3 *db, qsqlkeep *keep, const char *zDb, const char *zTab, int nTab);
int qpRowidKeyed(const ga_table *t);
int qpPlanJoin(Bind *b, JSort *js);
int qpBindJoinConj(Bind *b, JSort *js, qexpr ***aLocal, int *nLocal);
int qpPlanBuilds(Bind *b, qexpr ***aLocal, int *nLocal, sqlite3_value **apParam, int nParam);

/* plan_order.c */
int qpOrderedByKey(Bind *b);
int qpIsOwnPlan(const qselect *s, int isArm);
void qpPlanOrderTerms(Bind *b, qexpr ***aLocal, const int *nLocal, int iArm);

/* plan_set.c */
int qpColExact(const qplan *pl, const qexpr *e, int coll);
int qpSetGroup(Bind *b, int nOrder);

/* plan_compound.c */
int qpPlanCompound(sqlite3_vtab *vt, sqlite3 *db, qselect *s, sqlite3_value **apParam, int nParam, qplan *pl,
                   char **pzWhy);

/* plan_sqlite.c */
int qpKeptPrepare(sqlite3 *db, ga_conn *conn, qsqlkeep *k, const char *zSql, sqlite3_stmt **pSt);
int qpExplainPrepared(sqlite3 *db, ga_conn *conn, qsqlkeep *k, const char *zSql, sqlite3_value **apParam,
                      int nParam, sqlite3_stmt **pSt);
void qpKeptDone(qsqlkeep *k, sqlite3_stmt *st);
int qpSqlitePlan(sqlite3 *db, ga_conn *conn, qplan *pl, sqlite3_value **apParam, int nParam, qsqlkeep *keep,
                 int tryEngine, char **pzWhy);

/* plan_explain.c */
char *qpExprText(const qselect *s, const qexpr *e);

#endif /* GPUAGG_PLANINT_H */
