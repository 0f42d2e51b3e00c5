/*
** Does a running statement use an aggregate as a window function?
**
** An aggregate that can serve a window (gpu_min and its family: minmax.c)
** would otherwise keep rows for a frame in every context, plain aggregates
** included, since SQLite gives no sign of a window before its first xValue
** or xInverse, which may come after the whole partition.
**
**   1. The answer is the compiled program's: a window function is stepped
**      and asked with OP_AggValue (and OP_AggInverse), a plain aggregate
**      never. EXPLAIN of each statement running on the connection (sqlite3_
**      next_stmt, sqlite3_stmt_busy) lists its opcodes, views expanded. A
**      statement with one of those, or OP_Program (a trigger's program is
**      not listed), or whose text or EXPLAIN is not to be had, may use a
**      window: 1.
**   2. A statement is explained once: its answer is kept by its pointer and
**      its text's hash (WIN_SEEN of them, the oldest replaced), so each new
**      aggregate context asks at the cost of a lookup.
**   3. Getting it wrong one way (a window thought plain) is an error where
**      the window asks, never a wrong answer (minmax.c, 8); the other way
**      only keeps rows that were not needed.
*/
#include <string.h>
#include "winsense.h"
#include "kmap.h"

#define WIN_SEEN 16

struct ga_winseen {
  struct {
    sqlite3_stmt *st;              /* a statement explained (NULL: none) */
    uint64_t h;                    /* ... its text's hash */
    int win;                       /* ... whether it may use a window (1.) */
  } a[WIN_SEEN];
  int next;                        /* the entry replaced next */
};

/* Whether statement st may use a window (1.), by EXPLAIN on db. */
static int explainWin(sqlite3 *db, const char *zSql){
  sqlite3_stmt *x = 0;
  char *z = sqlite3_mprintf("EXPLAIN %s", zSql);
  int win = 1, rc;
  if( z && sqlite3_prepare_v2(db, z, -1, &x, 0)==SQLITE_OK ){
    win = 0;
    while( !win && (rc = sqlite3_step(x))==SQLITE_ROW ){
      const char *zOp = (const char*)sqlite3_column_text(x, 1);
      win = zOp && (strcmp(zOp, "AggValue")==0 || strcmp(zOp, "AggInverse")==0 || strcmp(zOp, "Program")==0);
    }
    if( rc!=SQLITE_DONE && rc!=SQLITE_ROW ) win = 1;
  }
  sqlite3_finalize(x);
  ga_free(z);
  return win;
}

static void winseenForget(ga_conn *c){
  ga_free(c->winseen);
  c->winseen = 0;
}

int ga_window_maybe(sqlite3_context *ctx){
  sqlite3 *db = sqlite3_context_db_handle(ctx);
  ga_conn *c = (ga_conn*)sqlite3_user_data(ctx);
  struct ga_winseen *w = c->winseen;
  sqlite3_stmt *st;
  if( w==0 ){
    if( (w = sqlite3_malloc(sizeof(*w)))==0 ) return 1;
    memset(w, 0, sizeof(*w));
    c->winseen = w;
    ga_conn_on_free(c, winseenForget);
  }
  for(st=sqlite3_next_stmt(db, 0); st; st=sqlite3_next_stmt(db, st)){
    const char *zSql;
    uint64_t h;
    int i;
    if( !sqlite3_stmt_busy(st) ) continue;
    if( (zSql = sqlite3_sql(st))==0 ) return 1;
    h = ga_hash_bytes(zSql, (int)strlen(zSql));
    for(i=0; i<WIN_SEEN && !(w->a[i].st==st && w->a[i].h==h); i++){}
    if( i==WIN_SEEN ){
      if( strncmp(zSql, "EXPLAIN", 7)==0 ) continue;     /* (our own, stepping) */
      i = w->next;
      w->next = (w->next + 1) % WIN_SEEN;
      w->a[i].st = st;
      w->a[i].h = h;
      w->a[i].win = explainWin(db, zSql);
    }
    if( w->a[i].win ) return 1;
  }
  return 0;
}
