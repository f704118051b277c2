//===- CudaRuntime.cpp - tx CUDA host runtime (libtx_cuda_runtime.so) -----===//
//
// The host-side runtime that code lowered by MLIR 22's `gpu-to-llvm` pass and
// translated with the gpu.binary embedding (SelectObjectAttr) calls into.
// Debian's LLVM/MLIR packages ship no CUDA runtime wrappers, so tx provides
// its own, written directly over the CUDA *driver* API (cuda.h). At link time
// the toolkit's stub libcuda.so is used; at run time the real driver's
// libcuda.so.1 (or, in tests, the fake driver build/fake-cuda/libcuda.so.1).
//
// Functions (C ABI; signatures match what MLIR 22 emits, see Runtime.h):
//   modules   mgpuModuleLoad(ptr, i64), mgpuModuleLoadJIT(ptr, i32),
//             mgpuModuleUnload, mgpuModuleGetFunction
//   launches  mgpuLaunchKernel(fn, 6 x index, i32 smem, stream, params,
//             extra, i64 paramsCount), mgpuLaunchClusterKernel (14 args:
//             3 cluster + 3 grid + 3 block dims, no paramsCount)
//   streams   mgpuStreamCreate/Destroy/Synchronize/WaitEvent
//   events    mgpuEventCreate/Destroy/Synchronize/Record
//   memory    mgpuMemAlloc(i64, stream, i8 hostShared), mgpuMemFree,
//             mgpuMemcpy, mgpuMemset32, mgpuMemset16,
//             mgpuMemHostRegister[MemRef], mgpuMemHostUnregister[MemRef]
//   devices   mgpuSetDefaultDevice
//   TMA       mgpuTensorMapEncodeTiled, mgpuTensorMapEncodeTiledMemref
//   tx API    txRuntimeBeginCall/EndCall/Fail (stream-ordered calls),
//             txRuntimeGetLastError, txRuntimeClearLastError,
//             txRuntimeErrorCount, txRuntimeThreadErrorCount,
//             txRuntimeSynchronize, txRuntimeSetStream,
//             txRuntimeSetFaultInjection, txRuntimeLaunchProgrammaticNext,
//             txRuntimeTensorMapParamsNext, txRuntimeEncodeTensorMap (tensor
//             maps passed to kernels by value)
// The cuSPARSE / cuSPARSELt wrappers of upstream's CudaRuntimeWrappers.cpp
// (mgpuCreateSparseEnv, mgpuSpMV, ...) are deliberately not provided.
//
// Calls (docs/ABI.md, "Streams and calls"):
//   A compiled entry point runs in one of two forms.
//   - Stream-ordered: _mlir_ciface_f_on_stream(..., stream) brackets the host
//     code with txRuntimeBeginCall(stream) / txRuntimeEndCall(). Inside the
//     call, on this thread, mgpuStreamCreate returns `stream`,
//     synchronizing/destroying it does nothing, device temporaries come from
//     the runtime's stream-ordered pool on `stream` (cuMemAllocFromPoolAsync
//     / cuMemFreeAsync) and nothing blocks, so the call can be captured into
//     a CUDA graph. After the first error of a call, its allocations, copies,
//     memsets and launches are skipped (frees still run), so a failed
//     allocation never becomes a kernel writing through a null pointer;
//     EndCall returns the number of errors of the call.
//   - Synchronous (no call active): the runtime's own streams (a per-thread
//     pool of non-blocking streams), synchronized before return as the host
//     code asks; temporaries also come from the pool, freed with
//     cuMemFreeAsync followed by the host code's stream synchronization
//     (never cuMemFree, which waits for the whole device).
//   txRuntimeSetStream(stream, async) (per thread) is the older way to
//   redirect the synchronous form onto a caller's stream.
//
// Context model:
//   Every device is used through its PRIMARY context (cuInit +
//   cuDevicePrimaryCtxRetain, retained once and never released), the same
//   context the CUDA runtime API - and so PyTorch - uses, so pointers and
//   streams can be shared with PyTorch in the same process. The default
//   device is 0 and can be changed process-wide with mgpuSetDefaultDevice; it
//   selects the context for *newly created* things (module loads,
//   allocations, streams, events). Kernels always launch in the context their
//   module was loaded in. Each entry point makes the right context current
//   for its duration: if the calling thread has no current context the
//   primary context is made current (and left current, like the runtime API
//   does); if another context is current it is pushed and popped again, so a
//   caller's context is never changed. txRuntimeBeginCall does this once for
//   the whole call (one cuCtxGetCurrent per call, so a caller may switch
//   contexts between calls); entry points inside the call make no context
//   calls at all.
//   Note: LLVM 22 loads every gpu.binary from a global constructor (priority
//   123) and unloads it from a global destructor, i.e. before main() or at
//   dlopen() time; the module lands on whatever the default device is then
//   (device 0 unless something set it earlier).
//
// Error policy:
//   Every failing CUDA call is reported - never silently dropped - as one
//   line on stderr, "tx-runtime: error: <entry>: <cuCall> failed: <NAME>
//   (<description>); <what: kernel name / module description / sizes>", and
//   recorded for the calling thread (txRuntimeGetLastError,
//   txRuntimeThreadErrorCount, txRuntimeEndCall) and in the process-wide
//   txRuntimeErrorCount. TX_RUNTIME_QUIET=1 stops the printing,
//   TX_RUNTIME_ABORT_ON_ERROR=1 aborts right after it. txRuntimeFail
//   (run-time checks of compiled code) records "<message>" the same way.
//   No driver call fails on a correct program: in particular the launch-time
//   ABI check reads the kernel's parameter count from the image at load time
//   instead of probing cuFuncGetParamInfo past the last parameter.
//   Entry points never pass null handles to CUDA: loading a module that
//   fails returns null, and a null module / function / event given to a later
//   entry point is reported as a clear error naming the kernel involved.
//   Deliberate no-ops (not errors): freeing or destroying a null handle
//   (like free(NULL); the creation failure was already reported), zero-byte
//   allocations/copies/memsets, launches with a zero grid dimension (empty
//   problem), and mgpuModuleUnload finding the driver deinitialized
//   (CUDA_ERROR_DEINITIALIZED): MLIR unloads from a global destructor, which
//   runs after the driver has shut down at process exit, and the driver then
//   already destroyed the context together with its modules.
//   TX_RUNTIME_INJECT_FAULT=<cuCall>:<n>[+][:<CUDA_ERROR_NAME>],... (or
//   txRuntimeSetFaultInjection) makes the n-th call (n+: every call from the
//   n-th on) of that driver function fail without calling the driver, for
//   testing the failure paths (docs/ABI.md).
//
// Host cost (the per-launch path: mgpuModuleGetFunction, mgpuStreamCreate,
// mgpuLaunchKernel, mgpuStreamSynchronize, mgpuStreamDestroy):
//   no string formatting, no locks, no map lookups and no reference counting
//   on the success path; per-thread caches of kernels (by module and name),
//   of the default device's context and pool, and of pooled streams; the
//   parameter-count check, the dynamic shared memory opt-in and
//   cuModuleGetFunction happen once per kernel. The slow paths (first use,
//   errors) take one global mutex.
//
// Other behaviour:
//   - Pooled streams are never destroyed (TX_RUNTIME_STREAM_POOL=0 creates and
//     destroys one per mgpuStreamCreate/Destroy instead).
//   - Dynamic shared memory above the default limit is opted into
//     automatically (CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES).
//   - The memory pool keeps up to TX_RUNTIME_POOL_RELEASE_THRESHOLD bytes
//     (default 1 GiB) of freed memory for reuse instead of returning it to
//     the driver at each synchronization.
//   - TX_RUNTIME_SYNC_LAUNCHES=1 synchronizes after every launch (except on a
//     capturing stream) so that faults during execution are reported against
//     the kernel that caused them.
//
//===----------------------------------------------------------------------===//

#include "tx/Runtime.h"

#include "ImageInfo.h"

#include <cuda.h>

#include <atomic>
#include <cinttypes>
#include <cstdarg>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <mutex>
#include <string>
#include <unordered_map>
#include <unordered_set>
#include <vector>

