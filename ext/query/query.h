/*
** gpu_query's engine: what its parts share. A SELECT (over one table, or a
** join) is tokenized (lex.c) and parsed into a tree (parse.c) once per
** table (and for each gpu_explain); each read plans a copy of that tree
** (q_select_copy), bound in place to the tables as they are then (plan.c),
** or says why the engine does not cover it; the plan is
** run over column batches by the CPU operators (exec.c and the files beside
** it, one operator a file: execint.h shows the pipeline and says how to add
** one) or the device's over kept columns (kept.c), whose expressions are
** evaluated a batch at a time (eval.c); vtab.c is the SQL face (gpu_query,
** gpu_explain) and runs through SQLite whatever the engine does not cover.
** Tables are resolved, described and opened by source/ (table.h).
**
**   1. The engine's answer is SQLite's for the same SELECT in the same
**      transaction, with sum, total and avg correctly rounded (as gpu_sum,
**      gpu_total and gpu_avg). Where a value or construct met at run time
**      is not one the engine can answer exactly (QE_BAIL), the run goes
**      through SQLite instead, with the reason noted.
**   2. Nothing is called into SQLite per row: values that only SQLite can
**      convert or compute (a function of one value, a TEXT's number) are
**      computed once per distinct value (eval.c's memos).
*/
#ifndef GPUAGG_QUERY_H
#define GPUAGG_QUERY_H

#include "gpuagg.h"
#include "colsrc.h"
#include "table.h"
#include "vtab.h"

#define QE_BAIL 1000               /* a run the engine cannot answer exactly: SQLite serves */
#define Q_MAXKEY 8                 /* GROUP BY keys the engine groups by */
#define Q_MAXARG 16                /* arguments of a function, items of a CASE or IN list */
#define Q_MAXDEPTH 100             /* expressions nested in one another */
#define Q_MAXTAB 63                /* tables in a join, correlated subqueries' included (a bit
                                   ** each in an int64_t's mask: planint.h's TAB_BIT) */
#define Q_MAXIN (1<<22)            /* values of an IN (SELECT ...) the engine holds */
#define Q_JCOL0 GA_COLS_MAX        /* E_COL's iCol from here: a joined table's column (plan.c, 9) */
#define Q_LIKE 1                   /* qexpr.like */
#define Q_GLOB 2
#define Q_COUNT_COL (GA_COLS_MAX - 1)  /* a count join's count: its last column place (plan.c, 9e) */
#define Q_MAXVALUES ((int64_t)1<<26)  /* values a query without aggregates may return (more:
                                   ** SQLite, which streams them) */

/* ---- tokens (lex.c) ---------------------------------------------------------- */
enum {
  T_EOF, T_ID, T_STRING, T_INT, T_FLOAT, T_BLOB, T_PARAM, T_PUNCT, T_BAD
};
typedef struct qtok {
  int type;                        /* T_* */
  int at, n;                       /* its bytes in the SQL text */
} qtok;
/* The tokens of zSql (whitespace and comments dropped), ending with T_EOF,
** into *paTok (ga_free it) and their number into *pn. SQLITE_OK or
** SQLITE_NOMEM. */
int q_lex(const char *zSql, qtok **paTok, int *pn);
/* Token t is punctuation or a keyword spelt z (ignoring ASCII case). */
int q_tok_is(const char *zSql, const qtok *t, const char *z);
/* zSql with its sum, total and avg calls named gpu_sum, gpu_total and
** gpu_avg (correctly rounded, as the engine's): the text SQLite runs where
** the engine does not (vtab.c, 2; a constant plan.c folds), so that an
** answer does not depend on the path. sqlite3_malloc'd; NULL when out of
** memory. */
char *q_sql_exact_sums(const char *zSql);

/* ---- the tree (parse.c) -------------------------------------------------------- */
enum {
  /* leaves */
  E_COL, E_LIT, E_PARAM, E_KEY, E_AGGREF,
  E_BARE,                          /* a grouped query's bare column: iCol, its value as the group's
                                   ** shown row has it (plan.c, 5) */
  /* arithmetic (SQLite's OP_Add ... OP_Remainder) */
  E_ADD, E_SUB, E_MUL, E_DIV, E_REM,
  /* comparisons (OP_Eq ...), IS and IS NOT */
  E_EQ, E_NE, E_LT, E_LE, E_GT, E_GE, E_IS, E_ISNOT,
  /* logic */
  E_AND, E_OR, E_NOT, E_ISNULL, E_NOTNULL,
  E_IN,                            /* a IN (arg...) */
  E_CASE,                          /* CASE WHEN arg[2i] THEN arg[2i+1] ... [ELSE arg[n-1]] (nElse) */
  E_COALESCE, E_NULLIF, E_ABS,
  E_MINMAX,                        /* min(arg...) or max(arg...) of two or more (agg: A_MIN, A_MAX) */
  E_COLLATE,                       /* a COLLATE zName: a's value */
  E_UPLUS,                         /* +a: a's value and collation, no affinity (datatype3 4.2) */
  E_SUBQ,                          /* (SELECT ...) or EXISTS (...): a constant SQLite computes */
  E_INSEL,                         /* a IN (b: E_SUBQ, a SELECT that refers to no outer column): an
                                   ** E_IN of its values once planned (plan.c, 3a) */
  E_SQL,                           /* anything else SQLite computes from its inputs (arg), once per
                                   ** distinct combination: the text zTpl with arg[i] as ?i+1 */
  E_AGG,                           /* an aggregate call (before planning) */
  E_FUNC,                          /* a function call (before planning) */
  E_CAST,                          /* CAST(a AS zName) (before planning) */
  E_LIKE,                          /* LIKE, GLOB ... (before planning: zName the operator) */
  E_CONCAT, E_OTHER                /* ||, and operators the engine leaves to SQLite */
};
enum { A_COUNT, A_COUNTSTAR, A_SUM, A_TOTAL, A_AVG, A_MIN, A_MAX,
       /* the extension's own (agg/): exact variances, percentiles, argmin and argmax */
       A_VARSAMP, A_VARPOP, A_SDSAMP, A_SDPOP, A_MEDIAN, A_PCT, A_PCTCONT, A_PCTDISC, A_ARGMIN, A_ARGMAX };
