/*
** The shared test and benchmark harness: see harness.h.
*/
#define _GNU_SOURCE
#include <dlfcn.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include "harness.h"

uint64_t h_seed;
char h_errmsg[512];

void h_seed_init(void){
  const char *z = getenv("GPUAGG_SEED");
  if( z && z[0] ){
    h_seed = strtoull(z, 0, 0);
  }else{
    struct timespec ts;
    clock_gettime(CLOCK_REALTIME, &ts);
    h_seed = ((uint64_t)ts.tv_sec*1000000007ull) ^ (uint64_t)ts.tv_nsec ^ ((uint64_t)getpid()<<32);
  }
  printf("seed: GPUAGG_SEED=%llu\n", (unsigned long long)h_seed);
  fflush(stdout);
}

/* ---- random numbers ------------------------------------------------------ */

static uint64_t splitmix(uint64_t *x){
  uint64_t z = (*x += 0x9e3779b97f4a7c15ull);
  z = (z ^ (z>>30)) * 0xbf58476d1ce4e5b9ull;
  z = (z ^ (z>>27)) * 0x94d049bb133111ebull;
  return z ^ (z>>31);
}

void h_rng_init(h_rng *r, uint64_t seed){
  int i;
  for(i=0; i<4; i++) r->s[i] = splitmix(&seed);
}

static uint64_t rotl(uint64_t x, int k){ return (x<<k) | (x>>(64-k)); }

uint64_t h_next(h_rng *r){
  uint64_t *s = r->s;
  uint64_t out = rotl(s[1]*5, 7)*9, t = s[1]<<17;
  s[2] ^= s[0]; s[3] ^= s[1]; s[1] ^= s[2]; s[0] ^= s[3];
  s[2] ^= t; s[3] = rotl(s[3], 45);
  return out;
}

int64_t h_range(h_rng *r, int64_t lo, int64_t hi){
  uint64_t span = (uint64_t)hi - (uint64_t)lo;
  if( span==UINT64_MAX ) return (int64_t)h_next(r);
  return (int64_t)((uint64_t)lo + h_next(r) % (span+1));
}

double h_unit(h_rng *r){ return (double)(h_next(r)>>11) * 0x1p-53; }

/* ---- connections and statements ------------------------------------------- */

sqlite3 *h_open_file(const char *zFile, char **pzErr){
  const char *zModule = getenv("GPUAGG_MODULE");
  sqlite3 *db = 0;
  *pzErr = 0;
  if( sqlite3_open_v2(zFile, &db, SQLITE_OPEN_READWRITE|SQLITE_OPEN_CREATE|SQLITE_OPEN_URI, 0)!=SQLITE_OK ){
    *pzErr = sqlite3_mprintf("open %s: %s", zFile, sqlite3_errmsg(db));
    sqlite3_close(db);
    return 0;
  }
  sqlite3_db_config(db, SQLITE_DBCONFIG_ENABLE_LOAD_EXTENSION, 1, (int*)0);
  if( sqlite3_load_extension(db, zModule ? zModule : "./libgpuagg", 0, pzErr)!=SQLITE_OK ){
    sqlite3_close(db);
    return 0;
  }
  if( getenv("GPUAGG_TEST_DEVICES") && h_exec(db, "SELECT gpuagg_config('devices', %d)",
                                               atoi(getenv("GPUAGG_TEST_DEVICES")))!=SQLITE_OK ){
    *pzErr = sqlite3_mprintf("GPUAGG_TEST_DEVICES: %s", h_errmsg);
    sqlite3_close(db);
    return 0;
  }
  return db;
}

sqlite3 *h_open(char **pzErr){ return h_open_file(":memory:", pzErr); }

static sqlite3_stmt *prepare(sqlite3 *db, const char *zFmt, va_list ap){
  char *zSql = sqlite3_vmprintf(zFmt, ap);
  sqlite3_stmt *st = 0;
  if( sqlite3_prepare_v2(db, zSql, -1, &st, 0)!=SQLITE_OK ){
    snprintf(h_errmsg, sizeof(h_errmsg), "%s [in: %.300s]", sqlite3_errmsg(db), zSql);
  }
  sqlite3_free(zSql);
  return st;
}

int h_exec(sqlite3 *db, const char *zFmt, ...){
  va_list ap;
  char *zSql, *zErr = 0;
  int rc;
  va_start(ap, zFmt);
  zSql = sqlite3_vmprintf(zFmt, ap);
  va_end(ap);
  rc = sqlite3_exec(db, zSql, 0, 0, &zErr);
  if( rc!=SQLITE_OK ){
    snprintf(h_errmsg, sizeof(h_errmsg), "%s [in: %.300s]", zErr ? zErr : "?", zSql);
  }
  sqlite3_free(zErr);
  sqlite3_free(zSql);
  return rc;
}

