/*
** The CUDA backend: the host side of the kernels in kernels/.
**
**   1. Nothing here runs at load time. ga_cuda_usable asks the driver for a
**      device once per process (cudaGetDeviceCount and the device's
**      properties: no context); the context is created by the first
**      reduction (xStart), never by a query that stays on the CPU (but for
**      1b).
**   1a. A read that does not need the answer yet (a first read that keeps
**      columns for the device) has the driver asked on a thread of its
**      own (ga_cuda_probe_soon): its first answer takes about 100 ms,
**      which the read's scan then covers. The thread is joined by the
**      first caller that needs the answer, or when the last connection
**      closes (the library may be unloaded then).
**   1b. Columns kept in host memory for the device before any context
**      (cache.c, 5) have the first device's context made on a thread of
**      its own (ga_cuda_warm_soon), once a process, after the read that
**      kept them: its 0.2 s is then nobody's wait, and a read over those
**      columns meanwhile runs on the CPU (kept.c). That thread is joined
**      when the last connection closes.
**   2. A slot's host buffer is ordinary memory (ga_host_alloc), pinned in
**      place with cudaHostRegister once a context exists. A slot opened
**      before that is copied pageable for its first chunks and pinned when it
**      next leaves the pool (xReady), so no context is created just to pin.
**   3. Each slot owns a stream, a device copy of the chunk, per-block
**      partials and a pinned landing place for the chunk's total; xStart
**      enqueues copy, kernels and copy-back and returns; xWait synchronizes
**      that stream only.
**   4. Every CUDA call is checked. An error is reported by name; if it is
**      sticky (the context is broken) that device is switched off for the process
**      and later pipelines run on the CPU (or fail, when cuda is forced).
**   5. Every device the connection may use (backend.h) serves it. A slot's
**      device side is made on the next of them, round robin across the
**      process, so a pipeline's two slots, and its chunks, alternate between
**      devices; every result is folded on the host in chunk order, so the
**      bits do not depend on where a chunk went. A histogram keeps counts
**      (and kept numbers) per device, added at the end; a grouping keeps a
**      table per device (cuda_group.c). Each device has its own context,
**      made at its first use; a sticky error switches that device off, and
**      the others go on (the chunk itself is redone on the CPU).
**   6. Device allocations, pinned host buffers, streams and events are
**      counted process-wide (gpuagg_info's device_allocations,
**      pinned_buffers, streams_events): 0 once every connection has closed.
**      Built with --enable-fault-injection, gpuagg_fault(KIND, N) makes the
**      Nth CUDA call of a kind from then on fail, with an error that does not
**      break the context: 'host' (chunk buffer allocation and pinning),
**      'device' (device allocations, streams, events), 'copy', 'launch',
**      'sync'; gpuagg_fault(KIND, N, DEVICE) counts only calls made on that
**      device.
**   7. Device allocations go through cuda_blocks.c: a freed block waits for
**      its next allocation (a read's tables are the same size each read),
**      within a cap, until the last connection closes (ga_device_idle). A
**      fault injected into an allocation fails it whether or not a block
**      waits.
*/
#include <dlfcn.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <cuda_runtime_api.h>
#include "gpuagg.h"
#include "text.h"
#include "gpuagg_kernels.h"
#include "cuda.h"

/* One device, process-wide. */
typedef struct cuDev {
  int live;                 /* its context exists and the kernels load */
  int dead;                 /* a sticky error broke its context: it is off */
  int maxBlocks;            /* resident blocks of the sum kernel */
  int maxBlocksExt;         /* resident blocks of the extreme kernel */
  int major, minor;         /* compute capability */
  char zName[256];          /* name */
  char zWhy[GA_ERRLEN];     /* why it is off */
} cuDev;

/* Process-wide: each device's primary context is shared by all threads. */
static struct {
  pthread_mutex_t mu;       /* guards every field below */
  int probed;               /* the driver was asked for devices */
  int nDev;                 /* devices visible (at most GA_DEV_MAX) */
  cuDev dv[GA_DEV_MAX];     /* them */
  unsigned rr;              /* round robin: slots' device sides made so far */
  unsigned char peer[GA_DEV_MAX][GA_DEV_MAX]; /* peer access between the two tried */
  char zWhy[GA_ERRLEN];     /* why CUDA cannot be used at all */
  int64_t nDevAlloc;        /* live device (and pinned result) allocations */
  int64_t nPinned;          /* host buffers registered (pinned) now */
  int64_t nStream;          /* live streams and events */
  int faultKind;            /* the kind of call to fail (FAULT_*), 0: none */
  int faultDev;             /* ... on this device only; -1: any */
  int64_t faultLeft;        /* calls of that kind before the one that fails */
  int64_t nFault;           /* faults injected so far */
} g = { .mu = PTHREAD_MUTEX_INITIALIZER };

/* The device the calling thread last made current (ga_cu_set). */
static __thread int tDev;

static const char *const azFault[] = { "", "host", "device", "copy", "launch", "sync" };

int ga_cu_fault_hit(int k){
#ifdef GPUAGG_FAULTS
  int hit = 0;
  pthread_mutex_lock(&g.mu);
  if( g.faultKind==k && (g.faultDev<0 || g.faultDev==tDev) && --g.faultLeft==0 ){
    g.faultKind = FAULT_NONE;
    g.nFault++;
    hit = 1;
  }
  pthread_mutex_unlock(&g.mu);
  return hit;
#else
  (void)k;
  return 0;
#endif
}