/* Collations: BINARY, NOCASE, RTRIM; and BINARY where the database is
** UTF-16 (its stored bytes' order: text.h), which every plan of such a
** database uses for BINARY (plan.c, 2). */
enum { C_BINARY, C_NOCASE, C_RTRIM, C_BIN16LE, C_BIN16BE };
/* The encoding a plan's BINARY (bin) orders TEXT by: SQLITE_UTF8 ... */
static inline int q_enc_of(int bin){
  return bin==C_BIN16LE ? SQLITE_UTF16LE : bin==C_BIN16BE ? SQLITE_UTF16BE : SQLITE_UTF8;
}

/* One value. */
typedef struct qval {
  int t; int64_t v; const char *z; int n;
} qval;

typedef struct qexpr qexpr;
struct qexpr {
  int op;                          /* E_* */
  int at, end;                     /* its text: zSql[at..end) */
  qexpr *a, *b;                    /* operands */
  qexpr **arg;                     /* more operands (functions, CASE, IN) */
  int nArg;                        /* ... how many */
  int nElse;                       /* E_CASE: has an ELSE */
  char *zName;                     /* column, function, collation or type name; E_LIKE's operator */
  char *zQual;                     /* a column's qualifier */
  int quoted;                      /* E_COL: its name was "quoted" (SQLite may read it as a string) */
  int synth;                       /* a comparison the parser made (BETWEEN's, CASE x WHEN's):
                                   ** its text is its operands' (plan.c writes it) */
  int distinct;                    /* E_AGG: DISTINCT */
  int agg;                         /* E_AGG: A_* */
  /* E_LIT: the value */
  int t;                           /* SQLITE_INTEGER ... SQLITE_NULL */
  int64_t i;                       /* INTEGER; REAL's bits */
  char *z; int n;                  /* TEXT, BLOB */
  int iParam;                      /* E_PARAM: its number (1-based); E_LIT with fromSubq 1: the
                                   ** number plan.c binds it by in a constant's SQL */
  int fromSubq;                    /* 1: E_LIT, a subquery's value the engine computed; 2: E_SUBQ
                                   ** (SQLite computes it), its affinity known (aff) */
  qval *aIn; int nIn;              /* E_IN of a subquery (E_INSEL planned): its values, NULL not
                                   ** among them (hasNull), bytes in the arena */
  int hasNull;                     /* ... one of its values was NULL */
  /* bound (plan.c) */
  int iCol;                        /* E_COL: index in the scan; E_KEY: key; E_AGGREF: aggregate */
  int aff;                         /* SQLite's affinity of it: GA_AFF_*, or -1 none */
  int coll;                        /* the collation it carries (C_*), explicit or a column's; -1 none */
  int explicitColl;                /* that collation came from COLLATE */
  int noColl;                      /* E_COL: the rowid's alias (an INTEGER PRIMARY KEY), which
                                   ** has no collation (sqlite3ExprCollSeq: iColumn < 0), so
                                   ** qpCollWalk finds none (a compound's column takes the next
                                   ** arm's); or the value of a scalar subquery that a join
                                   ** answers (decorrelate.c's, a correlated count(*)), which
                                   ** has none either (sqlite3ExprCollSeq of TK_SELECT) */
  int cmpAff;                      /* comparisons: the affinity applied (-1 none) */
  int cmpColl;                     /* comparisons, IN, NULLIF: the collation (C_*) */
  char *zTpl;                      /* E_SQL: "SELECT ..." with ?1 for a, ?2... for aTplLit */
  qexpr **aTplLit; int nTplLit;    /* ... its constant operands, folded */
  int sqlOp;                       /* E_SQL: what it was (E_CAST, E_FUNC, E_LIKE, ...) */
  int mainOnly;                    /* E_SQL: only the caller's connection computes it (LIKE and
                                   ** the like, which a connection may redefine; a function not
                                   ** built in): never a worker's own connection */
  int substr;                      /* E_SQL: substr(a, P, N) with P >= 1 and N >= 0 integers:
                                   ** TEXT and BLOB inputs are cut here, by func.c's rule */
  int subP, subN;                  /* ... P and N */
  int like;                        /* E_SQL: a LIKE (Q_LIKE) or GLOB (Q_GLOB) of a TEXT constant,
                                   ** no ESCAPE, by SQLite's own like() or glob(), in a UTF-8
                                   ** database: TEXT inputs are matched here (sqlite3_strlike,
                                   ** sqlite3_strglob), others by the memo */
  const char *zLike;               /* ... the pattern, NUL-terminated */
  int cat[2];                      /* E_SQL of a || b: each operand's place, input i (i >= 0) or
                                   ** constant j (-1 - j) */
  int slot;                        /* evaluation buffer (eval.c) */
  int memo;                        /* E_SQL: its memo (eval.c) */
};

/* A result column, GROUP BY, ORDER BY term. */
typedef struct qterm {
  qexpr *e;
  char *zAlias;                    /* AS name */
  int desc;                        /* ORDER BY ... DESC */
  int nulls;                       /* 0 default, 1 NULLS FIRST, 2 NULLS LAST */
} qterm;

/* A table FROM joins to the ones before it (parse.c, 1d). */
enum { Q_JT_INNER = 1, Q_JT_CROSS, Q_JT_LEFT };
typedef struct qfrom {
  char *zFrom;                     /* [schema.]name as written */
  char *zAlias;                    /* its alias, or NULL */
  int jt;                          /* Q_JT_*: how it joins the tables before it */
  int natural;                     /* NATURAL */
  qexpr *pOn;                      /* ON, or NULL */
  char **azUsing; int nUsing;      /* USING's columns */
  struct qselect *pSub;            /* a subquery or a WITH table: its SELECT (zFrom names it) */
  int unique;                      /* ... a correlated aggregate's groups (decorrelate.c): one a
                                   ** key, which the join must find so (plan.c, 9c) */
} qfrom;

