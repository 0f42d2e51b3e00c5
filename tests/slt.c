/*
** SQLite's sqllogictest corpus through gpu_query: every query record of
** the corpus run by SQLite and through a gpu_query table on the same
** connection, the two answers compared exactly.
**
**   1. The corpus: GPUAGG_SLT_DIR, else ../shared/sqllogictest beside the
**      project's root (GPUAGG_SRCDIR, which make check sets): select1-5.test
**      and the .test files of evidence/, or the files named as arguments. Where it is
**      absent the run says so and exits 77 (automake's SKIP).
**   2. Records as the format gives them (its README.txt): statements run by
**      SQLite; skipif / onlyif as SQLite's own runner reads them; halt;
**      hash-threshold.
**   3. Each query: SQLite's rows, then those of CREATE VIRTUAL TABLE
**      temp.slt_q USING gpu_query((SQL)) read once, compared as rows.h
**      renders them (storage classes, integers, the REALs' bits, bytes), in
**      order where the SELECT has ORDER BY at its top level (the engine
**      gives SQLite's order), else as sorted lists. An error of both is the
**      same answer; gpu_query failing where SQLite answers is an error.
**   4. SQLite's answers are checked against the file's too (its formats:
**      %d, %.3f, "(empty)", NULL, each value a line or their MD5): a runner
**      that misread records would not reproduce the corpus. SQLite's
**      versions differ in a few (SQLite 3.40's sum() past int64 with REALs
**      in evidence/slt_lang_aggfunc.test): more than 1% fails the run.
**   5. Each file runs on a fresh database file, once per encoding
**      (GPUAGG_SLT_ENCODINGS: a comma-separated list of UTF-8, UTF-16le,
**      UTF-16be; all three by default): the engine must compare TEXT as
**      the file's encoding orders it.
**   5a. The CPU backend, or GPUAGG_SLT_BACKEND's ('auto', 'cuda').
**   6. A line per file and encoding: queries, wrong answers, errors, the
**      engine's share (reads gpuagg_info counts on its path), SQLite's
**      answers that differ from the file; the first differences with their
**      SQL; with GPUAGG_SLT_WHY, the commonest reasons reads went through
**      SQLite. Exit 1 on any wrong answer, error or difference from the file.
*/
#define _GNU_SOURCE                /* qsort_r, strcasestr, asprintf */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <unistd.h>
#include <dirent.h>
#include <sys/stat.h>
#include "harness.h"
#include "rows.h"
#include "md5.h"

#define SHOW_MAX 5                 /* differences shown per file and encoding */
#define WHY_MAX 32                 /* reasons counted per file and encoding */

typedef struct Tally {
  int nQuery;                      /* query records run */
  int nWrong;                      /* gpu_query's answer not SQLite's */
  int nError;                      /* gpu_query failed where SQLite answered */
  int nEngine;                     /* reads the engine answered */
  int nFile;                       /* SQLite's answer not the file's */
  int nRefused;                    /* SQLite failed where the file has values (its limits: 64
                                   ** tables a join, an integer overflow) */
  int nStmt;                       /* statements whose outcome is not the file's */
  int nShown;                      /* differences printed */
  struct { char z[96]; int n; } aWhy[WHY_MAX];  /* GPUAGG_SLT_WHY: why reads went through SQLite */
  int nWhy;
} Tally;

/* ---- the file's format ------------------------------------------------------------------ */

/* The next line of *pz (its end cut at \r\n or \n), or NULL at the end. */
static char *nextLine(char **pz){
  char *z = *pz, *e;
  if( *z==0 ) return 0;
  e = strchr(z, '\n');
  if( e ){ *e = 0; *pz = e + 1; }else{ *pz = z + strlen(z); }
  e = z + strlen(z);
  while( e>z && (e[-1]=='\r' || e[-1]==' ' || e[-1]=='\t') ) *--e = 0;
  return z;
}

/* Does a condition line (skipif DB / onlyif DB) leave the record to SQLite? */
static int applies(const char *zLine, int *pSkip){
  char zDb[32] = "";
  if( sscanf(zLine, "skipif %31s", zDb)==1 ){ if( strcmp(zDb, "sqlite")==0 ) *pSkip = 1; return 1; }
  if( sscanf(zLine, "onlyif %31s", zDb)==1 ){ if( strcmp(zDb, "sqlite")!=0 ) *pSkip = 1; return 1; }
  return 0;
}

