/*
** TEXT as SQLite has it: see text.h.
*/
#include <string.h>
#include "text.h"

/* The next UTF-16 code unit of z[*pi..n), as a key whose order is the
** encoding's byte order (UTF-16le: low byte first); *pLow holds the low
** surrogate a character past U+FFFF still owes (0: none). */
static unsigned unitKey(const unsigned char *z, int n, int *pi, unsigned *pLow, int le){
  unsigned u;
  if( *pLow ){
    u = *pLow;
    *pLow = 0;
  }else{
    int i = *pi, k = 0, need;
    unsigned c = z[i];
    need = c<0x80 ? 0 : c>=0xC0 && c<0xE0 ? 1 : c>=0xE0 && c<0xF0 ? 2 : c>=0xF0 && c<0xF8 ? 3 : -1;
    if( need<0 || i + need>=n ){
      need = 0;                              /* not UTF-8: the byte stands alone (1.) */
      u = c<0x80 ? c : 0xDC00 | c;
    }else{
      u = need==0 ? c : need==1 ? (c & 0x1F) : need==2 ? (c & 0x0F) : (c & 0x07);
      for(k=1; k<=need && (z[i + k] & 0xC0)==0x80; k++) u = (u<<6) | (z[i + k] & 0x3F);
      if( k<=need ){ need = 0; u = 0xDC00 | c; }
    }
    *pi = i + 1 + need;
    if( u>0xFFFF ){
      u -= 0x10000;
      *pLow = 0xDC00 | (u & 0x3FF);
      u = 0xD800 | ((u>>10) & 0x3FF);
    }
  }
  return le ? ((u & 0xFF)<<8) | (u>>8) : u;
}

int ga_bind_text(sqlite3_stmt *st, int i, const char *zText, int n, int enc){
  const unsigned char *z = (const unsigned char*)zText;
  unsigned char *out;
  unsigned low = 0;
  int k = 0, m = 0;
  if( enc!=SQLITE_UTF16LE && enc!=SQLITE_UTF16BE ) return sqlite3_bind_text(st, i, zText ? zText : "", n, SQLITE_STATIC);
  if( (out = sqlite3_malloc64(2*(sqlite3_uint64)n + 2))==0 ) return SQLITE_NOMEM;
  while( k<n || low ){
    unsigned u = unitKey(z, n, &k, &low, 0);
    out[m++] = (unsigned char)(enc==SQLITE_UTF16LE ? u & 0xFF : u>>8);
    out[m++] = (unsigned char)(enc==SQLITE_UTF16LE ? u>>8 : u & 0xFF);
  }
  return sqlite3_bind_text64(st, i, (const char*)out, (sqlite3_uint64)m, ga_free, (unsigned char)enc);
}

int ga_text_order(const void *pa, int na, const void *pb, int nb, int enc){
  const unsigned char *a = pa, *b = pb;
  int i = 0, j = 0, le = enc==SQLITE_UTF16LE;
  unsigned lowA = 0, lowB = 0;
  if( enc!=SQLITE_UTF16LE && enc!=SQLITE_UTF16BE ){
    int n = na<nb ? na : nb, c = n ? memcmp(a, b, (size_t)n) : 0;
    return c ? c : na - nb;
  }
  while( (i<na || lowA) && (j<nb || lowB) ){
    unsigned x = unitKey(a, na, &i, &lowA, le), y = unitKey(b, nb, &j, &lowB, le);
    if( x!=y ) return x<y ? -1 : 1;
  }
  return (i<na || lowA) - (j<nb || lowB);
}

int ga_db_encoding(sqlite3 *db, ga_conn *c){
  sqlite3_stmt *st = 0;
  int enc = SQLITE_UTF8, fixed = 0;
  if( c && c->enc ) return c->enc;
  if( sqlite3_prepare_v2(db, "SELECT (SELECT encoding FROM pragma_encoding), (SELECT schema_version FROM pragma_schema_version)",
                         -1, &st, 0)==SQLITE_OK && sqlite3_step(st)==SQLITE_ROW ){
    const char *z = (const char*)sqlite3_column_text(st, 0);
    if( z && sqlite3_stricmp(z, "UTF-16le")==0 ) enc = SQLITE_UTF16LE;
    else if( z && sqlite3_stricmp(z, "UTF-16be")==0 ) enc = SQLITE_UTF16BE;
    fixed = sqlite3_column_int64(st, 1)>0;
  }
  sqlite3_finalize(st);
  if( c && fixed ) c->enc = enc;
  return enc;
}

int ga_utf8_len(const void *pz, int n){
  const unsigned char *z = pz;
  unsigned c = z[0], u;
  int need, k;
  if( c<0x80 ) return 1;
  if( c>=0xC2 && c<0xE0 ) need = 1;
  else if( c>=0xE0 && c<0xF0 ) need = 2;
  else if( c>=0xF0 && c<0xF5 ) need = 3;
  else return 0;
  if( need>=n ) return 0;
  u = c & (0x3F >> need);
  for(k=1; k<=need; k++){
    if( (z[k] & 0xC0)!=0x80 ) return 0;
    u = (u<<6) | (z[k] & 0x3F);
  }
  if( (need==2 && u<0x800) || (need==3 && (u<0x10000 || u>0x10FFFF)) || (u>=0xD800 && u<0xE000) ) return 0;
  return need + 1;
}

int ga_utf8_valid(const void *pz, int n){
  const unsigned char *z = pz;
  int i = 0, k;
  while( i<n ){
    if( (k = ga_utf8_len(z + i, n - i))==0 ) return 0;
    i += k;
  }
  return 1;
}

char *ga_utf8_clean(char *z){
  const unsigned char *u = (const unsigned char*)z;
  sqlite3_str *s;
  int n, i = 0;
  if( z==0 || ga_utf8_valid(z, n = (int)strlen(z)) ) return z;
  s = sqlite3_str_new(0);
  while( i<n ){
    int k = ga_utf8_len(u + i, n - i);
    if( k ){
      sqlite3_str_append(s, z + i, k);
      i += k;
      continue;
    }
    sqlite3_str_appendall(s, "x'");
    for(; i<n && ga_utf8_len(u + i, n - i)==0; i++) sqlite3_str_appendf(s, "%02x", u[i]);
    sqlite3_str_appendchar(s, 1, '\'');
  }
  ga_free(z);
  return sqlite3_str_finish(s);
}

/* Requirement 4. */
void ga_json_str(sqlite3_str *out, const char *z){
  int n = (int)strlen(z);
  sqlite3_str_appendchar(out, 1, '"');
  for(; *z; z++, n--){
    unsigned char ch = (unsigned char)*z;
    int k;
    if( ch=='"' || ch=='\\' ) sqlite3_str_appendf(out, "\\%c", ch);
    else if( ch<0x20 ) sqlite3_str_appendf(out, "\\u%04x", ch);
    else if( ch<0x80 ) sqlite3_str_appendchar(out, 1, (char)ch);
    else if( (k = ga_utf8_len(z, n))==0 ) sqlite3_str_appendall(out, "\\ufffd");   /* not UTF-8 */
    else{
      sqlite3_str_append(out, z, k);
      z += k - 1;
      n -= k - 1;
    }
  }
  sqlite3_str_appendchar(out, 1, '"');
}