namespace {

//===----------------------------------------------------------------------===//
// Driver calls and fault injection
//===----------------------------------------------------------------------===//

// Every driver function the runtime calls (cuGetErrorName/String aside),
// under the name used in error messages and in TX_RUNTIME_INJECT_FAULT.
#define TX_DRIVER_CALLS(X)                                                     \
  X(cuInit)                                                                    \
  X(cuDeviceGet)                                                               \
  X(cuDeviceGetAttribute)                                                      \
  X(cuDevicePrimaryCtxRetain)                                                  \
  X(cuCtxGetCurrent)                                                           \
  X(cuCtxSetCurrent)                                                           \
  X(cuCtxPushCurrent)                                                          \
  X(cuCtxPopCurrent)                                                           \
  X(cuCtxGetDevice)                                                            \
  X(cuCtxSynchronize)                                                          \
  X(cuModuleLoadDataEx)                                                        \
  X(cuModuleUnload)                                                            \
  X(cuModuleGetFunction)                                                       \
  X(cuFuncGetParamInfo)                                                        \
  X(cuFuncGetAttribute)                                                        \
  X(cuFuncSetAttribute)                                                        \
  X(cuLaunchKernel)                                                            \
  X(cuLaunchKernelEx)                                                          \
  X(cuStreamCreate)                                                            \
  X(cuStreamDestroy)                                                           \
  X(cuStreamSynchronize)                                                       \
  X(cuStreamWaitEvent)                                                         \
  X(cuStreamIsCapturing)                                                       \
  X(cuEventCreate)                                                             \
  X(cuEventDestroy)                                                            \
  X(cuEventSynchronize)                                                        \
  X(cuEventRecord)                                                             \
  X(cuMemAlloc)                                                                \
  X(cuMemAllocManaged)                                                         \
  X(cuMemFree)                                                                 \
  X(cuMemAllocFromPoolAsync)                                                   \
  X(cuMemFreeAsync)                                                            \
  X(cuMemPoolCreate)                                                           \
  X(cuMemPoolSetAttribute)                                                     \
  X(cuMemPoolDestroy)                                                          \
  X(cuMemcpyAsync)                                                             \
  X(cuMemcpyHtoD)                                                              \
  X(cuMemsetD32Async)                                                          \
  X(cuMemsetD16Async)                                                          \
  X(cuMemHostRegister)                                                         \
  X(cuMemHostUnregister)                                                       \
  X(cuTensorMapEncodeTiled)

enum DriverCall {
#define TX_ENUM(name) DC_##name,
  TX_DRIVER_CALLS(TX_ENUM)
#undef TX_ENUM
      kNumDriverCalls
};

const char *const kDriverCallNames[] = {
#define TX_NAME(name) #name,
    TX_DRIVER_CALLS(TX_NAME)
#undef TX_NAME
};

/// The fault-injection plan (TX_RUNTIME_INJECT_FAULT). Counting only happens
/// while a plan is active, so the normal path pays one relaxed load.
struct FaultPlan {
  struct Rule {
    int call;
    unsigned long long n; // 1-based index of the call to fail
    bool andLater;        // "n+": every call from the n-th on
    CUresult error;
  };
  std::atomic<unsigned long long> counts[kNumDriverCalls] = {};
  std::mutex mutex;
  std::vector<Rule> rules;
};

FaultPlan &faultPlan() {
  static FaultPlan *plan = new FaultPlan();
  return *plan;
}

/// True while a plan is installed (constant-initialized: no guard to check
/// on the fast path).
std::atomic<bool> faultInjectionEnabled{false};

/// Set on the calling thread when a fault was injected, read (and cleared)
/// by the report of the failure.
thread_local bool faultInjectedHere = false;

/// Counts a call of `call`; returns true (and the error) if it must fail.
__attribute__((noinline)) bool injectFault(DriverCall call, CUresult *error) {
  FaultPlan &plan = faultPlan();
  unsigned long long n =
      plan.counts[call].fetch_add(1, std::memory_order_relaxed) + 1;
  std::lock_guard<std::mutex> lock(plan.mutex);
  for (const FaultPlan::Rule &rule : plan.rules) {
    if (rule.call == call && (n == rule.n || (rule.andLater && n > rule.n))) {
      *error = rule.error;
      faultInjectedHere = true;
      return true;
    }
  }
  return false;
}

template <typename Fn> inline CUresult driverCall(DriverCall call, Fn &&fn) {
  if (__builtin_expect(faultInjectionEnabled.load(std::memory_order_relaxed),
                       0)) {
    CUresult injected;
    if (injectFault(call, &injected))
      return injected;
  }
  return fn();
}

// CU(cuMemAlloc, &ptr, size): calls the driver function (cuda.h's macro
// renames it, e.g. to cuMemAlloc_v2) unless a fault is injected into it.
#define CU(name, ...) driverCall(DC_##name, [&] { return name(__VA_ARGS__); })

//===----------------------------------------------------------------------===//
// Error reporting
//===----------------------------------------------------------------------===//

/// Names for the CUresults one is likely to meet, for when cuGetErrorName
/// itself cannot answer (the toolkit's stub libcuda.so answers nothing).
#define TX_CUDA_ERRORS(X)                                                      \
  X(CUDA_SUCCESS)                                                              \
  X(CUDA_ERROR_INVALID_VALUE)                                                  \
  X(CUDA_ERROR_OUT_OF_MEMORY)                                                  \
  X(CUDA_ERROR_NOT_INITIALIZED)                                                \
  X(CUDA_ERROR_DEINITIALIZED)                                                  \
  X(CUDA_ERROR_STUB_LIBRARY)                                                   \
  X(CUDA_ERROR_CALL_REQUIRES_NEWER_DRIVER)                                     \
  X(CUDA_ERROR_DEVICE_UNAVAILABLE)                                             \
  X(CUDA_ERROR_NO_DEVICE)                                                      \
  X(CUDA_ERROR_INVALID_DEVICE)                                                 \
  X(CUDA_ERROR_DEVICE_NOT_LICENSED)                                            \
  X(CUDA_ERROR_INVALID_IMAGE)                                                  \
  X(CUDA_ERROR_INVALID_CONTEXT)                                                \
  X(CUDA_ERROR_NO_BINARY_FOR_GPU)                                              \
  X(CUDA_ERROR_INVALID_PTX)                                                    \
  X(CUDA_ERROR_JIT_COMPILER_NOT_FOUND)                                         \
  X(CUDA_ERROR_UNSUPPORTED_PTX_VERSION)                                        \
  X(CUDA_ERROR_JIT_COMPILATION_DISABLED)                                       \
  X(CUDA_ERROR_INVALID_SOURCE)                                                 \
  X(CUDA_ERROR_SHARED_OBJECT_INIT_FAILED)                                      \
  X(CUDA_ERROR_OPERATING_SYSTEM)                                               \
  X(CUDA_ERROR_INVALID_HANDLE)                                                 \
  X(CUDA_ERROR_ILLEGAL_STATE)                                                  \
  X(CUDA_ERROR_NOT_FOUND)                                                      \
  X(CUDA_ERROR_NOT_READY)                                                      \
  X(CUDA_ERROR_ILLEGAL_ADDRESS)                                                \
  X(CUDA_ERROR_LAUNCH_OUT_OF_RESOURCES)                                        \
  X(CUDA_ERROR_LAUNCH_TIMEOUT)                                                 \
  X(CUDA_ERROR_PRIMARY_CONTEXT_ACTIVE)                                         \
  X(CUDA_ERROR_CONTEXT_IS_DESTROYED)                                           \
  X(CUDA_ERROR_ASSERT)                                                         \
  X(CUDA_ERROR_HOST_MEMORY_ALREADY_REGISTERED)                                 \
  X(CUDA_ERROR_HOST_MEMORY_NOT_REGISTERED)                                     \
  X(CUDA_ERROR_HARDWARE_STACK_ERROR)                                           \
  X(CUDA_ERROR_ILLEGAL_INSTRUCTION)                                            \
  X(CUDA_ERROR_MISALIGNED_ADDRESS)                                             \
  X(CUDA_ERROR_INVALID_ADDRESS_SPACE)                                          \
  X(CUDA_ERROR_INVALID_PC)                                                     \
  X(CUDA_ERROR_LAUNCH_FAILED)                                                  \
  X(CUDA_ERROR_COOPERATIVE_LAUNCH_TOO_LARGE)                                   \
  X(CUDA_ERROR_NOT_PERMITTED)                                                  \
  X(CUDA_ERROR_NOT_SUPPORTED)                                                  \
  X(CUDA_ERROR_SYSTEM_NOT_READY)                                               \
  X(CUDA_ERROR_SYSTEM_DRIVER_MISMATCH)                                         \
  X(CUDA_ERROR_COMPAT_NOT_SUPPORTED_ON_DEVICE)                                 \
  X(CUDA_ERROR_STREAM_CAPTURE_UNSUPPORTED)                                     \
  X(CUDA_ERROR_STREAM_CAPTURE_INVALIDATED)                                     \
  X(CUDA_ERROR_STREAM_CAPTURE_IMPLICIT)                                        \
  X(CUDA_ERROR_TIMEOUT)                                                        \
  X(CUDA_ERROR_INVALID_CLUSTER_SIZE)                                           \
  X(CUDA_ERROR_FUNCTION_NOT_LOADED)                                            \
  X(CUDA_ERROR_UNKNOWN)

const char *fallbackErrorName(CUresult result) {
  switch (result) {
#define TX_CASE(e)                                                             \
  case e:                                                                      \
    return #e;
    TX_CUDA_ERRORS(TX_CASE)
#undef TX_CASE
  default:
    return nullptr;
  }
}

/// The CUresult named `name` (one of TX_CUDA_ERRORS) or given as a number.
bool parseErrorName(const std::string &name, CUresult *out) {
#define TX_MATCH(e)                                                            \
  if (name == #e) {                                                            \
    *out = e;                                                                  \
    return true;                                                               \
  }
  TX_CUDA_ERRORS(TX_MATCH)
#undef TX_MATCH
  char *end = nullptr;
  long value = std::strtol(name.c_str(), &end, 10);
  if (!name.empty() && end && *end == '\0' && value > 0) {
    *out = static_cast<CUresult>(value);
    return true;
  }
  return false;
}

std::string errorName(CUresult result) {
  const char *name = nullptr;
  if (cuGetErrorName(result, &name) != CUDA_SUCCESS || !name)
    name = fallbackErrorName(result);
  if (name)
    return name;
  return "CUresult " + std::to_string(static_cast<int>(result));
}

std::string errorDescription(CUresult result) {
  const char *text = nullptr;
  if (cuGetErrorString(result, &text) == CUDA_SUCCESS && text)
    return text;
  switch (result) {
  case CUDA_ERROR_STUB_LIBRARY:
    return "the loaded libcuda.so.1 is the CUDA toolkit's stub library, not a "
           "real driver";
  case CUDA_ERROR_NO_DEVICE:
    return "no CUDA-capable device is detected";
  default:
    return "no description available from the driver";
  }
}

/// printf-style formatting into a std::string.
__attribute__((format(printf, 1, 2))) std::string format(const char *fmt,
                                                          ...) {
  va_list args;
  va_start(args, fmt);
  va_list argsCopy;
  va_copy(argsCopy, args);
  int length = std::vsnprintf(nullptr, 0, fmt, argsCopy);
  va_end(argsCopy);
  std::string result;
  if (length > 0) {
    result.resize(static_cast<size_t>(length) + 1);
    std::vsnprintf(&result[0], result.size(), fmt, args);
    result.resize(static_cast<size_t>(length));
  }
  va_end(args);
  return result;
}

bool envFlag(const char *name, bool defaultValue) {
  const char *value = std::getenv(name);
  if (!value || !*value)
    return defaultValue;
  return std::strcmp(value, "0") != 0;
}

/// TX_RUNTIME_SYNC_LAUNCHES=1: synchronize after each launch (read once).
bool syncLaunches() {
  static const bool enabled = envFlag("TX_RUNTIME_SYNC_LAUNCHES", false);
  return enabled;
}

/// TX_RUNTIME_STREAM_POOL=0 disables stream reuse (read once).
bool streamPoolEnabled() {
  static const bool enabled = envFlag("TX_RUNTIME_STREAM_POOL", true);
  return enabled;
}

/// Errors reported in the whole process (txRuntimeErrorCount).
std::atomic<int> processErrorCount{0};

//===----------------------------------------------------------------------===//
// Runtime state
//===----------------------------------------------------------------------===//

/// A kernel looked up through mgpuModuleGetFunction. Created once per
/// (module, name), never freed (launches on other threads may hold it), and
/// immutable but for the atomics, so the launch path reads it without locks.
struct Kernel {
  CUfunction function = nullptr;
  CUmodule module = nullptr;
  CUcontext context = nullptr;
  std::string name;
  std::string moduleDescription;
  /// Parameter count read from the module image; -1 if the image could not
  /// tell (e.g. a fatbin with only compressed entries).
  int imageParamCount = -1;
  /// The paramsCount whose last parameter the driver confirmed to exist
  /// (cuFuncGetParamInfo(paramsCount - 1)); -1: none yet.
  std::atomic<long long> confirmedParamCount{-1};
  /// Largest dynamic shared memory size opted into so far.
  std::atomic<int32_t> configuredSmem{0};
  /// Opted into non-portable cluster sizes (more than 8 CTAs).
  std::atomic<bool> nonPortableCluster{false};
};

struct ModuleInfo {
  std::string description; // "module #N (<size>-byte <format> at <addr>...)"
  CUcontext context = nullptr;
  txrt::ImageInfo image;
  std::vector<Kernel *> kernels;
};

/// A device's primary context and the runtime's memory pool on it.
struct DeviceState {
  int device = 0;
  CUcontext context = nullptr;
  CUmemoryPool pool = nullptr; // null: no stream-ordered allocator
};

constexpr int kMaxDevices = 64;

struct PooledStream {
  CUstream stream;
  CUcontext context;
};

struct State {
  std::mutex mutex;
  bool initAttempted = false;
  CUresult initResult = CUDA_SUCCESS;
  std::atomic<DeviceState *> devices[kMaxDevices] = {};
  std::unordered_map<CUmodule, ModuleInfo> modules;
  std::unordered_map<CUfunction, Kernel *> kernelsByFunction;
  /// Kernels of unloaded modules: never freed, because another thread's
  /// launch may still be reading one (its per-thread cache is dropped only at
  /// its next call). About 100 bytes per kernel per unload; kept here so that
  /// they stay reachable (LeakSanitizer).
  std::vector<Kernel *> retiredKernels;
  /// Streams created by the runtime for its pool (never destroyed while
  /// pooling is on) and their context.
  std::unordered_map<CUstream, CUcontext> runtimeStreams;
  /// Pooled streams no thread holds (returned at thread exit or overflow).
  std::vector<PooledStream> sharedStreamPool;
  /// Managed (host_shared) allocations: freed with cuMemFree.
  std::unordered_set<void *> managedAllocations;
  std::atomic<int> managedCount{0};
  unsigned nextModuleId = 1;
};

/// Never destroyed: module unloads run from global destructors, possibly
/// after this library's own static objects would have been destroyed.
State &state() {
  static State *s = new State();
  return *s;
}

std::atomic<int> defaultDevice{0};

/// Bumped by every module unload: per-thread kernel caches compare it and
/// drop their entries (the unloaded module's handles may be reused).
std::atomic<unsigned long long> kernelGeneration{1};

/// The most recently launched kernel, any thread (for messages).
std::atomic<Kernel *> lastLaunchedKernel{nullptr};

//===----------------------------------------------------------------------===//
// Per-thread state
//===----------------------------------------------------------------------===//

constexpr int kMaxCallDepth = 8;
constexpr int kKernelCacheSize = 32; // power of two
constexpr int kThreadStreamPool = 4;
constexpr int kLentStreams = 8;
constexpr size_t kMaxMessage = 4096;

/// One txRuntimeBeginCall .. txRuntimeEndCall.
struct CallFrame {
  CUstream stream;
  int errorsAtStart;    // ThreadState::errorCount at BeginCall
  CUcontext context;    // current for the whole call (null: setting it failed)
  bool pushedContext;   // BeginCall pushed it: EndCall pops it
};

struct KernelCacheEntry {
  CUmodule module;
  const char *name; // the caller's pointer (compiled code: a constant)
  Kernel *kernel;
};

/// Everything the runtime keeps per thread. Plain data (zero-initialized,
/// trivially destructible), so it stays usable from global destructors at
/// exit; pooled streams are handed back by StreamPoolReturner.
struct ThreadState {
  // Errors reported on this thread.
  int errorCount;
  bool hasLastError;
  char lastError[kMaxMessage];
  // Active stream-ordered calls (innermost last) and BeginCalls refused for
  // being nested too deeply (their EndCall only reports).
  int depth;
  int overflow;
  CallFrame frames[kMaxCallDepth];
  // txRuntimeSetStream.
  bool hasExternalStream;
  int externalAsync;
  CUstream externalStream;
  // Default device's state, cached.
  DeviceState *device;
  // Kernels by (module, name), valid while cacheGeneration is current.
  unsigned long long cacheGeneration;
  KernelCacheEntry kernelCache[kKernelCacheSize];
  Kernel *lastLookedUp;      // last kernel mgpuModuleGetFunction returned
  char failedLookup[128];    // kernel whose last lookup failed, or ""
  Kernel *lastLaunched;      // for messages
  CUstream lastLaunchStream;
  // txRuntimeLaunchProgrammaticNext: the next launch is a programmatic
  // dependent one.
  bool programmaticNext;
  // txRuntimeTensorMapParamsNext: parameters of the next launch passed as
  // 128-byte tensor maps by value (bit i: parameter i).
  uint64_t tensorMapParamsNext;
  // Stream pool: streams owned by this thread for reuse, and streams lent
  // out by mgpuStreamCreate (so that mgpuStreamDestroy recognizes them).
  int pooledCount;
  PooledStream pooled[kThreadStreamPool];
  int lentCount;
  PooledStream lent[kLentStreams];
  bool poolReturnerArmed;
};

thread_local ThreadState threadStateStorage;

inline ThreadState &threadState() { return threadStateStorage; }

inline CallFrame *currentCall(ThreadState &t) {
  return t.depth > 0 ? &t.frames[t.depth - 1] : nullptr;
}

/// True if the current call already recorded an error: its remaining device
/// work is skipped.
inline bool callFailed(ThreadState &t) {
  CallFrame *call = currentCall(t);
  return call && t.errorCount != call->errorsAtStart;
}

/// Hands this thread's pooled streams to the shared pool when the thread
/// exits. Constructed (armed) when the thread first pools a stream.
struct StreamPoolReturner {
  bool armed = false;
  ~StreamPoolReturner() {
    ThreadState &t = threadState();
    State &s = state();
    std::lock_guard<std::mutex> lock(s.mutex);
    for (int i = 0; i < t.pooledCount; ++i)
      s.sharedStreamPool.push_back(t.pooled[i]);
    t.pooledCount = 0;
    t.poolReturnerArmed = false;
  }
};
thread_local StreamPoolReturner streamPoolReturner;

/// Prints, records and counts one error; aborts if so configured.
__attribute__((noinline)) void reportError(const std::string &message) {
  if (!envFlag("TX_RUNTIME_QUIET", false)) {
    std::fprintf(stderr, "tx-runtime: error: %s\n", message.c_str());
    std::fflush(stderr);
  }
  ThreadState &t = threadState();
  std::snprintf(t.lastError, sizeof(t.lastError), "%s", message.c_str());
  t.hasLastError = true;
  ++t.errorCount;
  processErrorCount.fetch_add(1, std::memory_order_relaxed);
  if (envFlag("TX_RUNTIME_ABORT_ON_ERROR", false))
    std::abort();
}

/// Reports a failing CUDA call `call` made on behalf of entry point `entry`;
/// `subject` says what was involved (kernel, module, sizes...).
__attribute__((noinline)) void reportCudaError(const char *entry,
                                               const char *call,
                                               CUresult result,
                                               const std::string &subject) {
  std::string message =
      format("%s: %s failed: %s (%s)", entry, call, errorName(result).c_str(),
             errorDescription(result).c_str());
  if (faultInjectedHere) {
    message += " [injected by TX_RUNTIME_INJECT_FAULT]";
    faultInjectedHere = false;
  }
  if (!subject.empty())
    message += "; " + subject;
  if (CallFrame *frame = currentCall(threadState()))
    message += format("; in the call on stream %p",
                      static_cast<void *>(frame->stream));
  reportError(message);
}

/// Returns true on success; otherwise reports the failure, describing the
/// subject with `describe()` (only evaluated on failure, so successful calls
/// on hot paths build no strings).
template <typename DescribeFn>
inline bool check(CUresult result, const char *entry, const char *call,
                  DescribeFn &&describe) {
  if (__builtin_expect(result == CUDA_SUCCESS, 1))
    return true;
  reportCudaError(entry, call, result, describe());
  return false;
}

inline bool check(CUresult result, const char *entry, const char *call) {
  return check(result, entry, call, [] { return std::string(); });
}

//===----------------------------------------------------------------------===//
// Devices and contexts
//===----------------------------------------------------------------------===//

/// Release threshold of the runtime's memory pools.
cuuint64_t poolReleaseThreshold() {
  const char *value = std::getenv("TX_RUNTIME_POOL_RELEASE_THRESHOLD");
  if (value && *value)
    return std::strtoull(value, nullptr, 0);
  return cuuint64_t(1) << 30;
}

/// Creates the runtime's memory pool on `device` (null if the device has no
/// stream-ordered allocator or creating it failed; failures are reported and
/// leave nothing behind).
CUmemoryPool createPool(int device, CUdevice cuDevice, const char *entry) {
  int supported = 0;
  if (!check(CU(cuDeviceGetAttribute, &supported,
                CU_DEVICE_ATTRIBUTE_MEMORY_POOLS_SUPPORTED, cuDevice),
             entry, "cuDeviceGetAttribute(MEMORY_POOLS_SUPPORTED)", [&] {
               return format("device %d; device memory will be allocated "
                             "with cuMemAlloc (not stream-ordered)",
                             device);
             }) ||
      !supported)
    return nullptr;
  CUmemPoolProps props;
  std::memset(&props, 0, sizeof(props));
  props.allocType = CU_MEM_ALLOCATION_TYPE_PINNED;
  props.handleTypes = CU_MEM_HANDLE_TYPE_NONE;
  props.location.type = CU_MEM_LOCATION_TYPE_DEVICE;
  props.location.id = device;
  CUmemoryPool pool = nullptr;
  auto describe = [&] {
    return format("memory pool of device %d; device memory will be "
                  "allocated with cuMemAlloc (not stream-ordered)",
                  device);
  };
  if (!check(CU(cuMemPoolCreate, &pool, &props), entry, "cuMemPoolCreate",
             describe))
    return nullptr;
  cuuint64_t threshold = poolReleaseThreshold();
  if (!check(CU(cuMemPoolSetAttribute, pool,
                CU_MEMPOOL_ATTR_RELEASE_THRESHOLD, &threshold),
             entry, "cuMemPoolSetAttribute(RELEASE_THRESHOLD)", describe)) {
    check(CU(cuMemPoolDestroy, pool), entry, "cuMemPoolDestroy", describe);
    return nullptr;
  }
  return pool;
}

/// Returns the state of `device` (primary context retained, memory pool
/// created), setting it up on first use. On failure reports on behalf of
/// `entry`, mentioning `describeSubject()`, and returns null with the error
/// in `*error`; a later call tries again (except after a failed cuInit).
template <typename DescribeFn>
DeviceState *acquireDevice(int device, const char *entry,
                           DescribeFn &&describeSubject,
                           CUresult *error = nullptr) {
  State &s = state();
  if (device >= 0 && device < kMaxDevices)
    if (DeviceState *d = s.devices[device].load(std::memory_order_acquire))
      return d;

  // Slow path: first use of the driver or of this device, or a failure.
  std::string subject = describeSubject();
  std::string suffix = subject.empty() ? "" : "; " + subject;
  auto fail = [&](CUresult result) -> DeviceState * {
    if (error)
      *error = result;
    return nullptr;
  };
  std::lock_guard<std::mutex> lock(s.mutex);
  if (!s.initAttempted) {
    s.initAttempted = true;
    s.initResult = CU(cuInit, 0);
    if (s.initResult != CUDA_SUCCESS) {
      reportCudaError(entry, "cuInit", s.initResult,
                      "no usable CUDA driver/GPU in this process" + suffix);
      return fail(s.initResult);
    }
  } else if (s.initResult != CUDA_SUCCESS) {
    reportCudaError(entry, "cuInit", s.initResult,
                    "the CUDA driver failed to initialize earlier, no GPU "
                    "work is possible in this process" +
                        suffix);
    return fail(s.initResult);
  }
  if (device < 0 || device >= kMaxDevices) {
    reportError(format("%s: device ordinal %d is out of range (the runtime "
                       "supports devices 0..%d)%s",
                       entry, device, kMaxDevices - 1, suffix.c_str()));
    return fail(CUDA_ERROR_INVALID_DEVICE);
  }
  if (DeviceState *d = s.devices[device].load(std::memory_order_acquire))
    return d; // another thread won

  auto describeDevice = [&] {
    return format("device ordinal %d (set with mgpuSetDefaultDevice)%s",
                  device, suffix.c_str());
  };
  CUdevice cuDevice = 0;
  CUresult result = CU(cuDeviceGet, &cuDevice, device);
  if (!check(result, entry, "cuDeviceGet", describeDevice))
    return fail(result);
  CUcontext context = nullptr;
  result = CU(cuDevicePrimaryCtxRetain, &context, cuDevice);
  if (!check(result, entry, "cuDevicePrimaryCtxRetain", describeDevice))
    return fail(result);
  auto *d = new DeviceState();
  d->device = device;
  d->context = context;
  d->pool = createPool(device, cuDevice, entry);
  s.devices[device].store(d, std::memory_order_release);
  return d;
}

/// The default device's state through the thread's cache (no lock, no
/// driver call once set up), or null (error reported).
template <typename DescribeFn>
inline DeviceState *defaultDeviceState(ThreadState &t, const char *entry,
                                       DescribeFn &&describeSubject) {
  int device = defaultDevice.load(std::memory_order_relaxed);
  if (__builtin_expect(t.device != nullptr && t.device->device == device, 1))
    return t.device;
  DeviceState *d = acquireDevice(device, entry, describeSubject);
  if (d)
    t.device = d;
  return d;
}

inline DeviceState *defaultDeviceState(ThreadState &t, const char *entry) {
  return defaultDeviceState(t, entry, [] { return std::string(); });
}

/// The default device's primary context, or null (error reported).
template <typename DescribeFn>
CUcontext defaultContext(const char *entry, DescribeFn &&describeSubject) {
  DeviceState *d = defaultDeviceState(threadState(), entry, describeSubject);
  return d ? d->context : nullptr;
}

CUcontext defaultContext(const char *entry) {
  return defaultContext(entry, [] { return std::string(); });
}

/// Makes `context` current for the lifetime of the guard (see the context
/// model at the top of the file). ok() is false if `context` is null or
/// making it current failed (already reported). Inside a call whose context
/// is `context` it makes no driver call.
class ContextGuard {
public:
  ContextGuard(ThreadState &t, CUcontext context, const char *entry)
      : entryName(entry) {
    if (!context)
      return;
    CallFrame *call = currentCall(t);
    if (call && call->context == context) {
      isOk = true;
      return;
    }
    CUcontext current = nullptr;
    if (!check(CU(cuCtxGetCurrent, &current), entry, "cuCtxGetCurrent"))
      return;
    if (current == context) {
      isOk = true;
    } else if (!current) {
      isOk = check(CU(cuCtxSetCurrent, context), entry, "cuCtxSetCurrent");
    } else {
      isOk = pushed =
          check(CU(cuCtxPushCurrent, context), entry, "cuCtxPushCurrent");
    }
  }
  ContextGuard(CUcontext context, const char *entry)
      : ContextGuard(threadState(), context, entry) {}
  ~ContextGuard() {
    if (pushed) {
      CUcontext popped = nullptr;
      check(CU(cuCtxPopCurrent, &popped), entryName, "cuCtxPopCurrent");
    }
  }
  ContextGuard(const ContextGuard &) = delete;
  ContextGuard &operator=(const ContextGuard &) = delete;

