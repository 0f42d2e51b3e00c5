/*
** gpu_query's tokenizer: SQL text into tokens by SQLite's rules
** (tokenize.c), for a statement SQLite has already prepared.
**
**   1. Whitespace and comments (-- to the end of the line, C-style, an
**      unclosed one to the end) separate tokens and are dropped.
**   2. Identifiers: bare (a letter, _ or a byte >= 0x80, then those, digits
**      and $), "quoted", [bracketed] or `quoted`. Keywords are identifiers
**      here; the parser tells them by spelling (q_tok_is).
**   3. Literals: 'strings' ('' inside is one '), x'hex' blobs, numbers
**      (digits, a fraction, an exponent; 0x hex integers), and parameters
**      (?, ?NNN, :name, @name, $name).
**   4. Punctuation, longest first: || <= >= == != <> << >> -> ->> and single
**      characters.
*/
#include <string.h>
#include <ctype.h>
#include "query.h"

static int idStart(unsigned char c){ return isalpha(c) || c=='_' || c>=0x80; }
static int idPart(unsigned char c){ return isalnum(c) || c=='_' || c=='$' || c>=0x80; }

/* The token at z (not whitespace, not a comment): its type and length. */
static int tokenAt(const char *zIn, int *pType){
  const unsigned char *z = (const unsigned char*)zIn;
  int i = 0;
  unsigned char c = z[0];
  static const char *azPunct[] = { "->>", "||", "<=", ">=", "==", "!=", "<>", "<<", ">>", "->" };
  size_t k;
  if( (c=='x' || c=='X') && z[1]=='\'' ){
    for(i=2; z[i] && z[i]!='\''; i++){}
    *pType = z[i] ? T_BLOB : T_BAD;
    return z[i] ? i + 1 : i;
  }
  if( idStart(c) ){
    for(i=1; idPart(z[i]); i++){}
    *pType = T_ID;
    return i;
  }
  if( c=='"' || c=='`' || c=='\'' ){
    for(i=1; z[i]; i++){
      if( z[i]==c ){
        if( z[i+1]!=c ) break;
        i++;
      }
    }
    *pType = z[i] ? (c=='\'' ? T_STRING : T_ID) : T_BAD;
    return z[i] ? i + 1 : i;
  }
  if( c=='[' ){
    for(i=1; z[i] && z[i]!=']'; i++){}
    *pType = z[i] ? T_ID : T_BAD;
    return z[i] ? i + 1 : i;
  }
  if( isdigit(c) || (c=='.' && isdigit(z[1])) ){
    *pType = T_INT;
    if( c=='0' && (z[1]=='x' || z[1]=='X') && isxdigit(z[2]) ){
      for(i=2; isxdigit(z[i]); i++){}
      return i;
    }
    while( isdigit(z[i]) ) i++;
    if( z[i]=='.' ){
      i++;
      while( isdigit(z[i]) ) i++;
      *pType = T_FLOAT;
    }
    if( (z[i]=='e' || z[i]=='E') && (isdigit(z[i+1]) || ((z[i+1]=='+' || z[i+1]=='-') && isdigit(z[i+2]))) ){
      i += 2;
      while( isdigit(z[i]) ) i++;
      *pType = T_FLOAT;
    }
    if( idPart(z[i]) ){             /* 12abc: SQLite's "unrecognized token" */
      while( idPart(z[i]) ) i++;
      *pType = T_BAD;
    }
    return i;
  }
  if( c=='?' ){
    for(i=1; isdigit(z[i]); i++){}
    *pType = T_PARAM;
    return i;
  }
  if( c==':' || c=='@' || c=='$' ){
    for(i=1; idPart(z[i]) || (z[i]==':' && z[i+1]==':'); i += (z[i]==':' ? 2 : 1)){}
    *pType = i>1 ? T_PARAM : T_BAD;
    return i;
  }
  *pType = T_PUNCT;
  for(k=0; k<sizeof(azPunct)/sizeof(azPunct[0]); k++){
    size_t n = strlen(azPunct[k]);
    if( strncmp((const char*)z, azPunct[k], n)==0 ) return (int)n;   /* stops at z's NUL */
  }
  return 1;
}

int q_lex(const char *zSql, qtok **paTok, int *pn){
  int n = 0, nAlloc = 0, i = 0;
  qtok *a = 0;
  for(;;){
    qtok t;
    const char *z = zSql + i;
    if( z[0]==' ' || z[0]=='\t' || z[0]=='\n' || z[0]=='\r' || z[0]=='\f' ){
      i++;
      continue;
    }
    if( z[0]=='-' && z[1]=='-' ){
      while( zSql[i] && zSql[i]!='\n' ) i++;
      continue;
    }
    if( z[0]=='/' && z[1]=='*' ){
      const char *e = strstr(z + 2, "*/");
      i = e ? (int)(e - zSql) + 2 : i + (int)strlen(z);
      continue;
    }
    t.at = i;
    if( z[0]==0 ){
      t.type = T_EOF;
      t.n = 0;
    }else{
      t.n = tokenAt(z, &t.type);
    }
    if( n==nAlloc ){
      qtok *b = ga_realloc64(a, sizeof(qtok)*(uint64_t)(nAlloc = nAlloc ? 2*nAlloc : 64));
      if( b==0 ){
        ga_free(a);
        return SQLITE_NOMEM;
      }
      a = b;
    }
    a[n++] = t;
    if( t.type==T_EOF ) break;
    i += t.n;
  }
  *paTok = a;
  *pn = n;
  return SQLITE_OK;
}

int q_tok_is(const char *zSql, const qtok *t, const char *z){
  int n = (int)strlen(z);
  return (t->type==T_ID || t->type==T_PUNCT) && t->n==n && sqlite3_strnicmp(zSql + t->at, z, n)==0;
}

char *q_sql_exact_sums(const char *zSql){
  qtok *a;
  int n, i, at = 0;
  sqlite3_str *s;
  if( q_lex(zSql, &a, &n) ) return 0;
  s = sqlite3_str_new(0);
  for(i=0; i + 1<n; i++){
    if( a[i].type==T_ID && q_tok_is(zSql, &a[i+1], "(") && !(i>0 && q_tok_is(zSql, &a[i-1], "."))
     && (q_tok_is(zSql, &a[i], "sum") || q_tok_is(zSql, &a[i], "total") || q_tok_is(zSql, &a[i], "avg")) ){
      sqlite3_str_appendf(s, "%.*sgpu_", a[i].at - at, zSql + at);
      at = a[i].at;
    }
  }
  sqlite3_str_appendall(s, zSql + at);
  ga_free(a);
  return sqlite3_str_finish(s);
}