/* A parsed SELECT: one core, or a compound's first arm with its others
** after it (pNext), ORDER BY and LIMIT the compound's. */
enum { Q_UNION_ALL = 1, Q_UNION, Q_INTERSECT, Q_EXCEPT };
typedef struct qselect qselect;
struct qselect {
  const char *zSql;                /* its text (the virtual table's copy) */
  qselect *pNext;                  /* a compound: the next arm */
  int op;                          /* ... an arm after the first: how it joins the arms before it
                                   ** (Q_UNION_ALL ...) */
  char *zFrom;                     /* FROM's table as written ([schema.]name); NULL: no FROM */
  qselect *pSub;                   /* FROM a subquery or a WITH's table: its SELECT */
  char **azName; int nName;        /* a WITH table's SELECT: its columns' names, as listed */
  char *zAlias;                    /* its alias */
  qfrom *aJoin; int nJoin;         /* a join: the tables after the first (zFrom), in order */
  qterm *aRes; int nRes;           /* result columns (after * is expanded: plan.c) */
  int star;                        /* SELECT * */
  int distinct;                    /* SELECT DISTINCT */
  qexpr *pWhere, *pHaving;
  qterm *aGroup; int nGroup;
  qterm *aOrder; int nOrder;
  qexpr *pLimit, *pOffset;
  int nParam;                      /* parameters (sqlite3_bind_parameter_count) */
  char *zWhy;                      /* not covered: why (sqlite3_malloc'd) */
  void *arena;                     /* every node and string, freed together (a compound's arms
                                   ** are in the first arm's) */
  qselect *pRoot;                  /* an arm or a subquery: the statement whose arena it uses */
  int nWith;                       /* the statement (root): its text's WITH clause, zSql's first
                                   ** nWith bytes, that a subquery computed alone needs before it
                                   ** (0: none, or one with parameters) */
  int asSet;                       /* IN's subquery: its rows are a set (their order, which of
                                   ** equal rows: nothing decides on them) */
  struct qplan *pPlanned;          /* a joined subquery: planned already (plan_join.c's qpPlanJoin),
                                   ** its build's FROM takes that plan */
  int flattened;                   /* its FROM was a subquery's, merged into it (flatten.c): the
                                   ** columns SQLite counts its tables' as read may be more */
  int at, end;                     /* a subquery's or WITH table's SELECT: its text, zSql[at, end)
                                   ** (0, 0: made by a rewrite) */
  char *zExplain;                  /* the SELECT whose plan SQLite's is (plan_sqlite.c), where a
                                   ** rewrite made the parse another's (groupjoin.c); NULL: zSql */
  char *zRowsKey;                  /* a rewrite's derived table (decorrelate.c): what names its rows
                                   ** and compiled plan in a table's reads (exec.c's qxSubRows), as
                                   ** zSql[at, end) names a subquery's; NULL: that text */
};

/* Parse zSql (one SELECT statement, already prepared by SQLite) into *p.
** SQLITE_OK (p->zWhy set where the engine does not cover it) or
** SQLITE_NOMEM. q_select_free frees it. */
int q_parse(const char *zSql, int nParam, qselect *p);
void q_select_free(qselect *p);
/* A copy of s (parsed, not planned: a plan binds its copy in place) into
** *x, nodes s shares shared in the copy too: SQLITE_OK, or SQLITE_NOMEM
** (nothing to free). q_select_free frees it. */
int q_select_copy(qselect *x, const qselect *s);
/* from's nodes and strings into into's arena (its statement's), freed with
** it: a subquery parsed alone whose nodes a plan of into keeps. */
void q_select_adopt(qselect *into, qselect *from);
/* Memory from p's arena (zeroed), NULL when out of memory. */
void *q_alloc(qselect *p, int n);
/* A copy of tree e in s's arena (evaluation slots unset), NULL when out of
** memory; and whether an aggregate call is below e. */
qexpr *q_expr_copy(qselect *s, const qexpr *e);
int q_has_agg(const qexpr *e);
/* Whether a subquery is below e. */
int q_has_subq(const qexpr *e);
/* The terms of e joined by op (E_AND: its conjuncts) from a[k] on, at most
** n in all; their number (more than n: some left out). */
int q_terms(qexpr *e, int op, qexpr **a, int n, int k);
/* A node a rewrite makes in s's arena (its text its operands': synth; not
** bound), NULL when out of memory. */
qexpr *q_node(qselect *s, int op);
/* ... a copy of string z in s's arena; a column node zQual.zName (a copy
** of zName); a AND b (a NULL: b). NULL when out of memory. */
char *q_str(qselect *s, const char *z);
qexpr *q_col_node(qselect *s, const char *zQual, const char *zName);
qexpr *q_and_node(qselect *s, qexpr *a, qexpr *b);

/* ---- rewrites of the parse (one a file) ------------------------------------------- */
/* flatten.c: s's subquery in FROM (or WITH table), a plain SELECT of rows,
** merged into s where SQLite's rules allow it. 1 merged, 0 not (s as it
** was), SQLITE_NOMEM (negated: -SQLITE_NOMEM). */
int q_flatten(qselect *s);
/* ... whether the query s that reads it has the shape flatten.c merges
** into (no join, no *, one core, each name one of the subquery's). */
int q_flatten_outer(const qselect *s);
/* groupjoin.c: s's subquery in FROM, a LEFT JOIN of table pL with pR
** counted for each of pL's rows (grouped by its key), made pL's rows
** joined with pR's grouped first (the table gpuagg_gN, N iName), where the
** answer cannot differ and flatten.c merges it, s->zExplain the same
** rewrite's text (SQLite prepares it: db). 1 rewritten, 0 not (s as it
** was), -1 out of memory. */
int q_groupjoin(sqlite3 *db, qselect *s, int iName, const ga_table *pL, const ga_table *pR);
/* decorrelate.c: WHERE conjunct pTerm of s, a comparison with correlated
** scalar subquery sub (parsed at s's text positions, in s's arena), made a
** comparison with a join of sub's aggregate grouped by its correlation
** (the table gpuagg_cN, N iName), where the answer cannot differ; xInner
** says whether a column node names sub's tables, xRestrict (NULL: none)
** the outer query's restriction of a key's outer side made over its inner
** side into *pR (1), or none (0; -1 out of memory; pCtx theirs). 1
** rewritten, 0 not (s as it was), -1 out of memory. */
typedef struct qrestrict {
  qexpr *pWhere;                   /* conjuncts over the derived table's tables and pJoin's */
  qfrom *pJoin;                    /* an outer table joined to them (NULL: none) */
  char *zName;                     /* its text in the rows' name (s's arena) */
} qrestrict;
int q_decorrelate(qselect *s, qexpr *pTerm, qselect *sub, int iName, int (*xInner)(void*, const qexpr*),
                  int (*xRestrict)(void*, const qexpr*, const qexpr*, qrestrict*), void *pCtx);

