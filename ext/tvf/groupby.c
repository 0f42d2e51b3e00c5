/*
** gpu_group_by(SOURCE, KEY, VALUE): GROUP BY KEY with the common aggregates
** of VALUE, as a table-valued function.
**
**   SELECT * FROM gpu_group_by('t', 'k', 'x');
**
**   1. An eponymous-only virtual table (tvf.h). Result columns: key, rows
**      (count(*)), count (count(VALUE)), sum, total, avg, min, max; one row
**      per distinct KEY.
**   2. Rows come in the order of GROUP BY KEY: NULL, then numbers (INTEGER
**      and REAL compared exactly), then TEXT (by BINARY: a declared
**      collation is not visible to an extension), then BLOB. Keys equal in
**      SQL are one group: 1 and 1.0, 0 and -0.0. A group's key is as its
**      first row in scan order has it, as GROUP BY gives it.
**   3. Each row equals SELECT KEY, count(*), count(VALUE), sum(VALUE),
**      total(VALUE), avg(VALUE), min(VALUE), max(VALUE) FROM SOURCE GROUP BY
**      KEY, with the differences of gpu_sum, gpu_total, gpu_avg, gpu_min and
**      gpu_max: sums are exact and rounded once; a group whose integers'
**      exact total leaves int64 raises "integer overflow" for the query;
**      extremes compare TEXT by BINARY and keep the first of equal values.
**   4. Both columns are read in one scan through a column source (colsrc.h).
**      Rows go through the chunk pipeline (GA_OP_GROUP, group_acc.h): one
**      table holds every group, on the device once a first chunk fills and
**      went there, else on the CPU. TEXT and BLOB keys are numbered here by
**      a dictionary; TEXT and BLOB values are summed as sum() reads them,
**      their extremes compared here.
**   4a. KEY and VALUE kept on the device by the column cache are grouped
**      there with no scan (groupResident): keys and values of every class,
**      TEXT and BLOB as their places in the columns' sorted dictionaries
**      (colsrc.h); the same groups, bits and order as the scan gives.
**   5. SOURCE, KEY and VALUE are names (tvf.h: checked, quoted, never
**      pasted); errors name the problem. It runs SQL of its own, so it is
**      SQLITE_VTAB_DIRECTONLY; it sees the current transaction's rows.
**   6. A device that fails mid-scan: in 'auto' mode the rows are grouped
**      again on the CPU (gpuagg_info's hist_rescans counts it); in 'cuda'
**      mode it is an SQL error naming the CUDA error.
**   7. sqlite3_interrupt() stops the scan with SQLITE_INTERRUPT; every path
**      frees what the query held.
*/
#define _GNU_SOURCE                 /* qsort_r */
#include <stdlib.h>
#include <string.h>
#include "colsrc.h"
#include "kmap.h"
#include "pipe.h"
#include "tvf.h"
#include "text.h"

/* Columns; the hidden ones (from COL_SOURCE) take the arguments in order. */
enum { COL_KEY, COL_ROWS, COL_COUNT, COL_SUM, COL_TOTAL, COL_AVG, COL_MIN, COL_MAX,
       COL_SOURCE, COL_KEYCOL, COL_VALCOL };
#define NARG 3

typedef ga_vtab GroupVtab;

/* ---- the dictionary of TEXT and BLOB keys ----------------------------------- */

typedef struct Dict {
  int64_t *aSlot;           /* id + 1 by hash slot; 0: empty */
  int64_t nSlot;            /* slots: a power of two, at least twice n */
  uint64_t *aHash;          /* by id: the bytes' hash */
  int64_t *aOff;            /* by id: offset of the bytes in arena */
  int *aLen;                /* by id: how many */
  int64_t n;                /* ids given */
  int64_t nAlloc;           /* room in the by-id arrays */
  char *arena;              /* the bytes */
  int64_t nArena, szArena;  /* bytes in use, allocated */
  int64_t *aRank;           /* by id, after dictRank: its place in BINARY order */
  int enc;                  /* ... TEXT's: by the database's encoding (text.h) */
} Dict;

static void dictFree(Dict *d){
  free(d->aSlot); free(d->aHash); free(d->aOff); free(d->aLen); free(d->arena); free(d->aRank);
  memset(d, 0, sizeof(*d));
}

