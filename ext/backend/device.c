/*
** The device backend this build has: the one place outside the CUDA
** backend's own files that knows whether it was built. Everything else
** reaches the device through ga_backend (backend.h).
*/
#include <string.h>
#include "backend.h"
#ifdef GPUAGG_CUDA
# include "cuda.h"
#endif

const ga_backend *ga_device_backend(void){
#ifdef GPUAGG_CUDA
  return &ga_cuda_backend;
#else
  return 0;
#endif
}

int ga_device_usable(char *zWhy){
  const ga_backend *be = ga_device_backend();
  if( be ) return be->xUsable(zWhy);
  strcpy(zWhy, "this gpuagg was built without CUDA");
  return 0;
}

int ga_device_probe_soon(void){
#ifdef GPUAGG_CUDA
  return ga_cuda_probe_soon();
#else
  return 0;
#endif
}

int ga_device_warm_soon(void){
#ifdef GPUAGG_CUDA
  return ga_cuda_warm_soon();
#else
  return 0;
#endif
}

void ga_device_idle(void){
#ifdef GPUAGG_CUDA
  ga_cuda_probe_join();
  ga_cuda_warm_join();
  (void)ga_cu_blocks_trim(-1);
#endif
}
