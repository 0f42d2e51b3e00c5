/*
** Table b-tree pages decoded into rows: see record.h.
*/
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include "record.h"
#include <assert.h>

#define LEAF     0x0d               /* a table b-tree leaf page */
#define INTERIOR 0x05               /* a table b-tree interior page */

static int corrupt(char *zErr, int nErr, uint32_t pg, const char *zFmt, ...){
  char z[128];
  va_list ap;
  va_start(ap, zFmt);
  sqlite3_vsnprintf(sizeof(z), z, zFmt, ap);
  va_end(ap);
  sqlite3_snprintf(nErr, zErr, "database disk image is malformed (page %u: %s)", pg, z);
  return SQLITE_CORRUPT;
}

static unsigned get2(const unsigned char *p){ return (unsigned)p[0]<<8 | p[1]; }
static uint32_t get4(const unsigned char *p){ return (uint32_t)p[0]<<24 | (uint32_t)p[1]<<16 | (uint32_t)p[2]<<8 | p[3]; }

/* A varint at p, not reading at or past end: its length, or 0. */
static int varintSlow(const unsigned char *p, const unsigned char *end, uint64_t *pv){
  uint64_t v = 0;
  int i;
  for(i=0; i<8; i++){
    if( p + i>=end ) return 0;
    v = (v<<7) | (p[i] & 0x7f);
    if( (p[i] & 0x80)==0 ){
      *pv = v;
      return i + 1;
    }
  }
  if( p + 8>=end ) return 0;
  *pv = (v<<8) | p[8];
  return 9;
}
static inline int varint(const unsigned char *p, const unsigned char *end, uint64_t *pv){
  if( p + 4<=end ){                 /* up to 4 bytes here: rowids below 2^28 */
    if( p[0]<0x80 ){ *pv = p[0]; return 1; }
    if( p[1]<0x80 ){ *pv = (uint64_t)(p[0] & 0x7f)<<7 | p[1]; return 2; }
    if( p[2]<0x80 ){ *pv = (uint64_t)(p[0] & 0x7f)<<14 | (uint64_t)(p[1] & 0x7f)<<7 | p[2]; return 3; }
    if( p[3]<0x80 ){
      *pv = (uint64_t)(p[0] & 0x7f)<<21 | (uint64_t)(p[1] & 0x7f)<<14 | (uint64_t)(p[2] & 0x7f)<<7 | p[3];
      return 4;
    }
  }
  return varintSlow(p, end, pv);
}

/* Bytes of serial types 0..11: 0 NULL, 1-6 integers, 7 REAL, 8 and 9 the
** integers 0 and 1, 10 and 11 reserved (above 11: TEXT or BLOB). */
static const unsigned char aSize[12] = { 0, 1, 2, 3, 4, 6, 8, 8, 0, 0, 0, 0 };

/* ---- rows ------------------------------------------------------------------ */

int ga_rows_reset(ga_rows *r, int nCol, int n){
  int i;
  for(i=0; i<r->nBuf; i++) free(r->apBuf[i]);
  r->nBuf = r->n = r->nCell = r->nFix = 0;
  r->nCol = nCol;
  if( n>r->cap || nCol*r->cap > nCol*n*4 ){   /* grow, or shrink a far larger one */
    size_t m = (size_t)nCol*(size_t)(n ? n : 1);
    free(r->type); free(r->v); free(r->rowid); free(r->late);
    r->type = malloc(m);
    r->v = malloc(m*sizeof(int64_t));
    r->rowid = malloc(sizeof(int64_t)*(size_t)(n ? n : 1));
    r->late = malloc(sizeof(*r->late)*(size_t)(n ? n : 1));
    r->cap = n;
    if( !r->type || !r->v || !r->rowid || !r->late ){
      r->cap = 0;
      return SQLITE_NOMEM;
    }
  }
  return SQLITE_OK;
}