/* ---- joinorder.c: the order SQLite's plan gives a join's rows (plan.c, 9f) ------------- */
typedef struct qordterm {
  int iTab;                        /* its table: an index into q_join_order's azQual */
  char *zCol;                      /* a column of the index a loop reads (NULL: the table's rowid
                                   ** order, its rows' positions) */
  int desc;                        /* ... the index orders it descending */
  char *zColl;                     /* ... by this collation */
} qordterm;
/* SQLite's plan pPlan (EXPLAIN QUERY PLAN of a join of the nTab tables
** apTab named azQual, or of a compound whose arm iArm that join is: -1 not
** one; reset after) as the terms its rows come in, outer
** loop first, into a[0..*pnTerm) (at most nMax; names in s's arena), and
** the loops in words into *pzOrder. aUsed: each table's columns the
** statement names (SQLite's colUsed: bit i column i, its rowid alias not
** among them), which an automatic index holds; NULL: not known. SQLITE_OK
** with *pzWhy set (both sqlite3_malloc'd) where the engine cannot follow
** that order. */
int q_join_order(sqlite3 *db, sqlite3_stmt *pPlan, int iArm, qselect *s, int nTab, const char *const *azQual,
                 const ga_table *const *apTab, const uint64_t *aUsed, qordterm *a, int *pnTerm, int nMax,
                 char **pzOrder, char **pzWhy);

/* ---- the plan (plan.c) ------------------------------------------------------------ */
typedef struct qagg {
  int fn;                          /* A_* */
  int distinct;                    /* fn(DISTINCT x) */
  qexpr *x;                        /* its argument (NULL: count(*)); argmin's, argmax's A */
  qexpr *y;                        /* a second: a percentile's fraction (a constant); argmin's,
                                   ** argmax's V */
  double frac;                     /* median, percentiles: the fraction, 0..1 */
  int coll;                        /* min, max, DISTINCT: the collation they compare by */
  int dcoll;                       /* DISTINCT's: x's own (gpu_min and gpu_max compare by BINARY) */
  int gpu;                         /* named gpu_*: the extension's, not SQLite's */
  int subq;                        /* its arguments, as written, hold a subquery */
  int at, end;                     /* its text (the same text twice is one aggregate, as in
                                   ** SQLite's AggInfo) */
  int explicitColl, exprColl;      /* a COLLATE in its argument, and the collation it marks */
} qagg;

/* g folds each distinct value once: DISTINCT, and not SQLite's min or max
** (whose answer is the same either way: they compare by the collation
** DISTINCT keys by; gpu_min and gpu_max compare by BINARY). */
#define Q_DEDUP(g) ((g)->distinct && !(((g)->fn==A_MIN || (g)->fn==A_MAX) && !(g)->gpu))

enum { Q_SEMI = 1, Q_ANTI = 2, Q_COUNT = 3 };   /* qjoin's semi (Q_COUNT: a correlated count(*), 9e) */
enum { Q_ONE_GROUP = 1, Q_ONE_ORDER = 2 };   /* qjoin's unique: a correlated aggregate's groups
                                   ** (plan.c, 9c); a join whose order ORDER BY decides (9d) */

/* A table joined to the scan's rows (plan.c, 9; join.c): its rows read
** once (pBuild: its columns the query reads, its own conjuncts applied),
** then each row the scan keeps meets those of its rows whose keys equal
** its own. */
typedef struct qjoin {
  struct qplan *pBuild;            /* its rows: SELECT its columns FROM it WHERE its conjuncts */
  struct qplan *pDerived;          /* a subquery joined: its plan, until its build takes it */
  int unique;                      /* Q_ONE_*: a key more than once in its build makes the run
                                   ** SQLite's (join.c, 1d) */
  ga_source src;                   /* the table, resolved */
  const char *zQual;               /* the name that qualifies its columns (its alias, else its name) */
  int iFrom;                       /* its place in FROM (0: the first table) */
  int left;                        /* LEFT JOIN: a row it has no match for stays, its columns NULL */
  int semi;                        /* a correlated EXISTS or IN (SELECT ...) (Q_SEMI: a row with a
                                   ** match stays, once) or NOT EXISTS (Q_ANTI: one without stays);
                                   ** its columns are its equalities' alone, NULL in the joined row */
  int iCol0, nCol;                 /* its columns' places in a joined row: Q_JCOL0 + iCol0 ... */
  int aTabCol[GA_COLS_MAX];        /* ... each one's index in the table */
  qexpr *aEq[Q_MAXKEY]; int nEq;   /* the equalities it joins by (bound: cmpAff, cmpColl) */
  int aBuildSide[Q_MAXKEY];        /* ... which operand is over its columns: 0 a, 1 b */
  qexpr **aOn; int nOn;            /* LEFT JOIN: ON's other conjuncts, over the joined row: a pair
                                   ** matches where they are true too */
  int64_t nEst;                    /* rows it holds, at most (plan.c's rowSpans; 0: not asked) */
} qjoin;