/* The id of bytes z[0..n), given anew if unseen; -1 when out of memory. */
static int64_t dictId(Dict *d, const void *z, int n){
  uint64_t h = ga_hash_bytes(z, n);
  int64_t s, id;
  if( 2*(d->n + 1) > d->nSlot ){
    int64_t ns = d->nSlot ? 2*d->nSlot : 1024, i;
    int64_t *a = calloc((size_t)ns, sizeof(int64_t));
    if( a==0 ) return -1;
    for(i=0; i<d->n; i++){
      for(s = (int64_t)(d->aHash[i] & (uint64_t)(ns-1)); a[s]; s = (s+1) & (ns-1)){}
      a[s] = i + 1;
    }
    free(d->aSlot);
    d->aSlot = a;
    d->nSlot = ns;
  }
  for(s = (int64_t)(h & (uint64_t)(d->nSlot-1)); d->aSlot[s]; s = (s+1) & (d->nSlot-1)){
    id = d->aSlot[s] - 1;
    if( d->aHash[id]==h && d->aLen[id]==n && (n==0 || memcmp(d->arena + d->aOff[id], z, (size_t)n)==0) ) return id;
  }
  if( d->n==d->nAlloc ){
    int64_t na = d->nAlloc ? 2*d->nAlloc : 256;
    uint64_t *ph = realloc(d->aHash, sizeof(uint64_t)*(size_t)na);
    int64_t *po = ph ? realloc(d->aOff, sizeof(int64_t)*(size_t)na) : 0;
    int *pl = po ? realloc(d->aLen, sizeof(int)*(size_t)na) : 0;
    if( ph ) d->aHash = ph;
    if( po ) d->aOff = po;
    if( pl==0 ) return -1;
    d->aLen = pl;
    d->nAlloc = na;
  }
  if( d->nArena + n > d->szArena ){
    int64_t want = d->szArena ? d->szArena : 65536;
    char *p;
    while( want < d->nArena + n ) want *= 2;
    if( (p = realloc(d->arena, (size_t)want))==0 ) return -1;
    d->arena = p;
    d->szArena = want;
  }
  id = d->n++;
  if( n ) memcpy(d->arena + d->nArena, z, (size_t)n);
  d->aHash[id] = h;
  d->aOff[id] = d->nArena;
  d->aLen[id] = n;
  d->nArena += n;
  d->aSlot[s] = id + 1;
  return id;
}

static int cmpIds(const void *pa, const void *pb, void *pArg){
  const Dict *d = (const Dict*)pArg;
  int64_t a = *(const int64_t*)pa, b = *(const int64_t*)pb;
  return ga_text_order(d->arena + d->aOff[a], d->aLen[a], d->arena + d->aOff[b], d->aLen[b], d->enc);
}

/* Every id's place in BINARY order (d->aRank). */
static int dictRank(Dict *d){
  int64_t *ids = malloc(sizeof(int64_t)*(size_t)(d->n ? d->n : 1)), i;
  free(d->aRank);
  d->aRank = malloc(sizeof(int64_t)*(size_t)(d->n ? d->n : 1));
  if( ids==0 || d->aRank==0 ){
    free(ids);
    return SQLITE_NOMEM;
  }
  for(i=0; i<d->n; i++) ids[i] = i;
  qsort_r(ids, (size_t)d->n, sizeof(int64_t), cmpIds, d);
  for(i=0; i<d->n; i++) d->aRank[ids[i]] = i;
  free(ids);
  return SQLITE_OK;
}

/* ---- extremes of TEXT and BLOB values, by group ----------------------------- */

typedef struct Other { ga_other mn, mx; } Other;   /* a group's TEXT/BLOB extremes */

typedef struct Others {
  ga_kmap map;              /* group (class + 1, key) -> index */
  Other *a;                 /* by index */
  int64_t nAlloc;           /* room in a */
  int enc;                  /* TEXT's order: the database's encoding (text.h) */
} Others;

static void othersFree(Others *o){
  int64_t i;
  for(i=0; i<o->map.n; i++){
    ga_other_free(&o->a[i].mn);
    ga_other_free(&o->a[i].mx);
  }
  free(o->a);
  ga_kmap_free(&o->map);
  memset(o, 0, sizeof(*o));
}