/* Room for one more in *pa (n in use, *pnAlloc room, sz bytes each). */
static int grow(void **pa, int n, int *pnAlloc, size_t sz){
  if( n==*pnAlloc ){
    int na = n ? 2*n : 64;
    void *p = realloc(*pa, sz*(size_t)na);
    if( p==0 ) return SQLITE_NOMEM;
    *pa = p;
    *pnAlloc = na;
  }
  return SQLITE_OK;
}

int ga_rows_keep(ga_rows *r, void *p){
  if( grow((void**)&r->apBuf, r->nBuf, &r->nBufAlloc, sizeof(void*)) ){
    free(p);
    return SQLITE_NOMEM;
  }
  r->apBuf[r->nBuf++] = p;
  return SQLITE_OK;
}

int ga_rows_cell(ga_rows *r, int *pi){
  if( grow((void**)&r->cell, r->nCell, &r->nCellAlloc, sizeof(ga_cell)) ) return SQLITE_NOMEM;
  memset(&r->cell[r->nCell], 0, sizeof(ga_cell));
  *pi = r->nCell++;
  return SQLITE_OK;
}

static int fixLater(ga_rows *r, int c, int i){
  if( grow((void**)&r->aFix, r->nFix, &r->nFixAlloc, sizeof(int)) ) return SQLITE_NOMEM;
  r->aFix[r->nFix++] = c*r->cap + i;
  return SQLITE_OK;
}

void ga_rows_free(ga_rows *r){
  ga_rows_reset(r, 0, 0);
  free(r->type); free(r->v); free(r->rowid); free(r->late); free(r->cell); free(r->aFix); free(r->apBuf);
  memset(r, 0, sizeof(*r));
}

/* pl's chains of the columns c where aSkip is NULL or aSkip[c]!=skip. */
static int fieldsOf(ga_rplan *pl, const unsigned char *aSkip, int skip){
  int c, f;
  free(pl->aFirst);
  if( (pl->aFirst = malloc(sizeof(int)*(size_t)(pl->nField ? pl->nField : 1)))==0 ) return SQLITE_NOMEM;
  for(f=0; f<pl->nField; f++) pl->aFirst[f] = -1;
  pl->iRowid = -1;
  for(c=pl->nCol-1; c>=0; c--){
    int *pFirst;
    if( aSkip && (aSkip[c]!=0)==skip ){ pl->aNext[c] = -1; continue; }
    pFirst = pl->aField[c]<0 ? &pl->iRowid : &pl->aFirst[pl->aField[c]];
    pl->aNext[c] = *pFirst;
    *pFirst = c;
  }
  for(f=pl->nRead=0; f<pl->nField; f++){
    if( pl->aFirst[f]>=0 ) pl->aRead[pl->nRead++] = f;
  }
  for(f=0; f<128; f++) pl->aSz[f] = f==10 || f==11 ? 0x80 : f<12 ? aSize[f] : (unsigned char)((f - 12)/2);
  return SQLITE_OK;
}

int ga_rplan_fields(ga_rplan *pl){
  return fieldsOf(pl, 0, 0);
}

int ga_rplan_split(const ga_rplan *pl, const unsigned char *aLate, ga_rplan *early, ga_rplan *late){
  int c, k, rc;
  early->aFirst = late->aFirst = 0;
  for(k=0; k<2; k++){
    ga_rplan *x = k ? late : early;
    *x = *pl;
    x->aFirst = 0;
    x->full = k ? 0 : pl;
    x->nField = 0;
    for(c=0; c<pl->nCol; c++){
      assert( !aLate[c] || pl->aField[c]>=0 );
      if( (aLate[c]!=0)==k && pl->aField[c] + 1>x->nField ) x->nField = pl->aField[c] + 1;
    }
    if( (rc = fieldsOf(x, aLate, !k))!=SQLITE_OK ) return rc;
  }
  return SQLITE_OK;
}

/* ---- pages ----------------------------------------------------------------- */