typedef struct qplan {
  qselect *s;                      /* the parse */
  int tieBail;                     /* rows of a join in ORDER BY's order: two rows that differ and
                                   ** tie on every term make the run SQLite's (plan.c, 9d) */
  int bin;                         /* BINARY's collation here: C_BINARY, or C_BIN16LE / C_BIN16BE
                                   ** in a UTF-16 database */
  ga_source src;                   /* the table, resolved */
  int nCol;                        /* columns the scan reads */
  int aiCol[GA_COLS_MAX];          /* ... each one's index in the table */
  unsigned char aWant[GA_COLS_MAX];/* ... and what it asks (GA_COL_*) */
  int grouped;                     /* aggregates or GROUP BY: one row per group */
  qexpr **aConj; int nConj;        /* WHERE's conjuncts */
  unsigned char aLate[GA_COLS_MAX];/* the scan's columns no conjunct reads: a source may decode
                                   ** them for the rows the conjuncts keep alone (colsrc.h, 8) */
  int nLate;                       /* ... how many */
  qexpr *aKey[Q_MAXKEY]; int nKey; /* GROUP BY keys */
  qexpr **aBare; int nBare;        /* bare columns (E_COL over rows), each a group shows */
  int aKeyColl[Q_MAXKEY];          /* ... each key's collation */
  int *aKeyDesc;                   /* ... each one's order is descending (exec.c, 5); NULL: none is */
  int keyFirst;                    /* 1 + the key a join's groups are ordered by first, ascending (the
                                   ** rowids SQLite's first loop reads them by: plan_sqlite.c); 0:
                                   ** GROUP BY's order */
  int lastCounted;                 /* the last key is counted, not shown (exec.c's count(DISTINCT)
                                   ** over kept columns): its equal values may show differently */
  qagg *aAgg; int nAgg;            /* aggregates */
  int iHit;                        /* the last min() or max() (SQLite's own, not gpu_min or
                                   ** gpu_max): its rows give the keys' shown values; -1 none */
  qexpr **aOut; int nOut;          /* result columns, over keys and aggregates when grouped */
  int *aOutColl;                   /* ... each one's collation (SELECT DISTINCT compares by it) */
  qexpr *pHaving;                  /* over keys and aggregates */
  qexpr **aSort; int nSort;        /* ORDER BY terms */
  int nJoinOrd;                    /* ... the last nJoinOrd of them are SQLite's join order's, not
                                   ** ORDER BY's: a join's rows without ORDER BY (plan.c, 9f) */
  int nPos;                        /* ... places of each table's row positions they read: Q_JCOL0 +
                                   ** nJCol + t (t 0 the scan's table, k + 1 join k's); 0 none */
  char *zJoinOrd;                  /* ... SQLite's loops, in words (gpu_explain) */
  int *aSortDesc, *aSortNulls, *aSortColl;   /* ... each one's DESC, NULLS, collation */
  struct qplan *pSub;              /* FROM a subquery: its plan (its results src.tab's columns) */
  int *aSortCol;                   /* a compound's ORDER BY terms: the result columns */
  int isArm;                       /* a compound's arm: s's ORDER BY and LIMIT are not its own */
  int distinct;                    /* SELECT DISTINCT (an arm's may be the compound's to drop) */
  struct qplan *aArm; int nArm;    /* a compound: each arm's plan (its op in its s), in order;
                                   ** its results' collations aOutColl, its ORDER BY and LIMIT
                                   ** s's (requirement 6) */
  qjoin *aJoin; int nJoin;         /* a join: the tables joined to the scan's rows (src, the
                                   ** largest), in the order they are joined */
  int nJCol;                       /* ... their columns (Q_JCOL0 ...) */
  const char *zScanQual;           /* ... the name that qualifies the scan's table */
  int64_t nScanEst;                /* ... its rows, at most (plan.c's rowSpans) */
  double costSqlite, costEngine;   /* SQLite's plan searches an index: its cost and the engine's,
                                   ** which was less (cost.c; 0: not costed) ... */
  char *zCostWhy;                  /* ... or more, closely, where q_plan's caller asked (tryEngine):
                                   ** SQLite's plan's reason (sqlite3_malloc'd), the plan the engine's */
  qexpr **aPost; int nPost;        /* ... conjuncts over the joined rows (aConj: the scan's own) */
  int strict;                      /* values that compare equal but differ (a group's keys, ties of
                                   ** min and max, DISTINCT's values) leave the run to SQLite: which
                                   ** one SQLite shows depends on its join order (exec.c, 12) */
  int orderFree;                   /* the order of its rows decides nothing (IN's set, a correlated
                                   ** aggregate's groups built by their keys; no ORDER BY, LIMIT,
                                   ** OFFSET or DISTINCT): its groups are not sorted (finish.c) */
  int nSlot;                       /* evaluation buffers */
  int nMemo;                       /* E_SQL nodes */
  qexpr **aMemoNode;               /* ... each one */
} qplan;

/* A constraint of a WHERE on a gpu_query table that the engine applies as
** well, before grouping: result column iRes (a column of the table, a
** GROUP BY key where the SELECT groups: q_pushable) op (SQLITE_INDEX_
** CONSTRAINT_EQ, _LT, _LE, _GT, _GE) v. SQLite checks it again on the rows
** (vtab.c): the engine's may only be looser. */
typedef struct qpush { int iRes; int op; sqlite3_value *v; } qpush;
typedef struct qsqlkeep qsqlkeep;

/* Bind p's tree to its table in db (described now) and plan it, into *pl,
** with aPush[0..nPush) among WHERE's conjuncts. SQLITE_OK, with *pzWhy set
** (sqlite3_malloc'd) where the engine does not cover it; an SQLite error
** with the message in *pzWhy otherwise. tryEngine: a close choice of
** SQLite's plan by cost alone leaves *pzWhy NULL, its reason in
** pl->zCostWhy (cost.c, 3). */
int q_plan(sqlite3_vtab *vt, sqlite3 *db, qselect *p, sqlite3_value **apParam, int nParam,
           const qpush *aPush, int nPush, qsqlkeep *pKeep, int tryEngine, qplan *pl, char **pzWhy);
