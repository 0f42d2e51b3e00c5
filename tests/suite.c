/*
** The differential suites' shared machinery: see suite.h.
*/
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>
#include "suite.h"

const char *g_backend = "cpu";

sqlite3 *s_open(int chunk, int64_t threshold){
  char *zErr = 0;
  sqlite3 *db = h_open(&zErr);
  ck_assert_msg(db!=0, "cannot load the module: %s", zErr ? zErr : "?");
  EXEC(db, "SELECT gpuagg_backend('%s')", g_backend);
  EXEC(db, "SELECT gpuagg_config('chunk', %d), gpuagg_config('threshold', %lld)", chunk, (long long)threshold);
  return db;
}

void s_expect_device(sqlite3 *db, const char *zWhat){
  if( strcmp(g_backend, "cuda")==0 ){
    int64_t n = h_int(db, "SELECT json_extract(gpuagg_info(), '$.chunks_flushed')");
    CHECK(n>0, "%s: no chunk reached the device", zWhat);
  }
}

void s_expect_pool_idle(sqlite3 *db){
  char *z = h_text(db, "SELECT json_extract(gpuagg_info(), '$.slots') || '/' || json_extract(gpuagg_info(), '$.idle_slots')");
  const char *slash = z ? strchr(z, '/') : 0;
  CHECK(slash && atoi(z)==atoi(slash+1), "slots in use after the statements ended: %s", z ? z : "?");
  free(z);
}

void s_dir_make(char *z, const char *zTag){
  snprintf(z, 64, "/tmp/gpuagg-%s-XXXXXX", zTag);
  ck_assert_msg(mkdtemp(z)!=0, "mkdtemp %s", z);
}

void s_dir_drop(const char *z){
  char zCmd[128];
  snprintf(zCmd, sizeof(zCmd), "rm -rf '%s'", z);
  if( system(zCmd)!=0 ) fprintf(stderr, "cannot remove %s\n", z);
}

sqlite3 *s_open_plain(const char *zFile){
  sqlite3 *db = 0;
  ck_assert_msg(sqlite3_open(zFile, &db)==SQLITE_OK, "open %s", zFile);
  sqlite3_busy_timeout(db, 5000);
  return db;
}

char *s_render(sqlite3 *db, const char *zSql){
  sqlite3_stmt *st;
  sqlite3_str *out = sqlite3_str_new(0);
  char *z, *r;
  int rc, i;
  if( sqlite3_prepare_v2(db, zSql, -1, &st, 0)!=SQLITE_OK ){
    sqlite3_str_appendf(out, "error: %s", sqlite3_errmsg(db));
  }else{
    while( (rc = sqlite3_step(st))==SQLITE_ROW ){
      for(i=0; i<sqlite3_column_count(st); i++){
        switch( sqlite3_column_type(st, i) ){
          case SQLITE_INTEGER: sqlite3_str_appendf(out, "i%lld ", (long long)sqlite3_column_int64(st, i)); break;
          case SQLITE_FLOAT: {
            double x = sqlite3_column_double(st, i);
            unsigned long long b;
            memcpy(&b, &x, sizeof(b));
            sqlite3_str_appendf(out, "r%llx ", b);
            break;
          }
          case SQLITE_NULL: sqlite3_str_appendall(out, "n "); break;
          default: sqlite3_str_appendf(out, "t%s ", (const char*)sqlite3_column_text(st, i)); break;
        }
      }
      sqlite3_str_appendchar(out, 1, '|');
    }
    if( rc!=SQLITE_DONE ) sqlite3_str_appendf(out, "error: %s", sqlite3_errmsg(db));
  }
  sqlite3_finalize(st);
  z = sqlite3_str_finish(out);
  r = strdup(z ? z : "");
  sqlite3_free(z);
  return r;
}