int ga_interior(const unsigned char *page, int usable, uint32_t pg, uint32_t nPage,
                uint32_t *a, int *pn, char *zErr, int nErr){
  const unsigned char *h = page + (pg==1 ? 100 : 0);
  unsigned n, i, off;
  if( h[0]!=INTERIOR ) return corrupt(zErr, nErr, pg, "type %d where a table's interior page belongs", h[0]);
  n = get2(h + 3);
  if( (h - page) + 12 + 2*(size_t)n > (size_t)usable ) return corrupt(zErr, nErr, pg, "%u cells", n);
  for(i=0; i<=n; i++){
    uint32_t c;
    if( i<n ){
      off = get2(h + 12 + 2*i);
      if( off < (h - page) + 12 + 2*n || off + 4 > (unsigned)usable ) return corrupt(zErr, nErr, pg, "cell %u at %u", i, off);
      c = get4(page + off);
    }else{
      c = get4(h + 8);
    }
    if( c<2 || c>nPage ) return corrupt(zErr, nErr, pg, "child page %u", c);
    a[i] = c;
  }
  *pn = (int)n + 1;
  return SQLITE_OK;
}

int ga_leaf_cells(const unsigned char *page, int usable, uint32_t pg, char *zErr, int nErr){
  const unsigned char *h = page + (pg==1 ? 100 : 0);
  unsigned n;
  if( h[0]!=LEAF ){
    corrupt(zErr, nErr, pg, "type %d where a table's leaf page belongs", h[0]);
    return -1;
  }
  n = get2(h + 3);
  if( (h - page) + 8 + 2*(size_t)n > (size_t)usable ){
    corrupt(zErr, nErr, pg, "%u cells", n);
    return -1;
  }
  return (int)n;
}

/* ---- records --------------------------------------------------------------- */

/* Bytes of a payload of P bytes kept on its leaf page (fileformat2: X, M, K). */
static uint64_t localSize(int U, uint64_t P){
  uint64_t X = (uint64_t)U - 35, M = ((uint64_t)(U - 12)*32/255) - 23, K;
  if( P<=X ) return P;
  K = M + (P - M) % (uint64_t)(U - 4);
  return K<=X ? K : M;
}

/* The first need bytes of a payload of P whose local part is loc[0..nLoc),
** followed by overflow pages from ovfl: into a buffer kept in r (*pp).
** GA_UNPROVEN if a page of the chain is. */
static int overflowed(const ga_rplan *pl, const ga_snap *s, ga_rows *r, const unsigned char *loc, uint64_t nLoc,
                      uint32_t ovfl, uint64_t P, uint64_t need, uint32_t pg, const unsigned char **pp,
                      char *zErr, int nErr){
  uint64_t have = nLoc, nPages = 0, maxPages = (P - nLoc + (uint64_t)pl->usable - 5)/(uint64_t)(pl->usable - 4);
  unsigned char *buf, *tmp;
  int rc = SQLITE_OK;
  if( s==0 ) return GA_UNPROVEN;     /* no reading here: the row goes to SQL */
  if( need>P ) need = P;
  if( (buf = calloc(1, (size_t)need + GA_PAGE_PAD))==0 || (tmp = malloc((size_t)s->pgsz))==0 ){
    free(buf);
    return SQLITE_NOMEM;
  }
  memcpy(buf, loc, (size_t)nLoc);
  while( have<need && rc==SQLITE_OK ){
    uint64_t k = (uint64_t)pl->usable - 4;
    if( ovfl<2 || ovfl>s->nPage || ++nPages>maxPages ){
      rc = corrupt(zErr, nErr, pg, "overflow page %u", ovfl);
    }else if( (rc = ga_snap_read(s, ovfl, 1, tmp, 0))==SQLITE_CORRUPT ){
      rc = corrupt(zErr, nErr, ovfl, "beyond the end of the file");
    }else if( rc==SQLITE_OK ){
      if( k > need - have ) k = need - have;
      memcpy(buf + have, tmp + 4, (size_t)k);
      have += k;
      ovfl = get4(tmp);
    }
  }
  free(tmp);
  if( rc==SQLITE_OK ) rc = ga_rows_keep(r, buf); else free(buf);
  *pp = buf;
  return rc;
}

