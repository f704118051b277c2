/*===- tx/Runtime.h - tx CUDA host runtime (libtx_cuda_runtime.so) -------===*\
 *
 * Public C interface of the host runtime that code produced by MLIR's
 * `gpu-to-llvm` lowering (and the gpu.binary embedding) calls into.
 *
 *  - The tx* functions are this runtime's own API for harnesses and tests:
 *    error queries and a device-wide synchronize.
 *  - The mgpu* functions are the ABI that MLIR 22 emits calls to. They are
 *    declared here so C/C++ harnesses and tests can call them directly; the
 *    handle types are the CUDA driver API's opaque pointer typedefs, spelled
 *    exactly as in cuda.h so this header can be mixed with it.
 *
 * The header is plain C (usable from C and C++) and needs no CUDA headers.
\*===----------------------------------------------------------------------===*/

#ifndef TX_RUNTIME_H
#define TX_RUNTIME_H

#include <stddef.h>
#include <stdint.h>

#if defined(_WIN32)
#define TX_RUNTIME_EXPORT __declspec(dllexport)
#else
#define TX_RUNTIME_EXPORT __attribute__((visibility("default")))
#endif

/* Opaque driver-API handles; identical to the typedefs in cuda.h (repeating an
 * identical typedef is allowed in C11 and C++). */
typedef struct CUmod_st *CUmodule;
typedef struct CUfunc_st *CUfunction;
typedef struct CUstream_st *CUstream;
typedef struct CUevent_st *CUevent;