/* A TEXT or BLOB value (type, z, n) of group (tag, key): keep it if it is
** the group's least or greatest so far (the first of equals stays). */
static int othersAdd(Others *o, uint32_t tag, uint64_t key, int type, const void *z, int n){
  int isNew;
  int64_t i = ga_kmap_add(&o->map, tag, key, &isNew);
  if( i<0 ) return SQLITE_NOMEM;
  if( isNew ){
    if( i==o->nAlloc ){
      int64_t na = o->nAlloc ? 2*o->nAlloc : 16;
      Other *p = realloc(o->a, sizeof(Other)*(size_t)na);
      if( p==0 ) return SQLITE_NOMEM;
      o->a = p;
      o->nAlloc = na;
    }
    memset(&o->a[i], 0, sizeof(Other));
  }
  return ga_other_offer(&o->a[i].mn, &o->a[i].mx, type, z, n, o->enc);
}

/* ---- the cursor ----------------------------------------------------------------- */

typedef struct GroupCursor {
  sqlite3_vtab_cursor base; /* base class */
  ga_grow *row;             /* the groups, in output order */
  int64_t nRow;             /* how many */
  int64_t iRow;             /* the current one */
  Dict dict[2];             /* TEXT and BLOB keys */
  Others oth;               /* TEXT and BLOB values' extremes */
  int64_t *aOth;            /* by row: index in oth, -1: none; NULL if oth is empty */
} GroupCursor;

static void cursorReset(GroupCursor *c){
  free(c->row);
  free(c->aOth);
  dictFree(&c->dict[0]);
  dictFree(&c->dict[1]);
  othersFree(&c->oth);
  c->row = 0;
  c->aOth = 0;
  c->nRow = c->iRow = 0;
}

/* ---- the scan ---------------------------------------------------------------------- */

/* One scan of KEY and VALUE: a sink for the column source's batches. */
typedef struct GroupScan {
  ga_colsink sink;          /* the source delivers here (groupBatch) */
  GroupVtab *v;             /* the table: connection, settings, errors */
  GroupCursor *c;           /* dictionaries and TEXT/BLOB extremes go here */
  ga_group *g;              /* the grouping */
  ga_pipe *q;               /* the pipeline, once opened */
  const ga_backend *be;     /* its backend */
  int cpu;                  /* no pipeline: fold on this thread */
  int64_t pos;              /* scan position of the next row */
  int failed;               /* groupBatch stopped the scan (message set) */
  uint64_t key[GA_BATCH];   /* the batch's rows, encoded (group_acc.h) */
  uint64_t val[GA_BATCH];
  unsigned char meta[GA_BATCH];
} GroupScan;

static void groupFoldNothing(void *pArg, ga_slot *s, const ga_job *j, int64_t base){
  (void)pArg; (void)s; (void)j; (void)base;   /* chunks fold into the job's grouping */
}

/* Encode row i's key: its class and form into *pMeta, its key returned. */
static int encodeKey(GroupScan *sc, const ga_colvec *k, int i, unsigned char *pMeta, uint64_t *pKey){
  switch( k->type[i] ){
    case SQLITE_INTEGER:
      *pMeta = GA_K_INT;
      *pKey = (uint64_t)k->v[i];
      return SQLITE_OK;
    case SQLITE_FLOAT: {
      double d;
      memcpy(&d, &k->v[i], sizeof(d));
      if( d>=-9223372036854775808.0 && d<9223372036854775808.0 && (double)(int64_t)d==d ){
        *pMeta = d==0.0 && ((uint64_t)k->v[i] >> 63) ? GA_K_INTZ : GA_K_INTR;
        *pKey = (uint64_t)(int64_t)d;
      }else{
        *pMeta = GA_K_REAL;
        *pKey = (uint64_t)k->v[i];
      }
      return SQLITE_OK;
    }
    case SQLITE_TEXT: case SQLITE_BLOB: {
      const ga_cell *x = &k->cell[k->v[i]];
      int t = k->type[i]==SQLITE_BLOB;
      int64_t id = dictId(&sc->c->dict[t], x->z, x->n);
      if( id<0 ) return SQLITE_NOMEM;
      *pMeta = t ? GA_K_BLOB : GA_K_TEXT;
      *pKey = (uint64_t)id;
      return SQLITE_OK;
    }
  }
  *pMeta = GA_K_NULL;
  *pKey = 0;
  return SQLITE_OK;
}