/* ---- SQLite's answer as the file writes it ------------------------------------------------ */

typedef struct Vals { char **az; int n, nAlloc; } Vals;

static void valsAdd(Vals *v, char *z){
  if( v->n==v->nAlloc ){
    v->nAlloc = v->nAlloc ? 2*v->nAlloc : 64;
    v->az = realloc(v->az, sizeof(char*)*(size_t)v->nAlloc);
  }
  v->az[v->n++] = z;
}
static void valsFree(Vals *v){
  int i;
  for(i=0; i<v->n; i++) free(v->az[i]);
  free(v->az);
  memset(v, 0, sizeof(*v));
}

/* One value in the format's text: NULL, %d, %.3f, TEXT with "(empty)" for
** nothing and '@' for each byte outside ' '..'~'. */
static char *valText(sqlite3_stmt *st, int i, char type){
  char *z;
  if( sqlite3_column_type(st, i)==SQLITE_NULL ) return strdup("NULL");
  if( type=='I' ){
    if( asprintf(&z, "%lld", (long long)sqlite3_column_int64(st, i))<0 ) z = 0;
  }else if( type=='R' ){
    char *y = sqlite3_mprintf("%.3f", sqlite3_column_double(st, i));   /* (SQLite's printf: 16 digits) */
    z = y ? strdup(y) : 0;
    sqlite3_free(y);
  }else{
    const unsigned char *t = sqlite3_column_text(st, i);
    int k;
    if( t==0 || t[0]==0 ) return strdup("(empty)");
    z = strdup((const char*)t);
    for(k=0; z[k]; k++) if( z[k]<' ' || z[k]>'~' ) z[k] = '@';
  }
  return z;
}

static int cmpRow(const void *a, const void *b, void *nCol){
  const char *const *x = a, *const *y = b;
  int i, c;
  for(i=0; i<*(int*)nCol; i++) if( (c = strcmp(x[i], y[i]))!=0 ) return c;
  return 0;
}

/* SQLite's answer to zSql in the file's form (sorted as zSort says) into v;
** 0, or 1 where it failed (the file then has no values, or other
** versions' answer). */
static int fileAnswer(sqlite3 *db, const char *zSql, const char *zTypes, const char *zSort, Vals *v){
  sqlite3_stmt *st = 0;
  int nCol = (int)strlen(zTypes), rc, i;
  if( sqlite3_prepare_v2(db, zSql, -1, &st, 0)!=SQLITE_OK ) return 1;
  while( (rc = sqlite3_step(st))==SQLITE_ROW ){
    for(i=0; i<nCol; i++) valsAdd(v, valText(st, i, zTypes[i]));
  }
  sqlite3_finalize(st);
  if( rc!=SQLITE_DONE ) return 1;
  if( strcmp(zSort, "rowsort")==0 && nCol>0 ){
    qsort_r(v->az, (size_t)(v->n/nCol), sizeof(char*)*(size_t)nCol, cmpRow, &nCol);
  }else if( strcmp(zSort, "valuesort")==0 ){
    int one = 1;
    qsort_r(v->az, (size_t)v->n, sizeof(char*), cmpRow, &one);
  }
  return 0;
}

/* Is v what the file expects: the values a line each (aExp), or "N values
** hashing to H" past the threshold? */
static int fileAgrees(const Vals *v, char **aExp, int nExp){
  char zHash[33], zLine[96];
  int i;
  if( nExp==1 && strstr(aExp[0], " values hashing to ") ){
    md5_ctx m;
    md5_init(&m);
    for(i=0; i<v->n; i++){
      md5_add(&m, v->az[i], strlen(v->az[i]));
      md5_add(&m, "\n", 1);
    }
    md5_hex(&m, zHash);
    snprintf(zLine, sizeof(zLine), "%d values hashing to %s", v->n, zHash);
    return strcmp(zLine, aExp[0])==0;
  }
  if( nExp!=v->n ) return 0;
  for(i=0; i<nExp; i++) if( strcmp(aExp[i], v->az[i]) ) return 0;
  return 1;
}

/* ---- one query ------------------------------------------------------------------------------ */

static int64_t engineReads(sqlite3 *db){
  return h_int(db, "SELECT json_extract(gpuagg_info(), '$.query.engine')");
}

static void showDiff(Tally *y, const char *zFile, int line, const char *zSql, const char *zWhat){
  if( y->nShown++>=SHOW_MAX ) return;
  printf("  %s:%d: %s\n    %.300s%s\n", zFile, line, zWhat, zSql, strlen(zSql)>300 ? "..." : "");
}

