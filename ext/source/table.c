/*
** A table a SOURCE argument or a FROM names, resolved and described once
** (table.h): what gpu_query's planner and the table-valued functions both
** stand on.
*/
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include "colsrc.h"
#include "table.h"

/* *pzErr = the message (the first one stays); SQLITE_ERROR. */
static int errOf(char **pzErr, const char *zFmt, ...){
  va_list ap;
  if( *pzErr==0 ){
    va_start(ap, zFmt);
    *pzErr = sqlite3_vmprintf(zFmt, ap);
    va_end(ap);
  }
  return SQLITE_ERROR;
}

void ga_source_free(ga_source *p){
  ga_table_free(&p->tab);
  ga_free(p->zFrom);
  ga_free(p->zTab);
  ga_free(p->zName);
  memset(p, 0, sizeof(*p));
}

/* ---- identifiers ---------------------------------------------------------------------- */

static int isSpace(char c){
  return c==' ' || c=='\t' || c=='\n' || c=='\r' || c=='\f';
}

/* May byte c begin (first) or continue a bare identifier? SQLite's: ASCII
** letters, _ and every byte of a UTF-8 character; then digits and $ too. */
static int isIdChar(unsigned char c, int first){
  return (c>='a' && c<='z') || (c>='A' && c<='Z') || c=='_' || c>=0x80
      || (!first && ((c>='0' && c<='9') || c=='$'));
}

/* The identifier part at z[*pi] into *pz, *pi moved past it; SQLITE_ERROR
** with the reason in *pzWhy and *piAt, or SQLITE_NOMEM. */
static int identPart(const char *z, int *pi, char **pz, char **pzWhy, int *piAt){
  int i = *pi, j, n = 0;
  char q = z[i], e = q=='[' ? ']' : q;
  char *o;
  if( q!='"' && q!='`' && q!='[' && !isIdChar((unsigned char)q, 1) ){
    *piAt = i;
    *pzWhy = sqlite3_mprintf("unexpected '%c' at byte %d", q, i);
    return *pzWhy ? SQLITE_ERROR : SQLITE_NOMEM;
  }
  if( (o = sqlite3_malloc64(strlen(z + i) + 1))==0 ) return SQLITE_NOMEM;
  if( q!='"' && q!='`' && q!='[' ){
    for(j=i; isIdChar((unsigned char)z[j], 0); j++) o[n++] = z[j];
  }else{
    /* Quoted: a doubled quote is one ("a""b", `a``b`); brackets have no
    ** escape, so [a]]b] is not a name. */
    for(j=i+1; z[j] && (z[j]!=e || (e!=']' && z[j+1]==e)); j++){
      o[n++] = z[j];
      if( z[j]==e ) j++;
    }
    if( z[j]==0 ){
      ga_free(o);
      *piAt = -1;
      *pzWhy = sqlite3_mprintf("the %c at byte %d is not closed", q, i);
      return *pzWhy ? SQLITE_ERROR : SQLITE_NOMEM;
    }
    j++;
  }
  o[n] = 0;
  *pz = o;
  *pi = j;
  return SQLITE_OK;
}

int ga_ident_parse(const char *z, char **pzQual, char **pzName, char **pzWhy, int *piAt){
  char *a[2] = { 0, 0 };
  int i = 0, n = 0, iDot = 0, rc;
  *pzQual = *pzName = *pzWhy = 0;
  *piAt = -1;
  for(;;){
    while( isSpace(z[i]) ) i++;
    if( z[i]==0 ){
      *pzWhy = n ? sqlite3_mprintf("no name after the '.' at byte %d", iDot) : sqlite3_mprintf("it is empty");
      rc = *pzWhy ? SQLITE_ERROR : SQLITE_NOMEM;
      break;
    }
    if( (rc = identPart(z, &i, &a[n++], pzWhy, piAt))!=SQLITE_OK ) break;
    while( isSpace(z[i]) ) i++;
    if( z[i]==0 ) break;
    if( z[i]!='.' || n==2 ){
      *piAt = i;
      *pzWhy = sqlite3_mprintf("unexpected '%c' at byte %d", z[i], i);
      rc = *pzWhy ? SQLITE_ERROR : SQLITE_NOMEM;
      break;
    }
    iDot = i++;
  }
  if( rc!=SQLITE_OK ){
    ga_free(a[0]);
    ga_free(a[1]);
    return rc;
  }
  *pzQual = n==2 ? a[0] : 0;
  *pzName = n==2 ? a[1] : a[0];
  return SQLITE_OK;
}