/* The encoded rows key/val/meta[0..n) go to the pipeline, or are folded
** here: the first rows open the pipeline. */
static int groupHand(GroupScan *sc, int n){
  char zErr[GA_ERRLEN];
  if( sc->q==0 && !sc->cpu ){
    sc->q = ga_pipe_open(sc->v->conn, GA_OP_GROUP, groupFoldNothing, 0, zErr);
    if( sc->q ){
      sc->q->group = sc->g;
      sc->be = sc->q->fill->be;
    }else if( zErr[0] ){
      return ga_vtab_error(&sc->v->base, "%s", zErr);
    }else{
      sc->cpu = 1;                        /* no buffer: all of it here */
    }
  }
  if( sc->q ){
    if( ga_pipe_rows(sc->q, sc->key, sc->val, sc->meta, n) ) return ga_vtab_error(&sc->v->base, "%s", sc->q->zErr);
  }else if( ga_group_window(sc->g, sc->key, sc->val, sc->meta, n)
         || ga_cpu_group(sc->g, sc->key, sc->val, sc->meta, n, sc->pos) ){
    return SQLITE_NOMEM;
  }
  sc->pos += n;
  return SQLITE_OK;
}

static int groupBatch(ga_colsink *sink, const ga_colbatch *b){
  GroupScan *sc = (GroupScan*)sink;
  const ga_colvec *k = &b->col[0], *x = &b->col[1];
  int i, rc = SQLITE_OK;
  for(i=0; i<b->n && rc==SQLITE_OK; i++){
    unsigned char m = 0;
    rc = encodeKey(sc, k, i, &m, &sc->key[i]);
    sc->val[i] = (uint64_t)x->v[i];
    switch( x->type[i] ){
      case SQLITE_INTEGER: m |= GA_V_INT; break;
      case SQLITE_FLOAT:   m |= GA_V_REAL; break;
      case SQLITE_TEXT: case SQLITE_BLOB: {
        /* Summed as sum() reads it; its extremes kept here. */
        const ga_cell *e = &x->cell[x->v[i]];
        m |= GA_V_OTHER | (e->numType==SQLITE_INTEGER ? GA_V_INT : GA_V_REAL);
        sc->val[i] = (uint64_t)e->num;
        if( rc==SQLITE_OK ){
          rc = othersAdd(&sc->c->oth, (uint32_t)ga_kgroup(m & GA_K_MASK) + 1, sc->key[i], x->type[i], e->z, e->n);
        }
        break;
      }
    }
    sc->meta[i] = m;
  }
  if( rc==SQLITE_OK ) rc = groupHand(sc, b->n);
  sc->failed = rc!=SQLITE_OK;
  return rc;
}

/* A TEXT or BLOB key of a group grouped on the device, a place in KEY's
** dictionary k, as the id c's dictionary gives its bytes (the scan's
** numbering). -1 when out of memory. */
static int64_t keyId(GroupCursor *c, const ga_resident *k, const ga_grow *r){
  const ga_cell *e = &k->dict[r->key];
  return dictId(&c->dict[r->kclass==GA_K_BLOB], e->z, e->n);
}

/* The groups of res[0..n) (keys renumbered as the scan numbers them where
** KEY holds TEXT or BLOB: k). */
static int renumber(GroupCursor *c, const ga_resident *k, ga_grow *res, int64_t n){
  int64_t i, id;
  for(i=0; (k->nText || k->nBlob) && i<n; i++){     /* only then: res can be large */
    if( res[i].kclass!=GA_K_TEXT && res[i].kclass!=GA_K_BLOB ) continue;
    if( (id = keyId(c, k, &res[i]))<0 ) return SQLITE_NOMEM;
    res[i].key = (uint64_t)id;
  }
  return SQLITE_OK;
}

/* The TEXT and BLOB values' extremes of the groups of g2 (a grouping of
** their places in VALUE's dictionary x) into c->oth, as the scan keeps
** them. */
static int placeExtremes(GroupCursor *c, const ga_resident *x, const ga_group *g2){
  int64_t i;
  int j, rc = SQLITE_OK;
  for(i=0; i<g2->nRes && rc==SQLITE_OK; i++){
    const ga_grow *r = &g2->res[i];
    for(j=0; j<2 && rc==SQLITE_OK; j++){
      uint64_t place, pos;
      const ga_cell *e;
      if( ga_gext_value(j ? r->mx : r->mn, j, &place, &pos)!=GA_T_INT ) continue;
      e = &x->dict[place];
      rc = othersAdd(&c->oth, (uint32_t)ga_kgroup(r->kclass) + 1, r->key,
                     (int64_t)place<x->nDictText ? SQLITE_TEXT : SQLITE_BLOB, e->z, e->n);
    }
  }
  return rc;
}

