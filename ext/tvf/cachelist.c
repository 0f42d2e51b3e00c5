/*
** gpuagg_cache(): the columns the connection's column cache keeps
** (source/cache.c), as a table-valued function.
**
**   SELECT * FROM gpuagg_cache();
**
**   1. An eponymous-only virtual table with no arguments. One row per kept
**      column, the most recently used first: schema, table_name,
**      column_name, rows, bytes (host and device memory together),
**      device_bytes, last_use (the cache's use counter at its last use:
**      larger is more recent).
**   2. The rows are copied when the scan starts: what a query in the same
**      statement does to the cache does not move them.
**   3. It reads nothing from the database and no device: it is safe
**      anywhere, but is direct-only like the other functions.
*/
#include <stdlib.h>
#include <string.h>
#include "colsrc.h"
#include "tvf.h"

enum { COL_SCHEMA, COL_TABLE, COL_COLUMN, COL_ROWS, COL_BYTES, COL_DEVBYTES, COL_USED };

typedef struct ListCursor {
  sqlite3_vtab_cursor base; /* base class */
  ga_cache_row *a;          /* the rows, names copied into z */
  char *z;                  /* the names */
  int n;                    /* rows */
  int i;                    /* the current one */
} ListCursor;

static int listConnect(sqlite3 *db, void *pAux, int argc, const char *const *argv,
                       sqlite3_vtab **ppVtab, char **pzErr){
  (void)argc; (void)argv; (void)pzErr;
  return ga_tvf_connect(db, pAux, "CREATE TABLE x(schema TEXT, table_name TEXT, column_name TEXT, rows INTEGER,"
                                  " bytes INTEGER, device_bytes INTEGER, last_use INTEGER)", ppVtab);
}

static int listOpen(sqlite3_vtab *tab, sqlite3_vtab_cursor **ppCur){
  ListCursor *c = calloc(1, sizeof(*c));
  (void)tab;
  if( c==0 ) return SQLITE_NOMEM;
  *ppCur = &c->base;
  return SQLITE_OK;
}

static int listClose(sqlite3_vtab_cursor *cur){
  ListCursor *c = (ListCursor*)cur;
  free(c->a);
  free(c->z);
  free(c);
  return SQLITE_OK;
}

static int listBestIndex(sqlite3_vtab *tab, sqlite3_index_info *p){
  (void)tab;
  p->estimatedCost = 10.0;
  return SQLITE_OK;
}

static int listFilter(sqlite3_vtab_cursor *cur, int idxNum, const char *idxStr, int argc, sqlite3_value **argv){
  ListCursor *c = (ListCursor*)cur;
  const ga_cache *cc = ((ga_vtab*)cur->pVtab)->conn->cache;
  ga_cache_row r;
  size_t nz = 0, o = 0;
  int i;
  (void)idxNum; (void)idxStr; (void)argc; (void)argv;
  free(c->a);
  free(c->z);
  c->a = 0;
  c->z = 0;
  c->n = c->i = 0;
  for(i=0; ga_cache_row_at(cc, i, &r); i++) nz += strlen(r.zDb) + strlen(r.zTab) + strlen(r.zCol) + 3;
  if( i==0 ) return SQLITE_OK;
  if( (c->a = malloc(sizeof(ga_cache_row)*(size_t)i))==0 || (c->z = malloc(nz))==0 ) return SQLITE_NOMEM;
  for(c->n=0; c->n<i && ga_cache_row_at(cc, c->n, &r); c->n++){
    const char **az[3];
    int k;
    c->a[c->n] = r;
    az[0] = &c->a[c->n].zDb; az[1] = &c->a[c->n].zTab; az[2] = &c->a[c->n].zCol;
    for(k=0; k<3; k++){
      size_t m = strlen(*az[k]) + 1;
      memcpy(c->z + o, *az[k], m);
      *az[k] = c->z + o;
      o += m;
    }
  }
  return SQLITE_OK;
}

static int listNext(sqlite3_vtab_cursor *cur){
  ((ListCursor*)cur)->i++;
  return SQLITE_OK;
}

static int listEof(sqlite3_vtab_cursor *cur){
  ListCursor *c = (ListCursor*)cur;
  return c->i >= c->n;
}

static int listColumn(sqlite3_vtab_cursor *cur, sqlite3_context *ctx, int i){
  const ga_cache_row *r = &((ListCursor*)cur)->a[((ListCursor*)cur)->i];
  switch( i ){
    case COL_SCHEMA:   sqlite3_result_text(ctx, r->zDb, -1, SQLITE_TRANSIENT); break;
    case COL_TABLE:    sqlite3_result_text(ctx, r->zTab, -1, SQLITE_TRANSIENT); break;
    case COL_COLUMN:   sqlite3_result_text(ctx, r->zCol, -1, SQLITE_TRANSIENT); break;
    case COL_ROWS:     sqlite3_result_int64(ctx, r->n); break;
    case COL_BYTES:    sqlite3_result_int64(ctx, r->bytes); break;
    case COL_DEVBYTES: sqlite3_result_int64(ctx, r->devBytes); break;
    default:           sqlite3_result_int64(ctx, (sqlite3_int64)r->used); break;
  }
  return SQLITE_OK;
}

static int listRowid(sqlite3_vtab_cursor *cur, sqlite_int64 *pRowid){
  *pRowid = ((ListCursor*)cur)->i;
  return SQLITE_OK;
}

const sqlite3_module ga_cachelist_module = {
  0,                        /* iVersion */
  0,                        /* xCreate: eponymous only */
  listConnect,
  listBestIndex,
  ga_tvf_disconnect,
  0,                        /* xDestroy */
  listOpen,
  listClose,
  listFilter,
  listNext,
  listEof,
  listColumn,
  listRowid,
  0, 0, 0, 0, 0, 0, 0,      /* xUpdate .. xRename */
  0, 0, 0,                  /* xSavepoint, xRelease, xRollbackTo */
  0                         /* xShadowName */
};
