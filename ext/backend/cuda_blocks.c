/*
** Device blocks kept for reuse: the CUDA backend's allocations (cuda.c's
** ga_cu_alloc and ga_cu_free) go through here, so that a read's tables and
** buffers are not a cudaMalloc and a cudaFree each time (0.1-0.3 ms apiece
** on an H200: 7.3 of TPC-H Q18's 13.9 ms repeated read at scale factor 1).
**
**   1. Each live allocation's size and device is recorded (an open-address
**      table by address), so that a freed block can be kept.
**   2. A freed block waits in its device's list while the blocks waiting
**      there stay within the device's cap, 1/8 of its memory
**      (ga_cu_blocks_device: TPC-H Q18's group tables at scale factor 1 are
**      more than 1 GiB); others are cudaFree'd as before. What waits counts
**      as free where the column cache asks (ga_cuda_free_bytes): an
**      allocation that fails gets it back (5).
**   3. An allocation on a device takes the smallest waiting block of that
**      device that holds it and is at most twice its size.
**   4. A block is handed out only after a cudaDeviceSynchronize on its device
**      that began after its free: cudaFree waits for the device's work, and
**      a block freed while work on it was still queued (a stream not yet
**      synchronized) must not be written by its next owner first. Each
**      device counts the synchronizations begun (issued) and finished
**      (done); a block carries the count begun before its free, and is
**      ready once a later one is done (at most one wait for many blocks).
**   5. ga_cu_blocks_trim cudaFrees what waits: when an allocation fails
**      (then it is tried again), and when the last connection closes, so
**      that the process's device allocations are none then (cuda.c, 6).
**   6. One mutex guards everything here; CUDA is called outside it but in
**      trim (cudaFree, each block's device made current for it).
*/
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include "cuda.h"

#define BLK_MAX 256                   /* blocks waiting, all devices */
#define LIVE_TOMB ((void*)1)          /* a live entry's slot freed */

typedef struct Blk {
  void *p;                            /* the block */
  size_t n;                           /* its size */
  int dev;                            /* its device */
  uint64_t tag;                       /* synchronizations of dev begun before its free (4) */
} Blk;

typedef struct Live {
  void *p;                            /* an allocation; 0: empty; LIVE_TOMB: freed */
  size_t n;                           /* its size */
  int dev;                            /* its device */
} Live;

static struct {
  pthread_mutex_t mu;                 /* guards every field below */
  Live *aLive; int64_t nLiveCap;      /* live allocations (1), by address: nLiveCap slots, a power of two */
  int64_t nLiveUsed;                  /* ... slots not empty (live or freed) */
  Blk aBlk[BLK_MAX]; int nBlk;        /* blocks waiting (2) */
  size_t aCached[GA_DEV_MAX];         /* ... each device's bytes */
  size_t aCap[GA_DEV_MAX];            /* ... at most (0: the device is not known; nothing waits) */
  uint64_t aIssued[GA_DEV_MAX];       /* synchronizations begun, each device (4) */
  uint64_t aDone[GA_DEV_MAX];         /* ... the greatest of them finished */
} b = { .mu = PTHREAD_MUTEX_INITIALIZER };

static int64_t slotOf(const void *p, int64_t cap){
  uint64_t x = (uint64_t)(uintptr_t)p;
  x ^= x >> 33; x *= 0xff51afd7ed558ccdull; x ^= x >> 33;
  return (int64_t)(x & (uint64_t)(cap - 1));
}

/* b.aLive with room for one more entry, at most half its slots used; 1 when
** out of memory (the allocation is then not recorded, its block not kept). */
static int liveRoom(void){
  Live *a;
  int64_t cap = b.nLiveCap ? b.nLiveCap : 256, i;
  if( 2*(b.nLiveUsed + 1)<=b.nLiveCap ) return 0;
  while( 2*(b.nLiveUsed + 1)>cap ) cap *= 2;   /* (freed slots are dropped: the used may fall) */
  if( (a = calloc((size_t)cap, sizeof(Live)))==0 ) return 1;
  b.nLiveUsed = 0;
  for(i=0; i<b.nLiveCap; i++){
    int64_t h;
    if( b.aLive[i].p==0 || b.aLive[i].p==LIVE_TOMB ) continue;
    for(h=slotOf(b.aLive[i].p, cap); a[h].p; h=(h + 1) & (cap - 1)){}
    a[h] = b.aLive[i];
    b.nLiveUsed++;
  }
  free(b.aLive);
  b.aLive = a;
  b.nLiveCap = cap;
  return 0;
}

