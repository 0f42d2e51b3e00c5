/*
** gpu_query's planner: names and expressions bound to the plan's tables
** (plan.c's requirements 1, 2 and 5). A name is a column of a table, a
** result's alias, TRUE or FALSE; each node takes the affinity and
** collation SQLite gives it; a grouped query's results are over its keys,
** aggregates and bare columns. What the engine does not compute becomes
** a SQL template (plan_template.c), a constant or a subquery's value
** SQLite's (plan_sub.c).
*/
#include "planint.h"

static int bindExpr(Bind *b, qexpr **pe, int ctx, int inAgg);

/* BINARY's collation in db's plans: the UTF-16 order of TEXT where the
** database is UTF-16 (requirement 2). */
int qpBinaryOf(sqlite3 *db, sqlite3_vtab *vt){
  int enc = ga_db_encoding(db, vt ? ((ga_vtab*)vt)->conn : 0);
  return enc==SQLITE_UTF16LE ? C_BIN16LE : enc==SQLITE_UTF16BE ? C_BIN16BE : C_BINARY;
}

/* Collation z's C_*, BINARY's being bin (the database's: requirement 2);
** -1 one the engine does not cover. */
int qpCollOf(int bin, const char *z){
  if( sqlite3_stricmp(z, "BINARY")==0 ) return bin;
  if( sqlite3_stricmp(z, "NOCASE")==0 ) return C_NOCASE;
  if( sqlite3_stricmp(z, "RTRIM")==0 ) return C_RTRIM;
  return -1;
}

/* sqlite3ExprCompare's question, on the parse: the same expression? */
int qpSame(const qselect *s, const qexpr *a, const qexpr *b){
  int i;
  if( a==b ) return 1;
  if( a==0 || b==0 || a->op!=b->op || a->nArg!=b->nArg || a->distinct!=b->distinct || a->agg!=b->agg ) return 0;
  switch( a->op ){
    case E_COL:
      if( sqlite3_stricmp(a->zName, b->zName) ) return 0;
      if( (a->zQual==0)!=(b->zQual==0) || (a->zQual && sqlite3_stricmp(a->zQual, b->zQual)) ) return 0;
      return 1;
    case E_LIT:
      if( a->end - a->at != b->end - b->at ) return 0;
      if( a->end==a->at ) return a->t==b->t && a->i==b->i;   /* -x's 0 */
      return memcmp(s->zSql + a->at, s->zSql + b->at, (size_t)(a->end - a->at))==0;
    case E_PARAM:
      return a->iParam==b->iParam && ((a->zName==0 && b->zName==0) || (a->zName && b->zName && strcmp(a->zName, b->zName)==0));
    case E_SUBQ:                    /* (its text: its SELECT) */
      return a->end - a->at==b->end - b->at && memcmp(s->zSql + a->at, s->zSql + b->at, (size_t)(a->end - a->at))==0;
    default:
      if( (a->zName==0)!=(b->zName==0) || (a->zName && sqlite3_stricmp(a->zName, b->zName)) ) return 0;
      if( !qpSame(s, a->a, b->a) || !qpSame(s, a->b, b->b) ) return 0;
      for(i=0; i<a->nArg; i++) if( !qpSame(s, a->arg[i], b->arg[i]) ) return 0;
      return a->nElse==b->nElse;
  }
}

/* Is e constant: no column, key or aggregate below? */
int qpIsConst(const qexpr *e){
  int c = 1;
  if( e==0 ) return 1;
  if( e->op==E_COL || Q_GROUP_LEAF(e->op) || e->op==E_AGG ) return 0;
  if( e->op==E_COLLATE && e->synth ) return 0;   /* (flatten.c's: its collation is no text's) */
  EACH_CHILD((qexpr*)e, pp, c = c && qpIsConst(*pp));
  return c;
}