  bool ok() const { return isOk; }

private:
  const char *entryName;
  bool isOk = false;
  bool pushed = false;
};

//===----------------------------------------------------------------------===//
// Descriptions of the things involved in errors
//===----------------------------------------------------------------------===//

/// "<size>-byte <format> at <address>, first bytes: xx xx ..." for a binary
/// handed to a module load.
std::string describeBinary(const void *data, size_t size,
                           txrt::ImageFormat imageFormat) {
  const auto *bytes = static_cast<const unsigned char *>(data);
  std::string text = format("%zu-byte %s at %p, first bytes:", size,
                            txrt::imageFormatName(imageFormat), data);
  for (size_t i = 0; i < size && i < 8; ++i)
    text += format(" %02x", bytes[i]);
  return text;
}

std::string describeModule(CUmodule module) {
  State &s = state();
  std::lock_guard<std::mutex> lock(s.mutex);
  auto it = s.modules.find(module);
  if (it != s.modules.end())
    return it->second.description;
  return format("module %p (not loaded through this runtime)",
                static_cast<void *>(module));
}

std::string describeStream(CUstream stream) {
  ThreadState &t = threadState();
  std::string text = stream ? format("stream %p", static_cast<void *>(stream))
                            : std::string("the default (null) stream");
  if (t.lastLaunched && t.lastLaunchStream == stream)
    text += "; last kernel launched on it (this thread): '" +
            t.lastLaunched->name + "'";
  else if (Kernel *k = lastLaunchedKernel.load(std::memory_order_relaxed))
    text += "; last kernel launched (any stream): '" + k->name + "'";
  return text;
}

//===----------------------------------------------------------------------===//
// Module loading and kernel lookup
//===----------------------------------------------------------------------===//

/// Loads `data` (cubin, fatbin or NUL-terminated PTX; `size` 0: unknown)
/// into the default device's primary context and reads its kernels'
/// parameter counts. `jitOptLevel` < 0 leaves the JIT optimization level at
/// the driver's default.
CUmodule loadModule(const char *entry, void *data, size_t size,
                    int jitOptLevel) {
  txrt::ImageInfo image = txrt::inspectImage(data, size);
  if (size == 0)
    size = txrt::imageSize(data);
  std::string binary = describeBinary(data, size, image.format);
  ThreadState &t = threadState();
  CUcontext context =
      defaultContext(entry, [&] { return "module: " + binary; });
  ContextGuard guard(t, context, entry);
  if (!guard.ok())
    return nullptr;

  // Always ask for the JIT error log: it explains PTX failures, and is simply
  // left empty for cubins.
  std::vector<char> errorLogBuffer(16384, '\0');
  std::vector<CUjit_option> options = {CU_JIT_ERROR_LOG_BUFFER,
                                       CU_JIT_ERROR_LOG_BUFFER_SIZE_BYTES};
  std::vector<void *> values = {
      errorLogBuffer.data(),
      reinterpret_cast<void *>(static_cast<uintptr_t>(errorLogBuffer.size()))};
  if (jitOptLevel >= 0) {
    options.push_back(CU_JIT_OPTIMIZATION_LEVEL);
    values.push_back(
        reinterpret_cast<void *>(static_cast<uintptr_t>(jitOptLevel)));
  }

  CUmodule module = nullptr;
  CUresult result = CU(cuModuleLoadDataEx, &module, data,
                       static_cast<unsigned>(options.size()), options.data(),
                       values.data());
  if (!check(result, entry, "cuModuleLoadDataEx", [&] {
        std::string text = "module: " + binary;
        errorLogBuffer.back() = '\0';
        std::string log(errorLogBuffer.data());
        // Keep the report on one line.
        while (!log.empty() && (log.back() == '\n' || log.back() == ' '))
          log.pop_back();
        for (char &c : log)
          if (c == '\n')
            c = '|';
        if (!log.empty())
          text += "; JIT log: " + log;
        return text;
      }))
    return nullptr;

  State &s = state();
  std::lock_guard<std::mutex> lock(s.mutex);
  ModuleInfo &info = s.modules[module];
  info.description = format("module #%u (%s)", s.nextModuleId++,
                            binary.c_str());
  info.context = context;
  info.image = std::move(image);
  // A handle the driver reuses after an unload: its old kernels are retired.
  s.retiredKernels.insert(s.retiredKernels.end(), info.kernels.begin(),
                          info.kernels.end());
  info.kernels.clear();
  return module;
}

/// Slow path of mgpuModuleGetFunction: the (module, name) kernel, looked up
/// in the driver the first time. Null on failure (reported).
__attribute__((noinline)) Kernel *lookupKernel(ThreadState &t,
                                               CUmodule module,
                                               const char *name,
                                               const char *entry) {
  CUcontext context = nullptr;
  std::string moduleDescription;
  int imageParamCount = -1;
  {
    State &s = state();
    std::lock_guard<std::mutex> lock(s.mutex);
    auto it = s.modules.find(module);
    if (it != s.modules.end()) {
      for (Kernel *kernel : it->second.kernels)
        if (kernel->name == name)
          return kernel;
      context = it->second.context;
      moduleDescription = it->second.description;
      imageParamCount = it->second.image.paramCount(name);
    }
  }
  if (moduleDescription.empty())
    moduleDescription = describeModule(module);
  auto describe = [&] {
    return format("kernel '%s' in %s", name, moduleDescription.c_str());
  };
  if (!context)
    context = defaultContext(entry, describe);
  ContextGuard guard(t, context, entry);
  if (!guard.ok())
    return nullptr;

  CUfunction function = nullptr;
  if (!check(CU(cuModuleGetFunction, &function, module, name), entry,
             "cuModuleGetFunction", describe))
    return nullptr;

  State &s = state();
  std::lock_guard<std::mutex> lock(s.mutex);
  ModuleInfo &info = s.modules[module];
  if (info.description.empty()) { // not loaded through this runtime
    info.description = moduleDescription;
    info.context = context;
  }
  for (Kernel *kernel : info.kernels) // another thread won
    if (kernel->name == name)
      return kernel;
  auto *kernel = new Kernel();
  kernel->function = function;
  kernel->module = module;
  kernel->context = context;
  kernel->name = name;
  kernel->moduleDescription = std::move(moduleDescription);
  kernel->imageParamCount = imageParamCount;
  info.kernels.push_back(kernel);
  s.kernelsByFunction[function] = kernel;
  return kernel;
}

inline void refreshKernelCache(ThreadState &t) {
  unsigned long long generation =
      kernelGeneration.load(std::memory_order_acquire);
  if (__builtin_expect(t.cacheGeneration != generation, 0)) {
    std::memset(t.kernelCache, 0, sizeof(t.kernelCache));
    t.lastLookedUp = nullptr;
    t.lastLaunched = nullptr;
    t.cacheGeneration = generation;
  }
}

inline unsigned kernelCacheSlot(const char *name) {
  auto bits = reinterpret_cast<uintptr_t>(name);
  return static_cast<unsigned>((bits >> 3) ^ (bits >> 9)) &
         (kKernelCacheSize - 1);
}

/// The Kernel of `function`, for a launch: normally the one just looked up
/// on this thread; null if the runtime never looked it up.
inline Kernel *kernelOf(ThreadState &t, CUfunction function) {
  refreshKernelCache(t);
  if (__builtin_expect(t.lastLookedUp && t.lastLookedUp->function == function,
                       1))
    return t.lastLookedUp;
  for (const KernelCacheEntry &entry : t.kernelCache)
    if (entry.kernel && entry.kernel->function == function)
      return entry.kernel;
  State &s = state();
  std::lock_guard<std::mutex> lock(s.mutex);
  auto it = s.kernelsByFunction.find(function);
  return it == s.kernelsByFunction.end() ? nullptr : it->second;
}

//===----------------------------------------------------------------------===//
// Launch helpers
//===----------------------------------------------------------------------===//

struct Dim3 {
  intptr_t x, y, z;
};

std::string describeLaunch(const Kernel &kernel, const Dim3 *cluster,
                           const Dim3 &grid, const Dim3 &block, int32_t smem,
                           CUstream stream) {
  std::string text = "kernel '" + kernel.name + "'";
  if (!kernel.moduleDescription.empty())
    text += " from " + kernel.moduleDescription;
  if (cluster)
    text += format(", cluster (%" PRIdPTR ", %" PRIdPTR ", %" PRIdPTR ")",
                   cluster->x, cluster->y, cluster->z);
  text += format(", grid (%" PRIdPTR ", %" PRIdPTR ", %" PRIdPTR
                 "), block (%" PRIdPTR ", %" PRIdPTR ", %" PRIdPTR
                 "), dynamic shared memory %" PRId32 " bytes, stream %p",
                 grid.x, grid.y, grid.z, block.x, block.y, block.z, smem,
                 static_cast<void *>(stream));
  return text;
}

/// Checks MLIR's paramsCount against the kernel, without a failing driver
/// call on a correct program: against the count read from the module image,
/// and (once per kernel and count) by asking the driver for the last
/// parameter, cuFuncGetParamInfo(paramsCount - 1), which exists exactly when
/// the kernel has at least paramsCount parameters. Returns false (reported)
/// on a mismatch.
template <typename DescribeFn>
__attribute__((noinline)) bool
checkParamCount(Kernel &kernel, long long paramsCount, const char *entry,
                DescribeFn &&describe) {
  if (kernel.imageParamCount >= 0 && kernel.imageParamCount != paramsCount) {
    reportError(format("%s: kernel expects %d parameters but the launch "
                       "passes %lld (host and device ABI disagree; count read "
                       "from the module image); %s",
                       entry, kernel.imageParamCount, paramsCount,
                       describe().c_str()));
    return false;
  }
  if (paramsCount > 0) {
    size_t offset = 0, size = 0;
    CUresult result =
        CU(cuFuncGetParamInfo, kernel.function,
           static_cast<size_t>(paramsCount - 1), &offset, &size);
    if (result == CUDA_ERROR_INVALID_VALUE) {
      reportError(format("%s: kernel expects fewer than %lld parameters (the "
                         "driver has no parameter #%lld) but the launch passes "
                         "%lld (host and device ABI disagree); %s",
                         entry, paramsCount, paramsCount - 1, paramsCount,
                         describe().c_str()));
      return false;
    }
    if (!check(result, entry, "cuFuncGetParamInfo", describe))
      return false;
  }
  kernel.confirmedParamCount.store(paramsCount, std::memory_order_relaxed);
  return true;
}

/// Opts the kernel into `smem` bytes of dynamic shared memory.
template <typename DescribeFn>
__attribute__((noinline)) bool configureSmem(Kernel &kernel, int32_t smem,
                                             const char *entry,
                                             DescribeFn &&describe) {
  CUresult result =
      CU(cuFuncSetAttribute, kernel.function,
         CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES, smem);
  if (!check(result, entry,
             "cuFuncSetAttribute(MAX_DYNAMIC_SHARED_SIZE_BYTES)", [&] {
               int optin = -1, staticSmem = -1;
               CUdevice device = 0;
               if (CU(cuCtxGetDevice, &device) == CUDA_SUCCESS)
                 CU(cuDeviceGetAttribute, &optin,
                    CU_DEVICE_ATTRIBUTE_MAX_SHARED_MEMORY_PER_BLOCK_OPTIN,
                    device);
               CU(cuFuncGetAttribute, &staticSmem,
                  CU_FUNC_ATTRIBUTE_SHARED_SIZE_BYTES, kernel.function);
               return describe() +
                      format("; device allows %d bytes per block, kernel "
                             "uses %d bytes of static shared memory",
                             optin, staticSmem);
             }))
    return false;
  int32_t configured = kernel.configuredSmem.load(std::memory_order_relaxed);
  while (configured < smem &&
         !kernel.configuredSmem.compare_exchange_weak(configured, smem))
    ;
  return true;
}

__attribute__((noinline)) void reportNullFunction(ThreadState &t,
                                                  const char *entry) {
  if (t.failedLookup[0])
    reportError(format(
        "%s: null kernel function handle; mgpuModuleGetFunction for kernel "
        "'%s' (the last one requested on this thread) failed earlier",
        entry, t.failedLookup));
  else if (t.lastLookedUp)
    reportError(format("%s: null kernel function handle (the last kernel "
                       "looked up on this thread, '%s', was found)",
                       entry, t.lastLookedUp->name.c_str()));
  else
    reportError(format("%s: null kernel function handle (no kernel was "
                       "looked up on this thread)",
                       entry));
}

/// Most parameters of a launch that passes tensor maps by value.
constexpr int kMaxTensorMapParams = 256;

/// Shared implementation of mgpuLaunchKernel and mgpuLaunchClusterKernel.
/// `paramsCount` < 0 means the caller did not pass one.
void launch(const char *entry, CUfunction function, const Dim3 *cluster,
            const Dim3 &grid, const Dim3 &block, int32_t smem,
            CUstream stream, void **params, void **extra,
            long long paramsCount) {
  ThreadState &t = threadState();
  // A programmatic-dependent request is this launch's, whatever happens.
  const bool programmatic = t.programmaticNext;
  t.programmaticNext = false;
  const uint64_t tensorMapParams = t.tensorMapParamsNext;
  t.tensorMapParamsNext = 0;
  if (callFailed(t))
    return; // An earlier error of this call: launch nothing more.
  if (__builtin_expect(!function, 0)) {
    reportNullFunction(t, entry);
    return;
  }

  Kernel *kernelPtr = kernelOf(t, function);
  Kernel unknownKernel;
  if (__builtin_expect(!kernelPtr, 0)) {
    unknownKernel.function = function;
    unknownKernel.name = format("<kernel %p, not looked up through this "
                                "runtime>",
                                static_cast<void *>(function));
    kernelPtr = &unknownKernel;
  }
  Kernel &kernel = *kernelPtr;
  auto describe = [&] {
    return describeLaunch(kernel, cluster, grid, block, smem, stream);
  };

  // Validate the dimensions; the driver takes unsigned ints.
  auto inRange = [](intptr_t v) {
    return v >= 0 && static_cast<uintmax_t>(v) <= UINT32_MAX;
  };
  bool valid = inRange(grid.x) && inRange(grid.y) && inRange(grid.z) &&
               block.x > 0 && block.y > 0 && block.z > 0 &&
               inRange(block.x) && inRange(block.y) && inRange(block.z) &&
               smem >= 0;
  if (cluster)
    valid = valid && cluster->x > 0 && cluster->y > 0 && cluster->z > 0 &&
            inRange(cluster->x) && inRange(cluster->y) && inRange(cluster->z);
  if (__builtin_expect(!valid, 0)) {
    reportError(format("%s: invalid launch configuration (grid sizes must be "
                       "in [0, 2^32), block/cluster sizes in [1, 2^32), "
                       "dynamic shared memory >= 0); %s",
                       entry, describe().c_str()));
    return;
  }
  if (grid.x == 0 || grid.y == 0 || grid.z == 0)
    return; // Empty problem: nothing to launch.

  CUcontext context = kernel.context;
  if (!context)
    context = defaultContext(entry, describe);
  ContextGuard guard(t, context, entry);
  if (!guard.ok())
    return;

  // The parameters MLIR packed must be the kernel's: a mismatch would make
  // the kernel read garbage, so such a launch is refused.
  if (paramsCount >= 0 && !extra &&
      kernel.confirmedParamCount.load(std::memory_order_relaxed) !=
          paramsCount &&
      !checkParamCount(kernel, paramsCount, entry, describe))
    return;

  // Opt into dynamic shared memory beyond the default limit.
  if (smem > kernel.configuredSmem.load(std::memory_order_relaxed) &&
      !configureSmem(kernel, smem, entry, describe))
    return;

  // Clusters of more than 8 CTAs (16 on the H100/H200) are a non-portable
  // size that each kernel must opt into.
  if (cluster && uint64_t(cluster->x) * cluster->y * cluster->z > 8 &&
      !kernel.nonPortableCluster.load(std::memory_order_relaxed)) {
    if (!check(CU(cuFuncSetAttribute, kernel.function,
                  CU_FUNC_ATTRIBUTE_NON_PORTABLE_CLUSTER_SIZE_ALLOWED, 1),
               entry,
               "cuFuncSetAttribute(NON_PORTABLE_CLUSTER_SIZE_ALLOWED)",
               describe))
      return;
    kernel.nonPortableCluster.store(true, std::memory_order_relaxed);
  }

  // Tensor maps by value (txRuntimeTensorMapParamsNext): MLIR packs an
  // !llvm.ptr operand as a pointer to a slot that holds it; the kernel's
  // parameter is the 128-byte map that pointer addresses.
  void *mapParams[kMaxTensorMapParams];
  if (__builtin_expect(tensorMapParams != 0, 0)) {
    int highest = 63 - __builtin_clzll(tensorMapParams);
    // (mgpuLaunchClusterKernel passes no count: the module image's.)
    long long count =
        paramsCount >= 0 ? paramsCount : kernel.imageParamCount;
    if (count < 0) {
      reportError(format("%s: txRuntimeTensorMapParamsNext asks for tensor "
                         "maps, but the kernel's parameter count is unknown "
                         "(the launch passes none and the module image does "
                         "not tell); %s",
                         entry, describe().c_str()));
      return;
    }
    if (!params || extra || count <= highest ||
        count > kMaxTensorMapParams) {
      reportError(format("%s: txRuntimeTensorMapParamsNext asks for parameter "
                         "%d as a tensor map, but the launch passes %lld "
                         "parameters%s (at most %d with tensor maps); %s",
                         entry, highest, count,
                         extra ? " through 'extra'" : "",
                         kMaxTensorMapParams, describe().c_str()));
      return;
    }
    for (long long i = 0; i < count; ++i) {
      mapParams[i] = params[i];
      if (i >= 64 || !(tensorMapParams >> i & 1))
        continue;
      void *map = params[i] ? *static_cast<void **>(params[i]) : nullptr;
      if (!map || reinterpret_cast<uintptr_t>(map) % 64 != 0) {
        reportError(format("%s: parameter %lld is to be a tensor map, but "
                           "its operand %p is not a 64-byte aligned "
                           "CUtensorMap; %s",
                           entry, i, map, describe().c_str()));
        return;
      }
      // A map left zeroed by a failed txRuntimeEncodeTensorMap (already
      // reported) is never launched with.
      const auto *words = static_cast<const uint64_t *>(map);
      bool encoded = false;
      for (int w = 0; w < 16; ++w)
        encoded = encoded || words[w] != 0;
      if (!encoded) {
        reportError(format("%s: parameter %lld is a tensor map that was not "
                           "encoded (all 128 bytes are zero); %s",
                           entry, i, describe().c_str()));
        return;
      }
      mapParams[i] = map;
    }
    params = mapParams;
  }

  CUresult result;
  const char *call;
  if (cluster || programmatic) {
    CUlaunchAttribute attributes[2];
    std::memset(attributes, 0, sizeof(attributes));
    unsigned numAttributes = 0;
    if (cluster) {
      CUlaunchAttribute &attribute = attributes[numAttributes++];
      attribute.id = CU_LAUNCH_ATTRIBUTE_CLUSTER_DIMENSION;
      attribute.value.clusterDim.x = static_cast<unsigned>(cluster->x);
      attribute.value.clusterDim.y = static_cast<unsigned>(cluster->y);
      attribute.value.clusterDim.z = static_cast<unsigned>(cluster->z);
    }
    // (The kernels that ask for it are built for sm_90+, which has
    // programmatic dependent launches.)
    if (programmatic) {
      CUlaunchAttribute &attribute = attributes[numAttributes++];
      attribute.id = CU_LAUNCH_ATTRIBUTE_PROGRAMMATIC_STREAM_SERIALIZATION;
      attribute.value.programmaticStreamSerializationAllowed = 1;
    }
    CUlaunchConfig config;
    std::memset(&config, 0, sizeof(config));
    config.gridDimX = static_cast<unsigned>(grid.x);
    config.gridDimY = static_cast<unsigned>(grid.y);
    config.gridDimZ = static_cast<unsigned>(grid.z);
    config.blockDimX = static_cast<unsigned>(block.x);
    config.blockDimY = static_cast<unsigned>(block.y);
    config.blockDimZ = static_cast<unsigned>(block.z);
    config.sharedMemBytes = static_cast<unsigned>(smem);
    config.hStream = stream;
    config.attrs = attributes;
    config.numAttrs = numAttributes;
    call = "cuLaunchKernelEx";
    result = CU(cuLaunchKernelEx, &config, function, params, extra);
  } else {
    call = "cuLaunchKernel";
    result = CU(cuLaunchKernel, function, static_cast<unsigned>(grid.x),
                static_cast<unsigned>(grid.y), static_cast<unsigned>(grid.z),
                static_cast<unsigned>(block.x), static_cast<unsigned>(block.y),
                static_cast<unsigned>(block.z), static_cast<unsigned>(smem),
                stream, params, extra);
  }
  if (!check(result, entry, call, describe))
    return;

  if (kernelPtr != &unknownKernel) {
    t.lastLaunched = kernelPtr;
    t.lastLaunchStream = stream;
    lastLaunchedKernel.store(kernelPtr, std::memory_order_relaxed);
  }

  if (__builtin_expect(syncLaunches(), 0)) {
    // Never synchronize a stream that is being captured into a graph.
    CUstreamCaptureStatus capture = CU_STREAM_CAPTURE_STATUS_NONE;
    if (!check(CU(cuStreamIsCapturing, stream, &capture), entry,
               "cuStreamIsCapturing (TX_RUNTIME_SYNC_LAUNCHES)", describe))
      return;
    if (capture == CU_STREAM_CAPTURE_STATUS_NONE)
      check(CU(cuStreamSynchronize, stream), entry,
            "cuStreamSynchronize (TX_RUNTIME_SYNC_LAUNCHES)", [&] {
              return "kernel failed during execution: " + describe();
            });
  }
}

/// Element sizes of CUtensorMapDataType values 0..12 (UINT8 .. TFLOAT32_FTZ).
constexpr int kTensorMapElementBytes[] = {1, 2, 4, 4, 8, 8, 2,
                                          4, 8, 2, 4, 4, 4};

/// The fixed head of a ranked memref descriptor; sizes[rank] and
/// strides[rank] (int64_t each) follow `offset`.
struct MemRefDescriptorHead {
  char *allocated;
  char *aligned;
  int64_t offset;
};

const int64_t *memrefSizes(void *descriptor) {
  return reinterpret_cast<const int64_t *>(
      static_cast<char *>(descriptor) + sizeof(MemRefDescriptorHead));
}

//===----------------------------------------------------------------------===//
// Fault-injection plans
//===----------------------------------------------------------------------===//

/// Parses and installs `spec` (TX_RUNTIME_INJECT_FAULT syntax; null or empty
/// turns injection off) and restarts the call counts. Returns false and
/// reports if the spec is malformed (nothing is then injected).
bool installFaultPlan(const char *spec, const char *origin) {
  FaultPlan &plan = faultPlan();
  std::vector<FaultPlan::Rule> rules;
  std::string text = spec ? spec : "";
  size_t pos = 0;
  bool ok = true;
  std::string problem;
  while (ok && pos < text.size()) {
    size_t comma = text.find(',', pos);
    std::string item =
        text.substr(pos, comma == std::string::npos ? std::string::npos
                                                    : comma - pos);
    pos = comma == std::string::npos ? text.size() : comma + 1;
    if (item.empty())
      continue;
    size_t colon = item.find(':');
    if (colon == std::string::npos) {
      ok = false;
      problem = "'" + item + "' is not <cuCall>:<n>[+][:<error>]";
      break;
    }
    std::string name = item.substr(0, colon);
    std::string rest = item.substr(colon + 1);
    std::string count = rest, error;
    size_t colon2 = rest.find(':');
    if (colon2 != std::string::npos) {
      count = rest.substr(0, colon2);
      error = rest.substr(colon2 + 1);
    }
    FaultPlan::Rule rule;
    rule.call = -1;
    for (int i = 0; i < kNumDriverCalls; ++i)
      if (name == kDriverCallNames[i])
        rule.call = i;
    if (rule.call < 0) {
      ok = false;
      problem = "unknown driver call '" + name + "' (known:";
      for (const char *known : kDriverCallNames)
        problem += std::string(" ") + known;
      problem += ")";
      break;
    }
    rule.andLater = !count.empty() && count.back() == '+';
    if (rule.andLater)
      count.pop_back();
    char *end = nullptr;
    rule.n = std::strtoull(count.c_str(), &end, 10);
    if (count.empty() || !end || *end || rule.n == 0) {
      ok = false;
      problem = "'" + item + "': the call number must be 1 or more";
      break;
    }
    rule.error = CUDA_ERROR_UNKNOWN;
    if (!error.empty() && !parseErrorName(error, &rule.error)) {
      ok = false;
      problem = "'" + item + "': unknown CUDA error '" + error + "'";
      break;
    }
    rules.push_back(rule);
  }
  {
    std::lock_guard<std::mutex> lock(plan.mutex);
    plan.rules = ok ? rules : std::vector<FaultPlan::Rule>();
    for (auto &n : plan.counts)
      n.store(0, std::memory_order_relaxed);
    faultInjectionEnabled.store(ok && !plan.rules.empty(),
                                std::memory_order_relaxed);
  }
  if (!ok)
    reportError(format("%s: invalid fault-injection plan \"%s\": %s", origin,
                       text.c_str(), problem.c_str()));
  return ok;
}

__attribute__((constructor)) void installFaultPlanFromEnvironment() {
  if (const char *spec = std::getenv("TX_RUNTIME_INJECT_FAULT"))
    if (*spec)
      installFaultPlan(spec, "TX_RUNTIME_INJECT_FAULT");
}

} // namespace

