/*===- tx/Runtime.h - tx CUDA host runtime (libtx_cuda_runtime.so) -------===*\
 *
 * Public C interface of the host runtime that code produced by MLIR's
 * `gpu-to-llvm` lowering (and the gpu.binary embedding) calls into.
 *
 *  - The tx* functions are this runtime's own API: stream-ordered calls
 *    (txRuntimeBeginCall/EndCall/Fail, used by the compiled _on_stream entry
 *    points), error queries, a device-wide synchronize, fault injection.
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
 * tx runtime API: stream-ordered calls
 *
 * The compiler generates, for every public function f, besides the
 * synchronous _mlir_ciface_f(args..., outs...), the stream-ordered
 *
 *   int32_t _mlir_ciface_f_on_stream(args..., outs..., CUstream stream) {
 *     txRuntimeBeginCall(stream);
 *     _mlir_ciface_f(args..., outs...);   // the same host code
 *     return txRuntimeEndCall();          // 0: OK, else the error count
 *   }
 *
 * and host code whose run-time checks fail (shapes) calls txRuntimeFail and
 * returns early. See docs/ABI.md, "Streams and calls".
 *===------------------------------------------------------------------===*/

/* Starts a call on the calling thread, on `stream` (a CUstream of the default
 * device's primary context, e.g. PyTorch's current stream; NULL is the legacy
 * default stream). Until the matching txRuntimeEndCall, on this thread:
 *  - mgpuStreamCreate returns `stream`; mgpuStreamSynchronize and
 *    mgpuStreamDestroy of it return at once (nothing waits for the device);
 *  - mgpuMemAlloc/mgpuMemFree allocate and free stream-ordered on `stream`
 *    (cuMemAllocFromPoolAsync from the runtime's pool / cuMemFreeAsync);
 *  - launches, copies and memsets go to the stream the host code passes,
 *    i.e. `stream`, in program order;
 *  - nothing in the call path synchronizes, allocates with cuMemAlloc or
 *    loads modules, so the call can be captured into a CUDA graph;
 *  - after the first error recorded on this thread during the call, the
 *    call's remaining allocations, copies, memsets and launches are skipped
 *    (frees still run), so nothing runs on a failed allocation.
 * Calls may nest (up to 8 deep); the innermost one's stream is used. Two
 * threads may each be inside a call, on different streams, at the same
 * time; each call's errors are its thread's. */
TX_RUNTIME_EXPORT void txRuntimeBeginCall(CUstream stream);

/* Ends the innermost call of this thread. Returns 0 if no error was recorded
 * on this thread during the call, else the number of such errors (the last
 * message stays available from txRuntimeGetLastError()). Work queued on the
 * call's stream may still be running: synchronize the stream (or record an
 * event) to wait for it; errors that only the device can detect (a fault
 * inside a kernel) surface there, not here. Without an active call, reports
 * an error and returns 1. */
TX_RUNTIME_EXPORT int32_t txRuntimeEndCall(void);

/* Records the error "tx-runtime: error: <message>" for the calling thread
 * (and its current call, if any): printed to stderr unless
 * TX_RUNTIME_QUIET=1, counted, kept as txRuntimeGetLastError(). Never aborts,
 * except under TX_RUNTIME_ABORT_ON_ERROR=1 (as for every error). Compiled
 * code calls it when a run-time check fails (e.g. "tx.attention: head
 * dimension D of query and key differ") and then returns early. */
TX_RUNTIME_EXPORT void txRuntimeFail(const char *message);

/*===------------------------------------------------------------------===*
 * tx runtime API: errors and control
 *===------------------------------------------------------------------===*/

/* The message of the most recent error reported ON THE CALLING THREAD (the
 * same text it printed to stderr after "tx-runtime: error: "), or NULL if
 * there was none since the thread started or its last
 * txRuntimeClearLastError(). The pointer stays valid until the thread's next
 * error or clear (and while the thread lives). Errors reported on other
 * threads (e.g. a module load in a global constructor on the main thread)
 * are not visible here; txRuntimeErrorCount() counts them. */
TX_RUNTIME_EXPORT const char *txRuntimeGetLastError(void);

/* Forgets the calling thread's last error message (txRuntimeGetLastError()
 * returns NULL until its next error). Resets no count. */
TX_RUNTIME_EXPORT void txRuntimeClearLastError(void);

/* Number of errors reported in the whole process since it started, by any
 * thread (monotonic). For the errors of one call use txRuntimeEndCall's
 * result or txRuntimeThreadErrorCount() before and after. */
TX_RUNTIME_EXPORT int txRuntimeErrorCount(void);

/* Number of errors reported on the calling thread since it started
 * (monotonic). */
TX_RUNTIME_EXPORT int txRuntimeThreadErrorCount(void);

/* cuCtxSynchronize on the default device's primary context: waits for all
 * work of the context and reports (and returns) any asynchronous error, e.g.
 * a kernel fault. Returns the CUresult as int (0 == CUDA_SUCCESS). */
TX_RUNTIME_EXPORT int txRuntimeSynchronize(void);

