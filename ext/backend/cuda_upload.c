/*
** Large host-to-device copies of the column cache's host arrays
** (cuda_resident.c, 1), which are pageable: a pageable cudaMemcpy runs
** at about 1/6 of a pinned one (../shared/GPU.md: 8.5 against 55 GB/s on
** the H200 host), one thread staging it.
**
**   1. A copy of at least UPLOAD_MIN bytes is cut into pieces of
**      STAGE_PIECE bytes, dealt to the workers in turn. Each worker has two
**      pinned buffers and a stream of its own: it copies a piece into one
**      buffer while the other's piece crosses the bus (an event on its
**      stream says when a buffer is free again), so the host's copying runs
**      on several cores and overlaps the transfers. A smaller copy is one
**      cudaMemcpy.
**   2. The pinned buffers are a connection's (ga_stage, in its ga_dres):
**      made at its first large copy, freed with the connection's device
**      state; pinned memory is slow to make and scarce. They are not device
**      memory, so the cache's trim of work buffers leaves them.
**   3. Every CUDA call is checked; the first failure is the copy's error
**      (the other workers stop at their next piece), every stream is waited
**      for before the call returns, so no transfer outlives it.
**   4. ga_cu_fan runs one function on several threads (the caller's is the
**      first): for the upload's workers and for passes over host arrays.
*/
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "cuda.h"

#define STAGE_PIECE ((size_t)4 << 20)        /* bytes a transfer: 4 MiB pinned runs near the bus's speed */
#define UPLOAD_MIN  ((size_t)8 << 20)        /* smaller copies: one cudaMemcpy */

struct ga_stage {
  int nThr;                                  /* workers: a pair of buffers each */
  char *mem;                                 /* pinned: 2*nThr buffers of STAGE_PIECE bytes, one allocation */
};

int ga_cu_fan_threads(void){
  long n = sysconf(_SC_NPROCESSORS_ONLN)/2;
  return n<1 ? 1 : n>GA_FAN_MAX ? GA_FAN_MAX : (int)n;
}

typedef struct Fan {
  void (*xWork)(void*, int, int);            /* the function */
  void *pArg;                                /* its argument */
  int nThr;                                  /* threads */
  int iThr;                                  /* this one's number */
} Fan;

static void *fanMain(void *p){
  Fan *f = (Fan*)p;
  f->xWork(f->pArg, f->iThr, f->nThr);
  return 0;
}

void ga_cu_fan(int nThr, void (*xWork)(void*, int iThr, int nThr), void *pArg){
  pthread_t aId[GA_FAN_MAX];
  Fan aFan[GA_FAN_MAX];
  int i, nRun = 1;
  if( nThr>GA_FAN_MAX ) nThr = GA_FAN_MAX;
  if( nThr<1 ) nThr = 1;
  for(i=0; i<nThr; i++){
    aFan[i].xWork = xWork;
    aFan[i].pArg = pArg;
    aFan[i].nThr = nThr;
    aFan[i].iThr = i;
  }
  for(i=1; i<nThr && pthread_create(&aId[i], 0, fanMain, &aFan[i])==0; i++) nRun++;
  for(i=nRun; i<nThr; i++) xWork(pArg, i, nThr);   /* a share whose thread did not start: the caller's */
  xWork(pArg, 0, nThr);
  for(i=1; i<nRun; i++) pthread_join(aId[i], 0);
}

/* One copy's state, shared by its workers. */
typedef struct Upload {
  const ga_stage *s;                         /* the buffers: worker i's are the (2i)th and (2i+1)th */
  int dev;                                   /* the device */
  char *dst;                                 /* device bytes ... */
  const char *src;                           /* ... from host bytes */
  size_t nb;                                 /* ... this many */
  pthread_mutex_t mu;                        /* guards the two below */
  cudaError_t e;                             /* the first failure, or cudaSuccess */
  const char *zWhat;                         /* ... the call that failed */
} Upload;

static int uploadFailed(Upload *u, cudaError_t e, const char *zWhat){
  int failed;
  pthread_mutex_lock(&u->mu);
  if( e!=cudaSuccess && u->e==cudaSuccess ){
    u->e = e;
    u->zWhat = zWhat;
  }
  failed = u->e!=cudaSuccess;
  pthread_mutex_unlock(&u->mu);
  return failed;
}