/* Add d to one of the process-wide counts of live objects. */
static void count(int64_t *pN, int d){
  pthread_mutex_lock(&g.mu);
  *pN += d;
  pthread_mutex_unlock(&g.mu);
}

cudaError_t ga_cu_alloc(void **p, size_t n){
  cudaError_t e = FI(FAULT_DEVICE, cudaSuccess);
  if( e!=cudaSuccess ) return e;
  if( ga_cu_blocks_take(tDev, n, p) ){            /* (7) */
    count(&g.nDevAlloc, 1);
    return cudaSuccess;
  }
  e = cudaMalloc(p, n);
  if( e==cudaErrorMemoryAllocation && ga_cu_blocks_trim(tDev) ){
    (void)cudaGetLastError();
    e = cudaMalloc(p, n);
  }
  if( e==cudaSuccess ){
    count(&g.nDevAlloc, 1);
    ga_cu_blocks_live(*p, n, tDev);
  }
  return e;
}
void ga_cu_free(void *p){
  if( p==0 ) return;
  if( ga_cu_blocks_put(p) || cudaFree(p)==cudaSuccess ) count(&g.nDevAlloc, -1);
}
cudaError_t ga_cu_pinned(void **p, size_t n){
  cudaError_t e = FI(FAULT_DEVICE, cudaHostAlloc(p, n, cudaHostAllocPortable));
  if( e==cudaSuccess ) count(&g.nDevAlloc, 1);
  return e;
}
void ga_cu_pinned_free(void *p){
  if( p && cudaFreeHost(p)==cudaSuccess ) count(&g.nDevAlloc, -1);
}
cudaError_t ga_cu_stream(cudaStream_t *p){
  cudaError_t e = FI(FAULT_DEVICE, cudaStreamCreateWithFlags(p, cudaStreamNonBlocking));
  if( e==cudaSuccess ) count(&g.nStream, 1);
  return e;
}
void ga_cu_stream_free(cudaStream_t st){
  if( st==0 ) return;
  (void)cudaStreamSynchronize(st);
  if( cudaStreamDestroy(st)==cudaSuccess ) count(&g.nStream, -1);
}

int ga_cuda_fault(const char *zKind, int64_t n, int iDev){
  int k, rc;
  for(k=FAULT_NONE; k<=FAULT_SYNC && (zKind==0 || strcmp(zKind, azFault[k])); k++){}
  if( k>FAULT_SYNC || n<0 || iDev<-1 || iDev>=GA_DEV_MAX ) return -1;
  pthread_mutex_lock(&g.mu);
  g.faultKind = n>0 ? k : FAULT_NONE;
  g.faultDev = iDev;
  g.faultLeft = n;
  rc = (int)g.nFault;
  pthread_mutex_unlock(&g.mu);
  return rc;
}

/* A histogram's state on one device (ga_hist.dev: a list, one per device
** its chunks went to). Kept numbers go into segments that grow
** geometrically: few cudaMalloc calls (each can cost as much as a chunk's
** copy) and one kernel launch per segment to count them. The budget
** counts the numbers kept, so that what fits on one device fits on
** several; a device's last segment may hold room beyond it. */
#define SEG_FIRST ((int64_t)8 << 20)      /* values in the first segment: 64 MiB */
#define SEG_MAX   ((int64_t)128 << 20)    /* and at most: 1 GiB */
typedef struct cuHist {
  int dev;                      /* the device */
  struct cuHist *next;          /* the state on another device */
  unsigned long long *counts;   /* device counts (h.bins), or NULL */
  int nSeg;                     /* segments of kept numbers */
  int nAlloc;                   /* room in aSeg */
  struct cuSeg {
    double *d;                  /* device memory for cap numbers */
    int64_t n;                  /* numbers kept there */
    int64_t cap;                /* room */
  } *aSeg;
} cuHist;

int ga_cu_fail(cudaError_t e, const char *zWhat, char *zErr){
  sqlite3_snprintf(GA_ERRLEN, zErr, "gpuagg: CUDA error in %s: %s (%s)",
                   zWhat, cudaGetErrorString(e), cudaGetErrorName(e));
  (void)cudaGetLastError();              /* clears a non-sticky error */
  if( cudaPeekAtLastError()!=cudaSuccess && tDev>=0 && tDev<GA_DEV_MAX ){
    pthread_mutex_lock(&g.mu);
    if( !g.dv[tDev].dead ){
      g.dv[tDev].dead = 1;
      sqlite3_snprintf(GA_ERRLEN, g.dv[tDev].zWhy, "the device failed earlier: %s", zErr);
    }
    pthread_mutex_unlock(&g.mu);
  }
  return 1;
}

static void probe(void){
  struct cudaDeviceProp prop;
  int n = 0, d;
  cudaError_t e = cudaGetDeviceCount(&n);
  __atomic_store_n(&g.probed, 1, __ATOMIC_RELEASE);   /* (read outside g.mu: ga_cuda_probe_soon) */
  if( e==cudaSuccess && n==0 ) e = cudaErrorNoDevice;
  for(d=0; e==cudaSuccess && d<n && d<GA_DEV_MAX; d++){
    if( (e = cudaGetDeviceProperties(&prop, d))!=cudaSuccess ) break;
    sqlite3_snprintf(sizeof(g.dv[d].zName), g.dv[d].zName, "%s", prop.name);
    g.dv[d].major = prop.major;
    g.dv[d].minor = prop.minor;
    ga_cu_blocks_device(d, prop.totalGlobalMem);
  }
  if( e!=cudaSuccess ){
    /* The runtime says "insufficient driver" (or another error) when there
    ** is no driver at all: tell that apart, so nobody is sent to upgrade a
    ** driver they do not have. (Loading the driver's library creates no
    ** context.) */
    void *lib = dlopen("libcuda.so.1", RTLD_LAZY | RTLD_LOCAL);
    if( lib==0 ){
      const char *zDl = dlerror();
      sqlite3_snprintf(GA_ERRLEN, g.zWhy, "no NVIDIA driver found: libcuda.so.1 could not be loaded (%s)",
                       zDl ? zDl : "not found");
    }else{
      sqlite3_snprintf(GA_ERRLEN, g.zWhy, "%s (%s)", cudaGetErrorString(e), cudaGetErrorName(e));
    }
    if( lib ) dlclose(lib);
    (void)cudaGetLastError();
    return;
  }
  g.nDev = d;
}

