/*
** Work cut into parts, one thread a part (the engine's operators: a
** compile's large tables cleared and filled, a build's parts placed, the
** groups' parts merged). Part 0 runs on the caller's thread; a part whose
** thread does not start runs there too, after it. Each part writes only
** its own state: the caller reads them once q_fan returns.
*/
#include <assert.h>
#include <pthread.h>
#include "query.h"

void q_fan(int nPart, void *(*xPart)(void*), void *aPart, size_t szPart){
  pthread_t aId[GA_THREADS_MAX + 1];
  int aRun[GA_THREADS_MAX + 1], w;
  char *a = (char*)aPart;
  assert( nPart<=GA_THREADS_MAX + 1 );
  for(w=1; w<nPart; w++) aRun[w] = pthread_create(&aId[w], 0, xPart, a + (size_t)w*szPart)==0;
  if( nPart>0 ) xPart(a);
  for(w=1; w<nPart; w++){
    if( aRun[w] ) pthread_join(aId[w], 0);
    else xPart(a + (size_t)w*szPart);
  }
}
