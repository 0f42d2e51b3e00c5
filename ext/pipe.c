/*
** The chunk pipeline: see pipe.h for what it promises.
*/
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include "pipe.h"

/* Empty the fill chunk's counts (and bitmaps). */
static void pipeEmpty(ga_pipe *p){
  p->ni = 0;
  p->hi = p->op==GA_OP_GROUP ? (int)GA_GROUP_ROWS(p->cap) : p->cap;
  if( p->op==GA_OP_STATS ){
    memset(p->segN, 0, sizeof(p->segN));
    memset(p->segReal, 0, sizeof(p->segReal));
    memset(p->v + p->cap, 0, sizeof(uint64_t)*(size_t)GA_BITMAP_WORDS(p->cap));
  }
}

static void pipeSetFill(ga_pipe *p, ga_slot *s){
  p->fill = s;
  p->v = s->buf;
  pipeEmpty(p);
  if( p->op==GA_OP_GROUP ){
    p->gKey = GA_GROUP_KEYS(s->buf, p->cap);
    p->gVal = GA_GROUP_VALS(s->buf, p->cap);
    p->gMeta = GA_GROUP_META(s->buf, p->cap);
  }else if( p->op==GA_OP_MIN || p->op==GA_OP_MAX ){
    p->bits = (uint64_t*)(s->buf + p->cap);
    memset(p->bits, 0, sizeof(uint64_t)*(size_t)GA_BITMAP_WORDS(p->cap));
    p->nReal = 0;
  }
}

/* The job for the fill chunk as it stands (for a partial GA_OP_SUM chunk,
** after closing the gap between the lanes; a GA_OP_GROUP chunk prepared).
** Non-zero: out of memory (p->zErr set). */
static int pipeJob(ga_pipe *p, ga_job *pj){
  ga_job j;
  memset(&j, 0, sizeof(j));
  j.op = p->op;
  j.base = p->base;
  if( p->op==GA_OP_STATS ){
    ga_slot *s = p->fill;
    j.n = p->ni;
    j.nSeg = p->nSeg;
    j.segCap = p->segCap;
    memcpy(j.segN, p->segN, sizeof(j.segN));
    memcpy(j.segReal, p->segReal, sizeof(j.segReal));
    if( s->nStat<p->nSeg ){
      ga_stat *a = realloc(s->stat, sizeof(ga_stat)*(size_t)p->nSeg);
      if( a==0 ){
        strcpy(p->zErr, "gpuagg: out of memory");
        return 1;
      }
      s->stat = a;
      s->nStat = p->nSeg;
    }
  }else if( p->op==GA_OP_GROUP ){
    j.n = p->ni;
    j.group = p->group;
    if( ga_group_window(p->group, p->gKey, p->gVal, p->gMeta, j.n) ){
      strcpy(p->zErr, "gpuagg: out of memory");
      return 1;
    }
  }else if( p->op==GA_OP_SUM ){
    int64_t nr = p->cap - p->hi;
    if( p->hi!=p->ni ) memmove(p->v + p->ni, p->v + p->hi, sizeof(int64_t)*(size_t)nr);
    j.n = p->ni + nr;
    j.ni = p->ni;
  }else{
    j.n = p->ni;
    j.nReal = p->nReal;
    j.hist = p->hist;
  }
  *pj = j;
  return 0;
}

ga_pipe *ga_pipe_open(ga_conn *c, int op, ga_fold_fn xFold, void *pFoldArg, char *zErr){
  const ga_backend *be = ga_conn_backend(c, zErr);
  ga_slot *s;
  ga_pipe *p;
  if( be==0 ) return 0;
  if( (s = ga_pool_take(c, be, zErr))==0 ){
    /* No buffer (pool full, or out of memory): the caller folds itself. */
    if( zErr[0] ) memcpy(c->stats.zLastErr, zErr, GA_ERRLEN);
    zErr[0] = 0;
    return 0;
  }
  p = sqlite3_malloc(sizeof(*p));
  if( p==0 ){
    ga_pool_give(c, s);
    return 0;
  }
  memset(p, 0, sizeof(*p));
  p->conn = c;
  p->op = op;
  p->xFold = xFold;
  p->pFoldArg = pFoldArg;
  p->cap = s->cap;
  pipeSetFill(p, s);
  return p;
}

int ga_pipe_attach(sqlite3_context *ctx, int op, ga_fold_fn xFold, void *pFoldArg, ga_pipe **pp){
  char zErr[GA_ERRLEN];
  *pp = ga_pipe_open((ga_conn*)sqlite3_user_data(ctx), op, xFold, pFoldArg, zErr);
  if( *pp ) return 1;
  if( zErr[0] ){
    sqlite3_result_error(ctx, zErr, -1);
    return -1;
  }
  return 0;
}