/* What sum() reads from TEXT (isText) or BLOB bytes z[0..n), where that is
** plain without SQLite: 1 with *pType and *pNum (INTEGER, or a double's
** bits), else 0. Plain: no bytes (0.0); a first byte that cannot start a
** number or space, sign, point or "inf"/"nan" (0.0); TEXT of an optional
** '-' and 1 to 18 digits (that integer). */
static int numberHere(const unsigned char *z, int n, int isText, int *pType, int64_t *pNum){
  int i = 0, neg = 0;
  int64_t v = 0;
  if( n==0 || (z[0]>0x20 && strchr("+-.0123456789iInN", z[0])==0) ){
    *pType = SQLITE_FLOAT;
    *pNum = 0;                      /* +0.0's bits */
    return 1;
  }
  if( !isText ) return 0;
  if( z[0]=='-' ){
    neg = 1;
    i = 1;
  }
  if( n - i<1 || n - i>18 ) return 0;
  for(; i<n; i++){
    if( z[i]<'0' || z[i]>'9' ) return 0;
    v = v*10 + (z[i] - '0');
  }
  *pType = SQLITE_INTEGER;
  *pNum = neg ? -v : v;
  return 1;
}

/* An integer x of column c, as SELECT reads it, into type[iv] and v[iv]:
** REAL if the column has REAL affinity (real). */
static inline void putInt(unsigned char *restrict type, int64_t *restrict v, size_t iv, int64_t x, int real){
  if( real ){
    double r = (double)x;
    memcpy(&v[iv], &r, 8);
    type[iv] = SQLITE_FLOAT;
  }else{
    v[iv] = x;
    type[iv] = SQLITE_INTEGER;
  }
}

/* A REAL's bits u, as SELECT reads them: a NaN is NULL. */
static inline void putReal(unsigned char *restrict type, int64_t *restrict v, size_t iv, uint64_t u){
  type[iv] = (u<<1)>0xffe0000000000000ull ? SQLITE_NULL : SQLITE_FLOAT;
  v[iv] = (int64_t)u;
}

/* The 8 bytes at d, big-endian (buffers have GA_PAGE_PAD readable bytes
** after them), so that an integer's width is a shift, not a branch: columns
** mix widths row by row. */
static inline int64_t intOf(uint64_t u, unsigned sz){ return (int64_t)u >> (64 - 8*sz); }


static inline uint64_t be8(const unsigned char *d){
  uint64_t u;
  memcpy(&u, d, 8);
  return __builtin_bswap64(u);
}

/* Column c of row i: serial type st, its bytes at d (sz of them). */
static inline int putValue(const ga_rplan *pl, ga_rows *r, int c, int i, uint64_t st, const unsigned char *d,
                           uint64_t sz){
  size_t at = (size_t)c*r->cap + i;
  if( st==0 ){
    r->type[at] = SQLITE_NULL;
    return SQLITE_OK;
  }
  if( st==7 ){
    putReal(r->type, r->v, at, be8(d));
    return SQLITE_OK;
  }
  if( st<=9 ){
    putInt(r->type, r->v, at, st>=8 ? (int64_t)st - 8 : intOf(be8(d), (unsigned)sz), pl->aReal[c]);
    return SQLITE_OK;
  }
  r->type[at] = (st & 1) ? SQLITE_TEXT : SQLITE_BLOB;
  if( pl->aWant[c] ){
    int ic, rc = ga_rows_cell(r, &ic);
    ga_cell *e;
    if( rc ) return rc;
    e = &r->cell[ic];
    e->z = d;
    e->n = (int)sz;
    r->v[at] = ic;
    if( (pl->aWant[c] & GA_COL_NUMERIC) && !numberHere(d, (int)sz, (int)(st & 1), &e->numType, &e->num) ){
      return fixLater(r, c, i);     /* numType stays 0: SQLite decides */
    }
  }
  return SQLITE_OK;
}