/* KEY and VALUE kept on the device (colsrc.h): grouped there, with no
** scan, when the window holds every real of VALUE, those its TEXT and BLOB
** values read as included (none infinite). A TEXT or BLOB key comes back as
** its place in KEY's dictionary and is numbered in c's as the scan would
** have. VALUE's TEXT and BLOB values are summed as sum() reads them (their
** dictionary's numbers), and a second grouping of their places gives each
** group's least and greatest of them. 0: not served, scan instead (not on
** the device, the mode is cpu, TEXT whose numbers were not kept, VALUE's
** TEXT in a UTF-16 database, or a device error in 'auto' mode); 1: g->res holds the groups; -1: an error,
** set; SQLITE_NOMEM. */
static int groupResident(GroupVtab *v, GroupCursor *c, ga_colsrc *src, ga_group *g){
  ga_resident *k = ga_colsrc_resident(src, 0), *x = ga_colsrc_resident(src, 1);
  char zErr[GA_ERRLEN];
  double t0 = ga_now_ms();
  ga_group g2;                      /* VALUE's TEXT and BLOB places, by group */
  int fail, rc, other;
  if( v->conn->mode==GA_CPU || k==0 || x==0 || x->nInf || k->be!=x->be ) return 0;
  other = x->nText || x->nBlob;
  if( other && (x->dict==0 || !(x->want & GA_COL_NUMERIC)) ) return 0;
  /* the dictionary's places order TEXT by its UTF-8 bytes: in a UTF-16
  ** database, whose order is not those, the scan finds the extremes */
  if( x->nText && c->oth.enc!=SQLITE_UTF8 ) return 0;
  if( x->nReal || other ){
    int eMax = x->eMax<0 ? 0 : x->eMax;       /* zeros only: fit anywhere */
    if( !ga_group_window_all(x->eMin<eMax ? x->eMin : eMax, eMax, &g->jb) ) return 0;
  }
  memset(&g2, 0, sizeof(g2));
  g2.jb = -1;
  fail = k->be->xColGroup(k->pRes, &v->conn->stats, k->d, x->d, k->nGroup, 0, g, zErr);
  if( g->dev && k->be->xGroupDone(g, !fail, zErr) ) fail = 1;
  if( !fail && other ){
    fail = k->be->xColGroup(k->pRes, &v->conn->stats, k->d, x->d, g->nRes, 1, &g2, zErr);
    if( g2.dev && k->be->xGroupDone(&g2, !fail, zErr) ) fail = 1;
  }
  if( fail ){
    ga_group_clear(g);
    ga_group_clear(&g2);
    memset(g, 0, sizeof(*g));
    g->jb = -1;
    if( fail==GA_DEV_SCAN || !ga_device_failed(v->conn, zErr) ) return 0;
    ga_vtab_error(&v->base, "%s", zErr);
    return -1;
  }
  rc = renumber(c, k, g->res, g->nRes);
  if( rc==SQLITE_OK && other ) rc = renumber(c, k, g2.res, g2.nRes);
  if( rc==SQLITE_OK && other ) rc = placeExtremes(c, x, &g2);
  ga_group_clear(&g2);
  if( rc!=SQLITE_OK ) return rc;
  k->nGroup = g->nRes;
  ga_cache_device_hit(v->conn->cache, ga_now_ms() - t0);
  return 1;
}