/* Devices a connection limited to nDev looks at; g.mu held. */
static int nLooked(int nDev){
  if( !g.probed ) probe();
  return nDev>0 && nDev<g.nDev ? nDev : g.nDev;
}

/* The probe's own thread (1a). */
static pthread_mutex_t probeMu = PTHREAD_MUTEX_INITIALIZER;   /* guards the two below */
static pthread_t probeTh;           /* the thread */
static int probeRun;                /* 0: none, 1: started and not joined, 2: joined */

static void *probeMain(void *pArg){
  (void)pArg;
  pthread_mutex_lock(&g.mu);
  if( !g.probed ) probe();
  pthread_mutex_unlock(&g.mu);
  return 0;
}

void ga_cuda_probe_join(void){
  int run;
  pthread_mutex_lock(&probeMu);
  run = probeRun==1;
  if( run ) probeRun = 2;
  pthread_mutex_unlock(&probeMu);
  if( run ) pthread_join(probeTh, 0);
}

/* The warm-up's own thread (1b), once a process: guarded by probeMu. */
static pthread_t warmTh;            /* the thread */
static int warmRun;                 /* 0: none, 1: started and not joined, 2: joined (or not started) */
static int warmEnded;               /* warmMain has returned (atomic) */

static void *warmMain(void *pArg){
  char zErr[GA_ERRLEN];
  int d = ga_cu_first(0);           /* (the probe's answer first) */
  (void)pArg;
  if( d>=0 ){
    /* the primary context outside g.mu (the most of its 0.2 s, which other
    ** callers need not wait for), then the kernels loaded under it: ga_cu_live
    ** finds the context made (a failure there switches the device off, as
    ** at its first use) */
    if( cudaSetDevice(d)==cudaSuccess ) (void)cudaFree(0);
    (void)cudaGetLastError();
    (void)ga_cu_live(d, zErr);
  }
  __atomic_store_n(&warmEnded, 1, __ATOMIC_RELEASE);
  return 0;
}

int ga_cuda_warm_soon(void){
  int busy;
  pthread_mutex_lock(&probeMu);
  if( warmRun==0 ) warmRun = pthread_create(&warmTh, 0, warmMain, 0)==0 ? 1 : 2;
  busy = warmRun==1 && !__atomic_load_n(&warmEnded, __ATOMIC_ACQUIRE);
  pthread_mutex_unlock(&probeMu);
  return busy;
}

void ga_cuda_warm_join(void){
  int run;
  pthread_mutex_lock(&probeMu);
  run = warmRun==1;
  if( run ) warmRun = 2;
  pthread_mutex_unlock(&probeMu);
  if( run ) pthread_join(warmTh, 0);
}

int ga_cuda_probe_soon(void){
  char zWhy[GA_ERRLEN];
  int here;
  if( __atomic_load_n(&g.probed, __ATOMIC_ACQUIRE) ) return ga_cuda_usable(zWhy);
  pthread_mutex_lock(&probeMu);
  if( probeRun==0 ) probeRun = pthread_create(&probeTh, 0, probeMain, 0)==0 ? 1 : 2;
  here = probeRun==2;               /* no thread (or it ended): asked here */
  pthread_mutex_unlock(&probeMu);
  return here ? ga_cuda_usable(zWhy) : -1;
}

int ga_cuda_usable(char *zWhy){
  int d, n, ok = 0;
  ga_cuda_probe_join();             /* (its answer, where it runs: g.mu waits for it anyway) */
  pthread_mutex_lock(&g.mu);
  n = nLooked(0);
  for(d=0; d<n && !ok; d++) ok = !g.dv[d].dead;
  if( !ok ) memcpy(zWhy, n ? g.dv[0].zWhy : g.zWhy, GA_ERRLEN);
  pthread_mutex_unlock(&g.mu);
  return ok;
}

const char *ga_cuda_device_name(int d){
  return d>=0 && d<g.nDev ? g.dv[d].zName : "";
}

int ga_cuda_allowed(int d, int nDev){
  int ok;
  pthread_mutex_lock(&g.mu);
  ok = d>=0 && d<nLooked(nDev) && !g.dv[d].dead;
  pthread_mutex_unlock(&g.mu);
  return ok;
}

int ga_cu_pick(int nDev){
  int i, n, d = -1;
  pthread_mutex_lock(&g.mu);
  n = nLooked(nDev);
  for(i=0; i<n && d<0; i++){
    int c = (int)((g.rr + (unsigned)i) % (unsigned)n);
    if( !g.dv[c].dead ) d = c;
  }
  if( d>=0 ) g.rr = (unsigned)d + 1;
  pthread_mutex_unlock(&g.mu);
  return d;
}

