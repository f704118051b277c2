/*===- FakeCuda.h - the fake CUDA driver's test interface ----------------===*\
 *
 * build/fake-cuda/libcuda.so.1 is a CPU-only stand-in for the CUDA driver
 * (runtime/test/FakeCuda.cpp): put its directory first on LD_LIBRARY_PATH and
 * libtx_cuda_runtime.so (and anything else linked to libcuda.so.1) runs
 * against it. Besides the driver entry points it exports the functions below,
 * which tests find with dlsym(RTLD_DEFAULT, ...) so that the same test binary
 * still runs against a real driver (where they are absent).
 *
 * Model: device memory is host memory (malloc), so host code can read
 * "device" pointers; every stream operation runs immediately on the calling
 * thread; kernels are no-ops unless a host function is registered under
 * their name (tx_selftest_fill is built in). Module images must be PTX, a
 * cubin or a fatbin; their kernels and parameter counts are read with the
 * runtime's ImageInfo. Stream capture is modelled for what matters to the
 * runtime: while a stream captures (global or thread-local mode), calls that
 * would break a real capture (cuMemAlloc, cuMemFree, cuModuleLoad*,
 * synchronization, blocking copies) fail with
 * CUDA_ERROR_STREAM_CAPTURE_UNSUPPORTED and invalidate the capture; work
 * enqueued on the capturing stream is counted as graph nodes (and still
 * executed). Like the real driver, it shuts down at process exit before
 * global destructors run: calls from them get CUDA_ERROR_DEINITIALIZED.
 *
 * Environment: FAKE_CUDA_DEVICES (default 1), FAKE_CUDA_MEMORY_BYTES (device
 * memory per process, default 1 GiB; beyond it allocations fail with
 * CUDA_ERROR_OUT_OF_MEMORY), FAKE_CUDA_NO_MEMPOOLS=1 (devices report no
 * stream-ordered allocator), FAKE_CUDA_REPORT=1 (print the statistics to
 * stderr at exit).
\*===----------------------------------------------------------------------===*/

#ifndef TX_FAKE_CUDA_H
#define TX_FAKE_CUDA_H

#ifdef __cplusplus
extern "C" {
#endif

typedef struct FakeCudaStats {
  long long liveAllocations; /* device, managed and pool allocations */
  long long liveBytes;
  long long liveStreams;
  long long liveEvents;
  long long liveModules;
  long long livePools;
  long long liveGraphs;
  long long liveHostRegistrations;
  long long calls;       /* driver entry points called (cuGetError* excluded) */
  long long failedCalls; /* ... of which returned an error */
  long long launches;    /* kernels launched successfully */
  long long capturedNodes;
  int lastFailedResult;
  char lastFailedCall[64];
} FakeCudaStats;

typedef struct FakeCudaLaunch {
  const char *kernel;
  unsigned grid[3];
  unsigned block[3];
  unsigned sharedMemBytes;
  void *stream; /* the CUstream it was launched on */
} FakeCudaLaunch;

typedef void (*FakeCudaKernelFn)(const FakeCudaLaunch *launch, void **params);

void fakeCudaGetStats(FakeCudaStats *stats);
/* Number of calls of one entry point, by its name in cuda.h without the
 * version suffix (e.g. "cuCtxGetCurrent", "cuMemFree"); -1 if unknown. */
long long fakeCudaCallCount(const char *name);
/* Kernels named `name` (in any module) run `fn` when launched. */
void fakeCudaRegisterKernel(const char *name, FakeCudaKernelFn fn);

#ifdef __cplusplus
} /* extern "C" */
#endif

#endif /* TX_FAKE_CUDA_H */