/* What to do instead, for an argument z that is not a name (ga_ident_parse
** failed at byte at; -1: the text ended early), given for a table (isTab)
** or a column; NULL where the reason says it all. */
static const char *notNameHint(const char *z, int at, int isTab){
  static const char *azWord[] = { "select", "with", "values" };
  const char *s = z;
  int i, n;
  while( isSpace(*s) ) s++;
  for(n=0; isIdChar((unsigned char)s[n], 0); n++){}
  for(i=0; i<3 && !(n==(int)strlen(azWord[i]) && sqlite3_strnicmp(s, azWord[i], n)==0); i++){}
  if( *s=='(' || i<3 ){
    return isTab ? "a subquery is not a table: create a view or a temp table of it and pass its name"
                 : "a subquery is not a column: create a view that selects it AS a name, and pass the view and"
                   " that name";
  }
  if( at<0 ) return 0;
  if( z[at]==',' ){
    return isTab ? "a list is not a table: the function reads one table (create a view that joins them and pass"
                   " its name)"
                 : "a list is not a column: the function takes one column (for a key of several columns, create a view"
                   " with one column that combines them, and pass the view and that column)";
  }
  if( strpbrk(z, "*+-/%<>=!|&~()") ){
    return isTab ? "an expression or a filter is not a table: create a view or a temp table with the rows you want"
                   " and pass its name"
                 : "an expression or a filter is not a column: create a view that selects it AS a name (and filters"
                   " in its WHERE), and pass the view and that name";
  }
  return isTab ? "quote a name with spaces, dots or other characters: \"my table\", [my table] or main.\"t.x\""
               : "quote a name with spaces, dots or other characters: \"col x\" or [col x]";
}

/* The schema that holds table zTab into *pzDb (NULL: none), as
** pragma_database_list names it: in schema zDb (any case), or with zDb
** NULL where SQLite looks, temp, main, then the attached in order.
** SQLITE_OK or an error. */
static int sourceSchema(sqlite3 *db, const char *zDb, const char *zTab, char **pzDb){
  /* Unqualified, sqlite_master is main's (temp's is sqlite_temp_master),
  ** though temp.sqlite_master is temp's. */
  static const char *zSql =
      "SELECT d.name FROM pragma_database_list d WHERE (?2 IS NULL OR d.name=?2 COLLATE NOCASE)"
      " AND EXISTS(SELECT 1 FROM pragma_table_xinfo(?1, d.name) WHERE hidden<>1)"
      " AND NOT (?2 IS NULL AND d.seq=1 AND ?1 COLLATE NOCASE IN ('sqlite_master', 'sqlite_schema'))"
      " ORDER BY d.seq<>1, d.seq LIMIT 1";
  sqlite3_stmt *st = 0;
  int rc = sqlite3_prepare_v2(db, zSql, -1, &st, 0);
  *pzDb = 0;
  if( rc==SQLITE_OK ){
    sqlite3_bind_text(st, 1, zTab, -1, SQLITE_STATIC);
    if( zDb ) sqlite3_bind_text(st, 2, zDb, -1, SQLITE_STATIC);
    if( (rc = sqlite3_step(st))==SQLITE_ROW ){
      rc = (*pzDb = sqlite3_mprintf("%s", sqlite3_column_text(st, 0)))!=0 ? SQLITE_OK : SQLITE_NOMEM;
    }else if( rc==SQLITE_DONE ){
      rc = SQLITE_OK;
    }
  }
  sqlite3_finalize(st);
  return rc;
}

/* ---- the table's description (colsrc.h) ------------------------------------------------- */