/* Scan src once into g (cpu: on this thread only), then gather the groups
** (g->res). SQLITE_OK or an error, its message set. */
static int groupRun(GroupVtab *v, GroupCursor *c, ga_colsrc *src, int cpu, ga_group *g){
  char zErr[GA_ERRLEN];
  GroupScan *sc = calloc(1, sizeof(GroupScan));
  int rc, use;
  cursorReset(c);
  c->dict[0].enc = c->oth.enc = ga_db_encoding(v->db, v->conn);
  c->dict[1].enc = SQLITE_UTF8;             /* (BLOBs: their bytes) */
  memset(g, 0, sizeof(*g));
  g->jb = -1;
  if( sc==0 ) return SQLITE_NOMEM;
  if( !cpu && (rc = groupResident(v, c, src, g))!=0 ){
    free(sc);
    return rc==SQLITE_NOMEM ? rc : rc>0 ? SQLITE_OK : SQLITE_ERROR;
  }
  sc->sink.xBatch = groupBatch;
  sc->sink.xPar = 0;
  sc->v = v;
  sc->c = c;
  sc->g = g;
  sc->cpu = cpu;
  rc = src->xScan(src, &sc->sink);
  if( rc!=SQLITE_OK && !sc->failed && rc!=SQLITE_NOMEM ) ga_vtab_error(&v->base, "%s", src->xErrmsg(src));
  if( sc->q && ga_pipe_close(sc->q, zErr) && rc==SQLITE_OK ) rc = ga_vtab_error(&v->base, "%s", zErr);
  if( g->oom && rc==SQLITE_OK ) rc = SQLITE_NOMEM;
  use = rc==SQLITE_OK && !g->lost;
  if( g->dev && sc->be && sc->be->xGroupDone(g, use, zErr) && rc==SQLITE_OK ){
    rc = ga_vtab_error(&v->base, "%s", zErr);   /* g->lost: grouped again, in 'auto' mode */
  }
  if( g->cpu && ga_cpu_group_done(g, use && !g->dev, zErr) && rc==SQLITE_OK ) rc = SQLITE_NOMEM;
  free(sc);
  return rc;
}

/* ---- the result's order --------------------------------------------------------- */

/* Place of a non-numeric group: NULL, then TEXT, then BLOB, each by rank. */
static uint64_t otherPlace(const GroupCursor *c, const ga_grow *r){
  switch( r->kclass ){
    case GA_K_TEXT: return ((uint64_t)1 << 62) | (uint64_t)c->dict[0].aRank[r->key];
    case GA_K_BLOB: return ((uint64_t)2 << 62) | (uint64_t)c->dict[1].aRank[r->key];
  }
  return 0;
}

static int cmpOther(const void *pa, const void *pb, void *pArg){
  uint64_t a = otherPlace((const GroupCursor*)pArg, (const ga_grow*)pa);
  uint64_t b = otherPlace((const GroupCursor*)pArg, (const ga_grow*)pb);
  return a<b ? -1 : a>b;
}

/* g->res into the cursor (taken over, not copied), in GROUP BY's order; the
** TEXT and BLOB values' extremes matched to their groups. */
static int groupOrder(GroupCursor *c, ga_group *g){
  ga_grow *r = g->res;
  int64_t n = g->nRes, nNum = 0, i, j;
  while( nNum<n && ga_grow_order(&r[nNum])!=UINT64_MAX ) nNum++;
  /* Numbers: sorted by their floor double; big integers that share one
  ** are put in exact order here (runs are short). */
  for(i=1; i<nNum; i++){
    if( ga_grow_order(&r[i])!=ga_grow_order(&r[i-1]) ) continue;
    for(j=i; j>0 && ga_grow_order(&r[j])==ga_grow_order(&r[j-1]) && ga_grow_cmp_num(&r[j], &r[j-1])<0; j--){
      ga_grow t = r[j]; r[j] = r[j-1]; r[j-1] = t;
    }
  }
  if( dictRank(&c->dict[0]) || dictRank(&c->dict[1]) ) return SQLITE_NOMEM;
  /* The others: NULL, then TEXT, then BLOB; the NULL group goes first. */
  qsort_r(r + nNum, (size_t)(n - nNum), sizeof(ga_grow), cmpOther, c);
  if( nNum<n && r[nNum].kclass==GA_K_NULL ){
    ga_grow t = r[nNum];
    memmove(r + 1, r, sizeof(ga_grow)*(size_t)nNum);
    r[0] = t;
  }
  c->row = r;
  c->nRow = n;
  g->res = 0;
  g->nRes = 0;
  if( c->oth.map.n ){
    if( (c->aOth = malloc(sizeof(int64_t)*(size_t)n))==0 ) return SQLITE_NOMEM;
    for(i=0; i<n; i++) c->aOth[i] = ga_kmap_find(&c->oth.map, (uint32_t)ga_kgroup(r[i].kclass) + 1, r[i].key);
  }
  return SQLITE_OK;
}