/* The reason the last read went through SQLite, counted (6.). */
static void noteWhy(sqlite3 *db, Tally *y){
  char *z = h_text(db, "SELECT json_extract(gpuagg_info(), '$.query.why[0]')"), zKey[96];
  int i;
  snprintf(zKey, sizeof(zKey), "%.60s", z ? z : "?");
  free(z);
  for(i=0; i<y->nWhy && strcmp(y->aWhy[i].z, zKey); i++){}
  if( i==y->nWhy ){
    if( i==WHY_MAX ) return;
    snprintf(y->aWhy[i].z, sizeof(y->aWhy[i].z), "%s", zKey);
    y->aWhy[i].n = 0;
    y->nWhy++;
  }
  y->aWhy[i].n++;
}

/* zSql through gpu_query against SQLite (requirement 3). */
static void runQuery(sqlite3 *db, Tally *y, const char *zFile, int line, const char *zSql){
  Rows want, got;
  char *zCreate, *zErr = 0;
  int64_t e0;
  int ordered = sqlOrdered(zSql);
  memset(&got, 0, sizeof(got));
  y->nQuery++;
  rowsOf(db, zSql, &want);
  zCreate = sqlite3_mprintf("CREATE VIRTUAL TABLE temp.slt_q USING gpu_query((%s))", zSql);
  if( sqlite3_exec(db, zCreate, 0, 0, &zErr)!=SQLITE_OK ){
    if( !want.zErr ){
      char *z = sqlite3_mprintf("gpu_query failed: %s", zErr ? zErr : "?");
      y->nError++;
      showDiff(y, zFile, line, zSql, z);
      sqlite3_free(z);
    }
    sqlite3_free(zErr);
    sqlite3_free(zCreate);
    rowsFree(&want);
    return;
  }
  sqlite3_free(zCreate);
  e0 = engineReads(db);
  rowsOf(db, "SELECT * FROM temp.slt_q", &got);
  if( engineReads(db)>e0 ) y->nEngine++;
  else if( getenv("GPUAGG_SLT_WHY") ) noteWhy(db, y);
  if( h_exec(db, "DROP TABLE temp.slt_q")!=SQLITE_OK ) fprintf(stderr, "%s\n", h_errmsg);
  if( got.zErr && !want.zErr ){
    char *z = sqlite3_mprintf("gpu_query failed: %s", got.zErr);
    y->nError++;
    showDiff(y, zFile, line, zSql, z);
    sqlite3_free(z);
  }else if( !rowsSame(&want, &got, ordered) ){
    char zGot[600], zWant[600], *z;
    rowsShow(zGot, sizeof(zGot), &got, &want, ordered);
    rowsShow(zWant, sizeof(zWant), &want, &got, ordered);
    z = sqlite3_mprintf("wrong answer%s\n    got  %s\n    want %s", ordered ? " (ordered)" : "", zGot, zWant);
    y->nWrong++;
    showDiff(y, zFile, line, zSql, z);
    sqlite3_free(z);
  }
  rowsFree(&want);
  rowsFree(&got);
}

/* ---- one file ------------------------------------------------------------------------------- */

static char *readAll(const char *zPath){
  FILE *f = fopen(zPath, "rb");
  char *z;
  long n;
  if( f==0 ) return 0;
  fseek(f, 0, SEEK_END);
  n = ftell(f);
  fseek(f, 0, SEEK_SET);
  z = malloc((size_t)n + 1);
  if( z && fread(z, 1, (size_t)n, f)!=(size_t)n ){ free(z); z = 0; }
  if( z ) z[n] = 0;
  fclose(f);
  return z;
}

/* The SQL of a record: its lines up to a blank one or "----" (joined by
** newlines) into a malloc'd string. */
static char *recordSql(char **pz, int *pLine, int *pDashes){
  char *zSql = 0, *zLine;
  size_t n = 0;
  *pDashes = 0;
  while( (zLine = nextLine(pz))!=0 ){
    size_t k = strlen(zLine);
    (*pLine)++;
    if( k==0 ) break;
    if( strcmp(zLine, "----")==0 ){ *pDashes = 1; break; }
    zSql = realloc(zSql, n + k + 2);
    if( n ) zSql[n++] = '\n';
    memcpy(zSql + n, zLine, k + 1);
    n += k;
  }
  return zSql ? zSql : strdup("");
}