void ga_table_free(ga_table *t){
  int i;
  for(i=0; i<t->nCol; i++){
    ga_free(t->aCol[i].zName);
    ga_free(t->aCol[i].zType);
    ga_free(t->aCol[i].zColl);
  }
  ga_free(t->aCol);
  ga_free(t->zKind);
  ga_free(t->zTab);
  ga_free(t->zDb);
  memset(t, 0, sizeof(*t));
}

/* A copy of z (NULL stays NULL) into *pz; SQLITE_OK or SQLITE_NOMEM. */
static int dupText(const unsigned char *z, char **pz){
  *pz = z ? sqlite3_mprintf("%s", z) : 0;
  return z && *pz==0 ? SQLITE_NOMEM : SQLITE_OK;
}

/* t's spelling, kind and WITHOUT ROWID from table_list (zTab as given). */
static int tableKind(sqlite3 *db, const char *zTab, ga_table *t){
  /* Names compare ignoring ASCII case, as SQLite's do. */
  static const char *zSql = "SELECT name, type, wr FROM pragma_table_list"
                            " WHERE name=?1 COLLATE NOCASE AND schema=?2 COLLATE NOCASE";
  sqlite3_stmt *st = 0;
  int rc = sqlite3_prepare_v2(db, zSql, -1, &st, 0);
  if( rc==SQLITE_ERROR ){
    sqlite3_finalize(st);
    t->noList = 1;                  /* before SQLite 3.37: no table_list pragma */
    return dupText((const unsigned char*)zTab, &t->zTab);
  }
  if( rc==SQLITE_OK ){
    sqlite3_bind_text(st, 1, zTab, -1, SQLITE_STATIC);
    sqlite3_bind_text(st, 2, t->zDb, -1, SQLITE_STATIC);
    if( (rc = sqlite3_step(st))==SQLITE_ROW ){
      rc = dupText(sqlite3_column_text(st, 0), &t->zTab);
      if( rc==SQLITE_OK ) rc = dupText(sqlite3_column_text(st, 1), &t->zKind);
      t->withoutRowid = sqlite3_column_int(st, 2);
    }else if( rc==SQLITE_DONE ){
      rc = SQLITE_OK;               /* not listed (sqlite_master): zKind stays NULL */
    }
  }
  sqlite3_finalize(st);
  if( rc==SQLITE_OK && t->zTab==0 ) rc = dupText((const unsigned char*)zTab, &t->zTab);
  return rc;
}

/* The collating sequence SQLite gives expression "zCol" over t, as
** EXPLAIN shows min()'s CollSeq (count(*) beside it keeps min() an
** aggregate, not an index seek), into *pzColl; NULL where the plan does not
** name one alone (a view with aggregates of its own shows theirs too).
** P4 reads "NAME-8" (the name cut at 18 bytes), or "(NAME)" before 3.24;
** a name cut short is no built-in one, which is all the caller needs. */
static int probeColl(sqlite3 *db, const ga_table *t, const char *zCol, char **pzColl){
  char *zSql = sqlite3_mprintf("EXPLAIN SELECT min(\"%w\"), count(*) FROM \"%w\".\"%w\"", zCol, t->zDb, t->zTab);
  sqlite3_stmt *st = 0;
  char *zSeen = 0;
  int rc, ambiguous = 0;
  *pzColl = 0;
  if( zSql==0 ) return SQLITE_NOMEM;
  rc = sqlite3_prepare_v2(db, zSql, -1, &st, 0);
  ga_free(zSql);
  if( rc==SQLITE_NOMEM ) return rc;
  if( rc!=SQLITE_OK ){
    sqlite3_finalize(st);
    return SQLITE_OK;               /* no plan (a view that cannot run here): not known */
  }
  while( (rc = sqlite3_step(st))==SQLITE_ROW ){
    const char *zOp = (const char*)sqlite3_column_text(st, 1), *z = (const char*)sqlite3_column_text(st, 5);
    int n;
    char *zName;
    if( zOp==0 || strcmp(zOp, "CollSeq")!=0 || z==0 ) continue;
    n = (int)strlen(z);
    if( z[0]=='(' && n>1 && z[n-1]==')' ){
      z++;
      n -= 2;
    }else{
      const char *zDash = strrchr(z, '-');
      if( zDash ) n = (int)(zDash - z);
    }
    if( (zName = sqlite3_mprintf("%.*s", n, z))==0 ){ rc = SQLITE_NOMEM; break; }
    if( zSeen && sqlite3_stricmp(zSeen, zName)!=0 ) ambiguous = 1;
    if( zSeen ) ga_free(zName); else zSeen = zName;
  }
  sqlite3_finalize(st);
  if( rc!=SQLITE_DONE && rc!=SQLITE_ROW ){
    ga_free(zSeen);
    return rc==SQLITE_NOMEM ? rc : SQLITE_OK;
  }
  if( ambiguous ) ga_free(zSeen); else *pzColl = zSeen;
  return SQLITE_OK;
}