int ga_cu_first(int nDev){
  int d, n;
  pthread_mutex_lock(&g.mu);
  n = nLooked(nDev);
  for(d=0; d<n && g.dv[d].dead; d++){}
  pthread_mutex_unlock(&g.mu);
  return d<n ? d : -1;
}

cudaError_t ga_cu_set(int d){
  tDev = d;
  return cudaSetDevice(d);
}

void ga_cu_peer(int a, int b){
  int i, can = 0;
  pthread_mutex_lock(&g.mu);
  if( !g.peer[a][b] ){
    g.peer[a][b] = g.peer[b][a] = 1;
    for(i=0; i<2 && cudaDeviceCanAccessPeer(&can, i ? b : a, i ? a : b)==cudaSuccess && can; i++){
      if( ga_cu_set(i ? b : a)==cudaSuccess ) (void)cudaDeviceEnablePeerAccess(i ? a : b, 0);
    }
    (void)cudaGetLastError();   /* already enabled, or not possible: copies still work */
  }
  pthread_mutex_unlock(&g.mu);
}

/* Make device d current, create its context (once per process) and check
** the kernels load there. */
int ga_cu_live(int d, char *zErr){
  cudaError_t e = cudaSuccess;
  const char *zWhat = "";
  int rc = 0;
  pthread_mutex_lock(&g.mu);
  if( !g.probed ) probe();
  if( d<0 || d>=g.nDev ){
    sqlite3_snprintf(GA_ERRLEN, zErr, "gpuagg: CUDA backend unavailable: %s",
                     g.nDev ? "no device left to use" : g.zWhy);
    rc = 1;
  }else if( g.dv[d].dead ){
    sqlite3_snprintf(GA_ERRLEN, zErr, "gpuagg: CUDA backend unavailable: %s", g.dv[d].zWhy);
    rc = 1;
  }else if( (e = ga_cu_set(d))!=cudaSuccess ){
    zWhat = "cudaSetDevice";
  }else if( !g.dv[d].live ){
    if( (e = cudaFree(0))!=cudaSuccess ) zWhat = "context creation";
    else if( (e = ga_sum_max_blocks(&g.dv[d].maxBlocks))!=cudaSuccess
          || (e = ga_ext_max_blocks(&g.dv[d].maxBlocksExt))!=cudaSuccess
          || (e = ga_hist_prepare())!=cudaSuccess
          || (e = ga_group_prepare())!=cudaSuccess
          || (e = ga_query_prepare())!=cudaSuccess ) zWhat = "loading the kernels";
    if( e==cudaSuccess ) g.dv[d].live = 1;
  }
  if( e!=cudaSuccess ){
    /* No context or no kernel for this device: nothing will work on it. */
    sqlite3_snprintf(GA_ERRLEN, zErr, "gpuagg: CUDA error in %s on device %d: %s (%s)",
                     zWhat, d, cudaGetErrorString(e), cudaGetErrorName(e));
    (void)cudaGetLastError();
    g.dv[d].dead = 1;
    memcpy(g.dv[d].zWhy, zErr, GA_ERRLEN);
    rc = 1;
  }
  pthread_mutex_unlock(&g.mu);
  return rc;
}

void ga_cu_blocks(int d, int *pSum, int *pExt){
  *pSum = g.dv[d].maxBlocks;
  *pExt = g.dv[d].maxBlocksExt;
}

/* A context exists on some device that is still on. */
static int cuWarm(void){
  int d, warm = 0;
  pthread_mutex_lock(&g.mu);
  for(d=0; d<g.nDev && !warm; d++) warm = g.dv[d].live && !g.dv[d].dead;
  pthread_mutex_unlock(&g.mu);
  return warm;
}

/* The first live device, made current; -1: none. */
static int liveDevice(void){
  int d;
  pthread_mutex_lock(&g.mu);
  for(d=0; d<g.nDev && !(g.dv[d].live && !g.dv[d].dead); d++){}
  pthread_mutex_unlock(&g.mu);
  if( d>=g.nDev || ga_cu_set(d)!=cudaSuccess ) return -1;
  return d;
}

static void hostFree(ga_slot *s){
  cuSlot *q = (cuSlot*)s->priv;
  if( q->pinned && liveDevice()>=0 && cudaHostUnregister(s->buf)==cudaSuccess ) count(&g.nPinned, -1);
  free(s->buf);
  s->buf = 0;
  q->pinned = 0;
}

/* Pin the slot's host buffer, for every device, if a context exists; else
** leave it pageable. */
static void cuReady(ga_slot *s){
  cuSlot *q = (cuSlot*)s->priv;
  if( q->pinned || liveDevice()<0 ) return;
  size_t n = sizeof(int64_t)*(size_t)(s->cap + GA_BITMAP_WORDS(s->cap));
  if( FI(FAULT_HOST, cudaHostRegister(s->buf, n, cudaHostRegisterPortable))==cudaSuccess ){
    q->pinned = 1;
    count(&g.nPinned, 1);
  }else{
    (void)cudaGetLastError();   /* pageable still works, at a sixth of the rate */
  }
}

static int cuOpen(ga_slot *s, char *zErr){
  cuSlot *q = calloc(1, sizeof(cuSlot));
  if( q==0 || ga_cu_fault_hit(FAULT_HOST) || (s->buf = ga_host_alloc(s->cap))==0 ){
    s->priv = q;
    strcpy(zErr, "gpuagg: out of memory for a chunk buffer");
    return 1;
  }
  s->priv = q;
  cuReady(s);
  return 0;
}

