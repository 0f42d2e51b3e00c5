/*
** The chunk pipeline: see pipe.h for what it promises.
*/
#include <string.h>
#include <time.h>
#include "pipe.h"

static double nowMs(void){
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return ts.tv_sec*1e3 + ts.tv_nsec*1e-6;
}

static void pipeSetFill(ga_pipe *p, ga_slot *s){
  p->fill = s;
  p->v = s->buf;
  p->ni = 0;
  p->hi = p->cap;
}

ga_pipe *ga_pipe_open(ga_conn *c, char *zErr){
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
  p->cap = s->cap;
  p->strict = c->mode==GA_CUDA;
  pipeSetFill(p, s);
  return p;
}

/* A reduction failed on slot s with the message in p->zErr. Returns non-zero
** if that stops the query; otherwise the caller redoes the chunk on the CPU. */
static int pipeFail(ga_pipe *p, ga_slot *s){
  ga_stats *st = s->stats;
  s->bad = 1;
  p->cpu = 1;
  memcpy(st->zLastErr, p->zErr, GA_ERRLEN);
  if( p->strict ) return 1;
  st->nFallback++;
  p->zErr[0] = 0;
  return 0;
}

/* Hand n values of slot s (ni integers first) over; s becomes the flight. */
static int pipeStart(ga_pipe *p, ga_slot *s, int64_t n, int64_t ni){
  p->nInt += ni;
  p->nReal += n - ni;
  p->flight = s;
  p->flightN = n;
  p->flightNi = ni;
  p->flightDone = 0;
  if( !p->cpu ){
    if( s->be->xStart(s, n, ni, p->zErr)==0 ) return 0;
    if( pipeFail(p, s) ){
      p->flightDone = 1;
      return 1;
    }
  }
  ga_cpu_reduce(s->buf, n, ni, &s->res);
  s->stats->nCpuChunk++;
  p->flightDone = 1;
  return 0;
}

/* Fold the chunk in flight, waiting for it if need be. On a strict failure
** the slot stays the flight, marked done, for ga_pipe_close to give back. */
static int pipeLand(ga_pipe *p){
  ga_slot *s = p->flight;
  int rc = 0;
  if( s==0 ) return 0;
  if( !p->flightDone ){
    double t0 = nowMs();
    rc = s->be->xWait(s, p->zErr);
    s->stats->waitMs += nowMs() - t0;
  }
  if( rc ){
    p->flightDone = 1;
    if( pipeFail(p, s) ) return 1;
    ga_cpu_reduce(s->buf, p->flightN, p->flightNi, &s->res);
    s->stats->nCpuChunk++;
  }
  p->flight = 0;
  ga_sum_merge(&p->acc, &s->res);
  return 0;
}

static int pipeFlush(ga_pipe *p){
  ga_slot *full = p->fill;
  ga_slot *spare = p->flight;   /* free once landed */
  char zIgnore[GA_ERRLEN];
  if( pipeLand(p) ) return 1;
  if( pipeStart(p, full, p->cap, p->ni) ){
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
  if( p->rc ){
    /* Keep later appends in bounds; those rows are discarded. */
    p->ni = 0;
    p->hi = p->cap;
  }
  return p->rc;
}

/* Give a slot back, first waiting out any work still reading it. */
static void pipeGive(ga_pipe *p, ga_slot *s, int busy){
  char zIgnore[GA_ERRLEN];
  if( busy && s->be->xWait(s, zIgnore) ) s->bad = 1;
  ga_pool_give(p->conn, s);
}

int ga_pipe_close(ga_pipe *p, ga_sum *acc, int64_t *nInt, int64_t *nReal, char *zErr){
  ga_slot *tail = p->fill;
  ga_slot *other = p->flight;   /* the second slot, if the pipeline has one */
  int64_t nr = p->cap - p->hi;
  int64_t n = p->ni + nr;
  int rc = p->rc;

  if( rc==0 ) rc = pipeLand(p);
  if( rc==0 && n>0 ){
    /* The partial last chunk: close the gap between the lanes, then reduce
    ** it where it is cheaper. A tail never creates a CUDA context. */
    memmove(p->v + p->ni, p->v + p->hi, sizeof(int64_t)*(size_t)nr);
    if( !p->cpu && n>=p->conn->threshold && tail->be->xWarm() ){
      rc = pipeStart(p, tail, n, p->ni) || pipeLand(p);
    }else{
      ga_sum r;
      ga_cpu_reduce(p->v, n, p->ni, &r);
      ga_sum_merge(&p->acc, &r);
      p->nInt += p->ni;
      p->nReal += nr;
    }
  }
  /* Whatever is still the flight (only after a strict failure) is done. */
  if( other && other!=tail ) pipeGive(p, other, p->flight==other && !p->flightDone);
  pipeGive(p, tail, p->flight==tail && !p->flightDone);

  if( rc==0 ){
    ga_sum_merge(acc, &p->acc);
    *nInt += p->nInt;
    *nReal += p->nReal;
  }else{
    memcpy(zErr, p->zErr, GA_ERRLEN);
  }
  sqlite3_free(p);
  return rc;
}
