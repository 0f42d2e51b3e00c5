/*
** The table-valued functions' shared helpers: see tvf.h.
*/
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include "colsrc.h"
#include "snap.h"
#include "tvf.h"

int ga_tvf_error(sqlite3_vtab *tab, const char *zFmt, ...){
  va_list ap;
  sqlite3_free(tab->zErrMsg);
  va_start(ap, zFmt);
  tab->zErrMsg = sqlite3_vmprintf(zFmt, ap);
  va_end(ap);
  return SQLITE_ERROR;
}

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
  sqlite3_free(tab);
  return SQLITE_OK;
}

int ga_bytes_cmp(const void *za, int na, const void *zb, int nb){
  int c = (na && nb) ? memcmp(za, zb, (size_t)(na<nb ? na : nb)) : 0;
  return c ? c : (na>nb) - (na<nb);
}

/* Keep (type, z, n) in k. */
static int keptSet(ga_other *k, int type, const void *z, int n){
  char *p = malloc((size_t)(n ? n : 1));
  if( p==0 ) return SQLITE_NOMEM;
  if( n ) memcpy(p, z, (size_t)n);
  free(k->z);
  k->z = p;
  k->n = n;
  k->type = type;
  return SQLITE_OK;
}

/* Sign of (type, z, n) - k: TEXT < BLOB, then BINARY. */
static int keptCmp(int type, const void *z, int n, const ga_other *k){
  if( type!=k->type ) return type==SQLITE_TEXT ? -1 : 1;
  return ga_bytes_cmp(z, n, k->z, k->n);
}

