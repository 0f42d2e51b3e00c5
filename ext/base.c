/*
** SQLite's routines' table for the whole extension (base.h, requirement 1).
*/
#include <pthread.h>
#include "base.h"
SQLITE_EXTENSION_INIT1

static pthread_mutex_t apiMu = PTHREAD_MUTEX_INITIALIZER;   /* guards sqlite3_api's setting */

/* The table is the same for every load: it is set once, under a lock, so
** that a load in one thread never writes what another thread's calls are
** reading (helgrind, `make check-helgrind`). */
int ga_api_set(const sqlite3_api_routines *pApi){
  int rc;
  pthread_mutex_lock(&apiMu);
  if( sqlite3_api==0 ) SQLITE_EXTENSION_INIT2(pApi);
  rc = sqlite3_api==pApi ? SQLITE_OK : SQLITE_ERROR;
  pthread_mutex_unlock(&apiMu);
  return rc;
}