/* Every wanted column of row i marked t (GA_T_LOOKUP), the rowid's set. */
static int markRow(const ga_rplan *pl, ga_rows *r, int i, int t){
  int c, rc = SQLITE_OK;
  for(c=0; c<pl->nCol && rc==SQLITE_OK; c++){
    size_t iv = (size_t)c*r->cap + i;
    if( pl->aField[c]<0 ){
      r->type[iv] = SQLITE_INTEGER;
      r->v[iv] = r->rowid[i];
    }else{
      r->type[iv] = (unsigned char)t;
      rc = fixLater(r, c, i);
    }
  }
  return rc;
}

/* Bytes of a value of serial type t (not 10 or 11). */
static uint64_t serialSize(uint64_t t){
  return t>=12 ? (t - 12)/2 : aSize[t];
}

/* The cell at offset off of leaf page pg, as row r->n. One pass over the
** record's header notes each wanted field's type and offset; the values are
** read in place, or from the payload assembled with its overflow pages as
** far as they need. */
static inline int cellRow(const ga_rplan *pl, const ga_snap *s, const unsigned char *page, unsigned off, uint32_t pg,
                          ga_rows *r, char *zErr, int nErr){
  const unsigned char *p = page + off, *end = page + pl->usable, *pay, *h, *hEnd;
  uint64_t P, rowid, loc, avail, hsz, at, need = 0, aSt[GA_COLS_MAX], aOff[GA_COLS_MAX];
  uint32_t ovfl = 0;
  int k, f, c, i = r->n, rc, nHave;
  if( (k = varint(p, end, &P))==0 ) return corrupt(zErr, nErr, pg, "cell at %u", off);
  p += k;
  if( (k = varint(p, end, &rowid))==0 ) return corrupt(zErr, nErr, pg, "cell at %u", off);
  p += k;
  if( P>0x7fffffff ) return corrupt(zErr, nErr, pg, "payload of %llu bytes", (unsigned long long)P);
  loc = localSize(pl->usable, P);
  if( (uint64_t)(end - p) < loc + (loc<P ? 4 : 0) ) return corrupt(zErr, nErr, pg, "cell at %u overruns the page", off);
  if( loc<P ) ovfl = get4(p + loc);
  r->rowid[i] = (int64_t)rowid;
  r->n++;
  pay = p;
  avail = loc;
  hsz = 0;
  nHave = 0;
  if( pl->nField>0 ){
    if( (k = varint(pay, pay + (loc<9 ? loc : 9), &hsz))==0 ) return corrupt(zErr, nErr, pg, "record header at %u", off);
    if( hsz<(uint64_t)k || hsz>P ) return corrupt(zErr, nErr, pg, "record header of %llu bytes", (unsigned long long)hsz);
    if( hsz>avail ){
      rc = overflowed(pl, s, r, p, loc, ovfl, P, hsz, pg, &pay, zErr, nErr);
      if( rc==GA_UNPROVEN ) return markRow(pl, r, i, GA_T_LOOKUP);
      if( rc ) return rc;
      avail = hsz;
    }
    h = pay + k;
    hEnd = pay + hsz;
    at = hsz;
    for(f=0; f<pl->nField && h<hEnd; f++){
      uint64_t t, sz;
      if( (k = varint(h, hEnd, &t))==0 ) return corrupt(zErr, nErr, pg, "record header at %u", off);
      h += k;
      if( t==10 || t==11 ) return corrupt(zErr, nErr, pg, "serial type %llu", (unsigned long long)t);
      sz = serialSize(t);
      for(c=pl->aFirst[f]; c>=0; c=pl->aNext[c]){
        aSt[c] = t;
        aOff[c] = at;
        /* Numbers' bytes always; TEXT's and BLOB's if the column asks. */
        if( (t<12 || pl->aWant[c]) && at + sz>need ) need = at + sz;
      }
      if( (at += sz)>P ) return corrupt(zErr, nErr, pg, "record overruns its payload");
    }
    nHave = f;
    if( need>avail ){
      rc = overflowed(pl, s, r, p, loc, ovfl, P, need, pg, &pay, zErr, nErr);
      if( rc==GA_UNPROVEN ) return markRow(pl, r, i, GA_T_LOOKUP);
      if( rc ) return rc;
    }
  }
  for(c=0; c<pl->nCol; c++){
    int fc = pl->aField[c];
    size_t iv = (size_t)c*r->cap + i;
    if( fc<0 ){
      r->type[iv] = SQLITE_INTEGER;
      r->v[iv] = (int64_t)rowid;
    }else if( fc>=nHave ){
      /* Past the record's end: the column's DEFAULT, or NULL. */
      r->type[iv] = pl->aDflt[c] ? GA_T_DEFAULT : SQLITE_NULL;
      if( pl->aDflt[c] && (rc = fixLater(r, c, i))!=SQLITE_OK ) return rc;
    }else if( (rc = putValue(pl, r, c, i, aSt[c], pay + aOff[c], serialSize(aSt[c])))!=SQLITE_OK ){
      return rc;
    }
  }
  return SQLITE_OK;
}