/* Column c's collating sequence: a table's as declared
** (sqlite3_table_column_metadata); where that has none to give (a view:
** "no such table column"), the plan's. */
static int columnColl(sqlite3 *db, const ga_table *t, ga_tabcol *c){
  const char *zType = 0, *zColl = 0;
  int notNull, pk, autoInc;
  if( (t->zKind==0 || strcmp(t->zKind, "view")!=0) && sqlite3_api->table_column_metadata
   && sqlite3_table_column_metadata(db, t->zDb, t->zTab, c->zName, &zType, &zColl, &notNull, &pk, &autoInc)==SQLITE_OK
   && zColl ){
    return dupText((const unsigned char*)zColl, &c->zColl);
  }
  return probeColl(db, t, c->zName, &c->zColl);
}

/* t->rowidAlias, from its columns and pragma_index_list. */
static int rowidAlias(sqlite3 *db, ga_table *t){
  sqlite3_stmt *st = 0;
  int i, n = 0, key = 0, rc;
  if( t->withoutRowid || (t->zKind && strcmp(t->zKind, "table")!=0) ) return SQLITE_OK;
  for(i=0; i<t->nCol; i++) if( t->aCol[i].pk ){ n++; key = i; }
  if( n!=1 || t->aCol[key].zType==0 || sqlite3_stricmp(t->aCol[key].zType, "INTEGER")!=0 ) return SQLITE_OK;
  if( (rc = sqlite3_prepare_v2(db, "SELECT 1 FROM pragma_index_list(?1, ?2) WHERE origin='pk'", -1, &st, 0))
      !=SQLITE_OK ){
    return rc;
  }
  sqlite3_bind_text(st, 1, t->zTab, -1, SQLITE_STATIC);
  sqlite3_bind_text(st, 2, t->zDb, -1, SQLITE_STATIC);
  rc = sqlite3_step(st);
  t->rowidAlias = rc==SQLITE_DONE;
  if( rc==SQLITE_ROW || rc==SQLITE_DONE ) rc = SQLITE_OK;
  sqlite3_finalize(st);
  return rc;
}

int ga_table_describe(sqlite3 *db, const char *zDb, const char *zTab, ga_table *t){
  sqlite3_stmt *st = 0;
  int rc, nAlloc = 0, i;
  memset(t, 0, sizeof(*t));
  if( (rc = dupText((const unsigned char*)zDb, &t->zDb))!=SQLITE_OK ) return rc;
  /* The cookie first: a change after it moves it, so that a source that
  ** reads the same cookie later has a description that still holds. */
  rc = ga_schema_version(db, zDb, &t->schemaVersion);
  if( rc==SQLITE_OK ) rc = tableKind(db, zTab, t);
  if( rc==SQLITE_OK ) rc = sqlite3_prepare_v2(db, "SELECT name, type, pk, hidden FROM pragma_table_xinfo(?1, ?2) WHERE hidden<>1",
                                              -1, &st, 0);
  if( rc==SQLITE_OK ){
    sqlite3_bind_text(st, 1, t->zTab, -1, SQLITE_STATIC);
    sqlite3_bind_text(st, 2, t->zDb, -1, SQLITE_STATIC);
    while( (rc = sqlite3_step(st))==SQLITE_ROW ){
      ga_tabcol *c;
      if( t->nCol==nAlloc ){
        ga_tabcol *a = sqlite3_realloc64(t->aCol, sizeof(ga_tabcol)*(sqlite3_uint64)(nAlloc = nAlloc ? 2*nAlloc : 16));
        if( a==0 ){ rc = SQLITE_NOMEM; break; }
        t->aCol = a;
      }
      c = &t->aCol[t->nCol++];
      memset(c, 0, sizeof(*c));
      if( (rc = dupText(sqlite3_column_text(st, 0), &c->zName))!=SQLITE_OK ) break;
      if( c->zName==0 ){ rc = SQLITE_NOMEM; break; }
      if( (rc = dupText(sqlite3_column_text(st, 1), &c->zType))!=SQLITE_OK ) break;
      c->aff = ga_affinity(c->zType);
      c->pk = sqlite3_column_int(st, 2);
      c->generated = sqlite3_column_int(st, 3)>=2;
    }
    if( rc==SQLITE_DONE ) rc = SQLITE_OK;
  }
  sqlite3_finalize(st);
  for(i=0; rc==SQLITE_OK && i<t->nCol; i++) rc = columnColl(db, t, &t->aCol[i]);
  if( rc==SQLITE_OK ) rc = rowidAlias(db, t);
  if( rc!=SQLITE_OK ) ga_table_free(t);
  return rc;
}