int64_t h_int(sqlite3 *db, const char *zFmt, ...){
  va_list ap;
  sqlite3_stmt *st;
  int64_t v = 0;
  va_start(ap, zFmt);
  st = prepare(db, zFmt, ap);
  va_end(ap);
  if( st && sqlite3_step(st)==SQLITE_ROW ) v = sqlite3_column_int64(st, 0);
  sqlite3_finalize(st);
  return v;
}

char *h_text(sqlite3 *db, const char *zFmt, ...){
  va_list ap;
  sqlite3_stmt *st;
  char *z = 0;
  va_start(ap, zFmt);
  st = prepare(db, zFmt, ap);
  va_end(ap);
  if( st && sqlite3_step(st)==SQLITE_ROW && sqlite3_column_text(st, 0) ){
    z = strdup((const char*)sqlite3_column_text(st, 0));
  }
  sqlite3_finalize(st);
  return z;
}

h_val h_query(sqlite3 *db, const char *zFmt, ...){
  va_list ap;
  sqlite3_stmt *st;
  h_val v;
  memset(&v, 0, sizeof(v));
  va_start(ap, zFmt);
  st = prepare(db, zFmt, ap);
  va_end(ap);
  if( st==0 ){
    v.rc = SQLITE_ERROR;
    snprintf(v.zErr, sizeof(v.zErr), "%s", h_errmsg);
    return v;
  }
  v.rc = sqlite3_step(st);
  if( v.rc==SQLITE_ROW ){
    v.rc = SQLITE_OK;
    v.type = sqlite3_column_type(st, 0);
    v.i = sqlite3_column_int64(st, 0);
    v.r = sqlite3_column_double(st, 0);
  }else{
    snprintf(v.zErr, sizeof(v.zErr), "%s", sqlite3_errmsg(db));
  }
  sqlite3_finalize(st);
  return v;
}

int h_cuda_usable(sqlite3 *db, const char **pzWhy){
  static char zWhy[512];
  h_val v = h_query(db, "SELECT gpuagg_backend('cuda')");
  if( v.rc==SQLITE_OK ) return 1;
  snprintf(zWhy, sizeof(zWhy), "%s", v.zErr);
  *pzWhy = zWhy;
  return 0;
}

/* ---- exact reference sums --------------------------------------------------- */

void h_exact_init(h_exact *e){ memset(e, 0, sizeof(*e)); }

/* Shewchuk's exact accumulation into non-overlapping partials (msum). */
static void partialsAdd(double *p, int *pn, double x){
  int i = 0, j;
  for(j=0; j<*pn; j++){
    double y = p[j], hi, lo;
    if( fabs(x)<fabs(y) ){ double t = x; x = y; y = t; }
    hi = x + y;
    lo = y - (hi - x);
    if( lo!=0.0 ) p[i++] = lo;
    x = hi;
  }
  if( !isfinite(x) ){
    fprintf(stderr, "harness: reference sum overflowed (seed %llu)\n", (unsigned long long)h_seed);
    abort();
  }
  p[i] = x;
  *pn = i+1;
}

void h_exact_add(h_exact *e, sqlite3_value *col){
  sqlite3_value *v = sqlite3_value_dup(col);
  int t = sqlite3_value_numeric_type(v);
  if( t==SQLITE_INTEGER ){
    int64_t i = sqlite3_value_int64(v);
    e->isum += i;
    e->nInt++;
    e->absSum += fabs((double)i);
  }else if( t!=SQLITE_NULL ){
    double r = sqlite3_value_double(v);
    e->nReal++;
    if( isinf(r) ){
      if( r>0 ) e->posInf = 1; else e->negInf = 1;
    }else{
      partialsAdd(e->part, &e->np, r);
      e->absSum += fabs(r);
    }
  }
  sqlite3_value_free(v);
}

double h_exact_value(const h_exact *e){
  double p[sizeof(e->part)/sizeof(e->part[0]) + 4], hi = 0.0, lo = 0.0, x, y, yr;
  int n = e->np, k;
  unsigned __int128 u = e->isum<0 ? -(unsigned __int128)e->isum : (unsigned __int128)e->isum;
  double sgn = e->isum<0 ? -1.0 : 1.0;
  if( e->posInf && e->negInf ) return NAN;
  if( e->posInf ) return INFINITY;
  if( e->negInf ) return -INFINITY;
  memcpy(p, e->part, sizeof(double)*n);
  /* The integer total, as three exactly representable pieces. */
  for(k=2; k>=0; k--){
    uint64_t piece = (uint64_t)(u >> (43*k)) & ((1ull<<43)-1);
    partialsAdd(p, &n, sgn*ldexp((double)piece, 43*k));
  }
  /* Round the partials to nearest, ties to even (CPython's math.fsum). */
  if( n>0 ){
    hi = p[--n];
    while( n>0 ){
      x = hi; y = p[--n];
      hi = x + y; yr = hi - x; lo = y - yr;
      if( lo!=0.0 ) break;
    }
    if( n>0 && ((lo<0.0 && p[n-1]<0.0) || (lo>0.0 && p[n-1]>0.0)) ){
      y = lo*2.0; x = hi + y; yr = x - hi;
      if( y==yr ) hi = x;
    }
  }
  return hi;
}