/* A record wholly on its page, P bytes at p, as row i (rowid), when its
** header is plain: one byte of size and one byte per field's type, every
** wanted field present. 1 if done, 0 if the general path must read it
** (nothing written but the row's numbers and classes, which it rewrites).
** Numbers as putInt and putReal read them. Fields not read are only
** summed: their sizes' flags (0x80: a type the general path reads) are
** checked at the next field read, the last field walked being one. */
static inline int cellPlain(const ga_rplan *restrict pl, const unsigned char *restrict p, uint64_t P, int64_t rowid,
                            unsigned char *restrict type, int64_t *restrict v, size_t cap, int i, ga_rows *r){
  const unsigned char *restrict aSz = pl->aSz;
  unsigned hsz = p[0], f = 0, at, bad = 0, j;
  int c;
  if( hsz>=0x80 || hsz<(unsigned)pl->nField + 1 || hsz>P ) return 0;
  at = hsz;
  for(j=0; j<(unsigned)pl->nRead; j++){
    unsigned fr = (unsigned)pl->aRead[j], t, sz;
    const unsigned char *d;
    for(; f<fr; f++){
      t = p[1 + f];
      sz = aSz[t & 0x7f] | (t & 0x80);
      bad |= sz;
      at += sz;
    }
    t = p[1 + fr];
    sz = aSz[t & 0x7f] | (t & 0x80);
    if( ((bad | sz) & 0x80) || at + sz>P ) return 0;
    d = p + at;
    for(c=pl->aFirst[fr]; c>=0; c=pl->aNext[c]){
      size_t iv = (size_t)c*cap + i;
      if( t==0 ){
        type[iv] = SQLITE_NULL;
      }else if( t==7 ){
        putReal(type, v, iv, be8(d));
      }else if( t<12 ){
        putInt(type, v, iv, t>=8 ? (int64_t)t - 8 : intOf(be8(d), sz), pl->aReal[c]);
      }else{
        type[iv] = (t & 1) ? SQLITE_TEXT : SQLITE_BLOB;
        if( pl->aWant[c] ){
          /* TEXT or BLOB whose bytes are wanted: a cell (its number, if
          ** asked, the general path reads) */
          int ic;
          if( (pl->aWant[c] & GA_COL_NUMERIC) || ga_rows_cell(r, &ic) ) return 0;
          r->cell[ic].z = d;
          r->cell[ic].n = (int)sz;
          v[iv] = ic;
        }
      }
    }
    at += sz;
    f = fr + 1;
  }
  for(c=pl->iRowid; c>=0; c=pl->aNext[c]){
    type[(size_t)c*cap + i] = SQLITE_INTEGER;
    v[(size_t)c*cap + i] = rowid;
  }
  return 1;
}