/* The schemas in the order SQLite searches them, "temp, main and aux", or
** only zOnly as the connection spells it, into *pz (NULL: none; temp is
** always known, listed or not). SQLITE_OK or an error. */
static int schemaNames(sqlite3 *db, const char *zOnly, char **pz){
  sqlite3_stmt *st = 0;
  sqlite3_str *s = sqlite3_str_new(db);
  char *zPrev = 0;
  int n = 0, rc = sqlite3_prepare_v2(db, "SELECT name FROM pragma_database_list"
                                         " WHERE ?1 IS NULL OR name=?1 COLLATE NOCASE ORDER BY seq<>1, seq", -1, &st, 0);
  *pz = 0;
  if( rc==SQLITE_OK && zOnly ) sqlite3_bind_text(st, 1, zOnly, -1, SQLITE_STATIC);
  while( rc==SQLITE_OK && (rc = sqlite3_step(st))==SQLITE_ROW ){
    if( zPrev ) sqlite3_str_appendf(s, "%s%s", n>1 ? ", " : "", zPrev);
    ga_free(zPrev);
    zPrev = sqlite3_mprintf("%s", sqlite3_column_text(st, 0));
    rc = zPrev ? SQLITE_OK : SQLITE_NOMEM;
    n++;
  }
  if( rc==SQLITE_DONE ) rc = SQLITE_OK;
  sqlite3_finalize(st);
  if( zPrev ) sqlite3_str_appendf(s, "%s%s", n>1 ? " and " : "", zPrev);
  if( n==0 && zOnly && sqlite3_stricmp(zOnly, "temp")==0 ) sqlite3_str_appendf(s, "temp");
  ga_free(zPrev);
  if( rc==SQLITE_OK && sqlite3_str_errcode(s) ) rc = SQLITE_NOMEM;
  if( rc==SQLITE_OK && sqlite3_str_length(s)>0 ) *pz = sqlite3_str_finish(s);
  else ga_free(sqlite3_str_finish(s));
  return rc;
}

/* The error for a SOURCE that names no table: where it was looked for
** (zQual and zName as parsed), or why it is not a name (zWhy, at), and
** what to do instead. */
static int noSuchTable(sqlite3 *db, const char *zFn, const char *zSource, const char *zQual, const char *zName,
                       const char *zWhy, int at, char **pzErr){
  char *zAll = 0, *zIn = 0;
  const char *zHint = zWhy ? notNameHint(zSource, at, 1) : 0;
  int rc = schemaNames(db, 0, &zAll);
  if( rc==SQLITE_OK && zQual ) rc = schemaNames(db, zQual, &zIn);
  if( rc!=SQLITE_OK ){
    /* ga_source_resolve says why */
  }else if( zWhy ){
    rc = errOf(pzErr, "%s: no such table: %s (not a name: %s, and no table has that exact name in %s)%s%s", zFn,
                      zSource, zWhy, zAll, zHint ? "; " : "", zHint ? zHint : "");
  }else if( zQual && zIn==0 ){
    rc = errOf(pzErr, "%s: no such table: %s (no schema \"%w\"; the schemas are %s)", zFn, zSource, zQual, zAll);
  }else{
    rc = errOf(pzErr, "%s: no such table: %s (looked for table \"%w\" in %s)", zFn, zSource, zName,
                      zIn ? zIn : zAll);
  }
  ga_free(zAll);
  ga_free(zIn);
  return rc;
}

