/*
** gpu_query's planner: what the engine does not compute itself, as a SQL
** template (plan.c's requirement 4), each operand a parameter, which
** SQLite computes once per distinct combination of the inputs (eval.c).
*/
#include "planint.h"

/* e, which SQLite computes, as E_SQL of its inputs (requirement 4): a
** template of its operator or function with ?1..?k for its operands that
** are not constant (its inputs, in arg[]) and ?k+1... for its constant
** ones (folded, bound as values). */
int qpToSql(Bind *b, qexpr *e, const char *zWhat){
  qexpr **aOp, **aIn, **aLit;
  int n = 0, nIn = 0, nLit = 0, j;
  const char *z = b->s->zSql;
  sqlite3_str *t;
  char *zT;
  if( (aOp = q_alloc(b->s, (int)sizeof(qexpr*)*3*(e->nArg + 3)))==0 ){ b->rc = SQLITE_NOMEM; return 0; }
  aIn = aOp + e->nArg + 3;
  aLit = aIn + e->nArg + 3;
  EACH_CHILD(e, pp, aOp[n++] = *pp);
  for(j=0; j<n; j++){
    if( qpIsConst(aOp[j]) ){
      /* a COLLATE would be lost on a value bound */
      if( aOp[j]->explicitColl ) return qpWhy(b, "%s with a COLLATE among its operands", zWhat);
      aLit[nLit++] = aOp[j];
    }else{
      aIn[nIn++] = aOp[j];
    }
  }
  for(j=0; j<nLit; j++) if( !qpFold(b, aLit[j]) ) return 0;
  /* the template, each operand its place */
  t = sqlite3_str_new(b->db);
  sqlite3_str_appendall(t, "SELECT ");
#define PLACE(x) do{ int k_; for(k_=0; k_<nIn && aIn[k_]!=(x); k_++){} \
    if( k_<nIn ) sqlite3_str_appendf(t, "?%d", k_ + 1); \
    else { for(k_=0; aLit[k_]!=(x); k_++){} sqlite3_str_appendf(t, "?%d", nIn + k_ + 1); } }while(0)
  switch( e->op ){
    case E_FUNC: {
      qtok *aTok = 0;
      int nTok = 0;
      if( q_lex(z + e->at, &aTok, &nTok)!=SQLITE_OK ){ ga_free(sqlite3_str_finish(t)); b->rc = SQLITE_NOMEM; return 0; }
      for(j=0; aTok[j].type!=T_ID && aTok[j].type!=T_EOF; j++){}   /* past its parentheses */
      sqlite3_str_appendf(t, "%.*s(", aTok[j].n, z + e->at + aTok[j].at);
      ga_free(aTok);
      for(j=0; j<e->nArg; j++){
        if( j ) sqlite3_str_appendchar(t, 1, ',');
        PLACE(e->arg[j]);
      }
      sqlite3_str_appendchar(t, 1, ')');
      break;
    }
    case E_CAST:
      sqlite3_str_appendall(t, "CAST(");
      PLACE(e->a);
      sqlite3_str_appendf(t, " AS %s)", e->zName);
      break;
    case E_LIKE:
      PLACE(e->a);
      sqlite3_str_appendf(t, " %s ", e->zName);
      PLACE(e->b);
      if( e->nArg ){
        sqlite3_str_appendall(t, " ESCAPE ");
        PLACE(e->arg[0]);
      }
      break;
    default:                        /* ||, & | << >> -> ->>, and ~ */
      if( e->b==0 ){
        sqlite3_str_appendall(t, e->zName);
        PLACE(e->a);
      }else{
        PLACE(e->a);
        sqlite3_str_appendf(t, " %s ", e->op==E_CONCAT ? "||" : e->zName);
        PLACE(e->b);
      }
      break;
  }
