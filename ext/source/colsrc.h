/*
** Column sources: where a table-valued function reads a column's numbers.
** Today's source runs the scan as an aggregate query (stmt.c); faster ones
** (bulk page decoding, a device-resident column cache) belong behind the
** same calls.
**
**   1. xScan hands the column's numbers to the sink in batches, in scan
**      order: INTEGER values as doubles, NULL, TEXT and BLOB values
**      skipped. It returns SQLITE_OK at the end, the sink's error code if
**      the sink stopped it, or the scan's own error (xErrmsg says why).
**   2. xScan may run again: it sees the same rows, as long as the caller's
**      read transaction is open (it is, for the whole of an xFilter).
**   3. xClose frees the source.
*/
#ifndef GPUAGG_COLSRC_H
#define GPUAGG_COLSRC_H

#include "gpuagg.h"

/* Where a scan's numbers go. xBatch returns 0, or an SQLite error code to
** stop the scan. */
typedef struct ga_colsink ga_colsink;
struct ga_colsink {
  int (*xBatch)(ga_colsink*, const double *a, int n);
};

typedef struct ga_colsrc ga_colsrc;
struct ga_colsrc {
  int (*xScan)(ga_colsrc*, ga_colsink*);
  const char *(*xErrmsg)(ga_colsrc*);
  void (*xClose)(ga_colsrc*);
};

/* A source that scans column zCol of zFrom (a quoted FROM term) on db,
** whose gpuagg state is conn. NULL on failure, with the reason in *pzErr
** (sqlite3_free it). */
ga_colsrc *ga_colsrc_stmt(sqlite3 *db, ga_conn *conn, const char *zFrom, const char *zCol, char **pzErr);

/* The aggregate the statement source runs, registered on each connection:
** gpuagg_colsrc(VALUE); outside a scan it is an error. */
void ga_colsrcStep(sqlite3_context*, int, sqlite3_value**);
void ga_colsrcFinal(sqlite3_context*);

#endif /* GPUAGG_COLSRC_H */
