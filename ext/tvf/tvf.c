/*
** The table-valued functions' shared helpers: see tvf.h.
*/
#include <stdlib.h>
#include <string.h>
#include "colsrc.h"
#include "snap.h"
#include "tvf.h"
#include "text.h"

int ga_tvf_connect(sqlite3 *db, void *pAux, const char *zSchema, sqlite3_vtab **ppVtab){
  ga_vtab *v;
  int rc = sqlite3_declare_vtab(db, zSchema);
  if( rc!=SQLITE_OK ) return rc;
  sqlite3_vtab_config(db, SQLITE_VTAB_DIRECTONLY);
  if( (v = sqlite3_malloc(sizeof(*v)))==0 ) return SQLITE_NOMEM;
  memset(v, 0, sizeof(*v));
  v->db = db;
  v->conn = (ga_conn*)pAux;
  *ppVtab = &v->base;
  return SQLITE_OK;
}

int ga_tvf_disconnect(sqlite3_vtab *tab){
  ga_free(tab);
  return SQLITE_OK;
}

int ga_bytes_cmp(const void *za, int na, const void *zb, int nb){
  int c = (na && nb) ? memcmp(za, zb, (size_t)(na<nb ? na : nb)) : 0;
  return c ? c : (na>nb) - (na<nb);
}

int ga_other_set(ga_other *k, int type, const void *z, int n){
  char *p = malloc((size_t)(n ? n : 1));
  if( p==0 ) return SQLITE_NOMEM;
  if( n ) memcpy(p, z, (size_t)n);
  free(k->z);
  k->z = p;
  k->n = n;
  k->type = type;
  return SQLITE_OK;
}

/* Sign of (type, z, n) - k: TEXT < BLOB, then BINARY (TEXT's in encoding
** enc: text.h). */
static int keptCmp(int enc, int type, const void *z, int n, const ga_other *k){
  if( type!=k->type ) return type==SQLITE_TEXT ? -1 : 1;
  return type==SQLITE_TEXT ? ga_text_order(z, n, k->z, k->n, enc) : ga_bytes_cmp(z, n, k->z, k->n);
}

int ga_other_offer(ga_other *pMin, ga_other *pMax, int type, const void *z, int n, int enc){
  int rc = SQLITE_OK;
  if( pMin->type==0 || keptCmp(enc, type, z, n, pMin)<0 ) rc = ga_other_set(pMin, type, z, n);
  if( rc==SQLITE_OK && (pMax->type==0 || keptCmp(enc, type, z, n, pMax)>0) ) rc = ga_other_set(pMax, type, z, n);
  return rc;
}

void ga_other_free(ga_other *k){
  free(k->z);
  memset(k, 0, sizeof(*k));
}

void ga_other_result(sqlite3_context *ctx, const ga_other *k){
  if( k->type==SQLITE_TEXT ) sqlite3_result_text(ctx, k->z, k->n, SQLITE_TRANSIENT);
  else if( k->type==SQLITE_BLOB ) sqlite3_result_blob(ctx, k->z, k->n, SQLITE_TRANSIENT);
  else sqlite3_result_null(ctx);
}

const char *ga_tvf_name(sqlite3_value *v){
  const char *z = (const char*)sqlite3_value_text(v);
  int n = sqlite3_value_bytes(v);
  /* Past a NUL byte SQLite reads no name: a value holding one would name
  ** what comes before it. Bytes that are not UTF-8 name nothing a message
  ** could show (text.h, 3). */
  return z && (int)strlen(z)==n && ga_utf8_valid(z, n) ? z : 0;
}

/* ---- SOURCE and COLUMN (source/table.c), their errors on the vtab ---------------------------- */

int ga_tvf_source(sqlite3_vtab *tab, sqlite3 *db, const char *zFn, const char *zSource, ga_source *p){
  char *zErr = 0;
  int rc = ga_source_resolve(db, zFn, zSource, p, &zErr);
  if( rc!=SQLITE_OK && zErr ) ga_vtab_error(tab, "%s", zErr);
  ga_free(zErr);
  return rc;
}