/* Free the slot's device side (on its device), waiting for its work. */
static void devClose(cuSlot *q){
  int pinned = q->pinned;
  if( q->hRes || q->st ) (void)ga_cu_set(q->dev);
  ga_cu_stream_free(q->st);
  if( q->e0 && cudaEventDestroy(q->e0)==cudaSuccess ) count(&g.nStream, -1);
  if( q->e1 && cudaEventDestroy(q->e1)==cudaSuccess ) count(&g.nStream, -1);
  ga_cu_free(q->dBuf);
  ga_cu_free(q->dPart);
  ga_cu_free(q->dStat);
  ga_cu_free(q->dSqPart);
  ga_cu_pinned_free(q->hStat);
  ga_cu_pinned_free(q->hRes);
  (void)cudaGetLastError();
  memset(q, 0, sizeof(*q));
  q->pinned = pinned;
}

static void cuClose(ga_slot *s){
  cuSlot *q = (cuSlot*)s->priv;
  if( q==0 ) return;
  devClose(q);
  hostFree(s);
  free(q);
  s->priv = 0;
}

/* The device side of a slot, made at its first reduction on the next
** device the connection uses, and made again elsewhere when that device
** is no longer one of them. Leaves it the current device. */
static int devOpen(ga_slot *s, char *zErr){
  cuSlot *q = (cuSlot*)s->priv;
  int nb, d;
  if( q->hRes && ga_cuda_allowed(q->dev, s->nDev) ) return ga_cu_live(q->dev, zErr);
  if( q->hRes || q->st ) devClose(q);
  if( ga_cu_live(d = ga_cu_pick(s->nDev), zErr) ) return 1;
  q->dev = d;
  nb = g.dv[d].maxBlocks > g.dv[d].maxBlocksExt ? g.dv[d].maxBlocks : g.dv[d].maxBlocksExt;
  CK(ga_cu_stream(&q->st), "cudaStreamCreate");
  CK(FI(FAULT_DEVICE, cudaEventCreate(&q->e0)), "cudaEventCreate");
  count(&g.nStream, 1);
  CK(FI(FAULT_DEVICE, cudaEventCreate(&q->e1)), "cudaEventCreate");
  count(&g.nStream, 1);
  CK(ga_cu_alloc((void**)&q->dBuf, sizeof(int64_t)*(size_t)(s->cap + GA_BITMAP_WORDS(s->cap))), "cudaMalloc");
  CK(ga_cu_alloc((void**)&q->dPart, sizeof(ga_sum)*(size_t)(nb+1)), "cudaMalloc");
  CK(ga_cu_pinned((void**)&q->hRes, sizeof(ga_sum)), "cudaHostAlloc");
  return 0;
}

/* ---- histograms -------------------------------------------------------- */

/* hist's state on device d, made on first use; NULL with zErr set. */
static cuHist *histState(ga_hist *hist, int d, char *zErr){
  cuHist *ch;
  for(ch=(cuHist*)hist->dev; ch && ch->dev!=d; ch=ch->next){}
  if( ch==0 ){
    if( (ch = calloc(1, sizeof(cuHist)))==0 ){
      strcpy(zErr, "gpuagg: out of memory");
      return 0;
    }
    ch->dev = d;
    ch->next = (cuHist*)hist->dev;
    hist->dev = ch;
  }
  return ch;
}

/* The query's device counts, zeroed before any stream adds to them; on
** failure none (nothing unzeroed may be gathered later). */
static int histCounts(ga_hist *hist, cuHist *ch, cudaStream_t st, char *zErr){
  size_t nb = sizeof(uint64_t)*(size_t)hist->h.bins;
  const char *zWhat = "cudaMalloc (histogram)";
  cudaError_t e = ga_cu_alloc((void**)&ch->counts, nb);
  if( e==cudaSuccess && (e = FI(FAULT_COPY, cudaMemsetAsync(ch->counts, 0, nb, st)))!=cudaSuccess ) zWhat = "cudaMemsetAsync";
  if( e==cudaSuccess && (e = FI(FAULT_SYNC, cudaStreamSynchronize(st)))!=cudaSuccess ) zWhat = "cudaStreamSynchronize";
  if( e==cudaSuccess ) return 0;
  ga_cu_free(ch->counts);
  ch->counts = 0;
  return ga_cu_fail(e, zWhat, zErr);
}

/* Free the numbers hist keeps on every device. */
static void histDrop(ga_hist *hist){
  cuHist *ch;
  int i;
  for(ch=(cuHist*)hist->dev; ch; ch=ch->next){
    (void)ga_cu_set(ch->dev);
    for(i=0; i<ch->nSeg; i++){
      ga_cu_free(ch->aSeg[i].d);
      hist->nKept -= (int64_t)sizeof(double)*ch->aSeg[i].n;
    }
    ch->nSeg = 0;
  }
}

/* Keeping gave up: free everything kept, here and on the host. */
static int histOver(ga_hist *hist){
  histDrop(hist);
  ga_cpu_kept(hist, 0);
  hist->over = 1;
  return 0;
}