/* For the CALLING THREAD's synchronous calls (no txRuntimeBeginCall active):
 * makes compiled code enqueue its kernels on `stream` (e.g. PyTorch's current
 * stream) instead of the runtime's own streams; NULL restores the default.
 * With `async` != 0, calls also return without waiting for that stream, so
 * that launches can be timed back to back with CUDA events. Temporaries are
 * allocated and freed stream-ordered on `stream`, so this is safe with
 * device temporaries too. txRuntimeBeginCall supersedes it (and adds per-call
 * error status); it is kept for existing callers. */
TX_RUNTIME_EXPORT void txRuntimeSetStream(CUstream stream, int async);

/* Compiled code (tx-programmatic-launches): the CALLING THREAD's next kernel
 * launch (mgpuLaunchKernel or mgpuLaunchClusterKernel) is a programmatic
 * dependent launch (PDL; cuLaunchKernelEx with the launch attribute
 * CU_LAUNCH_ATTRIBUTE_PROGRAMMATIC_STREAM_SERIALIZATION = 1, sm_90+): it may
 * start before the kernel ahead of it on the stream has finished, once every
 * CTA of that kernel has run griddepcontrol.launch_dependents or exited; the
 * dependent's threads wait for it in griddepcontrol.wait. The request is
 * used up by the next launch, also one that launches nothing (an empty grid)
 * or fails. Meant for kernels built for sm_90 or newer (programmatic
 * dependent launches need compute capability 9.0). */
TX_RUNTIME_EXPORT void txRuntimeLaunchProgrammaticNext(void);

/* Compiled code: tensor maps (TMA descriptors) as kernel parameters BY VALUE
 * (a 128-byte `.param .align 64 .b8 name[128]`, CUDA C++'s
 * `const __grid_constant__ CUtensorMap`). For each bit i set in `mask`, the
 * CALLING THREAD's next launch passes parameter i as the 128-byte map whose
 * address params[i]'s slot holds (MLIR's gpu.launch_func packs an !llvm.ptr
 * operand as a pointer to a slot holding it), instead of the pointer itself.
 * Each map must be 64-byte aligned, encoded (an all-zero map is refused:
 * txRuntimeEncodeTensorMap leaves one it does not encode zeroed), and stay valid
 * until the launch returns; the launch must have at most 256 parameters
 * (mgpuLaunchKernel's `paramsCount`; for mgpuLaunchClusterKernel, which
 * passes no count, the count read from the module image) and no `extra`. A violation is a recorded error
 * and nothing is launched. The request is used up by the next launch, as
 * txRuntimeLaunchProgrammaticNext's is. */
TX_RUNTIME_EXPORT void txRuntimeTensorMapParamsNext(uint64_t mask);

/* Compiled code: encodes a tiled tensor map (cuTensorMapEncodeTiled, no
 * interleave, L2 promotion 128 B, out-of-bounds elements read as zero) into
 * `map` (128 bytes, 64-byte aligned): `rank` (1..5) dimensions of `base`,
 * innermost first, sizes dim0.. (elements; those past `rank` are ignored),
 * byte strides stride1.. of dimensions 1.. (dimension 0 is contiguous; each
 * a multiple of 16), a box of box0.. elements per dimension (1..256; box0 *
 * element size a multiple of 16 bytes), `dataType` a CUtensorMapDataType
 * (e.g. 6 = FLOAT16, 9 = BFLOAT16) and `swizzle` a CUtensorMapSwizzle (3 =
 * 128B). A request the driver refuses is a recorded error naming
 * cuTensorMapEncodeTiled. `map` is zeroed first, so a map this call does
 * not encode (a request the runtime or the driver refuses, or any request
 * inside a failed stream-ordered call, which it then skips) is all zero,
 * which a launch through txRuntimeTensorMapParamsNext refuses. (Compiled
 * code zeroes its map buffers too, tx-tensor-map-params, so a map whose
 * encoding was never reached is refused as well.) */
TX_RUNTIME_EXPORT void txRuntimeEncodeTensorMap(
    void *map, int64_t dataType, int64_t rank, void *base, int64_t dim0,
    int64_t dim1, int64_t dim2, int64_t dim3, int64_t dim4, int64_t stride1,
    int64_t stride2, int64_t stride3, int64_t stride4, int64_t box0,
    int64_t box1, int64_t box2, int64_t box3, int64_t box4, int64_t swizzle);

/* Testing: installs a fault-injection plan, in the syntax of the environment
 * variable TX_RUNTIME_INJECT_FAULT (read when the library loads):
 *   <cuCall>:<n>[+][:<CUDA error name or number>][,...]
 * makes the n-th call (counted from now, all threads) of the driver function
 * <cuCall> (as named in error messages, e.g. cuMemAllocFromPoolAsync,
 * cuLaunchKernel, cuModuleLoadDataEx) fail with the given error (default
 * CUDA_ERROR_UNKNOWN) without calling the driver; "n+" fails every call from
 * the n-th on. NULL or "" turns injection off. Returns 0, or 1 (and reports)
 * if the plan is malformed, in which case nothing is injected. */
TX_RUNTIME_EXPORT int txRuntimeSetFaultInjection(const char *spec);

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