int s_same_cells(sqlite3_stmt *a, int i, sqlite3_stmt *b, int j){
  int t = sqlite3_column_type(a, i);
  if( t!=sqlite3_column_type(b, j) ) return 0;
  switch( t ){
    case SQLITE_INTEGER: return sqlite3_column_int64(a, i)==sqlite3_column_int64(b, j);
    case SQLITE_FLOAT: {
      double x = sqlite3_column_double(a, i), y = sqlite3_column_double(b, j);
      return memcmp(&x, &y, sizeof(x))==0;
    }
    case SQLITE_TEXT: case SQLITE_BLOB: {
      const void *x = t==SQLITE_TEXT ? (const void*)sqlite3_column_text(a, i) : sqlite3_column_blob(a, i);
      const void *y = t==SQLITE_TEXT ? (const void*)sqlite3_column_text(b, j) : sqlite3_column_blob(b, j);
      int n = sqlite3_column_bytes(a, i);
      return n==sqlite3_column_bytes(b, j) && (n==0 || memcmp(x, y, n)==0);
    }
  }
  return 1;
}

int s_is_double(sqlite3_stmt *st, int i, double x){
  double y;
  if( x!=x ) return sqlite3_column_type(st, i)==SQLITE_NULL;
  if( sqlite3_column_type(st, i)!=SQLITE_FLOAT ) return 0;
  y = sqlite3_column_double(st, i);
  return memcmp(&x, &y, sizeof(x))==0;
}

void s_expect_errors(sqlite3 *db, const s_error *a, int n){
  int i;
  for(i=0; i<n; i++){
    h_val r = h_query(db, "%s", a[i].zSql);
    CHECK(r.rc!=SQLITE_OK && strstr(r.zErr, a[i].zErr), "%s: got \"%s\", want \"%s\"", a[i].zSql,
          r.rc==SQLITE_OK ? "no error" : r.zErr, a[i].zErr);
  }
}

static int stopNow(void *p){ (void)p; return 1; }

void s_expect_interrupt(sqlite3 *db, const char *zSql, int k){
  h_val r;
  sqlite3_progress_handler(db, 1000 + 50000*k, stopNow, 0);
  r = h_query(db, "%s", zSql);
  sqlite3_progress_handler(db, 0, 0, 0);
  CHECK(r.rc==SQLITE_INTERRUPT, "%s, interrupt %d: rc %d (%s)", zSql, k, r.rc, r.zErr);
  s_expect_pool_idle(db);
}

int s_same_cell(sqlite3_stmt *st, int i, int j){ return s_same_cells(st, i, st, j); }

static int runPass(Suite *(*make)(void), const char *zBackend){
  SRunner *sr;
  int nFail;
  g_backend = zBackend;
  sr = srunner_create(make());
  srunner_run_all(sr, CK_NORMAL);
  nFail = srunner_ntests_failed(sr);
  srunner_free(sr);
  return nFail;
}

/* Ask, in a child process, whether CUDA is usable: the parent must not
** initialize CUDA, or the forked tests could not use it. */
static int cudaUsable(void){
  int fd[2], status = 0;
  char zWhy[600] = {0};
  pid_t pid;
  if( pipe(fd) ) return 0;
  if( (pid = fork())==0 ){
    char *zErr = 0;
    const char *zWhyChild = "cannot load the module";
    sqlite3 *db = h_open(&zErr);
    int ok = db && h_cuda_usable(db, &zWhyChild);
    if( !ok && write(fd[1], zWhyChild, strlen(zWhyChild))<0 ) ok = 0;
    _exit(ok ? 0 : 1);
  }
  close(fd[1]);
  if( read(fd[0], zWhy, sizeof(zWhy)-1)<0 ) zWhy[0] = 0;
  close(fd[0]);
  waitpid(pid, &status, 0);
  if( WIFEXITED(status) && WEXITSTATUS(status)==0 ) return 1;
  printf("CUDA suites skipped: %s\n", zWhy);
  return 0;
}

int s_main(Suite *(*make)(void)){
  const char *zOnly = getenv("GPUAGG_TEST_ONLY");
  int cpu = !zOnly || strcmp(zOnly, "cpu")==0;
  int cuda = !zOnly || strcmp(zOnly, "cuda")==0;
  int nFail = 0;
  h_seed_init();
  if( cpu ) nFail += runPass(make, "cpu");
  if( cuda && cudaUsable() ){
    nFail += runPass(make, "cuda");
  }else if( cuda && getenv("GPUAGG_TEST_REQUIRE_CUDA") ){
    printf("GPUAGG_TEST_REQUIRE_CUDA is set and CUDA is not usable\n");
    nFail++;
  }
  if( nFail ) printf("FAILED: %d (reproduce with GPUAGG_SEED=%llu)\n", nFail, (unsigned long long)h_seed);
  return nFail ? 1 : 0;
}