/* A new segment for at least n numbers, within the budget; 0 if there is
** no room (budget or device memory), 1 on a CUDA error (zErr set). */
static int histGrow(ga_hist *hist, cuHist *ch, int64_t n, struct cuSeg **pSeg, char *zErr){
  int64_t cap = ch->nSeg ? 2*ch->aSeg[ch->nSeg-1].cap : SEG_FIRST;
  int64_t room = (hist->budget - hist->nKept)/(int64_t)sizeof(double);
  double *d = 0;
  cudaError_t e;
  if( cap>SEG_MAX ) cap = SEG_MAX;
  if( cap>room ) cap = room;
  if( cap<n ) cap = n;
  if( cap>room ) return 0;
  if( ch->nSeg==ch->nAlloc ){
    int na = ch->nAlloc ? 2*ch->nAlloc : 16;
    void *p = realloc(ch->aSeg, sizeof(ch->aSeg[0])*(size_t)na);
    if( p==0 ) return 0;
    ch->aSeg = p;
    ch->nAlloc = na;
  }
  e = ga_cu_alloc((void**)&d, sizeof(double)*(size_t)cap);
  if( e==cudaErrorMemoryAllocation && cap>n ){
    (void)cudaGetLastError();
    e = ga_cu_alloc((void**)&d, sizeof(double)*(size_t)(cap = n));
  }
  if( e==cudaErrorMemoryAllocation ){
    (void)cudaGetLastError();
    return 0;
  }
  if( e!=cudaSuccess ) return ga_cu_fail(e, "cudaMalloc (kept numbers)", zErr);
  *pSeg = &ch->aSeg[ch->nSeg++];
  (*pSeg)->d = d;
  (*pSeg)->n = 0;
  (*pSeg)->cap = cap;
  return 0;
}

/* GA_OP_KEEP: copy the chunk to the device, where it stays until the range
** is known. Out of budget or of device memory is not an error: the
** histogram gives up keeping (ga_hist). */
static int cuKeep(ga_slot *s, const ga_job *j, char *zErr){
  cuSlot *q = (cuSlot*)s->priv;
  ga_hist *hist = j->hist;
  size_t nb = sizeof(double)*(size_t)j->n;
  struct cuSeg *seg = 0;
  cuHist *ch;
  if( hist->over || hist->nKept + (int64_t)nb > hist->budget ) return histOver(hist);
  if( (ch = histState(hist, q->dev, zErr))==0 ) return 1;
  if( ch->nSeg>0 && ch->aSeg[ch->nSeg-1].cap - ch->aSeg[ch->nSeg-1].n >= j->n ){
    seg = &ch->aSeg[ch->nSeg-1];
  }else{
    if( histGrow(hist, ch, j->n, &seg, zErr) ) return 1;
    if( seg==0 ) return histOver(hist);
  }
  CK(FI(FAULT_COPY, cudaMemcpyAsync(seg->d + seg->n, s->buf, nb, cudaMemcpyHostToDevice, q->st)),
     "cudaMemcpyAsync (kept numbers)");
  seg->n += j->n;
  hist->nKept += (int64_t)nb;
  ga_cu_count(s->stats, q->dev, (int64_t)nb);
  return 0;
}

/* Count the kept numbers (unless keeping gave up), add the device counts
** into the host's. */
static int histCollect(ga_hist *hist, cuHist *ch, char *zErr){
  cudaStream_t st = cudaStreamPerThread;
  size_t nb = sizeof(uint64_t)*(size_t)hist->h.bins;
  uint64_t *tmp;
  cudaError_t e = cudaSuccess;
  int64_t i;
  if( ch->nSeg>0 && !hist->over ){
    if( ch->counts==0 && histCounts(hist, ch, st, zErr) ) return 1;
    for(i=0; i<ch->nSeg; i++){
      CK(FI(FAULT_LAUNCH, ga_hist_launch(ch->aSeg[i].d, ch->aSeg[i].n, &hist->h, ch->counts, st)),
         "the histogram kernel");
    }
  }
  if( ch->counts==0 ) return 0;
  if( (tmp = malloc(nb))==0 ){
    strcpy(zErr, "gpuagg: out of memory");
    return 1;
  }
  e = FI(FAULT_COPY, cudaMemcpyAsync(tmp, ch->counts, nb, cudaMemcpyDeviceToHost, st));
  if( e==cudaSuccess ) e = FI(FAULT_SYNC, cudaStreamSynchronize(st));
  if( e==cudaSuccess ) for(i=0; i<hist->h.bins; i++) hist->counts[i] += tmp[i];
  free(tmp);
  if( e!=cudaSuccess ) return ga_cu_fail(e, "cudaMemcpy (histogram)", zErr);
  return 0;
}

/* Every device's counts are added in: counting commutes. */
static int cuHistDone(ga_hist *hist, int use, char *zErr){
  cuHist *ch;
  int rc = 0;
  for(ch=(cuHist*)hist->dev; ch && use && rc==0; ch=ch->next){
    cudaError_t e = ga_cu_set(ch->dev);
    rc = e!=cudaSuccess ? ga_cu_fail(e, "cudaSetDevice", zErr) : histCollect(hist, ch, zErr);
    if( rc ) hist->lost = 1;
  }
  histDrop(hist);
  while( (ch = (cuHist*)hist->dev)!=0 ){
    (void)ga_cu_set(ch->dev);
    ga_cu_free(ch->counts);
    (void)cudaGetLastError();
    free(ch->aSeg);
    hist->dev = ch->next;
    free(ch);
  }
  return rc;
}

/* ---- the backend --------------------------------------------------------- */

static int cuStartJob(ga_slot *s, const ga_job *j, char *zErr);

/* A histogram's or grouping's job that fails may have counted, kept or
** folded part of its chunk on the device before it failed, and the pipeline
** redoes it on the CPU: it is marked lost, to be counted again
** (tvf/histogram.c, tvf/groupby.c). */
static int cuStart(ga_slot *s, const ga_job *j, char *zErr){
  cuSlot *q = (cuSlot*)s->priv;
  int rc;
  q->hist = (j->op==GA_OP_HIST || j->op==GA_OP_KEEP) ? j->hist : 0;
  rc = cuStartJob(s, j, zErr);
  if( rc && q->hist ) q->hist->lost = 1;
  if( rc && j->op==GA_OP_GROUP ) j->group->lost = 1;
  return rc;
}

