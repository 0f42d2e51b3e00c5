/*
** Per-connection state: the backend mode, the chunk settings and the pool
** of chunk slots.
**
**   1. The state is created when the extension is loaded on a connection and
**      freed when SQLite drops the last function that refers to it, which is
**      when the connection closes. Freeing it frees every pooled slot: pinned
**      host memory, device buffers, streams, events.
**   2. The pool keeps slots of one kind (backend and chunk size): taking a
**      slot discards idle slots of another kind, so a switch of backend or
**      chunk size frees the old buffers at the next large query.
**   3. At most GA_MAX_SLOTS slots live per connection; past that an aggregate
**      folds on the CPU itself rather than hold more pinned memory.
**   4. The mode starts from the environment: GPUAGG_BACKEND=cpu|cuda|auto.
**   5. One failure policy for every device operation (ga_device_failed):
**      the error becomes gpuagg_info()'s last_error; in 'cuda' mode it is
**      the query's error, otherwise the CPU answers instead, counted in
**      gpuagg_info()'s fallbacks.
**   6. The modules that keep state per connection own it (gpuagg.h holds
**      only their handles) and free it: each, when it first makes its
**      state, registers the function that frees it (ga_conn_on_free), and
**      freeing the connection's state runs those, the latest first. So
**      conn.c calls no module above it: the wal-indexes the page source
**      saw (source/snap.c), the source each function used last and the
**      SOURCEs resolved (source/open.c, source/table.c), what the
**      table-valued functions and gpu_query tell gpuagg_info()
**      (tvf/tvf.c, query/vtab.c), statements' windows (agg/winsense.c),
**      the column cache (source/cache.c, made at the load).
**   7. A connection that has the module (a load registered everything on
**      it) is listed, process-wide, until its state is freed with it: a
**      second load on it (.load again, SELECT load_extension()) finds it
**      and does nothing, so it keeps its settings and kept columns and
**      replaces no function a running statement may be using. A closed
**      connection's address, reused by a new one, is never found: the state
**      leaves the list before SQLite frees the connection.
*/
#include <assert.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "gpuagg.h"

static const char *azMode[] = { "auto", "cpu", "cuda" };

/* Requirement 7: the states of connections that have the module. Loads and
** closes on different connections run in different threads at once, so
** the list has a lock of its own. */
static pthread_mutex_t loadedMu = PTHREAD_MUTEX_INITIALIZER;
static ga_conn *pLoaded = 0;

int ga_conn_has(sqlite3 *db){
  ga_conn *p;
  pthread_mutex_lock(&loadedMu);
  for(p=pLoaded; p && p->db!=db; p=p->pNextLoaded){}
  pthread_mutex_unlock(&loadedMu);
  return p!=0;
}

void ga_conn_loaded(ga_conn *c, sqlite3 *db){
  pthread_mutex_lock(&loadedMu);
  c->db = db;
  c->pNextLoaded = pLoaded;
  pLoaded = c;
  pthread_mutex_unlock(&loadedMu);
}

/* c leaves the list (if it is there): it is being freed. */
static void connUnlist(ga_conn *c){
  ga_conn **pp;
  pthread_mutex_lock(&loadedMu);
  for(pp=&pLoaded; *pp && *pp!=c; pp=&(*pp)->pNextLoaded){}
  if( *pp ) *pp = c->pNextLoaded;
  pthread_mutex_unlock(&loadedMu);
}

const char *ga_mode_name(int mode){ return azMode[mode]; }

int ga_mode_parse(const char *z){
  int i;
  for(i=0; z && i<(int)(sizeof(azMode)/sizeof(azMode[0])); i++){
    if( sqlite3_stricmp(z, azMode[i])==0 ) return i;
  }
  return -1;
}

/* A quarter of the host's memory, at most GA_RESIDENT_MAX: what a
** histogram may keep (on the device, or in host memory for the CPU) rather
** than scan its column twice. */
static int64_t residentDefault(void){
  long pages = sysconf(_SC_PHYS_PAGES), size = sysconf(_SC_PAGESIZE);
  int64_t q = pages>0 && size>0 ? (int64_t)pages*size/4 : GA_RESIDENT_MAX;
  return q < GA_RESIDENT_MAX ? q : GA_RESIDENT_MAX;
}

/* The host's cores, at most GA_THREADS_MAX: threads decoding pages. */
static int threadsDefault(void){
  long n = sysconf(_SC_NPROCESSORS_ONLN);
  return n<1 ? 1 : n>GA_THREADS_MAX ? GA_THREADS_MAX : (int)n;
}