/* Run file zPath (shown as zName) on a fresh database in encoding zEnc. */
static int runFile(const char *zPath, const char *zName, const char *zDir, const char *zEnc, Tally *y){
  char *zText = readAll(zPath), *z, *zLine, zDb[300], *zErr = 0;
  int line = 0, hashThreshold = 0;
  sqlite3 *db;
  if( zText==0 ){ printf("%s: cannot read it\n", zPath); return 1; }
  snprintf(zDb, sizeof(zDb), "%s/slt.db", zDir);
  unlink(zDb);
  if( (db = h_open_file(zDb, &zErr))==0 ){
    printf("%s: %s\n", zDb, zErr ? zErr : "cannot open");
    sqlite3_free(zErr);
    free(zText);
    return 1;
  }
  if( h_exec(db, "PRAGMA encoding='%s'", zEnc)!=SQLITE_OK
   || h_exec(db, "SELECT gpuagg_backend(%Q)", getenv("GPUAGG_SLT_BACKEND") ? getenv("GPUAGG_SLT_BACKEND") : "cpu")!=SQLITE_OK ){
    printf("%s\n", h_errmsg);
  }
  z = zText;
  while( (zLine = nextLine(&z))!=0 ){
    int skip = 0, dashes;
    line++;
    if( zLine[0]==0 || zLine[0]=='#' ) continue;
    while( applies(zLine, &skip) ){
      if( (zLine = nextLine(&z))==0 ) break;
      line++;
    }
    if( zLine==0 ) break;
    if( strcmp(zLine, "halt")==0 ){
      if( skip ) continue;
      break;
    }
    if( strncmp(zLine, "hash-threshold", 14)==0 ){
      hashThreshold = atoi(zLine + 14);
    }else if( strncmp(zLine, "statement", 9)==0 ){
      int at = line, wantOk = strstr(zLine, "ok")!=0;
      char *zSql = recordSql(&z, &line, &dashes);
      if( !skip ){
        int rc = sqlite3_exec(db, zSql, 0, 0, 0);
        if( (rc==SQLITE_OK)!=wantOk ){
          y->nStmt++;
          showDiff(y, zName, at, zSql, wantOk ? "the statement failed" : "the statement did not fail");
        }
      }
      free(zSql);
    }else if( strncmp(zLine, "query", 5)==0 ){
      char zTypes[256] = "", zSort[32] = "nosort", **aExp = 0, *zSql;
      int at = line, nExp = 0;
      sscanf(zLine, "query %255s %31s", zTypes, zSort);
      zSql = recordSql(&z, &line, &dashes);
      while( dashes && (zLine = nextLine(&z))!=0 ){
        line++;
        if( zLine[0]==0 ) break;
        aExp = realloc(aExp, sizeof(char*)*(size_t)(nExp + 1));
        aExp[nExp++] = zLine;
      }
      if( !skip ){
        Vals v;
        memset(&v, 0, sizeof(v));
        runQuery(db, y, zName, at, zSql);
        if( fileAnswer(db, zSql, zTypes, zSort, &v) ){
          y->nRefused += nExp>0;
        }else if( !fileAgrees(&v, aExp, nExp) ){
          y->nFile++;
          showDiff(y, zName, at, zSql, "SQLite's answer is not the file's");
        }
        valsFree(&v);
      }
      (void)hashThreshold;
      free(aExp);
      free(zSql);
    }
  }
  sqlite3_close(db);
  unlink(zDb);
  free(zText);
  return 0;
}

/* ---- the corpus ----------------------------------------------------------------------------- */

static int cmpName(const void *a, const void *b){ return strcmp(*(char*const*)a, *(char*const*)b); }

/* The corpus's files (requirement 1) into *paz, their number returned. */
static int corpusFiles(const char *zDir, char ***paz){
  static const char *azTop[] = { "select1.test", "select2.test", "select3.test", "select4.test", "select5.test" };
  char **az = 0, zPath[600];
  int n = 0, i, nEv = 0;
  DIR *d;
  struct dirent *e;
  for(i=0; i<5; i++){
    snprintf(zPath, sizeof(zPath), "%s/%s", zDir, azTop[i]);
    if( access(zPath, R_OK)!=0 ) continue;
    az = realloc(az, sizeof(char*)*(size_t)(n + 1));
    az[n++] = strdup(zPath);
  }
  snprintf(zPath, sizeof(zPath), "%s/evidence", zDir);
  if( (d = opendir(zPath))!=0 ){
    while( (e = readdir(d))!=0 ){
      size_t k = strlen(e->d_name);
      if( k<6 || strcmp(e->d_name + k - 5, ".test") ) continue;
      snprintf(zPath, sizeof(zPath), "%s/evidence/%s", zDir, e->d_name);
      az = realloc(az, sizeof(char*)*(size_t)(n + 1));
      az[n++] = strdup(zPath);
      nEv++;
    }
    closedir(d);
    qsort(az + n - nEv, (size_t)nEv, sizeof(char*), cmpName);
  }
  *paz = az;
  return n;
}