int ga_source_resolve(sqlite3 *db, const char *zFn, const char *zSource, ga_source *p, char **pzErr){
  const char *zDot = strchr(zSource, '.');
  char *zQual = 0, *zName = 0, *zWhy = 0, *zDb = 0;
  int rc, at = -1;
  memset(p, 0, sizeof(*p));
  *pzErr = 0;
  if( (p->zName = sqlite3_mprintf("%s", zSource))==0 ) return SQLITE_NOMEM;
  /* In order, so that every SOURCE that named a table before SQL's syntax
  ** was read names the same one: the whole string as a table's name; */
  rc = sourceSchema(db, 0, zSource, &zDb);
  if( rc==SQLITE_OK && zDb ) p->zTab = sqlite3_mprintf("%s", zSource);
  /* before the first dot a schema, after it a table, both as written; */
  if( rc==SQLITE_OK && zDb==0 && zDot ){
    zQual = sqlite3_mprintf("%.*s", (int)(zDot - zSource), zSource);
    rc = zQual ? sourceSchema(db, zQual, zDot + 1, &zDb) : SQLITE_NOMEM;
    if( rc==SQLITE_OK && zDb ) p->zTab = sqlite3_mprintf("%s", zDot + 1);
    ga_free(zQual);
    zQual = 0;
  }
  /* then SQL's syntax: [schema.]table, each bare or quoted. */
  if( rc==SQLITE_OK && zDb==0 ){
    rc = ga_ident_parse(zSource, &zQual, &zName, &zWhy, &at);
    if( rc==SQLITE_OK ) rc = sourceSchema(db, zQual, zName, &zDb);
    if( rc==SQLITE_OK && zDb ) p->zTab = sqlite3_mprintf("%s", zName);
    if( rc==SQLITE_ERROR && zWhy ) rc = SQLITE_OK;     /* not a name: said below */
  }
  if( rc==SQLITE_OK && zDb ){
    rc = p->zTab ? ga_table_describe(db, zDb, p->zTab, &p->tab) : SQLITE_NOMEM;
    if( rc==SQLITE_OK && (p->zFrom = sqlite3_mprintf("\"%w\".\"%w\"", p->tab.zDb, p->tab.zTab))==0 ) rc = SQLITE_NOMEM;
  }else if( rc==SQLITE_OK ){
    rc = noSuchTable(db, zFn, zSource, zQual, zName, zWhy, at, pzErr);
  }
  if( rc!=SQLITE_OK && rc!=SQLITE_NOMEM && *pzErr==0 ) errOf(pzErr, "%s: %s", zFn, sqlite3_errmsg(db));
  ga_free(zQual);
  ga_free(zName);
  ga_free(zWhy);
  ga_free(zDb);
  return rc;
}

/* ---- resolutions remembered (4a) ---------------------------------------------------------- */

#define MEMO_N 16                   /* SOURCEs a connection remembers */

/* A connection's remembered resolutions (conn->srcmemo). */
struct ga_srcmemo {
  int mainVer, tempVer;             /* main's and temp's schema cookies they were made under */
  int nRead;                        /* reads under way (ga_source_read_begin), nested */
  int readOk, readMain, readTemp;   /* ... the cookies read at the outermost one's start (readOk: read,
                                    ** outside a transaction) */
  int n, next;                      /* entries, and the one the next replaces */
  char *azSource[MEMO_N];           /* each one's SOURCE, as given */
  ga_source aSrc[MEMO_N];           /* ... and what it resolved to */
};

static void memoClear(struct ga_srcmemo *m){
  int i;
  for(i=0; i<m->n; i++){
    ga_free(m->azSource[i]);
    ga_source_free(&m->aSrc[i]);
  }
  m->n = m->next = 0;
}