/* sqlite3ExprCollSeq: the collation e carries (C_*), or -1 for none. */
int qpCollWalk(const qexpr *e){
  while( e ){
    if( e->op==E_LIT ) return e->explicitColl ? e->coll : -1;
    if( e->op==E_SQL ) return e->coll;
    if( e->op==E_AGGREF ) return e->explicitColl ? e->coll : -1;
    if( e->op==E_COLLATE ) return e->coll;
    if( e->op==E_COL || e->op==E_KEY || e->op==E_BARE ) return e->noColl ? -1 : e->coll;
    if( e->op==E_CAST || e->op==E_UPLUS ){ e = e->a; continue; }
    if( e->explicitColl ){
      if( e->a && e->a->explicitColl ){ e = e->a; continue; }
      if( e->b ){ e = e->b; continue; }
      {
        int i;
        const qexpr *n = 0;
        for(i=0; i<e->nArg; i++) if( e->arg[i]->explicitColl ){ n = e->arg[i]; break; }
        e = n;
        continue;
      }
    }
    break;
  }
  return -1;
}

/* comparisonAffinity: what a comparison of a and b applies (-1: none). */
int qpCmpAffinity(const qexpr *a, const qexpr *b){
  int a1 = a->aff, a2 = b ? b->aff : -1;
  if( a1>=0 && a2>=0 ){
    return (a1>=GA_AFF_NUMERIC || a2>=GA_AFF_NUMERIC) ? GA_AFF_NUMERIC : GA_AFF_BLOB;
  }
  return a1>=0 ? a1 : a2;
}

/* sqlite3BinaryCompareCollSeq(a, b), BINARY (bin) where none. */
int qpCmpColl(int bin, const qexpr *a, const qexpr *b){
  int c;
  if( a->explicitColl ) c = qpCollWalk(a);
  else if( b && b->explicitColl ) c = qpCollWalk(b);
  else if( (c = qpCollWalk(a))<0 && b ) c = qpCollWalk(b);
  return c<0 ? bin : c;
}

int qpAliasIndex(const qselect *s, const char *z){
  int i;
  for(i=0; i<s->nRes; i++) if( s->aRes[i].zAlias && sqlite3_stricmp(s->aRes[i].zAlias, z)==0 ) return i;
  return -1;
}

/* The scan's column for table column c (added if new). */
static int scanCol(Bind *b, int c){
  qplan *pl = b->pl;
  int i;
  for(i=0; i<pl->nCol; i++) if( pl->aiCol[i]==c ) return i;
  if( pl->nCol==GA_COLS_MAX ){ qpWhy(b, "more than %d columns", GA_COLS_MAX); return -1; }
  pl->aiCol[pl->nCol] = c;
  pl->aWant[pl->nCol] = GA_COL_BYTES;
  return pl->nCol++;
}

/* Does zQual name the table s reads (t)? An alias hides the table's name,
** as in SQLite: FROM t AS u answers to u alone; a subquery in FROM, to its
** alias alone. */
int qpQualifies(const qselect *s, const ga_table *t, const char *zQual){
  if( s->zAlias ) return sqlite3_stricmp(zQual, s->zAlias)==0;
  return s->pSub==0 && sqlite3_stricmp(zQual, t->zTab)==0;
}

/* The index of column zName in t (ignoring ASCII case), or -1. */
int qpColIndex(const ga_table *t, const char *zName){
  int c;
  for(c=0; c<t->nCol && sqlite3_stricmp(t->aCol[c].zName, zName); c++){}
  return c<t->nCol ? c : -1;
}

/* A join's table that column e (unbound) names, by its qualifier, else the
** first in FROM that has it (a USING or NATURAL column: the left one's, as
** SQLite reads it); -1 where none does (an alias, TRUE, a rowid). */
int qpTabOfCol(const Bind *b, const qexpr *e){
  int i;
  for(i=0; i<b->nTab; i++){
    if( e->zQual ? sqlite3_stricmp(e->zQual, b->aTab[i].zQual)!=0 : b->aTab[i].semi ) continue;
    if( qpColIndex(b->aTab[i].t, e->zName)>=0 ) return i;
    if( e->zQual ) return -1;
  }
  return -1;
}