/* Worker iThr: pieces iThr, iThr + nThr, ... (1). */
static void uploadWork(void *p, int iThr, int nThr){
  Upload *u = (Upload*)p;
  cudaStream_t st = 0;
  cudaEvent_t ev[2] = {0, 0};
  size_t nPiece = (u->nb + STAGE_PIECE - 1)/STAGE_PIECE, k, j;
  const char *zWhat = "cudaSetDevice";
  cudaError_t e = ga_cu_set(u->dev);
  if( e==cudaSuccess ){ zWhat = "cudaStreamCreate (upload)"; e = ga_cu_stream(&st); }
  for(j=0; j<2 && e==cudaSuccess; j++){
    zWhat = "cudaEventCreate (upload)";
    e = FI(FAULT_DEVICE, cudaEventCreateWithFlags(&ev[j], cudaEventDisableTiming));
  }
  for(k=(size_t)iThr, j=0; k<nPiece && !uploadFailed(u, e, zWhat); k+=(size_t)nThr, j++){
    size_t off = k*STAGE_PIECE, len = u->nb - off < STAGE_PIECE ? u->nb - off : STAGE_PIECE;
    void *h = u->s->mem + (size_t)(2*iThr + (j & 1))*STAGE_PIECE;
    zWhat = "cudaEventSynchronize (upload)";
    if( j>=2 && (e = FI(FAULT_SYNC, cudaEventSynchronize(ev[j & 1])))!=cudaSuccess ) continue;
    memcpy(h, u->src + off, len);
    zWhat = "cudaMemcpyAsync (upload)";
    e = FI(FAULT_COPY, cudaMemcpyAsync(u->dst + off, h, len, cudaMemcpyHostToDevice, st));
    if( e==cudaSuccess ){ zWhat = "cudaEventRecord (upload)"; e = cudaEventRecord(ev[j & 1], st); }
  }
  if( st ){
    cudaError_t e2 = FI(FAULT_SYNC, cudaStreamSynchronize(st));
    (void)uploadFailed(u, e2, "cudaStreamSynchronize (upload)");
    ga_cu_stream_free(st);
  }
  for(j=0; j<2; j++) if( ev[j] ) (void)cudaEventDestroy(ev[j]);
  (void)uploadFailed(u, e, zWhat);
}

/* The connection's buffers, made at their first use; NULL if pinned
** memory cannot be had (the copy is then one cudaMemcpy). */
static ga_stage *stageOf(ga_stage **pp){
  ga_stage *s = *pp;
  if( s ) return s;
  if( (s = calloc(1, sizeof(ga_stage)))==0 ) return 0;
  s->nThr = ga_cu_fan_threads();
  if( ga_cu_pinned((void**)&s->mem, 2*(size_t)s->nThr*STAGE_PIECE)!=cudaSuccess ){
    (void)cudaGetLastError();
    free(s);
    return 0;
  }
  return *pp = s;
}

int ga_cu_upload(ga_stage **pp, int dev, void *dst, const void *src, size_t nb, char *zErr){
  ga_stage *s = nb>=UPLOAD_MIN ? stageOf(pp) : 0;
  Upload u;
  if( nb==0 ) return 0;
  if( s==0 ){
    CK(FI(FAULT_COPY, cudaMemcpy(dst, src, nb, cudaMemcpyHostToDevice)), "cudaMemcpy (upload)");
    return 0;
  }
  memset(&u, 0, sizeof(u));
  u.s = s;
  u.dev = dev;
  u.dst = (char*)dst;
  u.src = (const char*)src;
  u.nb = nb;
  pthread_mutex_init(&u.mu, 0);
  ga_cu_fan(s->nThr, uploadWork, &u);
  pthread_mutex_destroy(&u.mu);
  (void)ga_cu_set(dev);                      /* (the caller's thread is a worker: the device is its again) */
  if( u.e!=cudaSuccess ) return ga_cu_fail(u.e, u.zWhat, zErr);
  return 0;
}

void ga_stage_free(ga_stage *s){
  if( s==0 ) return;
  ga_cu_pinned_free(s->mem);
  free(s);
}