int ga_other_offer(ga_other *pMin, ga_other *pMax, int type, const void *z, int n){
  int rc = SQLITE_OK;
  if( pMin->type==0 || keptCmp(type, z, n, pMin)<0 ) rc = keptSet(pMin, type, z, n);
  if( rc==SQLITE_OK && (pMax->type==0 || keptCmp(type, z, n, pMax)>0) ) rc = keptSet(pMax, type, z, n);
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

void ga_source_free(ga_source *p){
  int i;
  for(i=0; i<p->nCol; i++) sqlite3_free(p->azCol[i]);
  sqlite3_free(p->azCol);
  sqlite3_free(p->zFrom);
  sqlite3_free(p->zName);
  memset(p, 0, sizeof(*p));
}

/* The columns of schema.table (schema NULL: the usual search) into p;
** none if there is no such table. SQLITE_OK or SQLITE_NOMEM. */
static int sourceColumns(sqlite3 *db, const char *zSchema, const char *zTab, ga_source *p){
  sqlite3_stmt *st = 0;
  int rc = sqlite3_prepare_v2(db, zSchema ? "SELECT name FROM pragma_table_xinfo(?1, ?2) WHERE hidden<>1"
                                          : "SELECT name FROM pragma_table_xinfo(?1) WHERE hidden<>1", -1, &st, 0);
  int nAlloc = 0;
  if( rc==SQLITE_OK ){
    sqlite3_bind_text(st, 1, zTab, -1, SQLITE_STATIC);
    if( zSchema ) sqlite3_bind_text(st, 2, zSchema, -1, SQLITE_STATIC);
    while( (rc = sqlite3_step(st))==SQLITE_ROW ){
      if( p->nCol==nAlloc ){
        char **a = sqlite3_realloc64(p->azCol, sizeof(char*)*(sqlite3_uint64)(nAlloc = nAlloc ? 2*nAlloc : 16));
        if( a==0 ){ rc = SQLITE_NOMEM; break; }
        p->azCol = a;
      }
      if( (p->azCol[p->nCol] = sqlite3_mprintf("%s", sqlite3_column_text(st, 0)))==0 ){ rc = SQLITE_NOMEM; break; }
      p->nCol++;
    }
    if( rc==SQLITE_DONE ) rc = SQLITE_OK;
  }
  sqlite3_finalize(st);
  /* An unknown schema is an error of the pragma: no such table either. */
  return rc==SQLITE_NOMEM ? rc : SQLITE_OK;
}

int ga_tvf_source(sqlite3_vtab *tab, sqlite3 *db, const char *zFn, const char *zSource, ga_source *p){
  const char *zDot = strchr(zSource, '.');
  int rc;
  memset(p, 0, sizeof(*p));
  if( (p->zName = sqlite3_mprintf("%s", zSource))==0 ) return SQLITE_NOMEM;
  rc = sourceColumns(db, 0, zSource, p);
  if( rc==SQLITE_OK && p->nCol ){
    p->zFrom = sqlite3_mprintf("\"%w\"", zSource);
  }else if( rc==SQLITE_OK && zDot ){
    char *zSchema = sqlite3_mprintf("%.*s", (int)(zDot - zSource), zSource);
    rc = zSchema ? sourceColumns(db, zSchema, zDot+1, p) : SQLITE_NOMEM;
    if( rc==SQLITE_OK && p->nCol ) p->zFrom = sqlite3_mprintf("\"%w\".\"%w\"", zSchema, zDot+1);
    sqlite3_free(zSchema);
  }
  if( rc==SQLITE_OK && p->nCol==0 ) return ga_tvf_error(tab, "%s: no such table: %s", zFn, zSource);
  if( rc==SQLITE_OK && p->zFrom==0 ) rc = SQLITE_NOMEM;
  return rc;
}

int ga_tvf_column(sqlite3_vtab *tab, const char *zFn, const ga_source *p, const char *zCol){
  int i;
  for(i=0; i<p->nCol; i++) if( sqlite3_stricmp(p->azCol[i], zCol)==0 ) return i;
  ga_tvf_error(tab, "%s: no such column: %s in %s", zFn, zCol, p->zName);
  return -1;
}

/* Note for gpuagg_info() which source zFn used (GA_SRC_*), and why not the
** pages. */
static void noteSource(ga_conn *conn, const char *zFn, int src, const char *zWhy){
  int i, n = (int)(sizeof(conn->aNote)/sizeof(conn->aNote[0]));
  for(i=0; i<n-1 && conn->aNote[i].zFn && strcmp(conn->aNote[i].zFn, zFn); i++){}
  conn->aNote[i].zFn = zFn;
  conn->aNote[i].src = src;
  sqlite3_snprintf(sizeof(conn->aNote[i].zWhy), conn->aNote[i].zWhy, "%s", zWhy ? zWhy : "");
  if( src==GA_SRC_PAGES ) conn->stats.nPageScan++;
  if( src==GA_SRC_STMT ) conn->stats.nStmtScan++;
}

/* The source that reads the table: the pages, else the statement. */
static int openReader(sqlite3_vtab *tab, const char *zFn, const ga_source *p, int nCol, const char *const *azCol,
                      const unsigned char *aWant, ga_colsrc **ppSrc){
  ga_vtab *v = (ga_vtab*)tab;
  char *zErr = 0;
  int rc = GA_REFUSED;
  if( v->conn->pages ){
    *ppSrc = ga_colsrc_pages(v->db, v->conn, p->zName, nCol, azCol, aWant, &rc, &zErr);
    if( *ppSrc==0 && rc!=GA_REFUSED ){
      ga_tvf_error(tab, "%s: %s", zFn, zErr ? zErr : "out of memory");
      sqlite3_free(zErr);
      return rc;
    }
  }else{
    zErr = sqlite3_mprintf("gpuagg_config('pages') is 0");
  }
  noteSource(v->conn, zFn, *ppSrc ? GA_SRC_PAGES : GA_SRC_STMT, zErr);
  sqlite3_free(zErr);
  if( *ppSrc ) return SQLITE_OK;
  zErr = 0;
  *ppSrc = ga_colsrc_stmt(v->db, v->conn, p->zFrom, nCol, azCol, aWant, &zErr);
  if( *ppSrc ) return SQLITE_OK;
  ga_tvf_error(tab, "%s", zErr ? zErr : "out of memory");
  sqlite3_free(zErr);
  return SQLITE_ERROR;
}

int ga_tvf_open(sqlite3_vtab *tab, const char *zFn, const ga_source *p, int nCol, const int *aiCol,
                const unsigned char *aWant, ga_colsrc **ppSrc){
  ga_vtab *v = (ga_vtab*)tab;
  const char *azCol[GA_STMT_COLS];
  ga_colsrc *cache = 0, *reader = 0;
  int i, hit = 0, rc;
  for(i=0; i<nCol && i<GA_STMT_COLS; i++) azCol[i] = p->azCol[aiCol[i]];
  *ppSrc = 0;
  /* Kept columns first (source/cache.c); a miss keeps what the reader reads. */
  cache = ga_colsrc_cache(v->db, v->conn, p->zName, nCol, azCol, aWant, &hit);
  if( hit ){
    noteSource(v->conn, zFn, GA_SRC_CACHE, 0);
    *ppSrc = cache;
    return SQLITE_OK;
  }
  if( (rc = openReader(tab, zFn, p, nCol, azCol, aWant, &reader))!=SQLITE_OK ){
    if( cache ) cache->xClose(cache);
    return rc;
  }
  if( cache ) ga_cache_read_by(cache, reader);
  *ppSrc = cache ? cache : reader;
  return SQLITE_OK;
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