/* Is e (E_COL, unbound) a column of the table, or of a join's tables? */
int qpIsTabCol(const Bind *b, const qexpr *e){
  return b->nTab ? qpTabOfCol(b, e)>=0 : qpColIndex(&b->pl->src.tab, e->zName)>=0;
}

/* The tables e reads (unbound), as bits of FROM's places; -1 where a name
** is no table's column (bound later as what it is: an alias, TRUE). A
** subquery's columns are its own (it is a constant). */
int64_t qpTabsOf(const Bind *b, const qexpr *e){
  int64_t m = 0;
  int i;
  if( e==0 || e->op==E_SUBQ ) return 0;
  if( e->op==E_COL ){
    if( (i = qpTabOfCol(b, e))<0 ) return -1;
    return TAB_BIT(i);
  }
  EACH_CHILD((qexpr*)e, pp, { int64_t x = qpTabsOf(b, *pp); if( x<0 ) return -1; m |= x; });
  return m;
}

/* A join's column e: the scan's, or a joined table's (its place in the
** joined row: Q_JCOL0 + the join's block + its index among the table's
** columns the query reads). 1 bound, 0 stopped, -1 no column. */
static int bindJoinCol(Bind *b, qexpr *e){
  qplan *pl = b->pl;
  int i = qpTabOfCol(b, e), c, j;
  const ga_table *t;
  if( i<0 ){
    if( e->zQual ){
      for(j=0; j<b->nTab && sqlite3_stricmp(e->zQual, b->aTab[j].zQual); j++){}
      if( j==b->nTab ) return qpWhy(b, "the column %s.%s", e->zQual, e->zName);
    }
    return -1;
  }
  t = b->aTab[i].t;
  c = qpColIndex(t, e->zName);
  if( b->aTab[i].iJoin<0 ){
    if( (e->iCol = scanCol(b, c))<0 ) return 0;
  }else{
    qjoin *J = &pl->aJoin[b->aTab[i].iJoin];
    for(j=0; j<J->nCol && J->aTabCol[j]!=c; j++){}
    if( j==J->nCol ){
      if( J->nCol==GA_COLS_MAX ) return qpWhy(b, "more than %d columns of %s", GA_COLS_MAX, J->zQual);
      J->aTabCol[J->nCol++] = c;
    }
    e->iCol = Q_JCOL0 + J->iCol0 + j;
  }
  e->aff = t->aCol[c].aff;
  if( t->aCol[c].zColl==0 || (e->coll = qpCollOf(b->pl->bin, t->aCol[c].zColl))<0 ){
    return qpWhy(b, "column %s's collation %s", e->zName, t->aCol[c].zColl ? t->aCol[c].zColl : "(unknown)");
  }
  e->noColl = e->noColl || (t->aCol[c].pk==1 && t->rowidAlias);   /* (or decorrelate.c's value) */
  return 1;
}

/* Is scalar function zFn deterministic on this connection, and is every
** definition of it SQLite's own (*pBuiltin)? */
static int isDeterministic(Bind *b, const char *zFn, int *pBuiltin){
  sqlite3_stmt *st = 0;
  qsqlkeep *k = b->keep;
  int ok = 0, any = 0, i;
  *pBuiltin = 1;
  for(i=0; k && i<k->nFn; i++){             /* (asked already this read: a scan of every function
                                            ** each time, about 65 us) */
    if( sqlite3_stricmp(k->aFn[i].zName, zFn)==0 ){
      *pBuiltin = k->aFn[i].builtin;
      return k->aFn[i].det;
    }
  }
  if( sqlite3_prepare_v2(b->db, "SELECT flags, builtin, type='s' FROM pragma_function_list WHERE name=?1 COLLATE NOCASE",
                         -1, &st, 0) ) return 0;
  sqlite3_bind_text(st, 1, zFn, -1, SQLITE_STATIC);
  ok = 1;
  while( sqlite3_step(st)==SQLITE_ROW ){
    if( sqlite3_column_int(st, 1)==0 ) *pBuiltin = 0;
    if( !sqlite3_column_int(st, 2) ) continue;       /* an aggregate or window of that name */
    any = 1;
    if( (sqlite3_column_int(st, 0) & SQLITE_DETERMINISTIC)==0 ) ok = 0;
  }
  if( sqlite3_finalize(st)==SQLITE_OK && k && k->nFn<Q_SQLKEEP
   && (k->aFn[k->nFn].zName = sqlite3_mprintf("%s", zFn))!=0 ){
    k->aFn[k->nFn].det = ok && any;
    k->aFn[k->nFn++].builtin = *pBuiltin;
  }
  return ok && any;
}