static void memoForget(ga_conn *conn){
  if( conn->srcmemo ) memoClear(conn->srcmemo);
  ga_free(conn->srcmemo);
  conn->srcmemo = 0;
}

/* conn's memo, made empty where there is none (NULL: out of memory). */
static struct ga_srcmemo *memoOf(ga_conn *conn){
  if( conn->srcmemo==0 && (conn->srcmemo = sqlite3_malloc(sizeof(struct ga_srcmemo)))!=0 ){
    memset(conn->srcmemo, 0, sizeof(struct ga_srcmemo));
    ga_conn_on_free(conn, memoForget);
  }
  return conn->srcmemo;
}

static int readCookies(sqlite3 *db, int *pMain, int *pTemp){
  if( !sqlite3_get_autocommit(db) ) return SQLITE_ERROR;   /* (a rollback can give a cookie back) */
  if( ga_schema_version(db, "main", pMain)!=SQLITE_OK || ga_schema_version(db, "temp", pTemp)!=SQLITE_OK ){
    return SQLITE_ERROR;
  }
  return SQLITE_OK;
}

int ga_source_cookies(sqlite3 *db, ga_conn *conn, int *pMain, int *pTemp){
  struct ga_srcmemo *m = conn ? conn->srcmemo : 0;
  if( m && m->nRead ){
    *pMain = m->readMain;
    *pTemp = m->readTemp;
    return m->readOk && sqlite3_get_autocommit(db) ? SQLITE_OK : SQLITE_ERROR;
  }
  return readCookies(db, pMain, pTemp);
}

void ga_source_read_begin(sqlite3 *db, ga_conn *conn){
  struct ga_srcmemo *m = conn ? memoOf(conn) : 0;
  if( m && m->nRead++==0 ) m->readOk = readCookies(db, &m->readMain, &m->readTemp)==SQLITE_OK;
}

void ga_source_read_end(ga_conn *conn){
  struct ga_srcmemo *m = conn ? conn->srcmemo : 0;
  if( m && m->nRead ) m->nRead--;
}


/* A copy of z (NULL stays NULL) into *pz: 0, or 1 out of memory. */
static int dupStr(const char *z, char **pz){
  return dupText((const unsigned char*)z, pz)!=SQLITE_OK;
}

/* A deep copy of a into *b: SQLITE_OK or SQLITE_NOMEM (b freed). */
static int sourceCopy(const ga_source *a, ga_source *b){
  int i, bad;
  memset(b, 0, sizeof(*b));
  bad = dupStr(a->zName, &b->zName) | dupStr(a->zTab, &b->zTab) | dupStr(a->zFrom, &b->zFrom)
      | dupStr(a->tab.zDb, &b->tab.zDb) | dupStr(a->tab.zTab, &b->tab.zTab) | dupStr(a->tab.zKind, &b->tab.zKind);
  b->tab.noList = a->tab.noList;
  b->tab.withoutRowid = a->tab.withoutRowid;
  b->tab.rowidAlias = a->tab.rowidAlias;
  b->tab.schemaVersion = a->tab.schemaVersion;
  if( !bad && a->tab.nCol ){
    if( (b->tab.aCol = sqlite3_malloc64(sizeof(ga_tabcol)*(sqlite3_uint64)a->tab.nCol))==0 ) bad = 1;
    else memset(b->tab.aCol, 0, sizeof(ga_tabcol)*(size_t)a->tab.nCol);
  }
  for(i=0; !bad && i<a->tab.nCol; i++){
    const ga_tabcol *x = &a->tab.aCol[i];
    ga_tabcol *y = &b->tab.aCol[i];
    b->tab.nCol = i + 1;
    y->aff = x->aff;
    y->pk = x->pk;
    y->generated = x->generated;
    bad = dupStr(x->zName, &y->zName) | dupStr(x->zType, &y->zType) | dupStr(x->zColl, &y->zColl);
  }
  if( bad ) ga_source_free(b);
  return bad ? SQLITE_NOMEM : SQLITE_OK;
}