//===----------------------------------------------------------------------===//
// tx runtime API: errors, calls, streams, fault injection
//===----------------------------------------------------------------------===//

extern "C" TX_RUNTIME_EXPORT const char *txRuntimeGetLastError(void) {
  ThreadState &t = threadState();
  return t.hasLastError ? t.lastError : nullptr;
}

extern "C" TX_RUNTIME_EXPORT void txRuntimeClearLastError(void) {
  ThreadState &t = threadState();
  t.hasLastError = false;
  t.lastError[0] = '\0';
}

extern "C" TX_RUNTIME_EXPORT int txRuntimeErrorCount(void) {
  return processErrorCount.load(std::memory_order_relaxed);
}

extern "C" TX_RUNTIME_EXPORT int txRuntimeThreadErrorCount(void) {
  return threadState().errorCount;
}

extern "C" TX_RUNTIME_EXPORT void txRuntimeFail(const char *message) {
  reportError(message && *message ? message
                                  : "txRuntimeFail called without a message");
}

extern "C" TX_RUNTIME_EXPORT void txRuntimeBeginCall(CUstream stream) {
  const char *entry = "txRuntimeBeginCall";
  ThreadState &t = threadState();
  if (t.depth == kMaxCallDepth) {
    ++t.overflow;
    reportError(format("%s: calls nested more than %d deep on this thread "
                       "(stream %p); this call is refused",
                       entry, kMaxCallDepth, static_cast<void *>(stream)));
    return;
  }
  CallFrame &call = t.frames[t.depth++];
  call.stream = stream;
  call.errorsAtStart = t.errorCount;
  call.context = nullptr;
  call.pushedContext = false;

  // Make the default device's context current for the whole call: one
  // cuCtxGetCurrent per call, so the caller may change contexts between
  // calls, and none in the entry points inside the call.
  DeviceState *device = defaultDeviceState(t, entry);
  if (!device)
    return; // Reported: the call has failed, its device work is skipped.
  CUcontext current = nullptr;
  if (!check(CU(cuCtxGetCurrent, &current), entry, "cuCtxGetCurrent"))
    return;
  if (current != device->context) {
    if (!current) {
      if (!check(CU(cuCtxSetCurrent, device->context), entry,
                 "cuCtxSetCurrent"))
        return;
    } else {
      if (!check(CU(cuCtxPushCurrent, device->context), entry,
                 "cuCtxPushCurrent"))
        return;
      call.pushedContext = true;
    }
  }
  call.context = device->context;
}