/* A copy of tree e, no node shared with it or within it: binding rewrites
** nodes in place, and an evaluation buffer belongs to one node (a result's
** alias used elsewhere, a GROUP BY term). NULL when out of memory. */
qexpr *qpCopyTree(Bind *b, const qexpr *e){
  qexpr *y = q_expr_copy(b->s, e);
  if( y==0 && e ) b->rc = SQLITE_NOMEM;
  return y;
}

static int bindCol(Bind *b, qexpr *e){
  qplan *pl = b->pl;
  const ga_table *t = &pl->src.tab;
  int c;
  if( b->nTab ) return bindJoinCol(b, e);
  if( e->zQual && !qpQualifies(b->s, t, e->zQual) ) return qpWhy(b, "the column %s.%s", e->zQual, e->zName);
  for(c=0; c<t->nCol && sqlite3_stricmp(t->aCol[c].zName, e->zName); c++){}
  if( c==t->nCol ) return -1;
  if( (e->iCol = scanCol(b, c))<0 ) return 0;
  e->aff = t->aCol[c].aff;
  if( t->aCol[c].zColl==0 || (e->coll = qpCollOf(b->pl->bin, t->aCol[c].zColl))<0 ){
    return qpWhy(b, "column %s's collation %s", e->zName, t->aCol[c].zColl ? t->aCol[c].zColl : "(unknown)");
  }
  e->noColl = t->aCol[c].pk==1 && t->rowidAlias;
  return 1;
}

/* A grouped query's bare column e (requirement 5): E_BARE of the plan's
** bare column reading it (one per column). */
static int bindBare(Bind *b, qexpr *e){
  qplan *pl = b->pl;
  qexpr *c;
  int r, j;
  if( (c = qpCopyTree(b, e))==0 || (r = bindCol(b, c))<=0 ) return 0;   /* (e is a column) */
  for(j=0; j<pl->nBare && pl->aBare[j]->iCol!=c->iCol; j++){}
  if( j==pl->nBare ){
    if( pl->nBare%16==0 ){
      qexpr **a = q_alloc(b->s, (int)sizeof(qexpr*)*(pl->nBare + 16));
      if( a==0 ){ b->rc = SQLITE_NOMEM; return 0; }
      if( pl->nBare ) memcpy(a, pl->aBare, sizeof(qexpr*)*(size_t)pl->nBare);
      pl->aBare = a;
    }
    pl->aBare[pl->nBare++] = c;
  }
  *e = *c;
  e->op = E_BARE;
  e->iCol = j;
  e->slot = -1;
  return 1;
}

/* A grouped query's expression: a key, if it is one. */
static int asKey(Bind *b, qexpr **pe){
  qplan *pl = b->pl;
  int k;
  for(k=0; k<pl->nKey; k++){
    if( qpSame(b->s, *pe, b->s->aGroup[k].e) ){
      qexpr *e = q_alloc(b->s, sizeof(qexpr));
      if( e==0 ){ b->rc = SQLITE_NOMEM; return 0; }
      *e = *pl->aKey[k];
      e->op = E_KEY;
      e->iCol = k;
      e->a = e->b = 0; e->arg = 0; e->nArg = 0;
      e->coll = qpCollWalk(pl->aKey[k]);
      e->explicitColl = pl->aKey[k]->explicitColl;
      e->slot = -1;
      *pe = e;
      return 1;
    }
  }
  return 0;
}