int ga_source_resolve_on(sqlite3 *db, ga_conn *conn, const char *zFn, const char *zSource, ga_source *p,
                         char **pzErr){
  struct ga_srcmemo *m = conn ? conn->srcmemo : 0;
  int vMain, vTemp, i, rc;
  /* the cookies first: a change after them moves them, so that what is
  ** remembered under them is never newer than they say (4a) */
  if( conn==0 || ga_source_cookies(db, conn, &vMain, &vTemp)!=SQLITE_OK ){
    return ga_source_resolve(db, zFn, zSource, p, pzErr);
  }
  if( m && (m->mainVer!=vMain || m->tempVer!=vTemp) ) memoClear(m);
  for(i=0; m && i<m->n; i++){
    if( strcmp(m->azSource[i], zSource)==0 ){
      *pzErr = 0;
      return sourceCopy(&m->aSrc[i], p);
    }
  }
  rc = ga_source_resolve(db, zFn, zSource, p, pzErr);
  if( rc!=SQLITE_OK || p->tab.zDb==0 || (sqlite3_stricmp(p->tab.zDb, "main")!=0 && sqlite3_stricmp(p->tab.zDb, "temp")!=0) ){
    return rc;
  }
  if( (m = memoOf(conn))==0 ) return SQLITE_OK;   /* (remembered next time) */
  if( m->n==0 ){
    m->mainVer = vMain;
    m->tempVer = vTemp;
  }
  if( m->n<MEMO_N ){
    i = m->n++;
  }else{                            /* the oldest makes room */
    i = m->next;
    m->next = (m->next + 1) % MEMO_N;
    ga_free(m->azSource[i]);
    ga_source_free(&m->aSrc[i]);
  }
  memset(&m->aSrc[i], 0, sizeof(m->aSrc[i]));
  if( (m->azSource[i] = sqlite3_mprintf("%s", zSource))==0 || sourceCopy(p, &m->aSrc[i])!=SQLITE_OK ){
    memoClear(m);                   /* (out of memory: nothing remembered; the answer stands) */
  }
  return SQLITE_OK;
}

/* The index of the column named zCol of p (names compare as SQLite's,
** ignoring ASCII case), or -1. */
static int columnIndex(const ga_source *p, const char *zCol){
  int i;
  for(i=0; i<p->tab.nCol && sqlite3_stricmp(p->tab.aCol[i].zName, zCol)!=0; i++){}
  return i<p->tab.nCol ? i : -1;
}

int ga_source_column(const char *zFn, const ga_source *p, const char *zCol, char **pzErr){
  char *zQual = 0, *zName = 0, *zWhy = 0;
  int i, at = -1, rc;
  *pzErr = 0;
  /* As written first, so that a column literally named "a.b" or "x y"
  ** keeps its meaning; then SQL's syntax. */
  if( (i = columnIndex(p, zCol))>=0 ) return i;
  rc = ga_ident_parse(zCol, &zQual, &zName, &zWhy, &at);
  if( rc==SQLITE_OK && zQual==0 && (i = columnIndex(p, zName))>=0 ){
    ga_free(zName);
    return i;
  }
  if( rc==SQLITE_NOMEM ){
    errOf(pzErr, "%s: out of memory", zFn);
  }else if( zWhy ){
    const char *zHint = notNameHint(zCol, at, 0);
    errOf(pzErr, "%s: no such column: %s in %s (not a name: %s, and table \"%w\" of %s has no column of that exact"
                 " name)%s%s", zFn, zCol, p->zName, zWhy, p->zTab, p->tab.zDb, zHint ? "; " : "", zHint ? zHint : "");
  }else if( zQual ){
    errOf(pzErr, "%s: no such column: %s in %s (a column is named alone, without its table: \"%w\")", zFn, zCol,
                 p->zName, zName);
  }else{
    errOf(pzErr, "%s: no such column: %s in %s (looked for column \"%w\" in table \"%w\" of %s)", zFn, zCol,
                 p->zName, zName, p->zTab, p->tab.zDb);
  }
  ga_free(zQual);
  ga_free(zName);
  ga_free(zWhy);
  return -1;
}