/* The statements a table's reads prepare for its plan (SQLite's plan of
** its SELECT and of each subquery's, its tables' rowid spans, its indexes'
** columns and ANALYZE's figures; and the rows it counted, plan.c's
** rowsOf), each prepared once and kept
** between its reads (q_plan's pKeep) while main's and temp's schema cookies
** are the ones it was prepared under, outside transactions (a rollback can
** give a cookie back): SQLite prepares one again itself where this
** connection's ANALYZE, or a parameter's value (STAT4), may change it. */
#define Q_SQLKEEP 4
#define Q_SQLKEEP_ST 32            /* statements (a repeated read of TPC-H Q20 ran 42) */
struct qsqlkeep {
  ga_conn *conn;                   /* the connection whose table's reads keep them (q_plan) */
  int mainVer, tempVer;            /* the cookies they were prepared under */
  int n;                           /* statements */
  char *azSql[Q_SQLKEEP_ST];       /* each one's text */
  sqlite3_stmt *aSt[Q_SQLKEEP_ST]; /* ... prepared */
  int nCount;                      /* main's tables whose rows its join order found (plan_join.c's rowsOf) */
  char *azCount[Q_MAXTAB];         /* ... each one's name */
  int64_t aCount[Q_MAXTAB];        /* ... rows */
  unsigned int aCountDv[Q_MAXTAB]; /* ... main's data version then (SQLITE_FCNTL_DATA_VERSION) */
  int aCountChg[Q_MAXTAB];         /* ... and this connection's changes (sqlite3_total_changes) */
  char *zShareKey;                 /* the sample that measured the share of SQLite's first loop's
                                   ** rows its conditions keep (plan.c's firstShare) ... */
  double share;                    /* ... and that share */
  int nPer;                        /* samples that measured rows per key (cost.c, 1b) */
  char *azPer[Q_SQLKEEP];          /* ... each one's text */
  double aPer[Q_SQLKEEP];          /* ... and rows per key */
  int nFn;                         /* functions whose flags this read's plan asked SQLite for
                                   ** (plan_bind.c; q_plan forgets them: an application may
                                   ** define a function again between reads) */
  struct { char *zName; int det, builtin; } aFn[Q_SQLKEEP];   /* ... each one's name, whether
                                   ** deterministic, whether built in */
};
void q_sqlkeep_free(qsqlkeep*);
void q_sqlkeep_fn_forget(qsqlkeep*);
/* Which of zSql's nOut results a WHERE may constrain before grouping, into
** aPush (zeroed first): 1 by equality, 2 by ranges too. A result that is a
** column of its one table, where the SELECT has no DISTINCT, LIMIT or
** OFFSET and, if it groups, a GROUP BY term is that column as it is (its
** rows then pass or fail a constraint on it together: their column values
** are equal under the column's collation); ranges where the collation is
** BINARY (SQLite's own test of the result is BINARY). */
void q_pushable(sqlite3 *db, const char *zSql, int nParam, int nOut, unsigned char *aPush);
void q_plan_free(qplan *pl);
/* The plan as the tree of operators that runs it (plan_explain.c), a JSON
** object, or text lines (text), each node's path as aKept (q_kept_explain's:
** the plan's, or each arm's) makes it. SQLITE_OK or SQLITE_NOMEM. */
int q_plan_explain(sqlite3_str *out, const qplan *pl, const int *aKept, int text);
/* SQLite's own plan of zSql (EXPLAIN QUERY PLAN) in the same forms: the
** plan where a read is SQLite's. SQLITE_OK, or SQLite's error. */
int q_sqlite_explain(sqlite3_str *out, sqlite3 *db, const char *zSql, int text);

/* ---- values and evaluation (eval.c) --------------------------------------------------- */
/* A column of values, a batch long. */
typedef struct qvec {
  unsigned char *t;                /* class (SQLITE_INTEGER ... SQLITE_NULL) */
  int64_t *v;                      /* INTEGER, REAL's bits */
  const char **z; int *n;          /* TEXT, BLOB: bytes */
} qvec;


typedef struct qrun qrun;

/* Where the leaves of an evaluation come from. */
typedef struct qctx {
  int n;                           /* rows */
  /* a scan batch: row i is batch row sel[i] (sel NULL: row i) */
  const ga_colbatch *b;
  const int *sel;
  /* groups: row i is group grp[i] */
  const int *grp;
} qctx;

/* The state a run of plan pl on db evaluates with: buffers, memos, the
** SQLite statements that fill them (the parameters are in pl's folded
** constants). NULL when out of memory. */
qrun *q_run_new(sqlite3 *db, const qplan *pl);
void q_run_free(qrun*);
/* Evaluate e over ctx into its buffer (returned in *pv). SQLITE_OK, an
** SQLite error (message: q_run_errmsg), or QE_BAIL. */
int q_eval(qrun*, qexpr *e, const qctx *ctx, qvec **pv);
const char *q_run_errmsg(qrun*);
int q_run_error(qrun*, int rc, const char *zFmt, ...);
/* SQL truth of row i of v: 1 true, 0 false or NULL. */
int q_true(qrun*, const qvec *v, int i, int *pTrue);
/* A comparison's affinity aff applied to x (eval.c, 2: NUMERIC to TEXT
** that is a number, TEXT to numbers), asked of SQLite once per value. */
int q_apply_aff(qrun*, int aff, qval *x);
/* Compare two values as sqlite3MemCompare does with collation coll. */
int q_cmp(const qval *a, const qval *b, int coll);
/* order.c: positions off..off+n of the order of nRow values (a[i*nW]) as
** one ORDER BY term orders them, ties in scan order, into idx; SQLITE_DONE
** where the values are not all numbers of one kind (the caller compares). */
int q_order_numeric(const qval *a, int64_t nRow, int nW, int desc, int nullsFirst,
                    int64_t off, int64_t n, int64_t *idx);