/* Are zSql[a0..a1) and zSql[b0..b1) the same tokens (identifiers and
** keywords ignoring ASCII case; a bare ? never the same)? */
static int sameTokens(const char *zSql, int a0, int a1, int b0, int b1){
  char *za = sqlite3_mprintf("%.*s", a1 - a0, zSql + a0), *zb = sqlite3_mprintf("%.*s", b1 - b0, zSql + b0);
  qtok *ta = 0, *tb = 0;
  int na = 0, nb = 0, i, r = 0;
  if( za && zb && q_lex(za, &ta, &na)==SQLITE_OK && q_lex(zb, &tb, &nb)==SQLITE_OK && na==nb ){
    for(r=1, i=0; r && i<na; i++){
      const qtok *x = &ta[i], *y = &tb[i];
      if( x->type!=y->type || x->n!=y->n || (x->type==T_PARAM && x->n==1) ) r = 0;
      else if( x->type==T_ID ) r = sqlite3_strnicmp(za + x->at, zb + y->at, x->n)==0;
      else r = memcmp(za + x->at, zb + y->at, (size_t)x->n)==0;
    }
  }
  ga_free(ta); ga_free(tb); ga_free(za); ga_free(zb);
  return r;
}

static int bindAgg(Bind *b, qexpr **pe){
  qplan *pl = b->pl;
  qexpr *e = *pe;
  qagg *g;
  int fn = e->agg, k;
  for(k=0; k<pl->nAgg; k++){
    if( sameTokens(b->s->zSql, pl->aAgg[k].at, pl->aAgg[k].end, e->at, e->end) ){
      e->op = E_AGGREF;
      e->iCol = k;
      e->explicitColl = pl->aAgg[k].explicitColl;
      e->coll = pl->aAgg[k].exprColl;
      e->a = e->b = 0;
      e->nArg = 0;
      e->aff = -1;
      return 1;
    }
  }
  if( pl->nAgg==64 ) return qpWhy(b, "more than 64 aggregates");
  if( pl->nAgg % 16==0 ){
    qagg *n = q_alloc(b->s, (int)sizeof(qagg)*(pl->nAgg + 16));
    if( n==0 ){ b->rc = SQLITE_NOMEM; return 0; }
    if( pl->nAgg ) memcpy(n, pl->aAgg, sizeof(qagg)*(size_t)pl->nAgg);
    pl->aAgg = n;
  }
  g = &pl->aAgg[pl->nAgg];
  memset(g, 0, sizeof(*g));
  g->fn = fn;
  g->at = e->at;
  g->end = e->end;
  g->distinct = e->distinct;
  g->gpu = sqlite3_strnicmp(e->zName, "gpu_", 4)==0;
  g->subq = q_has_subq(e->a) || q_has_subq(e->b);   /* (as written: binding folds a constant one) */
  if( e->a ){
    if( !bindExpr(b, &e->a, CTX_ROW, 1) || !qpFoldAll(b, e->a) ) return 0;
    g->x = e->a;
    g->coll = qpCollWalk(e->a);
    if( g->coll<0 ) g->coll = pl->bin;
    g->dcoll = g->coll;
    /* gpu_min and gpu_max are functions of the extension: SQLite hands
    ** them no collation, so TEXT compares as BINARY. */
    if( (fn==A_MIN || fn==A_MAX || fn==A_ARGMIN || fn==A_ARGMAX) && g->gpu ) g->coll = pl->bin;
  }
  if( e->b ){
    if( !bindExpr(b, &e->b, CTX_ROW, 1) || !qpFoldAll(b, e->b) ) return 0;
    g->y = e->b;
  }
  g->frac = 0.5;
  if( fn==A_PCT || fn==A_PCTCONT || fn==A_PCTDISC ){
    /* the fraction: a constant number in range (percentile.c checks it on
    ** every row, and its errors are SQLite's to report) */
    double mx = fn==A_PCT ? 100.0 : 1.0, d;
    if( g->y->op!=E_LIT || (g->y->t!=SQLITE_INTEGER && g->y->t!=SQLITE_FLOAT) ){
      return qpWhy(b, "%s() of a fraction that is not a constant number", e->zName);
    }
    if( g->y->t==SQLITE_INTEGER ) d = (double)g->y->i; else memcpy(&d, &g->y->i, 8);
    g->frac = d/mx;
    if( !(g->frac>=0.0 && g->frac<=1.0) ) return qpWhy(b, "%s() of a fraction out of range (an error in SQLite)", e->zName);
  }
  e->op = E_AGGREF;
  e->iCol = pl->nAgg++;
  /* a COLLATE in an argument marks it, as EP_Collate does (the first such
  ** argument's collation is its own: sqlite3ExprCollSeq) */
  {
    const qexpr *c = g->x && g->x->explicitColl ? g->x : g->y && g->y->explicitColl ? g->y : 0;
    e->explicitColl = g->explicitColl = c!=0;
    e->coll = g->exprColl = c ? qpCollWalk(c) : -1;
  }
  e->a = e->b = 0;
  e->nArg = 0;
  e->aff = -1;
  return 1;
}