/* A reduction failed on slot s with the message in p->zErr. Returns non-zero
** if that stops the query; otherwise the caller redoes the chunk on the CPU. */
static int pipeFail(ga_pipe *p, ga_slot *s){
  s->bad = 1;
  p->cpu = 1;
  if( ga_device_failed(p->conn, p->zErr) ) return 1;
  p->zErr[0] = 0;
  return 0;
}

/* Hand slot s over with job j; s becomes the flight. */
static int pipeStart(ga_pipe *p, ga_slot *s, const ga_job *j){
  p->flight = s;
  p->flightJob = *j;
  p->flightBase = p->base;
  p->flightDone = 0;
  p->base += j->n;
  if( !p->cpu ){
    if( s->be->xStart(s, j, p->zErr)==0 ) return 0;
    if( pipeFail(p, s) ){
      p->flightDone = 1;
      return 1;
    }
  }
  ga_cpu_run(s, j);
  s->stats->nCpuChunk++;
  p->flightDone = 1;
  return 0;
}

/* Fold the chunk in flight, waiting for it if need be. On a failure that
** stops the query the slot stays the flight, marked done, for
** ga_pipe_close to give back. */
static int pipeLand(ga_pipe *p){
  ga_slot *s = p->flight;
  int rc = 0;
  if( s==0 ) return 0;
  if( !p->flightDone ){
    double t0 = ga_now_ms();
    rc = s->be->xWait(s, p->zErr);
    s->stats->waitMs += ga_now_ms() - t0;
  }
  if( rc ){
    p->flightDone = 1;
    if( pipeFail(p, s) ) return 1;
    ga_cpu_run(s, &p->flightJob);
    s->stats->nCpuChunk++;
  }
  p->flight = 0;
  p->xFold(p->pFoldArg, s, &p->flightJob, p->flightBase);
  return 0;
}

static int pipeFlush(ga_pipe *p){
  ga_slot *full = p->fill;
  ga_slot *spare = p->flight;   /* free once landed */
  char zIgnore[GA_ERRLEN];
  ga_job j;
  if( pipeLand(p) || pipeJob(p, &j) ) return 1;
  if( pipeStart(p, full, &j) ){
    if( spare ) ga_pool_give(p->conn, spare);
    return 1;
  }
  if( spare==0 ){
    /* First flush: take the second buffer. Without one, wait and reuse. */
    spare = ga_pool_take(p->conn, full->be, zIgnore);
    if( spare==0 ){
      if( pipeLand(p) ) return 1;
      spare = full;
    }
  }
  pipeSetFill(p, spare);
  return 0;
}

int ga_pipe_flush(ga_pipe *p){
  if( p->rc==0 ) p->rc = pipeFlush(p);
  if( p->rc ) pipeEmpty(p);     /* later appends stay in bounds; discarded */
  return p->rc;
}

int ga_pipe_columns(ga_pipe *p, int nSeg){
  p->nSeg = nSeg;
  p->segCap = GA_STATS_CAP(p->cap, nSeg);
  pipeEmpty(p);
  return p->segCap==0;
}

/* Give a slot back, first waiting out any work still reading it. */
static void pipeGive(ga_pipe *p, ga_slot *s, int busy){
  char zIgnore[GA_ERRLEN];
  if( busy && s->be->xWait(s, zIgnore) ) s->bad = 1;
  ga_pool_give(p->conn, s);
}

int ga_pipe_close(ga_pipe *p, char *zErr){
  ga_slot *tail = p->fill;
  ga_slot *other = p->flight;   /* the second slot, if the pipeline has one */
  int rc = p->rc;

  if( rc==0 ) rc = pipeLand(p);
  if( rc==0 && (p->ni>0 || (p->op==GA_OP_SUM && p->hi<p->cap)) ){
    /* The partial last chunk, reduced where it is cheaper (a grouping's
    ** where its chunks went: one table holds all of it). A tail never
    ** creates a CUDA context. */
    ga_job j;
    int follow = p->op==GA_OP_GROUP && p->base>0;
    rc = pipeJob(p, &j);
    if( rc ){
      /* p->zErr says why */
    }else if( !p->cpu && (follow || j.n>=p->conn->threshold) && tail->be->xWarm() ){
      rc = pipeStart(p, tail, &j) || pipeLand(p);
    }else{
      ga_cpu_run(tail, &j);
      p->xFold(p->pFoldArg, tail, &j, p->base);
      p->base += j.n;
    }
  }
  /* Whatever is still the flight (only after a failure that stopped the
  ** query) is done. */
  if( other && other!=tail ) pipeGive(p, other, p->flight==other && !p->flightDone);
  pipeGive(p, tail, p->flight==tail && !p->flightDone);
  if( rc ) memcpy(zErr, p->zErr, GA_ERRLEN);
  ga_free(p);
  return rc;
}