extern "C" TX_RUNTIME_EXPORT int32_t txRuntimeEndCall(void) {
  const char *entry = "txRuntimeEndCall";
  ThreadState &t = threadState();
  if (t.overflow > 0) {
    --t.overflow;
    return 1; // Its BeginCall was refused (and reported).
  }
  if (t.depth == 0) {
    reportError(format("%s: no call is active on this thread (missing "
                       "txRuntimeBeginCall)",
                       entry));
    return 1;
  }
  CallFrame &call = t.frames[t.depth - 1];
  if (call.pushedContext) {
    CUcontext popped = nullptr;
    check(CU(cuCtxPopCurrent, &popped), entry, "cuCtxPopCurrent");
  }
  int errors = t.errorCount - call.errorsAtStart;
  --t.depth;
  return errors;
}

extern "C" TX_RUNTIME_EXPORT int txRuntimeSynchronize(void) {
  const char *entry = "txRuntimeSynchronize";
  CUresult result = CUDA_SUCCESS;
  DeviceState *device =
      acquireDevice(defaultDevice.load(std::memory_order_relaxed), entry,
                    [] { return std::string(); }, &result);
  if (!device)
    return static_cast<int>(result);
  ContextGuard guard(device->context, entry);
  if (!guard.ok())
    return static_cast<int>(CUDA_ERROR_INVALID_CONTEXT);
  result = CU(cuCtxSynchronize);
  check(result, entry, "cuCtxSynchronize", [] {
    Kernel *k = lastLaunchedKernel.load(std::memory_order_relaxed);
    return k ? "last kernel launched: '" + k->name + "'"
             : std::string("no kernel was launched through this runtime");
  });
  return static_cast<int>(result);
}