int ga_tvf_column(sqlite3_vtab *tab, const char *zFn, const ga_source *p, const char *zCol){
  char *zErr = 0;
  int i = ga_source_column(zFn, p, zCol, &zErr);
  if( i<0 ) ga_vtab_error(tab, "%s", zErr ? zErr : "out of memory");
  ga_free(zErr);
  return i;
}

/* What the table-valued functions tell gpuagg_info() (conn->notes). */
struct ga_tvfnotes {
  char zSummaryWhy[GA_ERRLEN]; /* why gpu_summary's last query gave a NULL distinct, min or max
                            ** (a collation it cannot apply); "": none */
};

static void notesForget(ga_conn *conn){
  ga_free(conn->notes);
  conn->notes = 0;
}

/* conn's notes, made at the first one; NULL when out of memory (nothing
** is noted). */
static struct ga_tvfnotes *notesOf(ga_conn *conn){
  if( conn->notes==0 && (conn->notes = sqlite3_malloc(sizeof(struct ga_tvfnotes)))!=0 ){
    memset(conn->notes, 0, sizeof(struct ga_tvfnotes));
    ga_conn_on_free(conn, notesForget);
  }
  return conn->notes;
}

void ga_tvf_summary_why(ga_conn *conn, const char *zWhy){
  struct ga_tvfnotes *p = notesOf(conn);
  if( p ) sqlite3_snprintf(GA_ERRLEN, p->zSummaryWhy, "%s", zWhy ? zWhy : "");
}

void ga_tvf_describe(sqlite3_str *out, const ga_conn *conn){
  const struct ga_tvfnotes *p = conn->notes;
  sqlite3_str_appendall(out, "\"summary\":{\"why\":");
  if( p && p->zSummaryWhy[0] ) ga_json_str(out, p->zSummaryWhy);
  else sqlite3_str_appendall(out, "null");
  sqlite3_str_appendchar(out, 1, '}');
}

int ga_tvf_open(sqlite3_vtab *tab, const char *zFn, const ga_source *p, int nCol, const int *aiCol,
                const unsigned char *aWant, ga_colsrc **ppSrc){
  ga_vtab *v = (ga_vtab*)tab;
  char *zErr = 0;
  int rc = ga_source_open(v->db, v->conn, zFn, p, nCol, aiCol, aWant, GA_SRC_CACHE, ppSrc, &zErr);
  if( rc ) ga_vtab_error(tab, "%s", zErr);
  ga_free(zErr);
  return rc;
}

int ga_tvf_best_index(sqlite3_vtab *tab, sqlite3_index_info *p, int iFirst, int nArg){
  int aIdx[8];
  int i, n = 0, have = 0, unusable = 0;
  for(i=0; i<nArg; i++) aIdx[i] = -1;
  for(i=0; i<p->nConstraint; i++){
    const struct sqlite3_index_constraint *k = &p->aConstraint[i];
    int a = k->iColumn - iFirst;
    if( a<0 || a>=nArg ) continue;
    if( !k->usable ){
      unusable |= 1<<a;
    }else if( k->op==SQLITE_INDEX_CONSTRAINT_EQ ){
      have |= 1<<a;
      aIdx[a] = i;
    }
  }
  /* A plan without an argument the query gives (not usable yet, say from
  ** a join) is refused, so that the planner picks one that has it. */
  if( unusable & ~have ) return SQLITE_CONSTRAINT;
  for(i=0; i<nArg; i++){
    if( aIdx[i]<0 ) continue;
    p->aConstraintUsage[aIdx[i]].argvIndex = ++n;
    p->aConstraintUsage[aIdx[i]].omit = 1;
  }
  /* Prepare time: no statement of ours runs, so the wal-index headers the
  ** page source needs to prove WAL snapshots can be seen (snap.h). */
  ga_snap_observe(((ga_vtab*)tab)->db, ((ga_vtab*)tab)->conn);
  p->idxNum = have;
  p->estimatedCost = 1000.0;
  p->estimatedRows = 256;
  return SQLITE_OK;
}

void ga_tvf_args(int idxNum, int argc, sqlite3_value **argv, int nArg, sqlite3_value **a){
  int i, j = 0;
  for(i=0; i<nArg; i++) a[i] = (idxNum & (1<<i)) && j<argc ? argv[j++] : 0;
}