ga_conn *ga_conn_new(char **pzErr){
  const char *zEnv = getenv("GPUAGG_BACKEND");
  int mode = GA_AUTO;
  ga_conn *c;
  if( zEnv && zEnv[0] && (mode = ga_mode_parse(zEnv))<0 ){
    *pzErr = sqlite3_mprintf(
        "gpuagg: GPUAGG_BACKEND is \"%s\"; it must be cpu, cuda or auto", zEnv);
    return 0;
  }
  c = sqlite3_malloc(sizeof(*c));
  if( c==0 ){
    *pzErr = sqlite3_mprintf("gpuagg: out of memory");
    return 0;
  }
  memset(c, 0, sizeof(*c));
  c->mode = mode;
  c->chunk = GA_CHUNK_DEFAULT;
  c->threshold = GA_THRESHOLD_DEFAULT;
  c->resident = residentDefault();
  c->pages = 1;
  c->map = 1;
  c->qkept = -1;
  c->threads = threadsDefault();
  return c;
}

static void slotDestroy(ga_conn *c, ga_slot *s){
  s->be->xClose(s);
  ga_free(s->aux);
  free(s->stat);
  ga_free(s);
  c->nSlot--;
}

void ga_conn_unref(void *p){
  ga_conn *c = (ga_conn*)p;
  int last;
  if( --c->nRef>0 ) return;
  connUnlist(c);
  while( c->nForget>0 ) c->axForget[--c->nForget](c);
  while( c->pIdle ){
    ga_slot *s = c->pIdle;
    c->pIdle = s->next;
    slotDestroy(c, s);
  }
  ga_free(c);
  pthread_mutex_lock(&loadedMu);
  last = pLoaded==0;
  pthread_mutex_unlock(&loadedMu);
  if( last ) ga_device_idle();        /* (the device's counts are none then: cuda.c, 6) */
}

void ga_conn_on_free(ga_conn *c, void (*xForget)(ga_conn*)){
  int i;
  for(i=0; i<c->nForget; i++) if( c->axForget[i]==xForget ) return;
  assert( c->nForget<GA_CONN_OWNERS );
  c->axForget[c->nForget++] = xForget;
}

/* The backend a new pipeline uses, or NULL with the reason in zErr. */
const ga_backend *ga_conn_backend(ga_conn *c, char *zErr){
  char zWhy[GA_ERRLEN];
  if( c->mode==GA_CPU ) return &ga_cpu_backend;
  if( ga_device_usable(zWhy) ) return ga_device_backend();
  if( c->mode==GA_AUTO ) return &ga_cpu_backend;
  sqlite3_snprintf(GA_ERRLEN, zErr, "gpuagg: CUDA backend unavailable: %s", zWhy);
  return 0;
}

int ga_device_failed(ga_conn *c, const char *zErr){
  if( zErr!=c->stats.zLastErr ) sqlite3_snprintf(GA_ERRLEN, c->stats.zLastErr, "%s", zErr);
  if( c->mode==GA_CUDA ) return 1;
  c->stats.nFallback++;
  return 0;
}

ga_slot *ga_pool_take(ga_conn *c, const ga_backend *be, char *zErr){
  ga_slot **pp = &c->pIdle, *s;
  zErr[0] = 0;
  while( (s = *pp)!=0 ){
    if( s->be==be && s->cap==c->chunk && s->nDev==c->devices ){
      *pp = s->next;
      s->next = 0;
      be->xReady(s);
      return s;
    }
    *pp = s->next;
    slotDestroy(c, s);
  }
  if( c->nSlot>=GA_MAX_SLOTS ) return 0;
  s = sqlite3_malloc(sizeof(*s));
  if( s==0 ) return 0;
  memset(s, 0, sizeof(*s));
  s->be = be;
  s->cap = c->chunk;
  s->stats = &c->stats;
  s->nDev = c->devices;
  if( be->xOpen(s, zErr) ){
    be->xClose(s);
    ga_free(s);
    return 0;
  }
  c->nSlot++;
  return s;
}

void ga_pool_give(ga_conn *c, ga_slot *s){
  if( s->bad || s->cap!=c->chunk || s->nDev!=c->devices ){
    slotDestroy(c, s);
    return;
  }
  s->next = c->pIdle;
  c->pIdle = s;
}
