/*
** What the module's virtual tables share: the table-valued functions
** (tvf/) and gpu_query (query/) each declare a ga_vtab, which carries the
** connection's gpuagg state, and set their errors on it alike.
*/
#ifndef GPUAGG_VTAB_H
#define GPUAGG_VTAB_H

#include "gpuagg.h"

typedef struct ga_vtab {
  sqlite3_vtab base;        /* base class */
  sqlite3 *db;              /* the connection it reads through */
  ga_conn *conn;            /* its gpuagg state: pool, backend, settings */
} ga_vtab;

/* Set the vtab's error message (printf-style); returns SQLITE_ERROR. */
int ga_vtab_error(sqlite3_vtab*, const char *zFmt, ...);

#endif /* GPUAGG_VTAB_H */