#ifdef __cplusplus
extern "C" {
#endif

/*===------------------------------------------------------------------===*
 * tx runtime API
 *===------------------------------------------------------------------===*/

/* The message of the most recent error the runtime reported (the same text it
 * printed to stderr after "tx-runtime: error: "), or NULL if there was none
 * since process start or the last txRuntimeClearLastError(). The pointer stays
 * valid until the next reported error or clear. */
TX_RUNTIME_EXPORT const char *txRuntimeGetLastError(void);

/* Forgets the last error message (txRuntimeGetLastError() returns NULL until
 * the next error). Does not reset txRuntimeErrorCount(). */
TX_RUNTIME_EXPORT void txRuntimeClearLastError(void);

/* Number of errors reported since process start (monotonic; harnesses can
 * compare it before and after a call). */
TX_RUNTIME_EXPORT int txRuntimeErrorCount(void);

/* cuCtxSynchronize on the default device's primary context: waits for all
 * work of the context and reports (and returns) any asynchronous error, e.g.
 * a kernel fault. Returns the CUresult as int (0 == CUDA_SUCCESS). */
TX_RUNTIME_EXPORT int txRuntimeSynchronize(void);

/* Makes compiled code enqueue its kernels on `stream` (e.g. PyTorch's current
 * stream) instead of streams of its own; NULL restores the default. With
 * `async` != 0, calls also return without waiting for that stream, so that
 * launches can be timed back to back with CUDA events. Only for code without
 * device temporaries (their frees would race the queued kernels). */
TX_RUNTIME_EXPORT void txRuntimeSetStream(CUstream stream, int async);

/*===------------------------------------------------------------------===*
 * MLIR 22 gpu-to-llvm / SelectObjectAttr ABI (see CudaRuntime.cpp)
 *===------------------------------------------------------------------===*/

/* Modules. mgpuModuleLoad/Unload are called from global ctors/dtors emitted
 * for each gpu.binary; mgpuModuleLoadJIT is used for PTX ("assembly")
 * objects. */
TX_RUNTIME_EXPORT CUmodule mgpuModuleLoad(void *data, size_t gpuBlobSize);
TX_RUNTIME_EXPORT CUmodule mgpuModuleLoadJIT(void *data, int optLevel);
TX_RUNTIME_EXPORT void mgpuModuleUnload(CUmodule module);
TX_RUNTIME_EXPORT CUfunction mgpuModuleGetFunction(CUmodule module,
                                                   const char *name);

/* Launches. Grid/block sizes are MLIR `index` values (intptr_t). */
TX_RUNTIME_EXPORT void mgpuLaunchKernel(CUfunction function, intptr_t gridX,
                                        intptr_t gridY, intptr_t gridZ,
                                        intptr_t blockX, intptr_t blockY,
                                        intptr_t blockZ, int32_t smem,
                                        CUstream stream, void **params,
                                        void **extra, size_t paramsCount);
TX_RUNTIME_EXPORT void
mgpuLaunchClusterKernel(CUfunction function, intptr_t clusterX,
                        intptr_t clusterY, intptr_t clusterZ, intptr_t gridX,
                        intptr_t gridY, intptr_t gridZ, intptr_t blockX,
                        intptr_t blockY, intptr_t blockZ, int32_t smem,
                        CUstream stream, void **params, void **extra);

/* Streams and events. */
TX_RUNTIME_EXPORT CUstream mgpuStreamCreate(void);
TX_RUNTIME_EXPORT void mgpuStreamDestroy(CUstream stream);
TX_RUNTIME_EXPORT void mgpuStreamSynchronize(CUstream stream);
TX_RUNTIME_EXPORT void mgpuStreamWaitEvent(CUstream stream, CUevent event);
TX_RUNTIME_EXPORT CUevent mgpuEventCreate(void);
TX_RUNTIME_EXPORT void mgpuEventDestroy(CUevent event);
TX_RUNTIME_EXPORT void mgpuEventSynchronize(CUevent event);
TX_RUNTIME_EXPORT void mgpuEventRecord(CUevent event, CUstream stream);

/* Memory. isHostShared is an i8 in MLIR's declaration: non-zero requests
 * managed (host-shared) memory. Counts for memset are element counts. */
TX_RUNTIME_EXPORT void *mgpuMemAlloc(uint64_t sizeBytes, CUstream stream,
                                     uint8_t isHostShared);
TX_RUNTIME_EXPORT void mgpuMemFree(void *ptr, CUstream stream);
TX_RUNTIME_EXPORT void mgpuMemcpy(void *dst, void *src, size_t sizeBytes,
                                  CUstream stream);
TX_RUNTIME_EXPORT void mgpuMemset32(void *dst, unsigned int value,
                                    size_t count, CUstream stream);
TX_RUNTIME_EXPORT void mgpuMemset16(void *dst, unsigned short value,
                                    size_t count, CUstream stream);

/* Host memory registration (page-locking). `descriptor` points at a ranked
 * memref descriptor {base, aligned, offset, sizes[rank], strides[rank]}. */
TX_RUNTIME_EXPORT void mgpuMemHostRegister(void *ptr, uint64_t sizeBytes);
TX_RUNTIME_EXPORT void mgpuMemHostRegisterMemRef(int64_t rank,
                                                 void *descriptor,
                                                 int64_t elementSizeBytes);
TX_RUNTIME_EXPORT void mgpuMemHostUnregister(void *ptr);
TX_RUNTIME_EXPORT void mgpuMemHostUnregisterMemRef(int64_t rank,
                                                   void *descriptor,
                                                   int64_t elementSizeBytes);

/* Device selection for subsequently created resources (process-wide). */
TX_RUNTIME_EXPORT void mgpuSetDefaultDevice(int32_t device);

/* TMA descriptor creation used by nvgpu.tma.create.descriptor (NVGPUToNVVM).
 * The enum operands are CUtensorMap* enum values passed as i64. Returns a
 * device pointer to a 128-byte CUtensorMap, or NULL on error. */
TX_RUNTIME_EXPORT void *
mgpuTensorMapEncodeTiledMemref(int64_t tensorRank, void *rankedDescriptor,
                               int64_t tensorDataType, int64_t interleave,
                               int64_t swizzle, int64_t l2Promotion,
                               int64_t oobFill, int64_t *inputBoxDims);

#ifdef __cplusplus
} /* extern "C" */
#endif

#endif /* TX_RUNTIME_H */