/* Bind *pe in context ctx (rows or groups). inAgg: inside an aggregate's
** argument. 1, or 0 when stopped (b says why). */
static int bindExpr(Bind *b, qexpr **pe, int ctx, int inAgg){
  qexpr *e = *pe;
  int i, r;
  if( qpStopped(b) ) return 0;
  if( ctx==CTX_GROUP && !inAgg && e->op!=E_AGG ){
    if( (r = asKey(b, pe))!=0 ) return qpStopped(b) ? 0 : 1;
    if( qpStopped(b) ) return 0;
  }
  switch( e->op ){
    case E_SUBQ: {
      int k;
      for(k=0; k<b->nSemi; k++){       /* (by its text: ORDER BY 1 binds a copy) */
        if( b->aSemi[k].count && b->aSemi[k].pTerm->at==e->at && b->aSemi[k].pTerm->end==e->end ) break;
      }
      if( k<b->nSemi ){
        /* a correlated count(*) (9e): its join's count, a value without
        ** affinity or collation (a subquery has none: sqlite3ExprCollSeq,
        ** so max(it, x COLLATE NOCASE) compares by x's) */
        const qjoin *q = &b->pl->aJoin[b->aTab[b->nFrom + k].iJoin];
        e->op = E_COL;
        e->iCol = Q_JCOL0 + q->iCol0 + Q_COUNT_COL;
        e->aff = -1;
        e->coll = 0;
        e->noColl = 1;
        return 1;
      }
      return qpSubqueryValue(b, e)!=0;   /* its value and affinity, or SQLite's when folding */
    }
    case E_LIT: case E_PARAM:
      return 1;                     /* folded with its greatest constant subtree (qpBindTop) */
    case E_COL:
      if( ctx==CTX_GROUP && !inAgg ) {
        /* an alias of a result that is itself grouped, else a bare column */
        int k = e->zQual ? -1 : qpAliasIndex(b->s, e->zName), isCol = qpIsTabCol(b, e);
        if( !isCol && k>=0 && b->s->aRes[k].e!=e ){
          if( (*pe = qpCopyTree(b, b->s->aRes[k].e))==0 ) return 0;
          return bindExpr(b, pe, ctx, inAgg);
        }
        if( isCol && b->nTab ) return qpWhy(b, "the column %s outside GROUP BY and aggregates in a join (its row is "
                                               "SQLite's join order's)", e->zName);
        if( isCol ) return bindBare(b, e);
        /* else TRUE, FALSE, or what names no column: as over rows */
      }
      if( (r = bindCol(b, e))<0 ){
        int k = e->zQual ? -1 : qpAliasIndex(b->s, e->zName);
        if( k>=0 && b->s->aRes[k].e!=e ){
          if( (*pe = qpCopyTree(b, b->s->aRes[k].e))==0 ) return 0;
          return bindExpr(b, pe, ctx, inAgg);
        }
        if( e->quoted ) return qpWhy(b, "\"%s\", a quoted name that is no column (SQLite reads it as a string)", e->zName);
        if( sqlite3_stricmp(e->zName, "true")==0 || sqlite3_stricmp(e->zName, "false")==0 ){
          e->op = E_LIT;
          e->t = SQLITE_INTEGER;
          e->i = sqlite3_stricmp(e->zName, "true")==0;
          return 1;
        }
        if( b->s->zFrom==0 ) return qpWhy(b, "%s, which names no column (there is no FROM)", e->zName);
        if( sqlite3_stricmp(e->zName, "rowid")==0 || sqlite3_stricmp(e->zName, "oid")==0
         || sqlite3_stricmp(e->zName, "_rowid_")==0 ){
          return qpWhy(b, "the rowid (the engine reads no rowids)");
        }
        if( b->nTab ) return qpWhy(b, "%s, which is not a column of the join's tables", e->zName);
        return qpWhy(b, "%s, which is not a column of %s", e->zName, b->pl->src.tab.zTab);
      }
      return r;
    case E_INSEL:
      if( !bindExpr(b, &e->a, ctx, inAgg) ) return 0;
      return qpInSubquery(b, e);
    case E_AGG:
      if( inAgg ) return qpWhy(b, "an aggregate inside an aggregate");
      if( !b->pl->grouped ) return qpWhy(b, "an aggregate where rows are read");
      return bindAgg(b, pe);
    default: break;
  }
  EACH_CHILD(e, pp, if( !bindExpr(b, pp, ctx, inAgg) ) return 0);
  /* explicit collation marks every node above it */
  EACH_CHILD(e, pp, if( (*pp)->explicitColl ) e->explicitColl = 1);
  switch( e->op ){
    case E_COLLATE:
      if( e->synth ){
        /* flatten.c's: a subquery column's collation, kept as SQLite's
        ** flattener keeps it (its expression's, else BINARY), not explicit */
        e->coll = qpCollWalk(e->a);
        if( e->coll<0 ) e->coll = b->pl->bin;
        e->explicitColl = 0;
        e->aff = e->a->aff;
        break;
      }
      if( (e->coll = qpCollOf(b->pl->bin, e->zName))<0 ) return qpWhy(b, "COLLATE %s", e->zName);
      e->explicitColl = 1;
      e->aff = e->a->aff;
      break;
    case E_EQ: case E_NE: case E_LT: case E_LE: case E_GT: case E_GE: case E_IS: case E_ISNOT:
      e->cmpAff = qpCmpAffinity(e->a, e->b);
      e->cmpColl = qpCmpColl(b->pl->bin, e->a, e->b);
      break;
    case E_IN:
      /* x's affinity and collation (sqlite3ExprCodeIN, exprINAffinity): the
      ** items' own do not count */
      e->cmpAff = e->a->aff;
      e->cmpColl = qpCollWalk(e->a);
      if( e->cmpColl<0 ) e->cmpColl = b->pl->bin;
      break;
    case E_FUNC: {
      const char *z = e->zName;
      if( sqlite3_stricmp(z, "abs")==0 && e->nArg==1 ){
        e->op = E_ABS; e->a = e->arg[0]; e->nArg = 0;
      }else if( (sqlite3_stricmp(z, "coalesce")==0 && e->nArg>=2) || (sqlite3_stricmp(z, "ifnull")==0 && e->nArg==2) ){
        e->op = E_COALESCE;
      }else if( sqlite3_stricmp(z, "nullif")==0 && e->nArg==2 ){
        int c = -1;
        e->op = E_NULLIF;
        for(i=0; i<2 && c<0; i++) c = qpCollWalk(e->arg[i]);
        e->cmpColl = c<0 ? b->pl->bin : c;
      }else if( (sqlite3_stricmp(z, "iif")==0) && e->nArg==3 ){
        e->op = E_CASE;
        e->nElse = 1;
      }else if( (sqlite3_stricmp(z, "min")==0 || sqlite3_stricmp(z, "max")==0) && e->nArg>=2 ){
        /* func.c's minmaxFunc, by the first argument's collation that has one */
        int c = -1;
        e->op = E_MINMAX;
        e->agg = sqlite3_stricmp(z, "min")==0 ? A_MIN : A_MAX;
        for(i=0; i<e->nArg && c<0; i++) c = qpCollWalk(e->arg[i]);
        e->cmpColl = c<0 ? b->pl->bin : c;
      }else{
        int builtin;
        if( !isDeterministic(b, z, &builtin) ) return qpWhy(b, "%s(), which is not deterministic", z);
        if( !qpIsConst(e) && !qpToSql(b, e, z) ) return 0;
        e->mainOnly = !builtin;
      }
      break;
    }
    case E_CAST:
      e->aff = ga_affinity(e->zName);
      if( !qpIsConst(e) && !qpToSql(b, e, "CAST") ) return 0;
      break;
    case E_LIKE: {
      /* like(), glob() ... may be redefined per connection (PRAGMA
      ** case_sensitive_like does): a worker's own connection computes
      ** SQLite's own alone */
      int builtin = 0;
      if( !qpIsConst(e) && !qpToSql(b, e, e->zName) ) return 0;
      e->mainOnly = !isDeterministic(b, e->zName, &builtin) || !builtin;
      if( e->mainOnly ) e->like = 0;        /* (a like() of the connection's own) */
      break;
    }
    case E_CONCAT: case E_OTHER:
      if( !qpIsConst(e) && !qpToSql(b, e, e->op==E_CONCAT ? "||" : e->zName) ) return 0;
      break;
    default: break;
  }
  return 1;
}

