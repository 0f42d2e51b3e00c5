/*
** Opening a resolved table's columns (table.h, 5): kept columns, else the
** page source, else the statement source; and which one each function used
** last, for gpuagg_info() ("sources": this file's state per connection).
*/
#include <string.h>
#include "colsrc.h"
#include "snap.h"
#include "table.h"
#include "text.h"

/* The source a function used last. */
enum { SRC_STMT, SRC_PAGES, SRC_CACHE };
typedef struct SrcNote {
  const char *zFn;          /* the function; NULL if unused */
  int src;                  /* SRC_*: the statement source, the pages, the cache */
  char zWhy[GA_ERRLEN];     /* the statement source: why not the pages */
} SrcNote;

/* What gpuagg_info() says of the sources (conn->srcnotes). */
struct ga_srcnotes {
  SrcNote aNote[4];         /* the source each function used last */
};

static void notesForget(ga_conn *conn){
  ga_free(conn->srcnotes);
  conn->srcnotes = 0;
}

/* Note which source zFn used (SRC_*), and why not the pages. */
static void noteSource(ga_conn *conn, const char *zFn, int src, const char *zWhy){
  struct ga_srcnotes *p = conn->srcnotes;
  int i, n = (int)(sizeof(p->aNote)/sizeof(p->aNote[0]));
  if( src==SRC_PAGES ) conn->stats.nPageScan++;
  if( src==SRC_STMT ) conn->stats.nStmtScan++;
  if( p==0 && (p = conn->srcnotes = sqlite3_malloc(sizeof(*p)))!=0 ){
    memset(p, 0, sizeof(*p));
    ga_conn_on_free(conn, notesForget);
  }
  if( p==0 ) return;                /* out of memory: nothing is noted */
  for(i=0; i<n-1 && p->aNote[i].zFn && strcmp(p->aNote[i].zFn, zFn); i++){}
  p->aNote[i].zFn = zFn;
  p->aNote[i].src = src;
  sqlite3_snprintf(sizeof(p->aNote[i].zWhy), p->aNote[i].zWhy, "%s", zWhy ? zWhy : "");
}

void ga_source_describe(sqlite3_str *out, const ga_conn *conn){
  static const char *azSrc[] = { "statement", "pages", "cache" };     /* SRC_* */
  const struct ga_srcnotes *p = conn->srcnotes;
  int i;
  sqlite3_str_appendall(out, "\"sources\":{");
  for(i=0; p && i<(int)(sizeof(p->aNote)/sizeof(p->aNote[0])) && p->aNote[i].zFn; i++){
    sqlite3_str_appendf(out, "%s\"%s\":{\"source\":\"%s\",\"why\":", i ? "," : "", p->aNote[i].zFn,
                        azSrc[p->aNote[i].src]);
    if( p->aNote[i].src!=SRC_STMT ) sqlite3_str_appendall(out, "null");
    else ga_json_str(out, p->aNote[i].zWhy);
    sqlite3_str_appendchar(out, 1, '}');
  }
  sqlite3_str_appendchar(out, 1, '}');
}

/* The source that reads the table: the pages, else the statement. */
static int openReader(sqlite3 *db, ga_conn *conn, const char *zFn, const ga_source *p, int nCol,
                      const char *const *azCol, const unsigned char *aWant, ga_colsrc **ppSrc, char **pzErr){
  char *zWhy = 0;
  int rc = GA_REFUSED;
  if( conn->pages ){
    *ppSrc = ga_colsrc_pages(db, conn, &p->tab, nCol, azCol, aWant, &rc, &zWhy);
    if( *ppSrc==0 && rc!=GA_REFUSED ){
      *pzErr = sqlite3_mprintf("%s: %s", zFn, zWhy ? zWhy : "out of memory");
      ga_free(zWhy);
      return rc;
    }
  }else{
    zWhy = sqlite3_mprintf("gpuagg_config('pages') is 0");
  }
  noteSource(conn, zFn, *ppSrc ? SRC_PAGES : SRC_STMT, zWhy);
  ga_free(zWhy);
  if( *ppSrc ) return SQLITE_OK;
  *ppSrc = ga_colsrc_stmt(db, conn, p->zFrom, nCol, azCol, aWant, pzErr);
  return *ppSrc ? SQLITE_OK : SQLITE_ERROR;
}

int ga_source_open(sqlite3 *db, ga_conn *conn, const char *zFn, const ga_source *p, int nCol, const int *aiCol,
                   const unsigned char *aWant, int useCache, ga_colsrc **ppSrc, char **pzErr){
  const char *azCol[GA_STMT_COLS];
  ga_colsrc *cache = 0, *reader = 0;
  int i, hit = 0, rc;
  for(i=0; i<nCol && i<GA_STMT_COLS; i++) azCol[i] = p->tab.aCol[aiCol[i]].zName;
  *ppSrc = 0;
  *pzErr = 0;
  /* Kept columns first (source/cache.c); a miss keeps what the reader reads. */
  if( useCache ){
    cache = ga_colsrc_cache(db, conn, &p->tab, nCol, azCol, aWant,
                            useCache==GA_SRC_RECORD ? GA_KEEP_RECORD | GA_KEEP_LARGE
                            : useCache==GA_SRC_LARGE ? GA_KEEP_LARGE : 0, &hit);
    if( hit ){
      noteSource(conn, zFn, SRC_CACHE, 0);
      *ppSrc = cache;
      return SQLITE_OK;
    }
  }
  if( (rc = openReader(db, conn, zFn, p, nCol, azCol, aWant, &reader, pzErr))!=SQLITE_OK ){
    if( cache ) cache->xClose(cache);
    if( *pzErr==0 ) *pzErr = sqlite3_mprintf("out of memory");
    return rc;
  }
  if( cache ) ga_cache_read_by(cache, reader);
  *ppSrc = cache ? cache : reader;
  return SQLITE_OK;
}
