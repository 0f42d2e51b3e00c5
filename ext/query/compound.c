/*
** gpu_query's CPU operators (exec.c's requirement 9): a compound's arms,
** each run as a plan of its own, their rows joined left to right.
*/
#include "execint.h"

/* Row x of o (nW values each): its results' canonical key (each by its
** collation) in e->main.kbuf, its length in *pn. */
static int rowKey(Exec *e, const qval *x, int *pn){
  int j, rc;
  *pn = 0;
  for(j=0; j<e->pl->nOut; j++){
    if( (rc = qxKeyOf(&e->main, &x[j], e->pl->aOutColl[j], pn))!=SQLITE_OK ) return rc;
  }
  return SQLITE_OK;
}

/* The ascending order of all results (SQLite's index of a compound's rows,
** where no ORDER BY orders them). */
static int allCmp(void *arg, int64_t x, int64_t y){
  Exec *e = (Exec*)arg;
  const qval *a = &e->out->a[x*e->nW], *b = &e->out->a[y*e->nW];
  int j, c;
  for(j=0; j<e->pl->nOut; j++){
    if( (c = q_cmp(&a[j], &b[j], e->pl->aOutColl[j]))!=0 ) return c;
  }
  return 0;
}

/* e->out's rows, each kept where its key's being in set (if any) is keepIn;
** dedup: one of equal rows only, the first (last: the last). Without ORDER
** BY, a dedup's rows then sorted as SQLite's index of them holds them. */
static int compoundKeep(Exec *e, KeySet *set, int keepIn, int dedup, int last){
  qresult *o = e->out;
  KeySet seen;
  int64_t i, m = 0, id, *idx = 0, *tmp = 0, n0 = o->nRow;
  int rc = SQLITE_OK, n, isNew;
  qval *a = 0;
  memset(&seen, 0, sizeof(seen));
  if( n0==0 ) return SQLITE_OK;
  if( (idx = ga_malloc64(8*(uint64_t)n0))==0 || (tmp = ga_malloc64(8*(uint64_t)n0))==0
   || (a = ga_malloc64(sizeof(qval)*(uint64_t)(n0*e->nW)))==0 ){
    rc = SQLITE_NOMEM;
    goto done;
  }
  for(i=0; i<n0 && rc==SQLITE_OK; i++){
    int64_t r = last ? n0 - 1 - i : i;
    qval *x = &o->a[r*e->nW];
    if( (rc = rowKey(e, x, &n))!=SQLITE_OK ) break;
    if( set ){
      uint64_t h = qxHashKey(e->main.kbuf, n);
      int64_t t;
      int in = 0;
      for(t = (int64_t)(h & (uint64_t)(set->nSlot - 1)); set->nSlot && set->aH[t] && !in; t = (t + 1) & (set->nSlot - 1)){
        int64_t k = set->aId[t];
        in = set->aH[t]==h && set->an[k]==n && memcmp(set->az[k], e->main.kbuf, (size_t)n)==0;
      }
      if( in!=keepIn ) continue;
    }
    if( dedup && ((rc = qxKeySetAdd(e->r, &seen, e->main.kbuf, n, &isNew, &id))!=SQLITE_OK || !isNew) ) continue;
    idx[m++] = r;
  }
  if( rc ) goto done;
  if( last ) for(i=0; i<m/2; i++){ id = idx[i]; idx[i] = idx[m-1-i]; idx[m-1-i] = id; }
  if( dedup && e->pl->nSort==0 ) qxSort(idx, tmp, m, allCmp, e);
  for(i=0; i<m; i++) memcpy(&a[i*e->nW], &o->a[idx[i]*e->nW], sizeof(qval)*(size_t)e->nW);
  if( m ) memcpy(o->a, a, sizeof(qval)*(size_t)(m*e->nW));
  o->nRow = m;
done:
  qxKeySetFree(&seen);
  ga_free(idx);
  ga_free(tmp);
  ga_free(a);
  return rc;
}