#undef PLACE
  if( (zT = sqlite3_str_finish(t))==0 || (e->zTpl = q_alloc(b->s, (int)strlen(zT) + 1))==0 ){
    ga_free(zT);
    b->rc = SQLITE_NOMEM;
    return 0;
  }
  memcpy(e->zTpl, zT, strlen(zT) + 1);
  ga_free(zT);
  e->aTplLit = aLit;
  e->nTplLit = nLit;
  e->coll = qpCollWalk(e);            /* what it carries (CAST passes its operand's on) */
  /* substr(x, P, N) of positive constants: cut TEXT and BLOB here (eval.c) */
  if( e->op==E_FUNC && e->nArg==3 && nIn==1 && e->arg[0]==aIn[0] && nLit==2
   && (sqlite3_stricmp(e->zName, "substr")==0 || sqlite3_stricmp(e->zName, "substring")==0)
   && aLit[0]->t==SQLITE_INTEGER && aLit[1]->t==SQLITE_INTEGER
   && aLit[0]->i>=1 && aLit[0]->i<=0x7fffffff && aLit[1]->i>=0 && aLit[1]->i<=0x7fffffff ){
    e->substr = 1;
    e->subP = (int)aLit[0]->i;
    e->subN = (int)aLit[1]->i;
  }
  /* x LIKE or GLOB a TEXT constant: TEXT matched here (eval.c), as likeFunc
  ** matches it where SQLite's own like() or glob() is the connection's
  ** (bindExpr clears it otherwise): its pattern within the connection's
  ** SQLITE_LIMIT_LIKE_PATTERN_LENGTH (else SQLite raises the error), no
  ** NUL in it (value_text would end it there) */
  if( e->op==E_LIKE && e->nArg==0 && nIn==1 && e->a==aIn[0] && nLit==1 && aLit[0]==e->b && aLit[0]->t==SQLITE_TEXT
   && b->pl->bin==C_BINARY && aLit[0]->n<=sqlite3_limit(b->db, SQLITE_LIMIT_LIKE_PATTERN_LENGTH, -1)
   && (aLit[0]->n==0 || memchr(aLit[0]->z, 0, (size_t)aLit[0]->n)==0)
   && (sqlite3_stricmp(e->zName, "LIKE")==0 || sqlite3_stricmp(e->zName, "GLOB")==0) ){
    char *z = q_alloc(b->s, aLit[0]->n + 1);
    if( z==0 ){ b->rc = SQLITE_NOMEM; return 0; }
    if( aLit[0]->n ) memcpy(z, aLit[0]->z, (size_t)aLit[0]->n);
    z[aLit[0]->n] = 0;
    e->zLike = z;
    e->like = sqlite3_stricmp(e->zName, "LIKE")==0 ? Q_LIKE : Q_GLOB;
  }
  if( e->op==E_CONCAT ){             /* its operands' places (eval.c concatenates TEXT and BLOB) */
    qexpr *aSide[2];
    int k, j2;
    aSide[0] = e->a;
    aSide[1] = e->b;
    for(k=0; k<2; k++){
      for(j2=0; j2<nIn && aIn[j2]!=aSide[k]; j2++){}
      if( j2<nIn ){ e->cat[k] = j2; continue; }
      for(j2=0; aLit[j2]!=aSide[k]; j2++){}
      e->cat[k] = -1 - j2;
    }
  }
  e->sqlOp = e->op;
  e->op = E_SQL;
  e->a = e->b = 0;
  e->arg = aIn;
  e->nArg = nIn;
  /* its memo: the run keeps one per E_SQL node (eval.c) */
  if( b->pl->nMemo % 16==0 ){
    qexpr **a = q_alloc(b->s, (int)sizeof(qexpr*)*(b->pl->nMemo + 16));
    if( a==0 ){ b->rc = SQLITE_NOMEM; return 0; }
    if( b->pl->nMemo ) memcpy(a, b->pl->aMemoNode, sizeof(qexpr*)*(size_t)b->pl->nMemo);
    b->pl->aMemoNode = a;
  }
  b->pl->aMemoNode[b->pl->nMemo] = e;
  e->memo = b->pl->nMemo++;
  return 1;
}
