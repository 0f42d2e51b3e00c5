/*
** gpu_query's planner: a plan described for gpu_explain (JSON).
*/
#include "planint.h"

/* e's text: its own, or, for a comparison the parser or planner made
** (BETWEEN's two, USING's, IN's with its subquery's result), its operands'
** with the operator between them (NULL: out of memory). */
char *qpExprText(const qselect *s, const qexpr *e){
  static const char *azOp[] = { "=", "<>", "<", "<=", ">", ">=", "IS", "IS NOT", "AND" };   /* E_EQ ... E_AND */
  if( e->synth && e->op>=E_EQ && e->op<=E_AND && e->a && e->b ){
    char *a = qpExprText(s, e->a), *b = qpExprText(s, e->b), *z = 0;
    if( a && b ) z = sqlite3_mprintf(e->op==E_AND ? "(%s) %s (%s)" : "%s %s %s", a, azOp[e->op - E_EQ], b);
    sqlite3_free(a);
    sqlite3_free(b);
    return z;
  }
  if( e->end==e->at && e->op==E_COL && e->zName ){
    return e->zQual ? sqlite3_mprintf("%s.%s", e->zQual, e->zName) : sqlite3_mprintf("%s", e->zName);
  }
  return sqlite3_mprintf("%.*s", e->end - e->at, s->zSql + e->at);
}

static void exprJson(sqlite3_str *out, const qselect *s, const qexpr *e){
  char *z;
  if( e==0 ){ sqlite3_str_appendall(out, "null"); return; }
  z = qpExprText(s, e);
  ga_json_str(out, z ? z : "");
  sqlite3_free(z);
}

/* Expressions as a JSON array of their texts. */
static void exprsJson(sqlite3_str *out, const qselect *s, qexpr *const *a, int n){
  int i;
  sqlite3_str_appendchar(out, 1, '[');
  for(i=0; i<n; i++){
    if( i ) sqlite3_str_appendchar(out, 1, ',');
    exprJson(out, s, a[i]);
  }
  sqlite3_str_appendchar(out, 1, ']');
}

void q_plan_describe(sqlite3_str *out, const qplan *pl){
  static const char *azOp[] = { "", "UNION ALL", "UNION", "INTERSECT", "EXCEPT" };
  const qselect *s = pl->s;
  if( pl->nArm ){
    int k;
    sqlite3_str_appendall(out, ",\"compound\":[");
    for(k=0; k<pl->nArm; k++){
      sqlite3_str_appendf(out, "%s{\"op\":%s%s%s", k ? "," : "", k ? "\"" : "", k ? azOp[pl->aArm[k].s->op] : "null",
                          k ? "\"" : "");
      q_plan_describe(out, &pl->aArm[k]);
      sqlite3_str_appendchar(out, 1, '}');
    }
    sqlite3_str_appendf(out, "],\"order_by\":%d,\"limit\":%s", pl->nSort, s->pLimit ? "true" : "false");
    return;
  }
  static const char *azAgg[] = { "count", "count(*)", "sum", "total", "avg", "min", "max", "gpu_var_samp",
    "gpu_var_pop", "gpu_stddev_samp", "gpu_stddev_pop", "gpu_median", "gpu_percentile", "gpu_percentile_cont",
    "gpu_percentile_disc", "gpu_argmin", "gpu_argmax" };
  static const char *azColl[] = { "BINARY", "NOCASE", "RTRIM", "BINARY", "BINARY" };
  int i;
  sqlite3_str_appendall(out, ",\"table\":");
  if( pl->pSub ){
    sqlite3_str_appendall(out, "{\"subquery\":{\"path\":\"engine\"");
    q_plan_describe(out, pl->pSub);
    sqlite3_str_appendall(out, "}}");
  }else if( s->zFrom ) ga_json_str(out, pl->src.tab.zTab ? pl->src.tab.zTab : s->zFrom);
  else sqlite3_str_appendall(out, "null");
  sqlite3_str_appendall(out, ",\"columns\":[");
  for(i=0; i<pl->nCol; i++){
    if( i ) sqlite3_str_appendchar(out, 1, ',');
    ga_json_str(out, pl->src.tab.aCol[pl->aiCol[i]].zName);
  }
  sqlite3_str_appendf(out, "],\"distinct\":%s,\"filter\":", s->distinct ? "true" : "false");
  if( pl->nJoin ){
    /* a join: the scan's own conjuncts, each table's, what joins it, and
    ** what is left over the joined rows */
    int k;
    exprsJson(out, s, pl->aConj, pl->nConj);
    sqlite3_str_appendall(out, ",\"joins\":[");
    for(k=0; k<pl->nJoin; k++){
      const qjoin *q = &pl->aJoin[k];
      sqlite3_str_appendf(out, "%s{\"table\":", k ? "," : "");
      ga_json_str(out, q->src.tab.zTab);
      sqlite3_str_appendf(out, ",\"as\":");
      ga_json_str(out, q->zQual);
      sqlite3_str_appendf(out, ",\"left\":%s,\"kind\":\"%s\",\"on\":", q->left ? "true" : "false",
                          q->left ? "left" : q->semi==Q_SEMI ? "semi" : q->semi==Q_ANTI ? "anti"
                          : q->semi==Q_COUNT ? "count" : "inner");
      exprsJson(out, s, q->aEq, q->nEq);
      sqlite3_str_appendall(out, ",\"filter\":");
      exprsJson(out, s, q->pBuild ? q->pBuild->aConj : 0, q->pBuild ? q->pBuild->nConj : 0);
      sqlite3_str_appendf(out, ",\"columns\":%d}", q->nCol);
    }
    sqlite3_str_appendall(out, "],\"after_joins\":");
    exprsJson(out, s, pl->aPost, pl->nPost);
  }else{
    exprJson(out, s, s->pWhere);
  }
  sqlite3_str_appendall(out, ",\"keys\":[");
  for(i=0; i<pl->nKey; i++){
    if( i ) sqlite3_str_appendchar(out, 1, ',');
    sqlite3_str_appendall(out, "{\"expr\":");
    exprJson(out, s, s->aGroup[i].e);
    sqlite3_str_appendf(out, ",\"collation\":\"%s\"}", azColl[pl->aKeyColl[i]]);
  }
  sqlite3_str_appendall(out, "],\"aggregates\":[");
  for(i=0; i<pl->nAgg; i++){
    if( i ) sqlite3_str_appendchar(out, 1, ',');
    sqlite3_str_appendf(out, "{\"fn\":\"%s%s\",\"arg\":", azAgg[pl->aAgg[i].fn], pl->aAgg[i].distinct ? " DISTINCT" : "");
    exprJson(out, s, pl->aAgg[i].x);
    sqlite3_str_appendchar(out, 1, '}');
  }
  sqlite3_str_appendall(out, "],\"sqlite_per_value\":[");
  for(i=0; i<pl->nMemo; i++){
    if( i ) sqlite3_str_appendchar(out, 1, ',');
    ga_json_str(out, pl->aMemoNode[i]->zTpl + 7);
  }
  sqlite3_str_appendf(out, "],\"having\":%s,\"order_by\":%d,\"limit\":%s", s->pHaving ? "true" : "false",
                      pl->nSort - pl->nJoinOrd, s->pLimit ? "true" : "false");
  if( pl->zJoinOrd ){
    sqlite3_str_appendall(out, ",\"rows_in\":");
    ga_json_str(out, pl->zJoinOrd);
  }
}