/* ---- the virtual table ------------------------------------------------------------ */

static int groupConnect(sqlite3 *db, void *pAux, int argc, const char *const *argv,
                        sqlite3_vtab **ppVtab, char **pzErr){
  (void)argc; (void)argv; (void)pzErr;
  return ga_tvf_connect(db, pAux, "CREATE TABLE x(key, rows INTEGER, count INTEGER, sum, total REAL, avg REAL,"
                                  " min, max, source HIDDEN, key_column HIDDEN, value_column HIDDEN)", ppVtab);
}

static int groupOpen(sqlite3_vtab *tab, sqlite3_vtab_cursor **ppCur){
  GroupCursor *c = calloc(1, sizeof(*c));
  (void)tab;
  if( c==0 ) return SQLITE_NOMEM;
  *ppCur = &c->base;
  return SQLITE_OK;
}

static int groupClose(sqlite3_vtab_cursor *cur){
  cursorReset((GroupCursor*)cur);
  free(cur);
  return SQLITE_OK;
}

static int groupBestIndex(sqlite3_vtab *tab, sqlite3_index_info *p){
  return ga_tvf_best_index(tab, p, COL_SOURCE, NARG);
}

static int groupFilter(sqlite3_vtab_cursor *cur, int idxNum, const char *idxStr,
                       int argc, sqlite3_value **argv){
  static const unsigned char aWant[2] = { GA_COL_BYTES, GA_COL_BYTES|GA_COL_NUMERIC };
  static const char *zFn = "gpu_group_by";
  GroupCursor *c = (GroupCursor*)cur;
  GroupVtab *v = (GroupVtab*)cur->pVtab;
  sqlite3_value *a[NARG];
  const char *zSource, *zKey, *zVal;
  ga_source from;
  ga_colsrc *src = 0;
  ga_group g;
  int ai[2], rc;
  int64_t i;
  (void)idxStr;
  ga_tvf_args(idxNum, argc, argv, NARG, a);
  cursorReset(c);
  memset(&g, 0, sizeof(g));
  if( idxNum!=(1<<NARG)-1 ) return ga_vtab_error(cur->pVtab, "%s: takes (source, key, value)", zFn);
  zSource = ga_tvf_name(a[0]);
  zKey = ga_tvf_name(a[1]);
  zVal = ga_tvf_name(a[2]);
  if( !zSource || !zKey || !zVal ) return ga_vtab_error(cur->pVtab, "%s: source, key and value must be names (UTF-8 text without NUL bytes)", zFn);
  rc = ga_tvf_source(cur->pVtab, v->db, zFn, zSource, &from);
  if( rc==SQLITE_OK && ((ai[0] = ga_tvf_column(cur->pVtab, zFn, &from, zKey))<0
                     || (ai[1] = ga_tvf_column(cur->pVtab, zFn, &from, zVal))<0) ) rc = SQLITE_ERROR;
  if( rc==SQLITE_OK ) rc = ga_tvf_open(cur->pVtab, zFn, &from, 2, ai, aWant, &src);
  ga_source_free(&from);
  if( rc!=SQLITE_OK ) return rc;
  rc = groupRun(v, c, src, 0, &g);
  if( g.lost && (rc==SQLITE_OK || rc==SQLITE_ERROR) && v->conn->mode!=GA_CUDA ){
    /* A device failed (its error is in the pipeline's counters): group
    ** again, on the CPU. */
    ga_free(cur->pVtab->zErrMsg);
    cur->pVtab->zErrMsg = 0;
    v->conn->stats.nRescan++;
    ga_group_clear(&g);
    rc = groupRun(v, c, src, 1, &g);
  }
  src->xClose(src);
  for(i=0; rc==SQLITE_OK && i<g.nRes; i++){
    if( g.res[i].sumType==GA_SUM_OVERFLOW ) rc = ga_vtab_error(cur->pVtab, "integer overflow");
  }
  if( rc==SQLITE_OK ) rc = groupOrder(c, &g);
  ga_group_clear(&g);
  if( rc!=SQLITE_OK ) cursorReset(c);
  return rc;
}

static int groupNext(sqlite3_vtab_cursor *cur){
  ((GroupCursor*)cur)->iRow++;
  return SQLITE_OK;
}

