/*
** SQLite's routines' table for the whole extension (base.h, requirement 1), and
** the allocator of arrays past SQLite's limit (requirement 3).
*/
#include <pthread.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include "base.h"
SQLITE_EXTENSION_INIT1

static void bigLineSet(void);
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
  bigLineSet();
  return rc;
}

/* Requirement 3: the blocks from the C library, in an open-addressing set
** of their addresses (linear steps, at most half full, deletion by moving
** the later entries of a run back). */
static pthread_mutex_t bigMu = PTHREAD_MUTEX_INITIALIZER;   /* guards the set */
static struct {
  void **a;                 /* the slots: a block's address, or NULL */
  size_t nSlot;             /* slots, a power of two (0: none yet) */
  size_t n;                 /* blocks recorded */
} big;
static int nBig;            /* big.n, also read without the lock (atomically): 0 skips it */
static uintptr_t bigLo = UINTPTR_MAX, bigHi;   /* the least and greatest recorded since the set was
                            ** last empty (atomically too): a pointer outside is SQLite's, no lock
                            ** taken (frees while a kept plan holds a large array) */
static sqlite3_uint64 bigLine = (sqlite3_uint64)1<<30;      /* (3b; read and set atomically) */

static void bigLineSet(void){
  const char *z = getenv("GPUAGG_TEST_BIG_ALLOC");
  long long v = z ? atoll(z) : 0;
  __atomic_store_n(&bigLine, v>0 ? (sqlite3_uint64)v : (sqlite3_uint64)1<<30, __ATOMIC_RELAXED);
}

static size_t bigSlot(const void *p){
  return (size_t)(((uint64_t)(uintptr_t)p * 0x9E3779B97F4A7C15ull) >> 20) & (big.nSlot - 1);
}

/* Records p (under bigMu): 0, or nonzero where the set cannot grow. */
static int bigAdd(void *p){
  size_t h;
  if( 2*(big.n + 1)>big.nSlot ){
    size_t m = big.nSlot ? 2*big.nSlot : 64, i, old = big.nSlot;
    void **a = calloc(m, sizeof(void*)), **aOld = big.a;
    if( a==0 ) return 1;
    big.a = a;
    big.nSlot = m;
    for(i=0; i<old; i++){
      if( aOld[i] ){
        for(h=bigSlot(aOld[i]); big.a[h]; h=(h + 1) & (m - 1)){}
        big.a[h] = aOld[i];
      }
    }
    free(aOld);
  }
  for(h=bigSlot(p); big.a[h]; h=(h + 1) & (big.nSlot - 1)){}
  big.a[h] = p;
  if( (uintptr_t)p<bigLo ) __atomic_store_n(&bigLo, (uintptr_t)p, __ATOMIC_RELAXED);
  if( (uintptr_t)p>bigHi ) __atomic_store_n(&bigHi, (uintptr_t)p, __ATOMIC_RELAXED);
  __atomic_store_n(&nBig, (int)++big.n, __ATOMIC_RELAXED);
  return 0;
}

/* Forgets p (under bigMu): 1 where it was recorded, else 0. */
static int bigDrop(void *p){
  size_t h, j, k, mask = big.nSlot - 1;
  if( big.nSlot==0 ) return 0;
  for(h=bigSlot(p); big.a[h]!=p; h=(h + 1) & mask){
    if( big.a[h]==0 ) return 0;
  }
  big.a[h] = 0;
  for(j=(h + 1) & mask; big.a[j]; j=(j + 1) & mask){   /* the run after h: each entry back where it may be */
    k = bigSlot(big.a[j]);
    if( (j>h && (k<=h || k>j)) || (j<h && k<=h && k>j) ){
      big.a[h] = big.a[j];
      big.a[j] = 0;
      h = j;
    }
  }
  __atomic_store_n(&nBig, (int)--big.n, __ATOMIC_RELAXED);
  if( big.n==0 ){
    __atomic_store_n(&bigLo, UINTPTR_MAX, __ATOMIC_RELAXED);
    __atomic_store_n(&bigHi, 0, __ATOMIC_RELAXED);
  }
  return 1;
}

void *ga_malloc64(sqlite3_uint64 n){
  void *p;
  if( n<__atomic_load_n(&bigLine, __ATOMIC_RELAXED) ) return sqlite3_malloc64(n);
  if( (p = malloc((size_t)n))==0 ) return 0;
  pthread_mutex_lock(&bigMu);
  if( bigAdd(p) ){ free(p); p = 0; }
  pthread_mutex_unlock(&bigMu);
  return p;
}

/* Could p be recorded? (No: SQLite's, without taking the lock.) */
static int maybeBig(const void *p){
  return __atomic_load_n(&nBig, __ATOMIC_RELAXED)!=0 && (uintptr_t)p>=__atomic_load_n(&bigLo, __ATOMIC_RELAXED)
      && (uintptr_t)p<=__atomic_load_n(&bigHi, __ATOMIC_RELAXED);
}

void ga_free(void *p){
  int mine;
  if( p==0 ) return;
  if( !maybeBig(p) ){ sqlite3_free(p); return; }
  pthread_mutex_lock(&bigMu);
  mine = bigDrop(p);
  pthread_mutex_unlock(&bigMu);
  if( mine ) free(p); else sqlite3_free(p);
}

int ga_big_blocks(void){
  return __atomic_load_n(&nBig, __ATOMIC_RELAXED);
}

void *ga_realloc64(void *p, sqlite3_uint64 n){
  void *q;
  int mine = 0;
  if( p==0 ) return ga_malloc64(n);
  if( n==0 ){ ga_free(p); return 0; }
  if( maybeBig(p) ){
    pthread_mutex_lock(&bigMu);
    mine = bigDrop(p);
    pthread_mutex_unlock(&bigMu);
  }
  if( mine ){                 /* the C library's: it stays so, recorded again */
    int bad;
    q = realloc(p, (size_t)n);
    pthread_mutex_lock(&bigMu);
    bad = bigAdd(q ? q : p);  /* (p's own slot is free again: it cannot fail for p) */
    pthread_mutex_unlock(&bigMu);
    if( bad ){ free(q); q = 0; }
    return q;
  }
  if( n<__atomic_load_n(&bigLine, __ATOMIC_RELAXED) ) return sqlite3_realloc64(p, n);
  if( (q = ga_malloc64(n))==0 ) return 0;   /* (p kept, as realloc's contract) */
  memcpy(q, p, (size_t)(sqlite3_msize(p)<n ? sqlite3_msize(p) : n));
  sqlite3_free(p);
  return q;
}