extern "C" TX_RUNTIME_EXPORT void txRuntimeSetStream(CUstream stream,
                                                     int async) {
  ThreadState &t = threadState();
  t.hasExternalStream = stream != nullptr;
  t.externalStream = stream;
  t.externalAsync = stream ? async : 0;
}

extern "C" TX_RUNTIME_EXPORT void txRuntimeLaunchProgrammaticNext(void) {
  threadState().programmaticNext = true;
}

extern "C" TX_RUNTIME_EXPORT void txRuntimeTensorMapParamsNext(uint64_t mask) {
  threadState().tensorMapParamsNext = mask;
}

extern "C" TX_RUNTIME_EXPORT int txRuntimeSetFaultInjection(const char *spec) {
  return installFaultPlan(spec, "txRuntimeSetFaultInjection") ? 0 : 1;
}

//===----------------------------------------------------------------------===//
// Modules
//===----------------------------------------------------------------------===//

extern "C" TX_RUNTIME_EXPORT CUmodule mgpuModuleLoad(void *data,
                                                     size_t gpuBlobSize) {
  const char *entry = "mgpuModuleLoad";
  if (!data) {
    reportError(format("%s: null binary pointer (size %zu)", entry,
                       gpuBlobSize));
    return nullptr;
  }
  return loadModule(entry, data, gpuBlobSize, /*jitOptLevel=*/-1);
}

extern "C" TX_RUNTIME_EXPORT CUmodule mgpuModuleLoadJIT(void *data,
                                                        int optLevel) {
  const char *entry = "mgpuModuleLoadJIT";
  if (!data) {
    reportError(format("%s: null PTX pointer", entry));
    return nullptr;
  }
  // PTX handed to the JIT is NUL-terminated (the embedding appends the NUL).
  size_t size = std::strlen(static_cast<const char *>(data)) + 1;
  // CU_JIT_OPTIMIZATION_LEVEL accepts 0..4; anything else means "default".
  int level = optLevel >= 0 && optLevel <= 4 ? optLevel : -1;
  return loadModule(entry, data, size, level);
}

extern "C" TX_RUNTIME_EXPORT void mgpuModuleUnload(CUmodule module) {
  const char *entry = "mgpuModuleUnload";
  if (!module)
    return; // The failed load was reported when it happened.

  ModuleInfo info;
  {
    State &s = state();
    std::lock_guard<std::mutex> lock(s.mutex);
    auto it = s.modules.find(module);
    if (it != s.modules.end()) {
      info = std::move(it->second);
      s.modules.erase(it);
    } else {
      info.description = format("module %p (not loaded through this runtime)",
                                static_cast<void *>(module));
    }
    // Forget the module's kernels: their handles die with it. The Kernel
    // objects themselves are retired, not freed (a racing launch may still
    // read them).
    for (Kernel *kernel : info.kernels)
      s.kernelsByFunction.erase(kernel->function);
    s.retiredKernels.insert(s.retiredKernels.end(), info.kernels.begin(),
                            info.kernels.end());
    info.kernels.clear();
    kernelGeneration.fetch_add(1, std::memory_order_acq_rel);
  }

  // MLIR unloads from a global destructor. By then the driver has usually
  // shut down already (it does so at exit, before those destructors run),
  // taking its contexts and their modules with it: nothing is left to unload.
  CUcontext current = nullptr;
  if (CU(cuCtxGetCurrent, &current) == CUDA_ERROR_DEINITIALIZED)
    return;

  CUcontext context = info.context ? info.context : defaultContext(entry);
  ContextGuard guard(context, entry);
  if (!guard.ok())
    return;
  CUresult result = CU(cuModuleUnload, module);
  if (result == CUDA_ERROR_DEINITIALIZED)
    return; // As above: the driver shut down meanwhile.
  if (!check(result, entry, "cuModuleUnload",
             [&] { return "module: " + info.description; }) &&
      info.context) {
    // Still loaded: keep knowing it (its kernels are looked up afresh).
    State &s = state();
    std::lock_guard<std::mutex> lock(s.mutex);
    s.modules.emplace(module, std::move(info));
  }
}

extern "C" TX_RUNTIME_EXPORT CUfunction
mgpuModuleGetFunction(CUmodule module, const char *name) {
  const char *entry = "mgpuModuleGetFunction";
  ThreadState &t = threadState();
  refreshKernelCache(t);
  if (__builtin_expect(name != nullptr, 1)) {
    KernelCacheEntry &slot = t.kernelCache[kernelCacheSlot(name)];
    if (__builtin_expect(slot.kernel && slot.module == module &&
                             slot.name == name &&
                             std::strcmp(slot.kernel->name.c_str(), name) == 0,
                         1)) {
      t.lastLookedUp = slot.kernel;
      t.failedLookup[0] = '\0';
      return slot.kernel->function;
    }
  }

  if (!name) {
    reportError(format("%s: null kernel name (module %p)", entry,
                       static_cast<void *>(module)));
    return nullptr;
  }
  std::snprintf(t.failedLookup, sizeof(t.failedLookup), "%s", name);
  t.lastLookedUp = nullptr;
  if (!module) {
    reportError(format("%s: cannot look up kernel '%s': its module handle is "
                       "null (loading the gpu.binary that holds it failed "
                       "earlier; see the first tx-runtime error)",
                       entry, name));
    return nullptr;
  }
  Kernel *kernel = lookupKernel(t, module, name, entry);
  if (!kernel)
    return nullptr;
  t.failedLookup[0] = '\0';
  t.lastLookedUp = kernel;
  KernelCacheEntry &slot = t.kernelCache[kernelCacheSlot(name)];
  slot.module = module;
  slot.name = name;
  slot.kernel = kernel;
  return kernel->function;
}

//===----------------------------------------------------------------------===//
// Launches
//===----------------------------------------------------------------------===//

extern "C" TX_RUNTIME_EXPORT void
mgpuLaunchKernel(CUfunction function, intptr_t gridX, intptr_t gridY,
                 intptr_t gridZ, intptr_t blockX, intptr_t blockY,
                 intptr_t blockZ, int32_t smem, CUstream stream, void **params,
                 void **extra, size_t paramsCount) {
  launch("mgpuLaunchKernel", function, /*cluster=*/nullptr,
         Dim3{gridX, gridY, gridZ}, Dim3{blockX, blockY, blockZ}, smem,
         stream, params, extra, static_cast<long long>(paramsCount));
}

// LLVM 22 emits this with 14 arguments and no paramsCount (unlike
// mgpuLaunchKernel), so none is declared here.
extern "C" TX_RUNTIME_EXPORT void
mgpuLaunchClusterKernel(CUfunction function, intptr_t clusterX,
                        intptr_t clusterY, intptr_t clusterZ, intptr_t gridX,
                        intptr_t gridY, intptr_t gridZ, intptr_t blockX,
                        intptr_t blockY, intptr_t blockZ, int32_t smem,
                        CUstream stream, void **params, void **extra) {
  Dim3 cluster{clusterX, clusterY, clusterZ};
  launch("mgpuLaunchClusterKernel", function, &cluster,
         Dim3{gridX, gridY, gridZ}, Dim3{blockX, blockY, blockZ}, smem,
         stream, params, extra, /*paramsCount=*/-1);
}

//===----------------------------------------------------------------------===//
// Streams and events
//===----------------------------------------------------------------------===//

namespace {

/// Remembers that `stream` (of `context`) was lent out by mgpuStreamCreate
/// on this thread.
inline void noteLent(ThreadState &t, CUstream stream, CUcontext context) {
  if (t.lentCount == kLentStreams) { // forget the oldest
    std::memmove(&t.lent[0], &t.lent[1],
                 sizeof(PooledStream) * (kLentStreams - 1));
    --t.lentCount;
  }
  t.lent[t.lentCount++] = PooledStream{stream, context};
}

/// Puts a runtime stream back into this thread's pool (or the shared one).
void returnToPool(ThreadState &t, PooledStream pooled) {
  if (t.pooledCount < kThreadStreamPool) {
    if (!t.poolReturnerArmed) {
      t.poolReturnerArmed = true;
      streamPoolReturner.armed = true; // constructs it: returns the pool at exit
    }
    t.pooled[t.pooledCount++] = pooled;
    return;
  }
  State &s = state();
  std::lock_guard<std::mutex> lock(s.mutex);
  s.sharedStreamPool.push_back(pooled);
}

} // namespace

extern "C" TX_RUNTIME_EXPORT CUstream mgpuStreamCreate(void) {
  const char *entry = "mgpuStreamCreate";
  ThreadState &t = threadState();
  if (CallFrame *call = currentCall(t))
    return call->stream;
  if (t.hasExternalStream)
    return t.externalStream;
  DeviceState *device = defaultDeviceState(t, entry);
  if (!device)
    return nullptr;
  CUcontext context = device->context;
  bool pooling = streamPoolEnabled();
  if (pooling) {
    for (int i = t.pooledCount - 1; i >= 0; --i) {
      if (t.pooled[i].context == context) {
        PooledStream pooled = t.pooled[i];
        t.pooled[i] = t.pooled[--t.pooledCount];
        noteLent(t, pooled.stream, context);
        return pooled.stream;
      }
    }
    State &s = state();
    std::unique_lock<std::mutex> lock(s.mutex);
    for (size_t i = s.sharedStreamPool.size(); i-- > 0;) {
      if (s.sharedStreamPool[i].context == context) {
        PooledStream pooled = s.sharedStreamPool[i];
        s.sharedStreamPool.erase(s.sharedStreamPool.begin() +
                                 static_cast<long>(i));
        lock.unlock();
        noteLent(t, pooled.stream, context);
        return pooled.stream;
      }
    }
  }
  ContextGuard guard(t, context, entry);
  if (!guard.ok())
    return nullptr;
  CUstream stream = nullptr;
  if (!check(CU(cuStreamCreate, &stream, CU_STREAM_NON_BLOCKING), entry,
             "cuStreamCreate"))
    return nullptr;
  if (pooling) {
    State &s = state();
    {
      std::lock_guard<std::mutex> lock(s.mutex);
      s.runtimeStreams[stream] = context;
    }
    noteLent(t, stream, context);
  }
  return stream;
}

