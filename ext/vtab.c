/*
** The virtual tables' shared error: see vtab.h.
*/
#include <stdarg.h>
#include "vtab.h"
#include "text.h"

int ga_vtab_error(sqlite3_vtab *tab, const char *zFmt, ...){
  va_list ap;
  ga_free(tab->zErrMsg);
  va_start(ap, zFmt);
  tab->zErrMsg = ga_utf8_clean(sqlite3_vmprintf(zFmt, ap));   /* (never bytes that are not UTF-8) */
  va_end(ap);
  return SQLITE_ERROR;
}