/* ---- CUDA context, asked of the driver directly ------------------------------ */

int h_cuda_context_active(void){
  typedef int (*InitFn)(unsigned);
  typedef int (*GetFn)(int*, int);
  typedef int (*StateFn)(int, unsigned*, int*);
  void *h = dlopen("libcuda.so.1", RTLD_NOW|RTLD_NOLOAD);
  InitFn init; GetFn get; StateFn state;
  int dev, active = 0;
  unsigned flags;
  if( h==0 ) return 0;   /* the driver was never loaded: no context */
  init = (InitFn)dlsym(h, "cuInit");
  get = (GetFn)dlsym(h, "cuDeviceGet");
  state = (StateFn)dlsym(h, "cuDevicePrimaryCtxGetState");
  if( !init || !get || !state || init(0) || get(&dev, 0) || state(dev, &flags, &active) ) active = -1;
  dlclose(h);
  return active;
}

int h_libcuda_loaded(void){
  FILE *f = fopen("/proc/self/maps", "r");
  char line[1024];
  int found = 0;
  if( f==0 ) return -1;
  while( !found && fgets(line, sizeof(line), f) ) found = strstr(line, "libcuda.so")!=0;
  fclose(f);
  return found;
}

double h_now(void){
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return ts.tv_sec + ts.tv_nsec*1e-9;
}

int64_t h_rss_bytes(void){
  long pages = 0, res = 0;
  FILE *f = fopen("/proc/self/statm", "r");
  if( f ){
    if( fscanf(f, "%ld %ld", &pages, &res)!=2 ) res = 0;
    fclose(f);
  }
  return (int64_t)res*sysconf(_SC_PAGESIZE);
}

int h_peak_reset(void){
  FILE *f = fopen("/proc/self/clear_refs", "w");   /* "5": reset the peak RSS */
  int rc = f==0 || fputs("5", f)<0;
  if( f && fclose(f)!=0 ) rc = 1;
  return rc;
}

int64_t h_peak_bytes(void){
  char zLine[256];
  long kb = 0;
  FILE *f = fopen("/proc/self/status", "r");
  while( f && fgets(zLine, sizeof(zLine), f) ){
    if( sscanf(zLine, "VmHWM: %ld kB", &kb)==1 ) break;
  }
  if( f ) fclose(f);
  return (int64_t)kb*1024;
}

void h_bench_table(sqlite3 *db, const char *zName, int64_t n){
  double t0 = h_now();
  if( h_int(db, "SELECT count(*) FROM sqlite_schema WHERE name='p'") && h_int(db, "SELECT count(*) FROM p")==n ) return;
  h_exec(db, "DROP TABLE IF EXISTS p; CREATE TABLE p(k INTEGER, g INTEGER, x REAL, y INTEGER, z REAL);"
             "WITH RECURSIVE s(i) AS (VALUES(0) UNION ALL SELECT i+1 FROM s WHERE i<%lld) "
             "INSERT INTO p SELECT i*2654435761 %% 256, i*2654435761 %% 100000, (i*40503 %% 2000001) - 1000000.25,"
             " i*7 - 3000000, CASE WHEN i%%10=0 THEN NULL ELSE i*0.5 END FROM s", (long long)n - 1);
  fprintf(stderr, "# %s: %lld rows in %.1f s\n", zName, (long long)n, h_now() - t0);
}

int h_utf8(const char *zIn){
  const unsigned char *z = (const unsigned char*)zIn;
  while( *z ){
    unsigned c = *z, u;
    int k, need = c<0x80 ? 0 : c>=0xC2 && c<0xE0 ? 1 : c>=0xE0 && c<0xF0 ? 2 : c>=0xF0 && c<0xF5 ? 3 : -1;
    if( need<0 ) return 0;
    u = need ? c & (0x3F >> need) : c;
    for(k=1; k<=need; k++){
      if( (z[k] & 0xC0)!=0x80 ) return 0;
      u = (u<<6) | (z[k] & 0x3F);
    }
    if( (need==2 && (u<0x800 || (u>=0xD800 && u<0xE000))) || (need==3 && (u<0x10000 || u>0x10FFFF)) ) return 0;
    z += need + 1;
  }
  return 1;
}