/* GA_OP_STATS: each column's sum, sum of squares, least and greatest
** number, by the sum, squares and extreme kernels, into dStat; the results
** land in hStat. */
static int cuStats(ga_slot *s, const ga_job *j, char *zErr){
  cuSlot *q = (cuSlot*)s->priv;
  size_t nv = sizeof(int64_t)*(size_t)(j->nSeg*j->segCap), nb = nv/64;
  int c;
  if( q->nStat<j->nSeg ){
    ga_cu_free(q->dStat);
    ga_cu_pinned_free(q->hStat);
    q->dStat = 0;
    q->hStat = 0;
    q->nStat = 0;
    CK(ga_cu_alloc((void**)&q->dStat, sizeof(ga_stat)*(size_t)j->nSeg), "cudaMalloc (statistics)");
    CK(ga_cu_pinned((void**)&q->hStat, sizeof(ga_stat)*(size_t)j->nSeg), "cudaHostAlloc (statistics)");
    q->nStat = j->nSeg;
  }
  if( q->dSqPart==0 ) CK(ga_cu_alloc((void**)&q->dSqPart, sizeof(ga_sq)*(size_t)g.dv[q->dev].maxBlocks), "cudaMalloc (squares)");
  q->nStatJob = j->nSeg;
  CK(FI(FAULT_COPY, cudaMemcpyAsync(q->dBuf, s->buf, nv, cudaMemcpyHostToDevice, q->st)), "cudaMemcpyAsync (chunk)");
  CK(FI(FAULT_COPY, cudaMemcpyAsync(q->dBuf + s->cap, s->buf + s->cap, nb, cudaMemcpyHostToDevice, q->st)),
     "cudaMemcpyAsync (types)");
  CK(cudaEventRecord(q->e0, q->st), "cudaEventRecord");
  for(c=0; c<j->nSeg; c++){
    int64_t n = j->segN[c];
    const int64_t *v = GA_STATS_VALS(q->dBuf, j->segCap, c);
    const uint64_t *bits = GA_STATS_BITS(q->dBuf, s->cap, j->segCap, c);
    int mode = j->segReal[c]==0 ? GA_T_INT : j->segReal[c]==n ? GA_T_REAL : 0;
    ga_ext *dPart = (ga_ext*)q->dPart;
    if( n==0 ) continue;
    CK(FI(FAULT_LAUNCH, ga_sum_bits_launch(v, bits, n, q->dPart, g.dv[q->dev].maxBlocks, &q->dStat[c].sum, q->st)), "the sum kernel");
    CK(FI(FAULT_LAUNCH, ga_sq_launch(v, bits, n, q->dSqPart, g.dv[q->dev].maxBlocks, &q->dStat[c].sq, q->st)), "the squares kernel");
    CK(FI(FAULT_LAUNCH, ga_ext_launch(v, bits, n, mode, 0, dPart, g.dv[q->dev].maxBlocksExt, &q->dStat[c].mn, q->st)),
       "the min/max kernel");
    CK(FI(FAULT_LAUNCH, ga_ext_launch(v, bits, n, mode, 1, dPart, g.dv[q->dev].maxBlocksExt, &q->dStat[c].mx, q->st)),
       "the min/max kernel");
  }
  CK(cudaEventRecord(q->e1, q->st), "cudaEventRecord");
  CK(FI(FAULT_COPY, cudaMemcpyAsync(q->hStat, q->dStat, sizeof(ga_stat)*(size_t)j->nSeg, cudaMemcpyDeviceToHost,
                                    q->st)), "cudaMemcpyAsync (statistics)");
  ga_cu_count(s->stats, q->dev, (int64_t)(nv + nb));
  return 0;
}