extern "C" TX_RUNTIME_EXPORT void mgpuStreamDestroy(CUstream stream) {
  const char *entry = "mgpuStreamDestroy";
  ThreadState &t = threadState();
  CallFrame *call = currentCall(t);
  if (call && stream == call->stream)
    return; // The caller's stream: owned by the caller.
  if (!stream)
    return; // Creation failure was reported when it happened.
  if (!call && t.hasExternalStream && stream == t.externalStream)
    return; // Owned by the caller of txRuntimeSetStream.
  if (streamPoolEnabled()) {
    for (int i = t.lentCount - 1; i >= 0; --i) {
      if (t.lent[i].stream == stream) {
        PooledStream pooled = t.lent[i];
        t.lent[i] = t.lent[--t.lentCount];
        returnToPool(t, pooled); // Queued work just completes first.
        return;
      }
    }
    CUcontext context = nullptr;
    {
      State &s = state();
      std::lock_guard<std::mutex> lock(s.mutex);
      auto it = s.runtimeStreams.find(stream);
      if (it != s.runtimeStreams.end())
        context = it->second;
    }
    if (context) { // lent on another thread
      returnToPool(t, PooledStream{stream, context});
      return;
    }
  }
  ContextGuard guard(t, defaultContext(entry), entry);
  if (!guard.ok())
    return;
  check(CU(cuStreamDestroy, stream), entry, "cuStreamDestroy",
        [&] { return format("stream %p", static_cast<void *>(stream)); });
}

extern "C" TX_RUNTIME_EXPORT void mgpuStreamSynchronize(CUstream stream) {
  const char *entry = "mgpuStreamSynchronize";
  ThreadState &t = threadState();
  if (CallFrame *call = currentCall(t)) {
    if (stream == call->stream)
      return; // Stream-ordered call: the caller decides when to wait.
  } else if (t.hasExternalStream && t.externalAsync &&
             stream == t.externalStream) {
    return; // Async mode: the caller synchronizes (e.g. with CUDA events).
  }
  ContextGuard guard(t, defaultContext(entry), entry);
  if (!guard.ok())
    return;
  check(CU(cuStreamSynchronize, stream), entry, "cuStreamSynchronize",
        [&] { return describeStream(stream); });
}

extern "C" TX_RUNTIME_EXPORT void mgpuStreamWaitEvent(CUstream stream,
                                                      CUevent event) {
  const char *entry = "mgpuStreamWaitEvent";
  if (!event) {
    reportError(format("%s: null event (its creation failed earlier); %s",
                       entry, describeStream(stream).c_str()));
    return;
  }
  ContextGuard guard(defaultContext(entry), entry);
  if (!guard.ok())
    return;
  check(CU(cuStreamWaitEvent, stream, event, /*Flags=*/0), entry,
        "cuStreamWaitEvent", [&] {
          return format("event %p; ", static_cast<void *>(event)) +
                 describeStream(stream);
        });
}

extern "C" TX_RUNTIME_EXPORT CUevent mgpuEventCreate(void) {
  const char *entry = "mgpuEventCreate";
  ContextGuard guard(defaultContext(entry), entry);
  if (!guard.ok())
    return nullptr;
  CUevent event = nullptr;
  if (!check(CU(cuEventCreate, &event, CU_EVENT_DISABLE_TIMING), entry,
             "cuEventCreate"))
    return nullptr;
  return event;
}

extern "C" TX_RUNTIME_EXPORT void mgpuEventDestroy(CUevent event) {
  const char *entry = "mgpuEventDestroy";
  if (!event)
    return; // Creation failure was reported when it happened.
  ContextGuard guard(defaultContext(entry), entry);
  if (!guard.ok())
    return;
  check(CU(cuEventDestroy, event), entry, "cuEventDestroy",
        [&] { return format("event %p", static_cast<void *>(event)); });
}

extern "C" TX_RUNTIME_EXPORT void mgpuEventSynchronize(CUevent event) {
  const char *entry = "mgpuEventSynchronize";
  if (!event) {
    reportError(format("%s: null event (its creation failed earlier)", entry));
    return;
  }
  ContextGuard guard(defaultContext(entry), entry);
  if (!guard.ok())
    return;
  check(CU(cuEventSynchronize, event), entry, "cuEventSynchronize", [&] {
    Kernel *k = lastLaunchedKernel.load(std::memory_order_relaxed);
    return format("event %p; last kernel launched: '%s'",
                  static_cast<void *>(event), k ? k->name.c_str() : "(none)");
  });
}

extern "C" TX_RUNTIME_EXPORT void mgpuEventRecord(CUevent event,
                                                  CUstream stream) {
  const char *entry = "mgpuEventRecord";
  if (!event) {
    reportError(format("%s: null event (its creation failed earlier); %s",
                       entry, describeStream(stream).c_str()));
    return;
  }
  ContextGuard guard(defaultContext(entry), entry);
  if (!guard.ok())
    return;
  check(CU(cuEventRecord, event, stream), entry, "cuEventRecord", [&] {
    return format("event %p; ", static_cast<void *>(event)) +
           describeStream(stream);
  });
}

//===----------------------------------------------------------------------===//
// Memory
//===----------------------------------------------------------------------===//

extern "C" TX_RUNTIME_EXPORT void *mgpuMemAlloc(uint64_t sizeBytes,
                                                CUstream stream,
                                                uint8_t isHostShared) {
  const char *entry = "mgpuMemAlloc";
  if (sizeBytes == 0)
    return nullptr;
  ThreadState &t = threadState();
  CallFrame *call = currentCall(t);
  if (call) {
    if (callFailed(t))
      return nullptr; // The call failed earlier: nothing will use it.
    stream = call->stream;
  }
  auto describe = [&] {
    return format("%" PRIu64 " bytes of %s memory on %s", sizeBytes,
                  isHostShared ? "managed (host_shared)" : "device",
                  describeStream(stream).c_str());
  };
  DeviceState *device = defaultDeviceState(t, entry, describe);
  if (!device)
    return nullptr;
  ContextGuard guard(t, device->context, entry);
  if (!guard.ok())
    return nullptr;
  CUdeviceptr ptr = 0;
  if (isHostShared) {
    if (!check(CU(cuMemAllocManaged, &ptr, sizeBytes, CU_MEM_ATTACH_GLOBAL),
               entry, "cuMemAllocManaged", describe))
      return nullptr;
    State &s = state();
    std::lock_guard<std::mutex> lock(s.mutex);
    s.managedAllocations.insert(reinterpret_cast<void *>(ptr));
    s.managedCount.store(static_cast<int>(s.managedAllocations.size()),
                         std::memory_order_relaxed);
  } else if (device->pool) {
    if (!check(CU(cuMemAllocFromPoolAsync, &ptr, sizeBytes, device->pool,
                  stream),
               entry, "cuMemAllocFromPoolAsync", describe))
      return nullptr;
  } else if (!check(CU(cuMemAlloc, &ptr, sizeBytes), entry, "cuMemAlloc",
                    describe)) {
    return nullptr;
  }
  return reinterpret_cast<void *>(ptr);
}

extern "C" TX_RUNTIME_EXPORT void mgpuMemFree(void *ptr, CUstream stream) {
  const char *entry = "mgpuMemFree";
  if (!ptr)
    return; // Zero-byte or failed allocation.
  ThreadState &t = threadState();
  if (CallFrame *call = currentCall(t))
    stream = call->stream;
  auto describe = [&] {
    return format("pointer %p on %s", ptr, describeStream(stream).c_str());
  };
  DeviceState *device = defaultDeviceState(t, entry, describe);
  if (!device)
    return;
  ContextGuard guard(t, device->context, entry);
  if (!guard.ok())
    return;
  State &s = state();
  if (s.managedCount.load(std::memory_order_relaxed) > 0) {
    bool managed;
    {
      std::lock_guard<std::mutex> lock(s.mutex);
      managed = s.managedAllocations.count(ptr) > 0;
    }
    if (managed) {
      if (check(CU(cuMemFree, reinterpret_cast<CUdeviceptr>(ptr)), entry,
                "cuMemFree", describe)) {
        std::lock_guard<std::mutex> lock(s.mutex);
        s.managedAllocations.erase(ptr);
        s.managedCount.store(static_cast<int>(s.managedAllocations.size()),
                             std::memory_order_relaxed);
      }
      return;
    }
  }
  if (device->pool)
    check(CU(cuMemFreeAsync, reinterpret_cast<CUdeviceptr>(ptr), stream),
          entry, "cuMemFreeAsync", describe);
  else
    check(CU(cuMemFree, reinterpret_cast<CUdeviceptr>(ptr)), entry,
          "cuMemFree", describe);
}

extern "C" TX_RUNTIME_EXPORT void mgpuMemcpy(void *dst, void *src,
                                             size_t sizeBytes,
                                             CUstream stream) {
  const char *entry = "mgpuMemcpy";
  if (sizeBytes == 0)
    return;
  ThreadState &t = threadState();
  if (callFailed(t))
    return;
  auto describe = [&] {
    return format("copy of %zu bytes from %p to %p on ", sizeBytes, src, dst) +
           describeStream(stream);
  };
  ContextGuard guard(t, defaultContext(entry, describe), entry);
  if (!guard.ok())
    return;
  check(CU(cuMemcpyAsync, reinterpret_cast<CUdeviceptr>(dst),
           reinterpret_cast<CUdeviceptr>(src), sizeBytes, stream),
        entry, "cuMemcpyAsync", describe);
}

extern "C" TX_RUNTIME_EXPORT void mgpuMemset32(void *dst, unsigned int value,
                                               size_t count, CUstream stream) {
  const char *entry = "mgpuMemset32";
  if (count == 0)
    return;
  ThreadState &t = threadState();
  if (callFailed(t))
    return;
  auto describe = [&] {
    return format("%zu 32-bit elements at %p set to 0x%08x on ", count, dst,
                  value) +
           describeStream(stream);
  };
  ContextGuard guard(t, defaultContext(entry, describe), entry);
  if (!guard.ok())
    return;
  check(CU(cuMemsetD32Async, reinterpret_cast<CUdeviceptr>(dst), value, count,
           stream),
        entry, "cuMemsetD32Async", describe);
}

extern "C" TX_RUNTIME_EXPORT void mgpuMemset16(void *dst, unsigned short value,
                                               size_t count, CUstream stream) {
  const char *entry = "mgpuMemset16";
  if (count == 0)
    return;
  ThreadState &t = threadState();
  if (callFailed(t))
    return;
  auto describe = [&] {
    return format("%zu 16-bit elements at %p set to 0x%04x on ", count, dst,
                  static_cast<unsigned>(value)) +
           describeStream(stream);
  };
  ContextGuard guard(t, defaultContext(entry, describe), entry);
  if (!guard.ok())
    return;
  check(CU(cuMemsetD16Async, reinterpret_cast<CUdeviceptr>(dst), value, count,
           stream),
        entry, "cuMemsetD16Async", describe);
}

extern "C" TX_RUNTIME_EXPORT void mgpuMemHostRegister(void *ptr,
                                                      uint64_t sizeBytes) {
  const char *entry = "mgpuMemHostRegister";
  auto describe = [&] {
    return format("%" PRIu64 " bytes of host memory at %p", sizeBytes, ptr);
  };
  ContextGuard guard(defaultContext(entry, describe), entry);
  if (!guard.ok())
    return;
  check(CU(cuMemHostRegister, ptr, sizeBytes, /*Flags=*/0), entry,
        "cuMemHostRegister", describe);
}

extern "C" TX_RUNTIME_EXPORT void
mgpuMemHostRegisterMemRef(int64_t rank, void *descriptor,
                          int64_t elementSizeBytes) {
  const char *entry = "mgpuMemHostRegisterMemRef";
  if (!descriptor || rank < 0 || elementSizeBytes <= 0) {
    reportError(format("%s: invalid memref (descriptor %p, rank %" PRId64
                       ", element size %" PRId64 ")",
                       entry, descriptor, rank, elementSizeBytes));
    return;
  }
  const auto *head = static_cast<const MemRefDescriptorHead *>(descriptor);
  const int64_t *sizes = memrefSizes(descriptor);
  const int64_t *strides = sizes + rank;
  // Only densely packed (identity layout) memrefs can be registered as one
  // contiguous range.
  int64_t elements = 1;
  for (int64_t i = rank - 1; i >= 0; --i) {
    if (sizes[i] != 1 && strides[i] != elements) {
      reportError(format("%s: only contiguous memrefs can be registered, but "
                         "dimension %" PRId64 " has stride %" PRId64
                         " instead of %" PRId64,
                         entry, i, strides[i], elements));
      return;
    }
    elements *= sizes[i];
  }
  mgpuMemHostRegister(head->aligned + head->offset * elementSizeBytes,
                      static_cast<uint64_t>(elements * elementSizeBytes));
}