/* After grouping, does e hold x IN (SELECT ...) with x a column (through
** COLLATE, unary + or likely(): sqlite3ExprCodeTemp's operand), outside an
** aggregate? SQLite 3.40 applies the IN's affinity to x's register in place
** (sqlite3ExprCodeIN's OP_Affinity), and after grouping that register is the
** group's copy of the column, which the rest of the row then shows: a REAL
** column's -1.0 as the integer -1, a TEXT column's '7' as 7 where the
** subquery's column is numeric (`SELECT b IN (SELECT u FROM nn), typeof(b)
** FROM t GROUP BY a`). Rows read before grouping read the column afresh. */
static int inAffinityInPlace(const qexpr *e){
  int i;
  if( e->op==E_AGG || e->op==E_SUBQ ) return 0;
  if( e->op==E_INSEL ){
    const qexpr *x = e->a;
    for(;;){
      if( x->op==E_COLLATE || x->op==E_UPLUS ) x = x->a;
      else if( x->op==E_FUNC && x->nArg>=1 && (sqlite3_stricmp(x->zName, "likely")==0
               || sqlite3_stricmp(x->zName, "unlikely")==0 || sqlite3_stricmp(x->zName, "likelihood")==0) ){
        x = x->arg[0];
      }else break;
    }
    return x->op==E_COL || inAffinityInPlace(e->a);
  }
  if( (e->a && inAffinityInPlace(e->a)) || (e->b && inAffinityInPlace(e->b)) ) return 1;
  for(i=0; i<e->nArg; i++) if( inAffinityInPlace(e->arg[i]) ) return 1;
  return 0;
}

/* A whole expression: bound, then its constants folded. */
int qpBindTop(Bind *b, qexpr **pe, int ctx){
  if( ctx==CTX_GROUP && inAffinityInPlace(*pe) ){
    return qpWhy(b, "x IN (SELECT ...) after grouping, x a column (SQLite applies IN's affinity to the group's "
                    "copy of x, which the row then shows)");
  }
  return bindExpr(b, pe, ctx, 0) && qpFoldAll(b, *pe);
}