static int cuStartJob(ga_slot *s, const ga_job *j, char *zErr){
  cuSlot *q = (cuSlot*)s->priv;
  size_t nCopy = sizeof(int64_t)*(size_t)j->n;

  if( devOpen(s, zErr) ) return 1;
  q->op = j->op;
  if( j->op==GA_OP_KEEP ) return cuKeep(s, j, zErr);
  if( j->op==GA_OP_GROUP ) return ga_cu_group_start(s, j, zErr);
  if( j->op==GA_OP_STATS ) return cuStats(s, j, zErr);
  if( j->op==GA_OP_HIST ){
    cuHist *ch = histState(j->hist, q->dev, zErr);
    if( ch==0 ) return 1;
    if( ch->counts==0 && histCounts(j->hist, ch, q->st, zErr) ) return 1;
  }
  CK(FI(FAULT_COPY, cudaMemcpyAsync(q->dBuf, s->buf, nCopy, cudaMemcpyHostToDevice, q->st)), "cudaMemcpyAsync (chunk)");
  if( j->op==GA_OP_HIST ){
    CK(cudaEventRecord(q->e0, q->st), "cudaEventRecord");
    CK(FI(FAULT_LAUNCH, ga_hist_launch((const double*)q->dBuf, j->n, &j->hist->h, histState(j->hist, q->dev, zErr)->counts,
                                       q->st)), "the histogram kernel");
    CK(cudaEventRecord(q->e1, q->st), "cudaEventRecord");
    ga_cu_count(s->stats, q->dev, (int64_t)nCopy);
    return 0;
  }
  if( j->op==GA_OP_SUM ){
    CK(cudaEventRecord(q->e0, q->st), "cudaEventRecord");
    CK(FI(FAULT_LAUNCH, ga_sum_launch(q->dBuf, j->n, j->ni, q->dPart, g.dv[q->dev].maxBlocks, q->dPart + g.dv[q->dev].maxBlocks, q->st)),
       "the sum kernel");
  }else{
    /* One type: no bitmap needed. Mixed: copy the bitmap's words too. */
    int mode = j->nReal==0 ? GA_T_INT : j->nReal==j->n ? GA_T_REAL : 0;
    ga_ext *dPart = (ga_ext*)q->dPart;
    uint64_t *dBits = (uint64_t*)(q->dBuf + s->cap);
    if( mode==0 ){
      size_t nb = sizeof(uint64_t)*(size_t)GA_BITMAP_WORDS(j->n);
      CK(FI(FAULT_COPY, cudaMemcpyAsync(dBits, s->buf + s->cap, nb, cudaMemcpyHostToDevice, q->st)),
         "cudaMemcpyAsync (types)");
      nCopy += nb;
    }
    CK(cudaEventRecord(q->e0, q->st), "cudaEventRecord");
    CK(FI(FAULT_LAUNCH, ga_ext_launch(q->dBuf, dBits, j->n, mode, j->op==GA_OP_MAX, dPart, g.dv[q->dev].maxBlocksExt,
                                      dPart + g.dv[q->dev].maxBlocksExt, q->st)), "the min/max kernel");
  }
  CK(cudaEventRecord(q->e1, q->st), "cudaEventRecord");
  CK(FI(FAULT_COPY, cudaMemcpyAsync(q->hRes, j->op==GA_OP_SUM ? (void*)(q->dPart + g.dv[q->dev].maxBlocks)
                                               : (void*)((ga_ext*)q->dPart + g.dv[q->dev].maxBlocksExt),
                     j->op==GA_OP_SUM ? sizeof(ga_sum) : sizeof(ga_ext),
                     cudaMemcpyDeviceToHost, q->st)), "cudaMemcpyAsync (result)");
  ga_cu_count(s->stats, q->dev, (int64_t)nCopy);
  return 0;
}

static int cuWait(ga_slot *s, char *zErr){
  cuSlot *q = (cuSlot*)s->priv;
  float ms;
  cudaError_t e = ga_cu_set(q->dev);
  /* A grouping's chunk is done when its fold is (on the grouping's stream). */
  if( e==cudaSuccess ) e = FI(FAULT_SYNC, q->op==GA_OP_GROUP ? cudaEventSynchronize(q->e1) : cudaStreamSynchronize(q->st));
  if( e!=cudaSuccess ){
    if( q->hist ) q->hist->lost = 1;
    return ga_cu_fail(e, "cudaStreamSynchronize", zErr);
  }
  if( q->op==GA_OP_KEEP ) return 0;     /* a copy, no kernel */
  if( q->op==GA_OP_SUM ) s->res = *q->hRes;
  else if( q->op==GA_OP_STATS ) memcpy(s->stat, q->hStat, sizeof(ga_stat)*(size_t)q->nStatJob);
  else if( q->op!=GA_OP_HIST ) memcpy(&s->ext, q->hRes, sizeof(ga_ext));
  if( cudaEventElapsedTime(&ms, q->e0, q->e1)==cudaSuccess ) ga_cu_ms(s->stats, q->dev, ms);
  return 0;
}

void ga_cuda_describe(sqlite3_str *out){
  char zWhy[GA_ERRLEN];
  int d;
  if( !ga_cuda_usable(zWhy) ){
    sqlite3_str_appendall(out, ",\"device\":null,\"cuda_unavailable\":");
    ga_json_str(out, zWhy);
    return;
  }
  d = ga_cu_first(0);
  sqlite3_str_appendall(out, ",\"device\":");
  ga_json_str(out, g.dv[d].zName);
  sqlite3_str_appendf(out, ",\"compute_capability\":\"%d.%d\",\"context\":%s",
                      g.dv[d].major, g.dv[d].minor, cuWarm() ? "true" : "false");
  pthread_mutex_lock(&g.mu);
  sqlite3_str_appendf(out, ",\"visible_devices\":%d,\"device_allocations\":%lld,\"pinned_buffers\":%lld"
                      ",\"streams_events\":%lld,\"faults_injected\":%lld", g.nDev,
                      (long long)g.nDevAlloc, (long long)g.nPinned, (long long)g.nStream, (long long)g.nFault);
  pthread_mutex_unlock(&g.mu);
}

static int cuWake(int nDev, char *zErr){
  int d = ga_cu_first(nDev);
  if( d<0 ){
    strcpy(zErr, "gpuagg: no device may be used");
    return 1;
  }
  return ga_cu_live(d, zErr);
}

const ga_backend ga_cuda_backend = {
  "cuda", cuOpen, cuReady, cuClose, cuStart, cuWait, cuWarm, cuHistDone, ga_cu_group_done, ga_cuda_ranks,
  ga_cuda_usable, ga_cuda_describe, ga_cuda_allowed, ga_cuda_device_name,
#ifdef GPUAGG_FAULTS
  ga_cuda_fault,
#else
  0,
#endif
  ga_dcol_make, ga_dcol_free, ga_dcol_bytes, ga_dcol_bytes_on, ga_cuda_free_bytes, ga_dres_free,
  ga_dres_bytes, ga_dres_trim,
  ga_dcol_stats, ga_dcol_range, ga_dcol_hist, ga_dcol_group, ga_dcol_ranks, ga_dcol_distinct,
  ga_dcol_query, ga_dcol_order, cuWake
};