extern "C" TX_RUNTIME_EXPORT void mgpuMemHostUnregister(void *ptr) {
  const char *entry = "mgpuMemHostUnregister";
  ContextGuard guard(defaultContext(entry), entry);
  if (!guard.ok())
    return;
  check(CU(cuMemHostUnregister, ptr), entry, "cuMemHostUnregister",
        [&] { return format("host pointer %p", ptr); });
}

extern "C" TX_RUNTIME_EXPORT void
mgpuMemHostUnregisterMemRef(int64_t /*rank*/, void *descriptor,
                            int64_t elementSizeBytes) {
  if (!descriptor) {
    reportError("mgpuMemHostUnregisterMemRef: null memref descriptor");
    return;
  }
  const auto *head = static_cast<const MemRefDescriptorHead *>(descriptor);
  mgpuMemHostUnregister(head->aligned + head->offset * elementSizeBytes);
}

//===----------------------------------------------------------------------===//
// Devices
//===----------------------------------------------------------------------===//

extern "C" TX_RUNTIME_EXPORT void mgpuSetDefaultDevice(int32_t device) {
  if (device < 0 || device >= kMaxDevices) {
    reportError(format("mgpuSetDefaultDevice: invalid device ordinal %" PRId32
                       " (the runtime supports 0..%d)",
                       device, kMaxDevices - 1));
    return;
  }
  defaultDevice.store(device, std::memory_order_relaxed);
}

//===----------------------------------------------------------------------===//
// TMA descriptors (Hopper)
//===----------------------------------------------------------------------===//

namespace {
/// cuTensorMapEncodeTiled with error reporting on behalf of `entry`.
bool encodeTensorMap(const char *entry, CUtensorMap *tensorMap,
                     CUtensorMapDataType tensorDataType, cuuint32_t tensorRank,
                     void *globalAddress, const cuuint64_t *globalDim,
                     const cuuint64_t *globalStrides, const cuuint32_t *boxDim,
                     const cuuint32_t *elementStrides,
                     CUtensorMapInterleave interleave,
                     CUtensorMapSwizzle swizzle,
                     CUtensorMapL2promotion l2Promotion,
                     CUtensorMapFloatOOBfill oobFill) {
  auto describe = [&] {
    std::string text = format("tensor map of rank %u, data type %d, global "
                              "address %p, dims [",
                              tensorRank, static_cast<int>(tensorDataType),
                              globalAddress);
    for (cuuint32_t i = 0; i < tensorRank && i < 5; ++i)
      text += format("%s%llu", i ? ", " : "",
                     static_cast<unsigned long long>(globalDim[i]));
    text += "], byte strides [";
    for (cuuint32_t i = 0; i + 1 < tensorRank && i < 4; ++i)
      text += format("%s%llu", i ? ", " : "",
                     static_cast<unsigned long long>(globalStrides[i]));
    text += "], box [";
    for (cuuint32_t i = 0; i < tensorRank && i < 5; ++i)
      text += format("%s%u", i ? ", " : "", static_cast<unsigned>(boxDim[i]));
    text += format("], interleave %d, swizzle %d, l2 promotion %d, oob fill %d",
                   static_cast<int>(interleave), static_cast<int>(swizzle),
                   static_cast<int>(l2Promotion), static_cast<int>(oobFill));
    return text;
  };
  // Encoding needs an initialized driver rather than a particular context;
  // acquiring the default context takes care of cuInit.
  ContextGuard guard(defaultContext(entry, describe), entry);
  if (!guard.ok())
    return false;
  return check(CU(cuTensorMapEncodeTiled, tensorMap, tensorDataType, tensorRank,
                                      globalAddress, globalDim, globalStrides,
                                      boxDim, elementStrides, interleave,
                                      swizzle, l2Promotion, oobFill),
               entry, "cuTensorMapEncodeTiled", describe);
}
} // namespace

extern "C" TX_RUNTIME_EXPORT void mgpuTensorMapEncodeTiled(
    CUtensorMap *tensorMap, CUtensorMapDataType tensorDataType,
    cuuint32_t tensorRank, void *globalAddress, const cuuint64_t *globalDim,
    const cuuint64_t *globalStrides, const cuuint32_t *boxDim,
    const cuuint32_t *elementStrides, CUtensorMapInterleave interleave,
    CUtensorMapSwizzle swizzle, CUtensorMapL2promotion l2Promotion,
    CUtensorMapFloatOOBfill oobFill) {
  encodeTensorMap("mgpuTensorMapEncodeTiled", tensorMap, tensorDataType,
                  tensorRank, globalAddress, globalDim, globalStrides, boxDim,
                  elementStrides, interleave, swizzle, l2Promotion, oobFill);
}

extern "C" TX_RUNTIME_EXPORT void txRuntimeEncodeTensorMap(
    void *map, int64_t dataType, int64_t rank, void *base, int64_t dim0,
    int64_t dim1, int64_t dim2, int64_t dim3, int64_t dim4, int64_t stride1,
    int64_t stride2, int64_t stride3, int64_t stride4, int64_t box0,
    int64_t box1, int64_t box2, int64_t box3, int64_t box4, int64_t swizzle) {
  const char *entry = "txRuntimeEncodeTensorMap";
  if (!map || reinterpret_cast<uintptr_t>(map) % 64 != 0) {
    reportError(format("%s: the tensor map %p is not a 64-byte aligned "
                       "128-byte buffer",
                       entry, map));
    return;
  }
  // Zeroed first: a map this call does not encode (a refused request, or a
  // failed call) is refused by the launch that would take it.
  std::memset(map, 0, sizeof(CUtensorMap));
  ThreadState &t = threadState();
  if (callFailed(t))
    return; // An earlier error of this call: its launches are skipped.
  constexpr int64_t kNumTypes =
      sizeof(kTensorMapElementBytes) / sizeof(kTensorMapElementBytes[0]);
  const char *bad = rank < 1 || rank > 5 ? "rank must be 1..5"
                    : dataType < 0 || dataType >= kNumTypes
                        ? "data type must be a CUtensorMapDataType"
                    : swizzle < 0 || swizzle > 3
                        ? "swizzle must be a CUtensorMapSwizzle (0..3)"
                        : nullptr;
  if (bad) {
    reportError(format("%s: unsupported tensor map request: %s (rank %" PRId64
                       ", data type %" PRId64 ", swizzle %" PRId64 ")",
                       entry, bad, rank, dataType, swizzle));
    return;
  }
  const int64_t dims[5] = {dim0, dim1, dim2, dim3, dim4};
  const int64_t strides[4] = {stride1, stride2, stride3, stride4};
  const int64_t boxes[5] = {box0, box1, box2, box3, box4};
  cuuint64_t globalDim[5], globalStrides[4] = {0, 0, 0, 0};
  cuuint32_t boxDim[5], elementStrides[5] = {1, 1, 1, 1, 1};
  for (int64_t i = 0; i < 5; ++i) {
    bool used = i < rank;
    if (used && (dims[i] < 1 || boxes[i] < 1 || boxes[i] > 256)) {
      reportError(format("%s: dimension %" PRId64 " of the tensor map has size "
                         "%" PRId64 " and box %" PRId64
                         " (sizes >= 1, boxes in [1, 256])",
                         entry, i, dims[i], boxes[i]));
      return;
    }
    globalDim[i] = used ? static_cast<cuuint64_t>(dims[i]) : 1;
    boxDim[i] = used ? static_cast<cuuint32_t>(boxes[i]) : 1;
    if (i >= 1 && used) {
      if (strides[i - 1] < 1) {
        reportError(format("%s: byte stride %" PRId64 " of dimension %" PRId64
                           " must be positive",
                           entry, strides[i - 1], i));
        return;
      }
      globalStrides[i - 1] = static_cast<cuuint64_t>(strides[i - 1]);
    }
  }
  encodeTensorMap(entry, static_cast<CUtensorMap *>(map),
                  static_cast<CUtensorMapDataType>(dataType),
                  static_cast<cuuint32_t>(rank), base, globalDim, globalStrides,
                  boxDim, elementStrides, CU_TENSOR_MAP_INTERLEAVE_NONE,
                  static_cast<CUtensorMapSwizzle>(swizzle),
                  CU_TENSOR_MAP_L2_PROMOTION_L2_128B,
                  CU_TENSOR_MAP_FLOAT_OOB_FILL_NONE);
}

// The descriptor is copied to a fresh 128-byte device allocation that is
// never freed (as upstream does): callers are expected to create descriptors
// once, not per launch.
extern "C" TX_RUNTIME_EXPORT void *
mgpuTensorMapEncodeTiledMemref(int64_t tensorRank, void *rankedDescriptor,
                               int64_t tensorDataType, int64_t interleave,
                               int64_t swizzle, int64_t l2Promotion,
                               int64_t oobFill, int64_t *inputBoxDims) {
  const char *entry = "mgpuTensorMapEncodeTiledMemref";
  constexpr int64_t kNumTypes =
      sizeof(kTensorMapElementBytes) / sizeof(kTensorMapElementBytes[0]);
  if (tensorRank < 1 || tensorRank > 5 || !rankedDescriptor ||
      !inputBoxDims || tensorDataType < 0 || tensorDataType >= kNumTypes) {
    reportError(format("%s: unsupported tensor map request (rank %" PRId64
                       " must be 1..5, data type %" PRId64
                       " must be 0..%" PRId64 ", descriptor %p, box dims %p)",
                       entry, tensorRank, tensorDataType, kNumTypes - 1,
                       rankedDescriptor, static_cast<void *>(inputBoxDims)));
    return nullptr;
  }
  const auto *head = static_cast<const MemRefDescriptorHead *>(rankedDescriptor);
  const int64_t *sizes = memrefSizes(rankedDescriptor);
  const int64_t *strides = sizes + tensorRank;
  const int64_t elementBytes = kTensorMapElementBytes[tensorDataType];

  // CUDA orders dimensions innermost first; memrefs outermost first. The
  // innermost dimension must be contiguous, so its stride is implicit.
  cuuint64_t globalDim[5] = {1, 1, 1, 1, 1};
  cuuint64_t globalStrides[5] = {0, 0, 0, 0, 0};
  cuuint32_t boxDim[5] = {1, 1, 1, 1, 1};
  cuuint32_t elementStrides[5] = {1, 1, 1, 1, 1};
  for (int64_t i = 0; i < tensorRank; ++i) {
    globalDim[i] = static_cast<cuuint64_t>(sizes[tensorRank - 1 - i]);
    boxDim[i] = static_cast<cuuint32_t>(inputBoxDims[tensorRank - 1 - i]);
  }
  for (int64_t i = 0; i + 1 < tensorRank; ++i)
    globalStrides[i] = static_cast<cuuint64_t>(strides[tensorRank - 2 - i] *
                                               elementBytes);
  void *globalAddress = head->aligned + head->offset * elementBytes;

  CUtensorMap tensorMap; // 128-byte aligned by its declaration
  std::memset(&tensorMap, 0, sizeof(tensorMap));
  if (!encodeTensorMap(entry, &tensorMap,
                       static_cast<CUtensorMapDataType>(tensorDataType),
                       static_cast<cuuint32_t>(tensorRank), globalAddress,
                       globalDim, globalStrides, boxDim, elementStrides,
                       static_cast<CUtensorMapInterleave>(interleave),
                       static_cast<CUtensorMapSwizzle>(swizzle),
                       static_cast<CUtensorMapL2promotion>(l2Promotion),
                       static_cast<CUtensorMapFloatOOBfill>(oobFill)))
    return nullptr;

  ContextGuard guard(defaultContext(entry), entry);
  if (!guard.ok())
    return nullptr;
  CUdeviceptr deviceMap = 0;
  if (!check(CU(cuMemAlloc, &deviceMap, sizeof(CUtensorMap)), entry,
             "cuMemAlloc",
             [] { return std::string("128-byte tensor map descriptor"); }))
    return nullptr;
  if (!check(CU(cuMemcpyHtoD, deviceMap, &tensorMap, sizeof(CUtensorMap)),
             entry,
             "cuMemcpyHtoD",
             [] { return std::string("128-byte tensor map descriptor"); })) {
    check(CU(cuMemFree, deviceMap), entry, "cuMemFree",
          [] { return std::string("128-byte tensor map descriptor"); });
    return nullptr;
  }
  return reinterpret_cast<void *>(deviceMap);
}
