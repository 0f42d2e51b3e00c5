/*
** Table b-tree pages decoded into rows of wanted columns (record.c), by the
** file format (fileformat2.html): interior pages give their children in
** order, leaf pages their cells, each a rowid and a record whose header
** gives each field's serial type.
**
**   1. A column's value is what SELECT reads: the rowid for an INTEGER
**      PRIMARY KEY (stored as NULL), integers of a REAL-affinity column as
**      REAL, a NaN as NULL, serial types 8 and 9 as 0 and 1.
**   2. Fields past the record's end (columns added by ALTER TABLE) are the
**      column's DEFAULT, and rows whose overflow pages are not proven
**      (snap.h) are read through SQL: both are marked (GA_T_DEFAULT,
**      GA_T_LOOKUP) for the caller to finish, as are TEXT and BLOB cells
**      whose number only SQLite can tell (numType 0).
**   3. Every offset is checked against the page or the payload: a malformed
**      page is SQLITE_CORRUPT with a message naming it, never a read past
**      the bytes given.
**   4. Decoding may run in several threads, each with its own ga_rows (and
**      no snapshot: only one thread reads pages).
**   5. Late columns (colsrc.h, 8): a plan split in two (ga_rplan_split)
**      decodes the early columns of every row, and notes where each
**      record is; the late ones are decoded later for the rows asked
**      (ga_rows_late), from the page, which must still be there. A record
**      that is not wholly on its page, or lacks a field, is decoded whole
**      at once (its late pointer NULL), so that the late columns never
**      need the caller's fixing (their cells' numbers are never asked:
**      a column that asks them is early).
*/
#ifndef GPUAGG_RECORD_H
#define GPUAGG_RECORD_H

#include "colsrc.h"
#include "snap.h"

#define GA_T_DEFAULT 6              /* a field past the record's end */
#define GA_PAGE_PAD  8              /* readable bytes a page's buffer must have after it */
#define GA_T_LOOKUP  7              /* a row to read through SQL */

/* How a scan reads a table's records. */
typedef struct ga_rplan {
  int usable;                       /* usable bytes of a page */
  int nCol;                         /* columns wanted */
  int nField;                       /* record fields to walk: 1 + the last wanted one */
  int aField[GA_COLS_MAX];          /* each column's field in the record; -1: the rowid */
  unsigned char aReal[GA_COLS_MAX]; /* REAL affinity: integers read as REAL */
  unsigned char aWant[GA_COLS_MAX]; /* GA_COL_* */
  unsigned char aDflt[GA_COLS_MAX]; /* has a DEFAULT (else a missing field is NULL) */
  int *aFirst;                      /* [nField]: the first column reading each field, or -1 */
  int iRowid;                       /* the first column reading the rowid, or -1 */
  int aNext[GA_COLS_MAX];           /* the next column reading the same field (or the rowid), or -1 */
  int nRead;                        /* fields read: the distinct aField[c]>=0 */
  int aRead[GA_COLS_MAX];           /* ... ascending */
  unsigned char aSz[128];           /* each one-byte serial type's bytes; 0x80: reserved (10, 11) */
  const struct ga_rplan *full;      /* an early plan's whole plan, for the rows decoded whole (5);
                                    ** NULL: this plan is whole */
} ga_rplan;

/* Set aFirst, iRowid, aNext, nRead, aRead and aSz from aField (aFirst malloc'd: free it). SQLITE_OK or
** SQLITE_NOMEM. */
int ga_rplan_fields(ga_rplan*);
/* Early and late plans (5) of whole plan pl, the late columns those of
** aLate (none reading the rowid): their aFirst malloc'd. SQLITE_OK or
** SQLITE_NOMEM. */
int ga_rplan_split(const ga_rplan *pl, const unsigned char *aLate, ga_rplan *early, ga_rplan *late);

/* Rows decoded from leaf pages, column by column. */
typedef struct ga_rows {
  int nCol;                         /* columns */
  int n;                            /* rows */
  int cap;                          /* room per column */
  unsigned char *type;              /* [c*cap + i]: class, or GA_T_DEFAULT, GA_T_LOOKUP */
  int64_t *v;                       /* [c*cap + i]: as ga_colvec.v */
  int64_t *rowid;                   /* [i] */
  ga_cell *cell;                    /* TEXT and BLOB cells */
  int nCell, nCellAlloc;            /* ... in use, room */
  int *aFix;                        /* c*cap + i of each value the caller finishes */
  int nFix, nFixAlloc;              /* ... in use, room */
  void **apBuf;                     /* payloads assembled from overflow pages, and
                                    ** bytes the caller added: freed by ga_rows_clear */
  int nBuf, nBufAlloc;              /* ... in use, room */
  const unsigned char **late;       /* [i]: row i's record, its late columns not decoded (NULL:
                                    ** decoded whole); set where the plan is early (5) */
} ga_rows;

/* Empty r, keeping its memory, with room for n rows of nCol columns. */
int ga_rows_reset(ga_rows *r, int nCol, int n);
/* Keep p (malloc'd) until the next reset: SQLITE_OK, or SQLITE_NOMEM (p freed). */
int ga_rows_keep(ga_rows *r, void *p);
/* A new cell, its index in *pi: SQLITE_OK or SQLITE_NOMEM. */
int ga_rows_cell(ga_rows *r, int *pi);
void ga_rows_free(ga_rows*);

/* The children of interior table page pg (page bytes, usable) into a (room
** for usable/2 + 2: what a malformed page can claim), their number in *pn; page pg of a snapshot
** of nPage pages. SQLITE_OK, or SQLITE_CORRUPT with zErr set. */
int ga_interior(const unsigned char *page, int usable, uint32_t pg, uint32_t nPage,
                uint32_t *a, int *pn, char *zErr, int nErr);

/* The number of cells of leaf table page pg, or -1 (zErr set) if it is not
** one. */
int ga_leaf_cells(const unsigned char *page, int usable, uint32_t pg, char *zErr, int nErr);

/* Append leaf page pg's rows to r (room made by the caller, from
** ga_leaf_cells); page's buffer has GA_PAGE_PAD bytes after it. *pLast: the rowid before them if *pHave (rowids must
** rise); both set to the last. Overflow pages are read from snap (NULL: rows
** that need them are marked GA_T_LOOKUP).
** SQLITE_OK, SQLITE_CORRUPT (zErr says where), SQLITE_NOMEM or an I/O error. */
int ga_leaf_rows(const ga_rplan*, const ga_snap*, const unsigned char *page, uint32_t pg, ga_rows *r,
                 int64_t *pLast, int *pHave, char *zErr, int nErr);

/* The late columns (late plan pl) of rows base + sel[0..n) of r, those
** whose records ga_leaf_rows left (5). SQLITE_OK or SQLITE_NOMEM. */
int ga_rows_late(const ga_rplan *pl, ga_rows *r, int base, const int *sel, int n);

#endif /* GPUAGG_RECORD_H */