/* May the late columns of the record at p (P bytes on its page, its
** header's size one byte, as cellPlain read it) wait (5): every field of
** the whole plan present, of a type that is not reserved, inside it? */
static int lateSafe(const ga_rplan *full, const unsigned char *p, uint64_t P){
  const unsigned char *h = p + 1, *hEnd = p + p[0];
  uint64_t at = p[0], t;
  int f, k;
  for(f=0; f<full->nField; f++){
    if( h>=hEnd || (k = varint(h, hEnd, &t))==0 || t==10 || t==11 ) return 0;
    h += k;
    if( (at += serialSize(t))>P ) return 0;
  }
  return 1;
}

int ga_rows_late(const ga_rplan *pl, ga_rows *r, int base, const int *sel, int n){
  int i, f, k, c, rc;
  for(i=0; i<n; i++){
    int row = base + (sel ? sel[i] : i);
    const unsigned char *p = r->late[row], *h;
    uint64_t at, t, sz;
    if( p==0 ) continue;                /* decoded whole */
    h = p + 1;
    at = p[0];
    for(f=0; f<pl->nField; f++){
      k = varint(h, p + p[0], &t);      /* lateSafe proved each */
      assert( k>0 );
      h += k;
      sz = serialSize(t);
      for(c=pl->aFirst[f]; c>=0; c=pl->aNext[c]){
        if( (rc = putValue(pl, r, c, row, t, p + at, sz))!=SQLITE_OK ) return rc;
      }
      at += sz;
    }
  }
  return SQLITE_OK;
}

int ga_leaf_rows(const ga_rplan *pl, const ga_snap *s, const unsigned char *page, uint32_t pg, ga_rows *r,
                 int64_t *pLast, int *pHave, char *zErr, int nErr){
  const unsigned char *h = page + (pg==1 ? 100 : 0), *end = page + pl->usable;
  int n = ga_leaf_cells(page, pl->usable, pg, zErr, nErr), i, rc, have = *pHave, nField = pl->nField;
  /* cellPlain walks and checks every field before an early plan's last:
  ** lateSafe only where the whole plan's go further */
  int fullBeyond = pl->full && pl->full->nField>nField;
  unsigned lo = (unsigned)(h - page) + 8 + 2*(unsigned)n, hi = (unsigned)pl->usable - 4;
  uint64_t X = (uint64_t)pl->usable - 35;           /* the most payload kept on a leaf */
  int64_t last = *pLast, *restrict aRowid = r->rowid, *restrict v = r->v;
  unsigned char *restrict type = r->type;
  size_t cap = (size_t)r->cap;
  if( n<0 ) return SQLITE_CORRUPT;
  if( r->n + n > r->cap ) return corrupt(zErr, nErr, pg, "more cells than counted");
  for(i=0; i<n; i++){
    unsigned off = get2(h + 8 + 2*i);
    const unsigned char *p = page + off;
    uint64_t P, rowid;
    int k, row = r->n;
    if( off<lo || off>hi ) return corrupt(zErr, nErr, pg, "cell %d at %u", i, off);
    /* The plain case here; anything else (overflow, long headers, wanted
    ** bytes, missing fields) in cellRow; an early plan's row whose late
    ** columns cannot wait, whole by the whole plan (5). */
    if( (nField>0 || pl->full) && (k = varint(p, end, &P))!=0 && P<=X && (p += k, k = varint(p, end, &rowid))!=0
     && (uint64_t)(end - p - k)>=P && cellPlain(pl, p + k, P, (int64_t)rowid, type, v, cap, row, r)
     && (!fullBeyond || lateSafe(pl->full, p + k, P)) ){
      aRowid[row] = (int64_t)rowid;
      if( pl->full ) r->late[row] = p + k;
      r->n = row + 1;
    }else if( (rc = cellRow(pl->full ? pl->full : pl, s, page, off, pg, r, zErr, nErr))!=SQLITE_OK ){
      return rc;
    }else if( pl->full ){
      r->late[row] = 0;
    }
    if( have && aRowid[row]<=last ) return corrupt(zErr, nErr, pg, "rowids out of order");
    last = aRowid[row];
    have = 1;
  }
  *pLast = last;
  *pHave = have;
  return SQLITE_OK;
}
