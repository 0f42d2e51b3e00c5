/*
** gpu_query's CPU operators: a batch's rows filtered by conjuncts (exec.c's
** requirement 2): the scan's own, and a join's over joined rows. A column
** compared with an INTEGER or a BINARY TEXT constant is compared in place;
** anything else is evaluated (eval.c).
*/
#include "execint.h"

/* Conjunct c as a column compared with a constant (=, <>, <, <=, >, >=):
** the column's vector in ctx's batch into *pCol, the constant into *pL, the
** operator with the column first into *pOp. 0: not that shape. */
static int colVsConst(const qexpr *c, const qctx *ctx, const ga_colvec **pCol, const qexpr **pL, int *pOp){
  static const int aFlip[] = { E_EQ, E_NE, E_GT, E_GE, E_LT, E_LE };    /* (E_EQ ... E_GE, operands swapped) */
  const qexpr *x = c->a, *l = c->b;
  int op = c->op;
  if( op<E_EQ || op>E_GE || x==0 || l==0 ) return 0;
  if( x->op!=E_COL ){
    x = c->b;
    l = c->a;
    op = aFlip[op - E_EQ];
  }
  if( x->op!=E_COL || x->iCol>=ctx->b->nCol || l->op!=E_LIT ) return 0;
  *pCol = &ctx->b->col[x->iCol];
  *pL = l;
  *pOp = op;
  return 1;
}

/* Is every row of ctx's value in col of type t? */
static int allOf(const ga_colvec *col, const qctx *ctx, int t){
  int i;
  for(i=0; i<ctx->n; i++) if( col->type[ctx->sel ? ctx->sel[i] : i]!=t ) return 0;
  return 1;
}

/* Conjunct c where it is a column compared with an INTEGER constant and
** the column's value is an INTEGER in every row of ctx: SQLite's comparison
** is the integers' (an affinity other than TEXT leaves an integer as it
** is), its rows into sel2 (*pm of them). 0: not this case (nothing done). */
static int intCompare(const qexpr *c, const qctx *ctx, int *sel2, int *pm){
  const ga_colvec *col;
  const qexpr *l;
  int op, i, m = 0;
  int64_t k;
  if( c->cmpAff==GA_AFF_TEXT || !colVsConst(c, ctx, &col, &l, &op) || l->t!=SQLITE_INTEGER
   || !allOf(col, ctx, SQLITE_INTEGER) ){
    return 0;
  }
  k = l->i;
  for(i=0; i<ctx->n; i++){
    int row = ctx->sel ? ctx->sel[i] : i;
    int64_t v = col->v[row];
    int yes = op==E_EQ ? v==k : op==E_NE ? v!=k : op==E_LT ? v<k : op==E_LE ? v<=k : op==E_GT ? v>k : v>=k;
    sel2[m] = row;
    m += yes;
  }
  *pm = m;
  return 1;
}

/* The same for a TEXT constant under BINARY, where the comparison's
** affinity is TEXT or none (a numeric one could make the constant a
** number) and the column's value is TEXT in every row of ctx: SQLite's
** comparison is the bytes' (memcmp over the shorter, then the lengths). */
static int textCompare(const qexpr *c, const qctx *ctx, int *sel2, int *pm){
  const ga_colvec *col;
  const qexpr *l;
  int op, i, m = 0;
  if( c->cmpAff>GA_AFF_TEXT || c->cmpColl!=C_BINARY || !colVsConst(c, ctx, &col, &l, &op) || l->t!=SQLITE_TEXT
   || !allOf(col, ctx, SQLITE_TEXT) ){
    return 0;
  }
  for(i=0; i<ctx->n; i++){
    int row = ctx->sel ? ctx->sel[i] : i;
    const ga_cell *x = &col->cell[col->v[row]];
    int n = x->n<l->n ? x->n : l->n, s = n ? memcmp(x->z, l->z, (size_t)n) : 0, yes;
    if( s==0 ) s = (x->n>l->n) - (x->n<l->n);
    yes = op==E_EQ ? s==0 : op==E_NE ? s!=0 : op==E_LT ? s<0 : op==E_LE ? s<=0 : op==E_GT ? s>0 : s>=0;
    sel2[m] = row;
    m += yes;
  }
  *pm = m;
  return 1;
}

/* Conjuncts aConj in order over ctx's rows, each over the rows the ones
** before it kept: ctx's rows become those where all are true, in sel. */
int qxFilter(Part *p, qexpr **aConj, int nConj, qctx *ctx, int *sel){
  int sel2[GA_BATCH], i, k, rc;
  for(k=0; k<nConj && ctx->n; k++){
    qvec *v;
    int m = 0;
    if( intCompare(aConj[k], ctx, sel2, &m) || textCompare(aConj[k], ctx, sel2, &m) ){
      memcpy(sel, sel2, sizeof(int)*(size_t)m);
      ctx->sel = sel;
      ctx->n = m;
      continue;
    }
    if( (rc = q_eval(p->r, aConj[k], ctx, &v))!=SQLITE_OK ) return rc;
    for(i=0; i<ctx->n; i++){
      int t = v->t[i], yes;
      if( t==SQLITE_INTEGER ) yes = v->v[i]!=0;
      else if( t==SQLITE_NULL ) yes = 0;
      else if( (rc = q_true(p->r, v, i, &yes))!=SQLITE_OK ) return rc;
      if( yes ) sel2[m++] = ctx->sel ? ctx->sel[i] : i;
    }
    memcpy(sel, sel2, sizeof(int)*(size_t)m);
    ctx->sel = sel;
    ctx->n = m;
  }
  return SQLITE_OK;
}