/* A compound (exec.c, 9): each arm run as a plan of its own, then the
** arms' rows joined left to right: UNION ALL appends; UNION keeps one of
** equal rows of both sides; INTERSECT and EXCEPT one of the left's equal
** rows that the right has, or lacks. Which one, where equal rows differ (1
** and 1.0, 'a' and 'A' under NOCASE), is SQLite's: with ORDER BY, its merge
** (multiSelectOrderBy) passes over the left's where the right has one and
** keeps the first of a run, so UNION keeps the right's first, else the
** left's first, and INTERSECT and EXCEPT the left's first; without, its
** index keeps the last inserted, and its rows come in its order (all
** columns ascending). Then ORDER BY over the result columns (stably, the
** left's rows first on ties, as the merge; plan.c extends it with every
** other column where a merge dedups), OFFSET and LIMIT. */
int qxCompound(sqlite3_vtab *vt, sqlite3 *db, qplan *pl, int keep, qresult *r, char **pzErr){
  Exec e;
  qresult arm;
  int i, j, k, rc = SQLITE_OK;
  int64_t g;
  double t0 = ga_now_ms();
  memset(&e, 0, sizeof(e));
  memset(r, 0, sizeof(*r));
  memset(&arm, 0, sizeof(arm));
  e.pl = pl;
  e.out = r;
  e.nW = pl->nOut + pl->nSort;
  if( (rc = qxPartInit(&e.main, pl, q_run_new(db, pl)))!=SQLITE_OK ) goto fail;
  r->run = e.r = e.main.r;
  for(i=0; i<pl->nArm && rc==SQLITE_OK; i++){
    int op = pl->aArm[i].s->op;
    KeySet right;
    memset(&right, 0, sizeof(right));
    if( (rc = q_exec(vt, db, &pl->aArm[i], keep, 0, "", &arm, pzErr))!=SQLITE_OK ){
      q_result_free(&arm);            /* (its run, and why not over kept columns) */
      break;
    }
    r->nScan += arm.nScan;
    if( op==Q_INTERSECT || op==Q_EXCEPT ){
      /* the right's rows as a set; the left's kept by it */
      for(g=0; g<arm.nRow && rc==SQLITE_OK; g++){
        int n, isNew;
        int64_t id;
        if( (rc = rowKey(&e, &arm.a[g*arm.nCol], &n))==SQLITE_OK ) rc = qxKeySetAdd(e.r, &right, e.main.kbuf, n, &isNew, &id);
      }
      if( rc==SQLITE_OK ) rc = compoundKeep(&e, &right, op==Q_INTERSECT, 1, pl->nSort==0);
    }else if( (rc = qxRowsGrow(&e, r->nRow + arm.nRow, 0))==SQLITE_OK ){
      /* the arm's rows after the others, their bytes this run's, the sort
      ** terms their columns */
      for(g=0; g<arm.nRow; g++){
        qval *d = &r->a[(r->nRow + g)*e.nW];
        for(j=0; j<pl->nOut && rc==SQLITE_OK; j++){
          d[j] = arm.a[g*arm.nCol + j];
          if( (d[j].t==SQLITE_TEXT || d[j].t==SQLITE_BLOB) && (d[j].z = q_keep(e.r, d[j].z, d[j].n))==0 ) rc = SQLITE_NOMEM;
        }
        for(k=0; k<pl->nSort; k++) d[pl->nOut + k] = d[pl->aSortCol[k]];
      }
      if( rc==SQLITE_OK && op==Q_UNION && pl->nSort ){
        /* the right's rows first: where it has one of equal rows, the
        ** merge's choice is its first */
        qval *t = ga_malloc64(sizeof(qval)*(uint64_t)(r->nRow*e.nW + 1));
        if( t==0 ){
          rc = SQLITE_NOMEM;
        }else{
          memcpy(t, r->a, sizeof(qval)*(size_t)(r->nRow*e.nW));
          memmove(r->a, &r->a[r->nRow*e.nW], sizeof(qval)*(size_t)(arm.nRow*e.nW));
          memcpy(&r->a[arm.nRow*e.nW], t, sizeof(qval)*(size_t)(r->nRow*e.nW));
          ga_free(t);
        }
      }
      r->nRow += arm.nRow;
      if( rc==SQLITE_OK && op==Q_UNION ) rc = compoundKeep(&e, 0, 0, 1, pl->nSort==0);
    }
    qxKeySetFree(&right);
    q_result_free(&arm);
  }
  if( rc==SQLITE_OK ) rc = qxFinish(&e);
  r->aMs[2] = ga_now_ms() - t0;
  if( rc==SQLITE_OK || *pzErr ) goto done;
fail:
  *pzErr = sqlite3_mprintf("%s", e.r ? q_run_errmsg(e.r) : "out of memory");
done:
  qxKeySetFree(&e.rows);
  qxPartDone(&e.main, pl, 0);
  return rc;
}
