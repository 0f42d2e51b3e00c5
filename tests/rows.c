/*
** Statement results rendered exactly: see rows.h.
*/
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include "rows.h"

void rowsRun(sqlite3 *db, sqlite3_stmt *st, Rows *r){
  int rc, i;
  memset(r, 0, sizeof(*r));
  while( (rc = sqlite3_step(st))==SQLITE_ROW ){
    sqlite3_str *s = sqlite3_str_new(0);
    char *z;
    for(i=0; i<sqlite3_column_count(st); i++){
      switch( sqlite3_column_type(st, i) ){
        case SQLITE_INTEGER: sqlite3_str_appendf(s, "i%lld ", (long long)sqlite3_column_int64(st, i)); break;
        case SQLITE_FLOAT: {
          double x = sqlite3_column_double(st, i);
          unsigned long long b;
          memcpy(&b, &x, sizeof(b));
          sqlite3_str_appendf(s, "r%.17g/%llx ", x, b);
          break;
        }
        case SQLITE_NULL: sqlite3_str_appendall(s, "n "); break;
        case SQLITE_TEXT: {
          int n = sqlite3_column_bytes(st, i);
          sqlite3_str_appendf(s, "t%d'", n);
          sqlite3_str_append(s, (const char*)sqlite3_column_text(st, i), n);
          sqlite3_str_appendall(s, "' ");
          break;
        }
        default: {
          const unsigned char *p = sqlite3_column_blob(st, i);
          int n = sqlite3_column_bytes(st, i), k;
          sqlite3_str_appendchar(s, 1, 'x');
          for(k=0; k<n; k++) sqlite3_str_appendf(s, "%02x", p[k]);
          sqlite3_str_appendchar(s, 1, ' ');
          break;
        }
      }
    }
    z = sqlite3_str_finish(s);
    if( r->n==r->nAlloc ){
      r->nAlloc = r->nAlloc ? 2*r->nAlloc : 16;
      r->az = realloc(r->az, sizeof(char*)*(size_t)r->nAlloc);
    }
    r->az[r->n++] = strdup(z ? z : "");
    sqlite3_free(z);
  }
  if( rc!=SQLITE_DONE ) r->zErr = strdup(sqlite3_errmsg(db));
}

void rowsOf(sqlite3 *db, const char *zSql, Rows *r){
  sqlite3_stmt *st = 0;
  memset(r, 0, sizeof(*r));
  if( sqlite3_prepare_v2(db, zSql, -1, &st, 0)!=SQLITE_OK ){
    r->zErr = strdup(sqlite3_errmsg(db));
  }else{
    rowsRun(db, st, r);
  }
  sqlite3_finalize(st);
}

void rowsFree(Rows *r){
  int i;
  for(i=0; i<r->n; i++) free(r->az[i]);
  free(r->az);
  free(r->zErr);
  memset(r, 0, sizeof(*r));
}

int cmpStr(const void *a, const void *b){ return strcmp(*(char*const*)a, *(char*const*)b); }

int rowsSame(Rows *a, Rows *b, int ordered){
  int i;
  if( a->zErr || b->zErr ) return a->zErr && b->zErr && strcmp(a->zErr, b->zErr)==0;
  if( a->n!=b->n ) return 0;
  if( !ordered ){
    qsort(a->az, (size_t)a->n, sizeof(char*), cmpStr);
    qsort(b->az, (size_t)b->n, sizeof(char*), cmpStr);
  }
  for(i=0; i<a->n; i++) if( strcmp(a->az[i], b->az[i]) ) return 0;
  return 1;
}

void rowsShow(char *z, size_t n, const Rows *r, const Rows *o, int ordered){
  int i = 0, j = 0;
  if( r->zErr ){
    snprintf(z, n, "error: %s", r->zErr);
    return;
  }
  if( o->zErr ){
    i = r->n;
  }else if( ordered ){
    while( i<r->n && i<o->n && strcmp(r->az[i], o->az[i])==0 ) i++;
  }else{
    for(; i<r->n; i++){                        /* merge: the first of r's rows not in o */
      while( j<o->n && strcmp(o->az[j], r->az[i])<0 ) j++;
      if( j==o->n || strcmp(o->az[j], r->az[i]) ) break;
      j++;
    }
  }
  if( i<r->n ) snprintf(z, n, "%d rows; %s %d: %.400s", r->n, ordered ? "row" : "in sorted order, row", i, r->az[i]);
  else snprintf(z, n, "%d rows", r->n);
}

int sqlOrdered(const char *z){
  const char *z0 = z;
  int depth = 0;
  for(; *z; z++){
    char c = *z;
    if( c=='\'' || c=='"' || c=='`' || c=='[' ){
      char q = c=='[' ? ']' : c;
      for(z++; *z && *z!=q; z++){}
      if( *z==0 ) return 0;
    }else if( c=='(' ){
      depth++;
    }else if( c==')' ){
      depth--;
    }else if( depth==0 && strncasecmp(z, "order", 5)==0 && (z[5]==' ' || z[5]=='\t' || z[5]=='\n')
              && (z==z0 || !(z[-1]=='_' || ((z[-1]|0x20)>='a' && (z[-1]|0x20)<='z'))) ){
      const char *b = z + 5;
      while( *b==' ' || *b=='\t' || *b=='\n' ) b++;
      if( strncasecmp(b, "by", 2)==0 ) return 1;
    }
  }
  return 0;
}