/* order.c's key of one number (t INTEGER or FLOAT, v its bits; asReal: an
** INTEGER among REALs, as a double): unsigned order is the numbers' order. */
uint64_t q_order_key(int t, int64_t v, int asReal);
/* The same over runs of classes t[] and values v[]: row i is the i-th of
** their concatenation. */
typedef struct qseg { const unsigned char *t; const int64_t *v; int64_t n; } qseg;
int q_order_segs(const qseg *aSeg, int nSeg, int desc, int nullsFirst, int64_t off, int64_t n, int64_t *idx);
/* v's row i as a qval. */
static inline void q_get(const qvec *v, int i, qval *x){
  x->t = v->t[i]; x->v = v->v[i];
  if( x->t==SQLITE_TEXT || x->t==SQLITE_BLOB ){ x->z = v->z[i]; x->n = v->n[i]; }
  else { x->z = 0; x->n = 0; }
}
/* The number sum() reads from x (INTEGER or REAL, SQLITE_NULL for NULL)
** into *pt, *pv. */
int q_sumnum(qrun*, const qval *x, int *pt, int64_t *pv);
/* Group-context leaves: the run's source of key, bare column and aggregate
** values (kind: the node's op, E_KEY, E_BARE or E_AGGREF). */
typedef void (*q_leaf_fn)(void *pArg, int kind, int idx, int grp, qval *out);
#define Q_GROUP_LEAF(op) ((op)==E_KEY || (op)==E_BARE || (op)==E_AGGREF)
void q_run_groups(qrun*, q_leaf_fn x, void *pArg);
/* r serves a worker thread: what needs SQLite returns GA_SINK_LATER. */
void q_run_worker(qrun *r);
/* The threads work made with r may use (gpuagg_config('threads'); 1 unless
** set), and the connection r reads through. */
void q_run_set_threads(qrun *r, int n);
int q_run_threads(const qrun *r);
sqlite3 *q_run_db(const qrun *r);
/* xPart over each of the nPart parts at aPart (szPart bytes each; at most
** GA_THREADS_MAX + 1), each on a thread of its own, part 0 on this one
** (fan.c). */
void q_fan(int nPart, void *(*xPart)(void*), void *aPart, size_t szPart);
/* A hash of n bytes at p, from seed h. */
uint64_t q_hash(uint64_t h, const void *p, int n);
/* Bytes kept for the run's lifetime (copied). */
const char *q_keep(qrun*, const char *z, int n);
/* The bytes kept for run from (q_keep) kept for run to's lifetime instead. */
void q_keep_move(qrun *to, qrun *from);

typedef struct qkeptcache qkeptcache;

/* ---- running (exec.c) ------------------------------------------------------------- */
/* The rows of one run. */
typedef struct qresult {
  int nCol;                        /* columns */
  int64_t nRow;                    /* rows */
  qval *a;                         /* nRow*nCol values */
  qrun *run;                       /* the run that made them: it keeps their bytes */
  int kept;                        /* answered over kept columns: Q_KEPT_* (0: the engine's
                                   ** CPU operators over the table) */
  int planKept;                    /* ... by the compiled plan an earlier run kept (kept.c) */
  char *zKeptWhy;                  /* not over kept columns though wanted: why */
  int keptHost;                    /* ... because the device is being readied (its context):
                                   ** the CPU operators read the kept columns (kept.c) */
  int64_t nScan;                   /* rows the CPU operators read (kept columns: the rows
                                   ** grouped, or the window's; vtab.c's t->big rests on it) */
  double aMs[4];                   /* where its time went, ms: finding (or keeping) the
                                   ** columns, compiling, the operators (scan, filter, group,
                                   ** aggregate), finishing (HAVING, results, ORDER BY) */
} qresult;
#define Q_KEPT_DEVICE 1            /* by the device's operators */
#define Q_KEPT_CPU    2            /* by the CPU's (gpuagg_config('query_kept') 1) */
/* Run pl (planned with this run's parameters) in db into *r. SQLITE_OK,
** QE_BAIL (why in *pzErr: SQLite serves), or an SQLite error (message in
** *pzErr). Where the plan's columns are kept (the column cache) and the
** connection's device (or gpuagg_config('query_kept') 1) may serve, they
** are read there by a program (compile.c) instead of the table.
** keep: read the table into the column cache (to the device) if its
** columns are not kept yet, and answer over them (a table seen to be large).
** kc (NULL: none) keeps the compiled plan for the next read with the same
** parameters (zParams, rendered) over the same kept columns.
*/
int q_exec(sqlite3_vtab *vt, sqlite3 *db, qplan *pl, int keep, qkeptcache *kc, const char *zParams, qresult *r,
           char **pzErr);
void q_result_free(qresult*);
/* Whether a read of gpu_query table vt keeps the columns it reads (q_exec's
** keep: it read gpuagg_config('threshold') rows before, or 'query_kept' is
** 1): the subqueries it runs keep theirs too (plan_sub.c). */
int q_table_keeps(sqlite3_vtab *vt);
/* Whether the subqueries a read of vt runs (FROM, IN, a scalar one, a
** joined one's rows) keep the columns they read: where its own read does
** (q_table_keeps), or where one of them read gpuagg_config('threshold')
** rows on the CPU operators before (q_table_scanned: TPC-H Q15's sums of
** lineitem, joined with supplier's 10,000 rows). */
int q_table_keeps_sub(sqlite3_vtab *vt);
/* A subquery of a read of vt read nScan rows on the CPU operators. */
void q_table_scanned(sqlite3_vtab *vt, int64_t nScan);
/* Planning a read of vt (or gpu_explain's) found a table's rows to choose a
** join's scan (plan_join.c's rowsOf): counted, or estimated from its
** b-tree. gpuagg_info()'s "table_rows". */
void q_table_sized(sqlite3_vtab *vt, int counted);
/* A subquery of the read of vt now running (its xFilter) gave r in ms
** (its plan as SQLite's costing and q_exec): gpuagg_info()'s
** "subquery_ms" of the read. */
#define Q_SUBTIMES 8
typedef struct qsubtime {
  int kept;                        /* its operators: Q_KEPT_*, or 0 (the table's) */
  int planKept;                    /* ... by the plan an earlier read compiled (qresult.planKept) */
  double ms;                       /* all of it */
  double aMs[4];                   /* ... where its time went (qresult.aMs) */
} qsubtime;
void q_table_sub_ran(sqlite3_vtab *vt, const qresult *r, double ms);
/* Where table vt keeps the plan compiled for its subquery zSub (one of
** Q_SUBKEPT, by the text's hash: two that share one compile in turn; q_exec's
** key, the text among it, tells them apart). */
#define Q_SUBKEPT 4
qkeptcache *q_table_subkept(sqlite3_vtab *vt, const char *zSub);
/* A FROM subquery's (or WITH table's) rows that this read of vt (its
** xFilter) has read already, by its text, or NULL; r's rows kept for the
** rest of the read (r emptied: the kept ones returned; NULL where vt is not
** being read, or out of memory: r stays the caller's). Within one read the
** rows of one text without parameters are the same: no outer column reaches
** a subquery the engine runs, and the read is one transaction's (TPC-H Q15's
** WITH table, read for max() and for the join). */
const qresult *q_table_subrows(sqlite3_vtab *vt, const char *zSub);
/* Whether statement z may say WITH more than once: then one text may read
** two tables of one name (a nested WITH's shadows the outer one's), and a
** subquery's text does not tell its rows (q_table_subrows is not asked).
** A text with a parameter, or what may be one, is not either. (exec.c) */
int q_with_twice(const char *z);
const qresult *q_table_subrows_keep(sqlite3_vtab *vt, const char *zSub, qresult *r);
/* Whether a read of pl would go over kept columns now, and if not why
** (gpu_explain's "kept"); NULL when out of memory. aKept[k] (k < 1, or
** each arm of a compound): the operators that would serve it, Q_KEPT_*,
** or 0 (the CPU operators over the table). */
char *q_kept_explain(sqlite3_vtab *vt, sqlite3 *db, qplan *pl, int *aKept);