static int groupEof(sqlite3_vtab_cursor *cur){
  GroupCursor *c = (GroupCursor*)cur;
  return c->iRow >= c->nRow;
}

/* The group's key as its first row had it. */
static void keyResult(sqlite3_context *ctx, const GroupCursor *c, const ga_grow *r){
  switch( r->kclass ){
    case GA_K_INT:  sqlite3_result_int64(ctx, (sqlite3_int64)r->key); break;
    case GA_K_INTR: sqlite3_result_double(ctx, (double)(int64_t)r->key); break;
    case GA_K_INTZ: sqlite3_result_double(ctx, -0.0); break;
    case GA_K_REAL: sqlite3_result_double(ctx, ga_bits_real(r->key)); break;
    case GA_K_TEXT: case GA_K_BLOB: {
      const Dict *d = &c->dict[r->kclass==GA_K_BLOB];
      const char *z = d->arena ? d->arena + d->aOff[r->key] : "";   /* "": no bytes yet */
      if( r->kclass==GA_K_TEXT ) sqlite3_result_text(ctx, z, d->aLen[r->key], SQLITE_TRANSIENT);
      else sqlite3_result_blob(ctx, z, d->aLen[r->key], SQLITE_TRANSIENT);
      break;
    }
    default: sqlite3_result_null(ctx); break;
  }
}

/* min (isMax 0) or max of the group's values: TEXT and BLOB above numbers. */
static void extremeResult(sqlite3_context *ctx, const GroupCursor *c, const ga_grow *r, int isMax){
  const ga_other *k = c->aOth && c->aOth[c->iRow]>=0
                ? (isMax ? &c->oth.a[c->aOth[c->iRow]].mx : &c->oth.a[c->aOth[c->iRow]].mn) : 0;
  uint64_t bits, pos;
  int t = ga_gext_value(isMax ? r->mx : r->mn, isMax, &bits, &pos);
  if( k && (isMax || t==GA_T_NONE) ){
    ga_other_result(ctx, k);
  }else if( t==GA_T_INT ){
    sqlite3_result_int64(ctx, (sqlite3_int64)bits);
  }else if( t==GA_T_REAL ){
    sqlite3_result_double(ctx, ga_bits_real(bits));
  }else{
    sqlite3_result_null(ctx);
  }
}

static int groupColumn(sqlite3_vtab_cursor *cur, sqlite3_context *ctx, int i){
  GroupCursor *c = (GroupCursor*)cur;
  const ga_grow *r = &c->row[c->iRow];
  int64_t n = r->nInt + r->nReal;
  switch( i ){
    case COL_KEY:   keyResult(ctx, c, r); break;
    case COL_ROWS:  sqlite3_result_int64(ctx, r->rows); break;
    case COL_COUNT: sqlite3_result_int64(ctx, n); break;
    case COL_SUM:
      if( r->sumType==GA_SUM_INT ) sqlite3_result_int64(ctx, r->isum);
      else if( r->sumType==GA_SUM_REAL ) sqlite3_result_double(ctx, r->total);  /* NaN: NULL */
      else sqlite3_result_null(ctx);
      break;
    case COL_TOTAL: sqlite3_result_double(ctx, r->total); break;
    case COL_AVG:
      if( n>0 ) sqlite3_result_double(ctx, r->total/(double)n);
      else sqlite3_result_null(ctx);
      break;
    case COL_MIN:   extremeResult(ctx, c, r, 0); break;
    case COL_MAX:   extremeResult(ctx, c, r, 1); break;
    default:        break;                    /* the arguments: consumed */
  }
  return SQLITE_OK;
}

static int groupRowid(sqlite3_vtab_cursor *cur, sqlite_int64 *pRowid){
  *pRowid = ((GroupCursor*)cur)->iRow;
  return SQLITE_OK;
}

const sqlite3_module ga_groupby_module = {
  0,                        /* iVersion */
  0,                        /* xCreate: eponymous only */
  groupConnect,
  groupBestIndex,
  ga_tvf_disconnect,
  0,                        /* xDestroy */
  groupOpen,
  groupClose,
  groupFilter,
  groupNext,
  groupEof,
  groupColumn,
  groupRowid,
  0, 0, 0, 0, 0, 0, 0,      /* xUpdate .. xRename */
  0, 0, 0,                  /* xSavepoint, xRelease, xRollbackTo */
  0                         /* xShadowName */
};