int main(int argc, char **argv){
  const char *zEnv = getenv("GPUAGG_SLT_DIR"), *zSrc = getenv("GPUAGG_SRCDIR");
  const char *zEncs = getenv("GPUAGG_SLT_ENCODINGS");
  static const char *azEnc[] = { "UTF-8", "UTF-16le", "UTF-16be" };
  char zDir[512], zTmp[64] = "/tmp/gpuagg-slt-XXXXXX", **az = 0;
  int n, i, k, failed = 0;
  Tally all;
  double t0 = h_now();
  memset(&all, 0, sizeof(all));
  if( zEnv ) snprintf(zDir, sizeof(zDir), "%s", zEnv);
  else snprintf(zDir, sizeof(zDir), "%s/../shared/sqllogictest", zSrc ? zSrc : ".");
  if( argc>1 ){
    n = argc - 1;
    az = malloc(sizeof(char*)*(size_t)n);
    for(i=0; i<n; i++) az[i] = strdup(argv[i + 1]);
  }else{
    n = corpusFiles(zDir, &az);
  }
  if( n==0 ){
    printf("sqllogictest: the corpus is absent (no select1-5.test or evidence/*.test in %s; "
           "GPUAGG_SLT_DIR names another place): skipped\n", zDir);
    return 77;
  }
  if( mkdtemp(zTmp)==0 ){ perror("mkdtemp"); return 1; }
  for(k=0; k<3; k++){
    if( zEncs && !strcasestr(zEncs, azEnc[k]) ) continue;
    for(i=0; i<n; i++){
      const char *zName = strstr(az[i], "evidence/") ? strstr(az[i], "evidence/") : strrchr(az[i], '/') ? strrchr(az[i], '/') + 1 : az[i];
      Tally y;
      memset(&y, 0, sizeof(y));
      failed |= runFile(az[i], zName, zTmp, azEnc[k], &y);
      printf("%-38s %-8s %5d queries, %d wrong, %d errors, engine %5.1f%% (%d); SQLite not the file's: %d query, %d statement, %d refused\n",
             zName, azEnc[k], y.nQuery, y.nWrong, y.nError, y.nQuery ? 100.0*y.nEngine/y.nQuery : 0.0, y.nEngine,
             y.nFile, y.nStmt, y.nRefused);
      {
        int j, k, best;
        for(k=0; k<5; k++){                 /* the most frequent reasons first */
          for(best=-1, j=0; j<y.nWhy; j++) if( y.aWhy[j].n && (best<0 || y.aWhy[j].n>y.aWhy[best].n) ) best = j;
          if( best<0 ) break;
          printf("    through SQLite %5d: %s\n", y.aWhy[best].n, y.aWhy[best].z);
          y.aWhy[best].n = 0;
        }
      }
      fflush(stdout);
      all.nQuery += y.nQuery; all.nWrong += y.nWrong; all.nError += y.nError; all.nEngine += y.nEngine;
      all.nFile += y.nFile; all.nStmt += y.nStmt;
    }
  }
  rmdir(zTmp);
  printf("sqllogictest: %d queries, %d wrong, %d errors, engine %.1f%%, SQLite not the file's %d; %.1f s\n",
         all.nQuery, all.nWrong, all.nError, all.nQuery ? 100.0*all.nEngine/all.nQuery : 0.0, all.nFile + all.nStmt,
         h_now() - t0);
  for(i=0; i<n; i++) free(az[i]);
  free(az);
  /* SQLite's own answers may differ from the file's in a few queries (its
  ** versions differ: sum() of integers past int64 and REALs); more than 1
  ** in 100 means the runner misread the corpus */
  return failed || all.nWrong || all.nError || (all.nFile + all.nStmt)*100>all.nQuery ? 1 : 0;
}