/* ---- kept columns: a plan as a program (compile.c) ------------------------------- */
#include "qprog.h"
typedef struct qkept {
  ga_qprog p;                      /* the program */
  unsigned char *tabC;             /* its tables' entries: classes */
  int64_t *tabV;                   /* ... and values */
  int64_t nTab, tabAlloc;          /* ... entries, and room */
  int nKey;                        /* GROUP BY's keys */
  qval *aKeyVal[Q_MAXKEY];         /* keys by id (p.keyNum 0): each id's shown value */
  int64_t aKeyN[Q_MAXKEY];         /* ... ids: the key's is code / aKeyDiv % aKeyN (keys of one
                                   ** joined table share one id, compile.c's 6) */
  int64_t aKeyDiv[Q_MAXKEY];
  int64_t *aKeyRank[Q_MAXKEY];     /* ... each id's place in GROUP BY's order of the key (equal
                                   ** values share one) */
  int64_t aKeyPlaces[Q_MAXKEY];    /* ... places */
  int aFold[64];                   /* each aggregate's fold; count(*): -1 (any fold's rows);
                                   ** count(DISTINCT): -2 (a program of its own) */
  int jbSure;                      /* aJb is known: a device ran this program over these
                                   ** columns and summed every real in these windows */
  int aJb[GA_QFOLD];               /* ... each fold's window (backend.h's ga_group.jb) */
  struct qkept *apDist[64];        /* each count(DISTINCT)'s program: the plan's, its argument one
                                   ** more key (kept.c's keptDistinct; its keys' values' classes
                                   ** alone), NULL for the others */
} qkept;
/* A compiled plan kept by a gpu_query table between its reads: valid for
** the same kept columns (their gen), the same parameters and the same
** constants folded from them and from SQLite's functions (zKey); never kept
** where the plan asks a connection's own function per value (a like() it
** defined again too: plan_bind.c's mainOnly). */
struct qkeptcache {
  int valid;
  ga_cache *cache;                 /* the column cache that holds its memory (hold) */
  ga_chold *hold;                  /* ... (colsrc.h: it goes with the columns it was made from) */
  qkept k;                         /* its keys' shown bytes are in aBytes */
  int nCol;
  uint64_t aGen[GA_COLS_MAX];
  char *zKey;                      /* the parameters and constants, rendered */
  char *aBytes;                    /* the keys' shown TEXT and BLOB bytes */
  struct JoinTab *aJt; int nJt;    /* a join's rows (exec.c, 8a): its built tables, indexed */
};
void q_keptcache_clear(qkeptcache*);

/* A joined table's rows as a join over kept columns reads them (compile.c,
** 6): its build's rows (join.c, 1: its own conjuncts applied) and keys. */
typedef struct qjoinrows {
  int64_t n;                       /* rows */
  unsigned char *const *aT;        /* its columns (the join's nCol): each row's class */
  int64_t *const *aV;              /* ... value (TEXT, BLOB: the row's cell) */
  ga_cell *const *aCell;           /* ... TEXT and BLOB bytes */
  const char *const *azKey;        /* each row's canonical key (q_key_bytes'; NULL: none) */
  const int *anKey;                /* ... its bytes */
} qjoinrows;

/* Compile pl for its columns as kept (aCol[c]: the plan's column c) into
** *k, evaluating what depends on one TEXT column once per distinct value
** on run r (whose memory keeps the keys' shown values). SQLITE_OK, or
** QE_BAIL with why not in *pzWhy (sqlite3_malloc'd), or an SQLite error. */
int q_compile(qrun *r, const qplan *pl, ga_resident *const *aCol, qkept *k, char **pzWhy);
/* As q_compile, an ungrouped plan ordered by one term (compile.c, 5): the
** filter, and the term as the program's number key. */
int q_compile_order(qrun *r, const qplan *pl, ga_resident *const *aCol, qkept *k, char **pzWhy);
/* As q_compile, a join (compile.c, 6): aJr[k] join k's rows. */
int q_compile_join(qrun *r, const qplan *pl, ga_resident *const *aCol, const qjoinrows *aJr, qkept *k, char **pzWhy);
/* As q_compile_join, a join's rows without aggregates (compile.c, 5a): the
** filter, and one key for every row, so that an order's rows are the rows
** the join keeps of the scanned table, in scan order. */
int q_compile_join_rows(qrun *r, const qplan *pl, ga_resident *const *aCol, const qjoinrows *aJr, qkept *k,
                        char **pzWhy);
void q_kept_free(qkept *k);
/* The memory k takes. */
int64_t q_kept_bytes(const qkept *k);

/* ---- collations (eval.c) ------------------------------------------------------- */
/* Sign of a - b (TEXT) under collation coll. */
int q_text_cmp(const char *a, int na, const char *b, int nb, int coll);
/* The key equal TEXT values share under coll into buf (at least n+8
** bytes), its length returned. */
int q_text_key(const char *z, int n, int coll, char *buf);
/* x's canonical key as GROUP BY compares values under coll (exec.c,
** requirement 3) into z (at least 13 bytes, and x->n + 8 more for TEXT and
** BLOB), its length returned: equal values, equal keys. */
int q_key_bytes(const qval *x, int coll, char *z);

#endif /* GPUAGG_QUERY_H */