void ga_cu_blocks_device(int dev, size_t nTotal){
  if( dev<0 || dev>=GA_DEV_MAX ) return;
  pthread_mutex_lock(&b.mu);
  b.aCap[dev] = nTotal/8;
  pthread_mutex_unlock(&b.mu);
}

size_t ga_cu_blocks_cached(int dev){
  size_t n;
  if( dev<0 || dev>=GA_DEV_MAX ) return 0;
  pthread_mutex_lock(&b.mu);
  n = b.aCached[dev];
  pthread_mutex_unlock(&b.mu);
  return n;
}

void ga_cu_blocks_live(void *p, size_t n, int dev){
  int64_t h;
  pthread_mutex_lock(&b.mu);
  if( liveRoom()==0 ){
    for(h=slotOf(p, b.nLiveCap); b.aLive[h].p && b.aLive[h].p!=LIVE_TOMB; h=(h + 1) & (b.nLiveCap - 1)){}
    if( b.aLive[h].p==0 ) b.nLiveUsed++;
    b.aLive[h].p = p;
    b.aLive[h].n = n;
    b.aLive[h].dev = dev;
  }
  pthread_mutex_unlock(&b.mu);
}

int ga_cu_blocks_take(int dev, size_t n, void **pp){
  int i, best = -1, wait = 0;
  uint64_t tag = 0;
  Blk k;
  if( dev<0 || dev>=GA_DEV_MAX ) return 0;
  pthread_mutex_lock(&b.mu);
  for(i=0; i<b.nBlk; i++){
    const Blk *x = &b.aBlk[i];
    if( x->dev==dev && x->n>=n && x->n/2<=n && (best<0 || x->n<b.aBlk[best].n) ) best = i;
  }
  if( best>=0 ){
    k = b.aBlk[best];
    b.aBlk[best] = b.aBlk[--b.nBlk];
    b.aCached[dev] -= k.n;
    if( b.aDone[dev]<=k.tag ){        /* 4: a synchronization begun after its free */
      wait = 1;
      tag = ++b.aIssued[dev];
    }
  }
  pthread_mutex_unlock(&b.mu);
  if( best<0 ) return 0;
  if( wait ){
    if( cudaDeviceSynchronize()!=cudaSuccess ){
      /* (the device's error is its next call's to report: the block goes as cudaFree would have it) */
      (void)cudaFree(k.p);
      return 0;
    }
    pthread_mutex_lock(&b.mu);
    if( b.aDone[dev]<tag ) b.aDone[dev] = tag;
    pthread_mutex_unlock(&b.mu);
  }
  ga_cu_blocks_live(k.p, k.n, dev);
  *pp = k.p;
  return 1;
}

int ga_cu_blocks_put(void *p){
  int64_t h;
  int kept = 0;
  pthread_mutex_lock(&b.mu);
  for(h=b.nLiveCap ? slotOf(p, b.nLiveCap) : 0; b.nLiveCap && b.aLive[h].p; h=(h + 1) & (b.nLiveCap - 1)){
    Live *x = &b.aLive[h];
    if( x->p!=p ) continue;
    if( b.nBlk<BLK_MAX && b.aCached[x->dev] + x->n<=b.aCap[x->dev] ){
      Blk *k = &b.aBlk[b.nBlk++];
      k->p = p;
      k->n = x->n;
      k->dev = x->dev;
      k->tag = b.aIssued[x->dev];
      b.aCached[x->dev] += x->n;
      kept = 1;
    }
    x->p = LIVE_TOMB;
    break;
  }
  pthread_mutex_unlock(&b.mu);
  return kept;
}

int ga_cu_blocks_trim(int dev){
  int i, n = 0, cur = -1;
  pthread_mutex_lock(&b.mu);
  if( b.nBlk && cudaGetDevice(&cur)!=cudaSuccess ) cur = -1;   /* (none waits: no CUDA call) */
  for(i=0; i<b.nBlk; ){
    if( dev>=0 && b.aBlk[i].dev!=dev ){ i++; continue; }
    (void)cudaSetDevice(b.aBlk[i].dev);
    (void)cudaFree(b.aBlk[i].p);
    b.aCached[b.aBlk[i].dev] -= b.aBlk[i].n;
    b.aBlk[i] = b.aBlk[--b.nBlk];
    n++;
  }
  pthread_mutex_unlock(&b.mu);
  if( n ){
    if( cur>=0 ) (void)cudaSetDevice(cur);
    (void)cudaGetLastError();
  }
  return n;
}
