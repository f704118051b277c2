//===- FakeCuda.cpp - a CPU-only fake of the CUDA driver (libcuda.so.1) ---===//
//
// A test double of the CUDA driver API for the entry points that
// libtx_cuda_runtime.so (and compiled tx libraries through it) uses, so that
// the runtime's normal and failure paths run on machines and CI without a
// GPU. Built as build/fake-cuda/libcuda.so.1; selected with
// LD_LIBRARY_PATH=build/fake-cuda. The model, environment variables and the
// test interface (statistics, call counts, host kernels) are described in
// FakeCuda.h.
//
// Conventions, as in the real driver: every call but cuInit and
// cuGetError* fails with CUDA_ERROR_NOT_INITIALIZED before cuInit; calls that
// create things need a current context; a stream, event or function of
// another context is CUDA_ERROR_INVALID_HANDLE; handles are checked (a
// destroyed handle is CUDA_ERROR_INVALID_HANDLE, never a crash: objects are
// marked dead, not freed).
//
//===----------------------------------------------------------------------===//

#include "FakeCuda.h"

#include "ImageInfo.h"

#include <cuda.h>

#include <atomic>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <mutex>
#include <thread>
#include <string>
#include <unordered_map>
#include <unordered_set>
#include <vector>

#define FAKE_API extern "C" __attribute__((visibility("default")))

namespace {

//===----------------------------------------------------------------------===//
// Call accounting
//===----------------------------------------------------------------------===//

#define FAKE_ENTRY_POINTS(X)                                                   \
  X(cuInit)                                                                    \
  X(cuDriverGetVersion)                                                        \
  X(cuDeviceGet)                                                               \
  X(cuDeviceGetCount)                                                          \
  X(cuDeviceGetAttribute)                                                      \
  X(cuDevicePrimaryCtxRetain)                                                  \
  X(cuDevicePrimaryCtxRelease)                                                 \
  X(cuCtxGetCurrent)                                                           \
  X(cuCtxSetCurrent)                                                           \
  X(cuCtxPushCurrent)                                                          \
  X(cuCtxPopCurrent)                                                           \
  X(cuCtxGetDevice)                                                            \
  X(cuCtxSynchronize)                                                          \
  X(cuModuleLoadData)                                                          \
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
  X(cuStreamQuery)                                                             \
  X(cuStreamWaitEvent)                                                         \
  X(cuStreamIsCapturing)                                                       \
  X(cuStreamBeginCapture)                                                      \
  X(cuStreamEndCapture)                                                        \
  X(cuGraphDestroy)                                                            \
  X(cuGraphInstantiateWithFlags)                                               \
  X(cuGraphLaunch)                                                             \
  X(cuGraphExecDestroy)                                                        \
  X(cuEventCreate)                                                             \
  X(cuEventDestroy)                                                            \
  X(cuEventRecord)                                                             \
  X(cuEventSynchronize)                                                        \
  X(cuEventQuery)                                                              \
  X(cuMemAlloc)                                                                \
  X(cuMemAllocManaged)                                                         \
  X(cuMemFree)                                                                 \
  X(cuMemAllocAsync)                                                           \
  X(cuMemAllocFromPoolAsync)                                                   \
  X(cuMemFreeAsync)                                                            \
  X(cuMemPoolCreate)                                                           \
  X(cuMemPoolDestroy)                                                          \
  X(cuMemPoolSetAttribute)                                                     \
  X(cuMemPoolTrimTo)                                                           \
  X(cuDeviceGetDefaultMemPool)                                                 \
  X(cuMemcpyAsync)                                                             \
  X(cuMemcpyHtoD)                                                              \
  X(cuMemcpyDtoH)                                                              \
  X(cuMemsetD32Async)                                                          \
  X(cuMemsetD16Async)                                                          \
  X(cuMemsetD8Async)                                                           \
  X(cuMemHostRegister)                                                         \
  X(cuMemHostUnregister)                                                       \
  X(cuTensorMapEncodeTiled)

enum Entry {
#define FAKE_ENUM(name) E_##name,
  FAKE_ENTRY_POINTS(FAKE_ENUM)
#undef FAKE_ENUM
      kNumEntries
};

const char *const kEntryNames[] = {
#define FAKE_NAME(name) #name,
    FAKE_ENTRY_POINTS(FAKE_NAME)
#undef FAKE_NAME
};

std::atomic<long long> callCounts[kNumEntries];
std::atomic<long long> totalCalls{0}, failedCalls{0}, launchCount{0},
    capturedNodes{0};
std::atomic<long long> liveAllocations{0}, liveBytes{0}, liveStreams{0},
    liveEvents{0}, liveModules{0}, livePools{0}, liveGraphs{0},
    liveHostRegistrations{0};
std::atomic<int> lastFailedResult{0};
std::atomic<int> lastFailedEntry{-1};

inline void count(Entry entry) {
  callCounts[entry].fetch_add(1, std::memory_order_relaxed);
  totalCalls.fetch_add(1, std::memory_order_relaxed);
}

CUresult notInitialized();

inline CUresult fail(Entry entry, CUresult result) {
  if (result == CUDA_ERROR_NOT_INITIALIZED)
    result = notInitialized();
  if (result == CUDA_ERROR_DEINITIALIZED)
    return result; // after shutdown at exit: expected, not counted
  failedCalls.fetch_add(1, std::memory_order_relaxed);
  lastFailedResult.store(static_cast<int>(result), std::memory_order_relaxed);
  lastFailedEntry.store(entry, std::memory_order_relaxed);
  return result;
}

//===----------------------------------------------------------------------===//
// Objects
//===----------------------------------------------------------------------===//

constexpr uint32_t kDead = 0xDEADDEADu;
constexpr uint32_t kContextMagic = 0xC0C0C001u, kModuleMagic = 0xC0C0C002u,
                   kFunctionMagic = 0xC0C0C003u, kStreamMagic = 0xC0C0C004u,
                   kEventMagic = 0xC0C0C005u, kPoolMagic = 0xC0C0C006u,
                   kGraphMagic = 0xC0C0C007u, kGraphExecMagic = 0xC0C0C008u;

struct FakeContext {
  uint32_t magic = kContextMagic;
  int device = 0;
  std::atomic<int> retains{0};
};

struct FakeModule;

struct FakeFunction {
  uint32_t magic = kFunctionMagic;
  FakeModule *module = nullptr;
  std::string name;
  int paramCount = -1; // -1: unknown (module read leniently)
  std::atomic<int> maxDynamicSmem{0};
  std::atomic<bool> nonPortableCluster{false};
  // The host function found for `name` at registry generation `fnGeneration`.
  std::atomic<FakeCudaKernelFn> fn{nullptr};
  std::atomic<int> fnGeneration{0};
};

struct FakeModule {
  uint32_t magic = kModuleMagic;
  FakeContext *context = nullptr;
  bool lenient = false; // fatbin without readable entries: any name resolves
  std::vector<FakeFunction *> functions;
};

struct FakeStream {
  uint32_t magic = kStreamMagic;
  FakeContext *context = nullptr;
  // Capture state (guarded by State::mutex).
  bool capturing = false;
  bool invalidated = false;
  CUstreamCaptureMode mode = CU_STREAM_CAPTURE_MODE_GLOBAL;
  std::thread::id captureThread;
  long long nodes = 0;
};

struct FakeEvent {
  uint32_t magic = kEventMagic;
  FakeContext *context = nullptr;
};

struct FakePool {
  uint32_t magic = kPoolMagic;
  int device = 0;
  cuuint64_t releaseThreshold = 0;
};

struct FakeGraph {
  uint32_t magic = kGraphMagic;
  long long nodes = 0;
};

/// An instantiated graph. Launching it does nothing: the captured work
/// already ran when it was enqueued.
struct FakeGraphExec {
  uint32_t magic = kGraphExecMagic;
};

enum class AllocKind { Device, Managed, Pool };

struct Allocation {
  size_t size;
  AllocKind kind;
};

struct KernelRegistry {
  std::mutex mutex;
  std::atomic<int> generation{1}; // bumped by every registration
  std::unordered_map<std::string, FakeCudaKernelFn> functions;
};

struct State {
  std::mutex mutex;
  std::atomic<bool> initialized{false};
  std::atomic<int> captures{0}; // size of `capturing`, read without the lock
  int deviceCount = 1;
  size_t memoryLimit = size_t(1) << 30;
  bool memPools = true;
  std::vector<FakeContext *> primary;
  std::vector<FakePool *> defaultPools;
  std::unordered_map<uintptr_t, Allocation> allocations;
  size_t allocatedBytes = 0;
  std::unordered_set<uintptr_t> hostRegistrations;
  std::vector<FakeStream *> capturing; // streams with an active capture
};

// Never destroyed: calls may come from other libraries' global destructors.
State &state() {
  static State *s = [] {
    auto *st = new State();
    if (const char *v = std::getenv("FAKE_CUDA_DEVICES"))
      st->deviceCount = std::atoi(v) > 0 ? std::atoi(v) : 1;
    if (const char *v = std::getenv("FAKE_CUDA_MEMORY_BYTES"))
      st->memoryLimit = std::strtoull(v, nullptr, 10);
    if (const char *v = std::getenv("FAKE_CUDA_NO_MEMPOOLS"))
      st->memPools = !(*v && std::strcmp(v, "0") != 0);
    st->primary.resize(st->deviceCount, nullptr);
    st->defaultPools.resize(st->deviceCount, nullptr);
    return st;
  }();
  return *s;
}

/// Every object the fake creates (contexts, modules, functions, streams,
/// events, graphs, pools) lives until the process exits: a destroyed handle
/// is only marked dead, so that a later use of it is reported instead of
/// reading freed memory. The objects are kept here so that LeakSanitizer (the
/// TX_SANITIZE=ON build) sees them as the driver's, as it would with the real
/// driver, whose objects it cannot see at all: what it reports are then the
/// leaks of the runtime itself.
template <typename T> T *keep(T *object) {
  static std::mutex *mutex = new std::mutex();
  static std::vector<const void *> *objects = new std::vector<const void *>();
  std::lock_guard<std::mutex> lock(*mutex);
  objects->push_back(object);
  return object;
}

KernelRegistry &kernelRegistry() {
  static KernelRegistry *r = new KernelRegistry();
  return *r;
}

// The calling thread's context stack (top = current). Plain data, so that
// it survives the thread's TLS destructors (calls from global destructors).
constexpr int kMaxContextDepth = 32;
thread_local FakeContext *contextStack[kMaxContextDepth];
thread_local int contextDepth = 0;

FakeContext *currentContext() {
  return contextDepth ? contextStack[contextDepth - 1] : nullptr;
}

/// Set by an atexit handler registered by cuInit: like the real driver, the
/// fake shuts down at exit before global destructors run, and every call
/// after that fails with CUDA_ERROR_DEINITIALIZED.
std::atomic<bool> shutDown{false};

void shutDownAtExit() { shutDown.store(true); }

bool initialized() {
  return state().initialized.load(std::memory_order_acquire) &&
         !shutDown.load(std::memory_order_relaxed);
}

/// The error for a call made while not initialized.
CUresult notInitialized() {
  return shutDown.load() ? CUDA_ERROR_DEINITIALIZED
                         : CUDA_ERROR_NOT_INITIALIZED;
}

template <typename T> T *live(void *handle, uint32_t magic) {
  auto *object = static_cast<T *>(handle);
  return object && object->magic == magic ? object : nullptr;
}

bool isDefaultStream(CUstream stream) {
  return stream == nullptr || stream == CU_STREAM_LEGACY ||
         stream == CU_STREAM_PER_THREAD;
}

/// Resolves `stream` for an operation in the current context: null for the
/// default streams. Returns false (with `*error`) if it is not usable.
bool resolveStream(CUstream stream, FakeStream **out, CUresult *error) {
  *out = nullptr;
  FakeContext *context = currentContext();
  if (isDefaultStream(stream)) {
    if (!context) {
      *error = CUDA_ERROR_INVALID_CONTEXT;
      return false;
    }
    return true;
  }
  FakeStream *s = live<FakeStream>(stream, kStreamMagic);
  if (!s || (context && s->context != context)) {
    *error = CUDA_ERROR_INVALID_HANDLE;
    return false;
  }
  *out = s;
  return true;
}

//===----------------------------------------------------------------------===//
// Stream capture
//===----------------------------------------------------------------------===//

/// True if a capture forbids potentially unsafe calls on this thread now;
/// such a call invalidates those captures.
bool unsafeCallForbidden() {
  State &s = state();
  if (s.captures.load(std::memory_order_acquire) == 0)
    return false;
  std::lock_guard<std::mutex> lock(s.mutex);
  bool forbidden = false;
  for (FakeStream *stream : s.capturing) {
    if (stream->mode == CU_STREAM_CAPTURE_MODE_GLOBAL ||
        (stream->mode == CU_STREAM_CAPTURE_MODE_THREAD_LOCAL &&
         stream->captureThread == std::this_thread::get_id())) {
      stream->invalidated = true;
      forbidden = true;
    }
  }
  return forbidden;
}

/// Records work enqueued on `stream` as a graph node if it is capturing.
void recordNode(FakeStream *stream) {
  State &s = state();
  if (!stream || s.captures.load(std::memory_order_acquire) == 0)
    return;
  std::lock_guard<std::mutex> lock(s.mutex);
  if (stream->capturing) {
    ++stream->nodes;
    capturedNodes.fetch_add(1, std::memory_order_relaxed);
  }
}

/// Synchronizing `stream` (null: the default stream) while it captures
/// invalidates the capture.
bool syncForbidden(FakeStream *stream) {
  State &s = state();
  if (s.captures.load(std::memory_order_acquire) == 0)
    return false;
  std::lock_guard<std::mutex> lock(s.mutex);
  bool forbidden = false;
  for (FakeStream *capturing : s.capturing) {
    if (capturing == stream ||
        capturing->mode == CU_STREAM_CAPTURE_MODE_GLOBAL ||
        (capturing->mode == CU_STREAM_CAPTURE_MODE_THREAD_LOCAL &&
         capturing->captureThread == std::this_thread::get_id())) {
      capturing->invalidated = true;
      forbidden = true;
    }
  }
  return forbidden;
}

//===----------------------------------------------------------------------===//
// Memory
//===----------------------------------------------------------------------===//

CUresult allocate(size_t size, AllocKind kind, CUdeviceptr *out) {
  State &s = state();
  {
    std::lock_guard<std::mutex> lock(s.mutex);
    if (size > s.memoryLimit || s.allocatedBytes > s.memoryLimit - size)
      return CUDA_ERROR_OUT_OF_MEMORY;
    s.allocatedBytes += size;
  }
  void *p = std::calloc(1, size);
  if (!p) {
    std::lock_guard<std::mutex> lock(s.mutex);
    s.allocatedBytes -= size;
    return CUDA_ERROR_OUT_OF_MEMORY;
  }
  {
    std::lock_guard<std::mutex> lock(s.mutex);
    s.allocations[reinterpret_cast<uintptr_t>(p)] = Allocation{size, kind};
  }
  liveAllocations.fetch_add(1, std::memory_order_relaxed);
  liveBytes.fetch_add(static_cast<long long>(size), std::memory_order_relaxed);
  *out = reinterpret_cast<CUdeviceptr>(p);
  return CUDA_SUCCESS;
}

/// Frees `ptr` if it is a live allocation of one of `kinds` (bit mask of
/// 1 << AllocKind).
CUresult release(CUdeviceptr ptr, unsigned kinds) {
  State &s = state();
  size_t size = 0;
  {
    std::lock_guard<std::mutex> lock(s.mutex);
    auto it = s.allocations.find(static_cast<uintptr_t>(ptr));
    if (it == s.allocations.end() ||
        !(kinds & (1u << static_cast<unsigned>(it->second.kind))))
      return CUDA_ERROR_INVALID_VALUE;
    size = it->second.size;
    s.allocations.erase(it);
    s.allocatedBytes -= size;
  }
  std::free(reinterpret_cast<void *>(ptr));
  liveAllocations.fetch_sub(1, std::memory_order_relaxed);
  liveBytes.fetch_sub(static_cast<long long>(size), std::memory_order_relaxed);
  return CUDA_SUCCESS;
}

constexpr unsigned kDeviceOrManaged =
    (1u << unsigned(AllocKind::Device)) | (1u << unsigned(AllocKind::Managed));
constexpr unsigned kPoolOnly = 1u << unsigned(AllocKind::Pool);

//===----------------------------------------------------------------------===//
// Kernels
//===----------------------------------------------------------------------===//

/// tx_selftest_fill(u32 *out, u32 base, u32 n): out[i] = base + i.
void selftestFill(const FakeCudaLaunch *launch, void **params) {
  auto *out = *static_cast<uint32_t **>(params[0]);
  uint32_t base = *static_cast<uint32_t *>(params[1]);
  uint32_t n = *static_cast<uint32_t *>(params[2]);
  uint64_t threads = uint64_t(launch->grid[0]) * launch->block[0];
  for (uint64_t i = 0; i < threads && i < n; ++i)
    out[i] = base + static_cast<uint32_t>(i);
}

FakeCudaKernelFn findKernel(const std::string &name) {
  KernelRegistry &r = kernelRegistry();
  std::lock_guard<std::mutex> lock(r.mutex);
  if (r.functions.empty())
    r.functions["tx_selftest_fill"] = selftestFill;
  auto it = r.functions.find(name);
  return it == r.functions.end() ? nullptr : it->second;
}

constexpr int kDefaultSmem = 48 * 1024;
constexpr int kOptinSmem = 227 * 1024;

CUresult launch(Entry entry, CUfunction f, const unsigned grid[3],
                const unsigned block[3], unsigned smem, CUstream hStream,
                void **params, void **extra) {
  if (!initialized())
    return fail(entry, CUDA_ERROR_NOT_INITIALIZED);
  FakeFunction *function = live<FakeFunction>(f, kFunctionMagic);
  if (!function || function->module->magic != kModuleMagic)
    return fail(entry, CUDA_ERROR_INVALID_HANDLE);
  FakeContext *context = currentContext();
  if (!context)
    return fail(entry, CUDA_ERROR_INVALID_CONTEXT);
  if (function->module->context != context)
    return fail(entry, CUDA_ERROR_INVALID_HANDLE);
  FakeStream *stream = nullptr;
  CUresult error = CUDA_SUCCESS;
  if (!resolveStream(hStream, &stream, &error))
    return fail(entry, error);
  uint64_t threads = uint64_t(block[0]) * block[1] * block[2];
  if (grid[0] == 0 || grid[1] == 0 || grid[2] == 0 || grid[0] > 0x7fffffffu ||
      grid[1] > 65535 || grid[2] > 65535 || block[0] == 0 || block[1] == 0 ||
      block[2] == 0 || block[0] > 1024 || block[1] > 1024 || block[2] > 64 ||
      threads > 1024)
    return fail(entry, CUDA_ERROR_INVALID_VALUE);
  int smemLimit = function->maxDynamicSmem.load();
  if (smemLimit < kDefaultSmem)
    smemLimit = kDefaultSmem;
  if (smem > static_cast<unsigned>(smemLimit))
    return fail(entry, CUDA_ERROR_INVALID_VALUE);
  if (function->paramCount > 0 && !params && !extra)
    return fail(entry, CUDA_ERROR_INVALID_VALUE);
  if (isDefaultStream(hStream) && unsafeCallForbidden())
    return fail(entry, CUDA_ERROR_STREAM_CAPTURE_IMPLICIT);
  recordNode(stream);
  int generation = kernelRegistry().generation.load();
  if (function->fnGeneration.load() != generation) {
    function->fn.store(findKernel(function->name));
    function->fnGeneration.store(generation);
  }
  if (FakeCudaKernelFn fn = function->fn.load()) {
    FakeCudaLaunch info;
    info.kernel = function->name.c_str();
    std::memcpy(info.grid, grid, sizeof(info.grid));
    std::memcpy(info.block, block, sizeof(info.block));
    info.sharedMemBytes = smem;
    info.stream = hStream;
    fn(&info, params);
  }
  launchCount.fetch_add(1, std::memory_order_relaxed);
  return CUDA_SUCCESS;
}

const char *errorNameOf(CUresult result) {
  switch (result) {
#define FAKE_CASE(e)                                                           \
  case e:                                                                      \
    return #e;
    FAKE_CASE(CUDA_SUCCESS)
    FAKE_CASE(CUDA_ERROR_INVALID_VALUE)
    FAKE_CASE(CUDA_ERROR_OUT_OF_MEMORY)
    FAKE_CASE(CUDA_ERROR_NOT_INITIALIZED)
    FAKE_CASE(CUDA_ERROR_DEINITIALIZED)
    FAKE_CASE(CUDA_ERROR_NO_DEVICE)
    FAKE_CASE(CUDA_ERROR_INVALID_DEVICE)
    FAKE_CASE(CUDA_ERROR_INVALID_IMAGE)
    FAKE_CASE(CUDA_ERROR_INVALID_CONTEXT)
    FAKE_CASE(CUDA_ERROR_INVALID_PTX)
    FAKE_CASE(CUDA_ERROR_INVALID_HANDLE)
    FAKE_CASE(CUDA_ERROR_NOT_FOUND)
    FAKE_CASE(CUDA_ERROR_NOT_READY)
    FAKE_CASE(CUDA_ERROR_ILLEGAL_ADDRESS)
    FAKE_CASE(CUDA_ERROR_LAUNCH_OUT_OF_RESOURCES)
    FAKE_CASE(CUDA_ERROR_LAUNCH_FAILED)
    FAKE_CASE(CUDA_ERROR_HOST_MEMORY_ALREADY_REGISTERED)
    FAKE_CASE(CUDA_ERROR_HOST_MEMORY_NOT_REGISTERED)
    FAKE_CASE(CUDA_ERROR_NOT_PERMITTED)
    FAKE_CASE(CUDA_ERROR_NOT_SUPPORTED)
    FAKE_CASE(CUDA_ERROR_STREAM_CAPTURE_UNSUPPORTED)
    FAKE_CASE(CUDA_ERROR_STREAM_CAPTURE_INVALIDATED)
    FAKE_CASE(CUDA_ERROR_STREAM_CAPTURE_IMPLICIT)
    FAKE_CASE(CUDA_ERROR_STREAM_CAPTURE_WRONG_THREAD)
    FAKE_CASE(CUDA_ERROR_ILLEGAL_STATE)
    FAKE_CASE(CUDA_ERROR_INVALID_CLUSTER_SIZE)
    FAKE_CASE(CUDA_ERROR_UNKNOWN)
#undef FAKE_CASE
  default:
    return nullptr;
  }
}

} // namespace

//===----------------------------------------------------------------------===//
// Test interface
//===----------------------------------------------------------------------===//

FAKE_API void fakeCudaGetStats(FakeCudaStats *stats) {
  std::memset(stats, 0, sizeof(*stats));
  stats->liveAllocations = liveAllocations.load();
  stats->liveBytes = liveBytes.load();
  stats->liveStreams = liveStreams.load();
  stats->liveEvents = liveEvents.load();
  stats->liveModules = liveModules.load();
  stats->livePools = livePools.load();
  stats->liveGraphs = liveGraphs.load();
  stats->liveHostRegistrations = liveHostRegistrations.load();
  stats->calls = totalCalls.load();
  stats->failedCalls = failedCalls.load();
  stats->launches = launchCount.load();
  stats->capturedNodes = capturedNodes.load();
  stats->lastFailedResult = lastFailedResult.load();
  int entry = lastFailedEntry.load();
  std::snprintf(stats->lastFailedCall, sizeof(stats->lastFailedCall), "%s",
                entry >= 0 ? kEntryNames[entry] : "");
}

FAKE_API long long fakeCudaCallCount(const char *name) {
  for (int i = 0; i < kNumEntries; ++i)
    if (std::strcmp(kEntryNames[i], name) == 0)
      return callCounts[i].load();
  return -1;
}

FAKE_API void fakeCudaRegisterKernel(const char *name, FakeCudaKernelFn fn) {
  findKernel(""); // installs the built-ins first
  KernelRegistry &r = kernelRegistry();
  std::lock_guard<std::mutex> lock(r.mutex);
  r.functions[name] = fn;
  r.generation.fetch_add(1);
}

__attribute__((destructor)) static void fakeCudaReportAtExit() {
  const char *report = std::getenv("FAKE_CUDA_REPORT");
  if (!report || !*report || std::strcmp(report, "0") == 0)
    return;
  FakeCudaStats s;
  fakeCudaGetStats(&s);
  std::fprintf(stderr,
               "fake-cuda: at exit: %lld live allocations (%lld bytes), %lld "
               "streams, %lld events, %lld modules, %lld pools, %lld graphs, "
               "%lld host registrations; %lld calls, %lld failed%s%s\n",
               s.liveAllocations, s.liveBytes, s.liveStreams, s.liveEvents,
               s.liveModules, s.livePools, s.liveGraphs,
               s.liveHostRegistrations, s.calls, s.failedCalls,
               s.failedCalls ? ", last: " : "", s.lastFailedCall);
}

//===----------------------------------------------------------------------===//
// Errors, initialization, devices
//===----------------------------------------------------------------------===//

FAKE_API CUresult cuGetErrorName(CUresult error, const char **pStr) {
  if (!pStr)
    return CUDA_ERROR_INVALID_VALUE;
  const char *name = errorNameOf(error);
  *pStr = name;
  return name ? CUDA_SUCCESS : CUDA_ERROR_INVALID_VALUE;
}

FAKE_API CUresult cuGetErrorString(CUresult error, const char **pStr) {
  if (!pStr)
    return CUDA_ERROR_INVALID_VALUE;
  if (!errorNameOf(error)) {
    *pStr = nullptr;
    return CUDA_ERROR_INVALID_VALUE;
  }
  *pStr = error == CUDA_SUCCESS ? "no error" : "fake CUDA driver error";
  return CUDA_SUCCESS;
}

FAKE_API CUresult cuInit(unsigned int flags) {
  count(E_cuInit);
  if (flags != 0)
    return fail(E_cuInit, CUDA_ERROR_INVALID_VALUE);
  if (shutDown.load())
    return CUDA_ERROR_DEINITIALIZED;
  if (!state().initialized.exchange(true))
    std::atexit(shutDownAtExit);
  return CUDA_SUCCESS;
}

FAKE_API CUresult cuDriverGetVersion(int *version) {
  count(E_cuDriverGetVersion);
  if (!version)
    return fail(E_cuDriverGetVersion, CUDA_ERROR_INVALID_VALUE);
  *version = CUDA_VERSION;
  return CUDA_SUCCESS;
}

FAKE_API CUresult cuDeviceGetCount(int *n) {
  count(E_cuDeviceGetCount);
  if (!initialized())
    return fail(E_cuDeviceGetCount, CUDA_ERROR_NOT_INITIALIZED);
  if (!n)
    return fail(E_cuDeviceGetCount, CUDA_ERROR_INVALID_VALUE);
  *n = state().deviceCount;
  return CUDA_SUCCESS;
}

FAKE_API CUresult cuDeviceGet(CUdevice *device, int ordinal) {
  count(E_cuDeviceGet);
  if (!initialized())
    return fail(E_cuDeviceGet, CUDA_ERROR_NOT_INITIALIZED);
  if (!device)
    return fail(E_cuDeviceGet, CUDA_ERROR_INVALID_VALUE);
  if (ordinal < 0 || ordinal >= state().deviceCount)
    return fail(E_cuDeviceGet, CUDA_ERROR_INVALID_DEVICE);
  *device = ordinal;
  return CUDA_SUCCESS;
}

FAKE_API CUresult cuDeviceGetAttribute(int *value, CUdevice_attribute attrib,
                                       CUdevice device) {
  count(E_cuDeviceGetAttribute);
  if (!initialized())
    return fail(E_cuDeviceGetAttribute, CUDA_ERROR_NOT_INITIALIZED);
  if (!value)
    return fail(E_cuDeviceGetAttribute, CUDA_ERROR_INVALID_VALUE);
  if (device < 0 || device >= state().deviceCount)
    return fail(E_cuDeviceGetAttribute, CUDA_ERROR_INVALID_DEVICE);
  switch (attrib) {
  case CU_DEVICE_ATTRIBUTE_MAX_SHARED_MEMORY_PER_BLOCK_OPTIN:
    *value = kOptinSmem;
    break;
  case CU_DEVICE_ATTRIBUTE_MAX_SHARED_MEMORY_PER_BLOCK:
    *value = kDefaultSmem;
    break;
  case CU_DEVICE_ATTRIBUTE_MEMORY_POOLS_SUPPORTED:
    *value = state().memPools ? 1 : 0;
    break;
  case CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MAJOR:
    *value = 9;
    break;
  case CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MINOR:
    *value = 0;
    break;
  case CU_DEVICE_ATTRIBUTE_MULTIPROCESSOR_COUNT:
    *value = 132;
    break;
  case CU_DEVICE_ATTRIBUTE_MAX_THREADS_PER_BLOCK:
    *value = 1024;
    break;
  case CU_DEVICE_ATTRIBUTE_WARP_SIZE:
    *value = 32;
    break;
  default:
    *value = 0;
    break;
  }
  return CUDA_SUCCESS;
}

//===----------------------------------------------------------------------===//
// Contexts
//===----------------------------------------------------------------------===//

FAKE_API CUresult cuDevicePrimaryCtxRetain(CUcontext *pctx, CUdevice device) {
  count(E_cuDevicePrimaryCtxRetain);
  if (!initialized())
    return fail(E_cuDevicePrimaryCtxRetain, CUDA_ERROR_NOT_INITIALIZED);
  State &s = state();
  if (!pctx)
    return fail(E_cuDevicePrimaryCtxRetain, CUDA_ERROR_INVALID_VALUE);
  if (device < 0 || device >= s.deviceCount)
    return fail(E_cuDevicePrimaryCtxRetain, CUDA_ERROR_INVALID_DEVICE);
  std::lock_guard<std::mutex> lock(s.mutex);
  if (!s.primary[device]) {
    s.primary[device] = keep(new FakeContext());
    s.primary[device]->device = device;
  }
  s.primary[device]->retains.fetch_add(1);
  *pctx = reinterpret_cast<CUcontext>(s.primary[device]);
  return CUDA_SUCCESS;
}

FAKE_API CUresult cuDevicePrimaryCtxRelease(CUdevice device) {
  count(E_cuDevicePrimaryCtxRelease);
  State &s = state();
  if (device < 0 || device >= s.deviceCount)
    return fail(E_cuDevicePrimaryCtxRelease, CUDA_ERROR_INVALID_DEVICE);
  std::lock_guard<std::mutex> lock(s.mutex);
  if (!s.primary[device] || s.primary[device]->retains.load() == 0)
    return fail(E_cuDevicePrimaryCtxRelease, CUDA_ERROR_INVALID_CONTEXT);
  s.primary[device]->retains.fetch_sub(1);
  return CUDA_SUCCESS;
}

FAKE_API CUresult cuCtxGetCurrent(CUcontext *pctx) {
  count(E_cuCtxGetCurrent);
  if (!initialized())
    return fail(E_cuCtxGetCurrent, CUDA_ERROR_NOT_INITIALIZED);
  if (!pctx)
    return fail(E_cuCtxGetCurrent, CUDA_ERROR_INVALID_VALUE);
  *pctx = reinterpret_cast<CUcontext>(currentContext());
  return CUDA_SUCCESS;
}

FAKE_API CUresult cuCtxSetCurrent(CUcontext ctx) {
  count(E_cuCtxSetCurrent);
  if (!initialized())
    return fail(E_cuCtxSetCurrent, CUDA_ERROR_NOT_INITIALIZED);
  if (!ctx) {
    if (contextDepth)
      --contextDepth;
    return CUDA_SUCCESS;
  }
  FakeContext *context = live<FakeContext>(ctx, kContextMagic);
  if (!context)
    return fail(E_cuCtxSetCurrent, CUDA_ERROR_INVALID_CONTEXT);
  if (contextDepth == 0)
    contextStack[contextDepth++] = context;
  else
    contextStack[contextDepth - 1] = context;
  return CUDA_SUCCESS;
}

FAKE_API CUresult cuCtxPushCurrent(CUcontext ctx) {
  count(E_cuCtxPushCurrent);
  if (!initialized())
    return fail(E_cuCtxPushCurrent, CUDA_ERROR_NOT_INITIALIZED);
  FakeContext *context = live<FakeContext>(ctx, kContextMagic);
  if (!context)
    return fail(E_cuCtxPushCurrent, CUDA_ERROR_INVALID_CONTEXT);
  if (contextDepth == kMaxContextDepth)
    return fail(E_cuCtxPushCurrent, CUDA_ERROR_OUT_OF_MEMORY);
  contextStack[contextDepth++] = context;
  return CUDA_SUCCESS;
}

FAKE_API CUresult cuCtxPopCurrent(CUcontext *pctx) {
  count(E_cuCtxPopCurrent);
  if (!initialized())
    return fail(E_cuCtxPopCurrent, CUDA_ERROR_NOT_INITIALIZED);
  if (contextDepth == 0)
    return fail(E_cuCtxPopCurrent, CUDA_ERROR_INVALID_CONTEXT);
  if (pctx)
    *pctx = reinterpret_cast<CUcontext>(contextStack[contextDepth - 1]);
  --contextDepth;
  return CUDA_SUCCESS;
}

FAKE_API CUresult cuCtxGetDevice(CUdevice *device) {
  count(E_cuCtxGetDevice);
  if (!initialized())
    return fail(E_cuCtxGetDevice, CUDA_ERROR_NOT_INITIALIZED);
  FakeContext *context = currentContext();
  if (!context)
    return fail(E_cuCtxGetDevice, CUDA_ERROR_INVALID_CONTEXT);
  if (!device)
    return fail(E_cuCtxGetDevice, CUDA_ERROR_INVALID_VALUE);
  *device = context->device;
  return CUDA_SUCCESS;
}

FAKE_API CUresult cuCtxSynchronize(void) {
  count(E_cuCtxSynchronize);
  if (!initialized())
    return fail(E_cuCtxSynchronize, CUDA_ERROR_NOT_INITIALIZED);
  if (!currentContext())
    return fail(E_cuCtxSynchronize, CUDA_ERROR_INVALID_CONTEXT);
  if (syncForbidden(nullptr))
    return fail(E_cuCtxSynchronize, CUDA_ERROR_STREAM_CAPTURE_UNSUPPORTED);
  return CUDA_SUCCESS;
}

//===----------------------------------------------------------------------===//
// Modules and functions
//===----------------------------------------------------------------------===//

static CUresult loadModule(Entry entry, CUmodule *module, const void *image) {
  if (!initialized())
    return fail(entry, CUDA_ERROR_NOT_INITIALIZED);
  if (!module || !image)
    return fail(entry, CUDA_ERROR_INVALID_VALUE);
  FakeContext *context = currentContext();
  if (!context)
    return fail(entry, CUDA_ERROR_INVALID_CONTEXT);
  if (unsafeCallForbidden())
    return fail(entry, CUDA_ERROR_STREAM_CAPTURE_UNSUPPORTED);
  txrt::ImageInfo info = txrt::inspectImage(image, 0);
  if (info.format == txrt::ImageFormat::Unknown)
    return fail(entry, CUDA_ERROR_INVALID_IMAGE);
  auto *m = keep(new FakeModule());
  m->context = context;
  m->lenient = !info.complete;
  for (const txrt::KernelParamInfo &kernel : info.kernels) {
    auto *f = keep(new FakeFunction());
    f->module = m;
    f->name = kernel.name;
    f->paramCount = kernel.paramCount;
    m->functions.push_back(f);
  }
  liveModules.fetch_add(1);
  *module = reinterpret_cast<CUmodule>(m);
  return CUDA_SUCCESS;
}

FAKE_API CUresult cuModuleLoadData(CUmodule *module, const void *image) {
  count(E_cuModuleLoadData);
  return loadModule(E_cuModuleLoadData, module, image);
}

FAKE_API CUresult cuModuleLoadDataEx(CUmodule *module, const void *image,
                                     unsigned int numOptions,
                                     CUjit_option *options,
                                     void **optionValues) {
  count(E_cuModuleLoadDataEx);
  if (numOptions && (!options || !optionValues))
    return fail(E_cuModuleLoadDataEx, CUDA_ERROR_INVALID_VALUE);
  return loadModule(E_cuModuleLoadDataEx, module, image);
}

FAKE_API CUresult cuModuleUnload(CUmodule hmod) {
  count(E_cuModuleUnload);
  if (!initialized())
    return fail(E_cuModuleUnload, CUDA_ERROR_NOT_INITIALIZED);
  FakeModule *m = live<FakeModule>(hmod, kModuleMagic);
  if (!m)
    return fail(E_cuModuleUnload, CUDA_ERROR_INVALID_HANDLE);
  m->magic = kDead;
  for (FakeFunction *f : m->functions)
    f->magic = kDead;
  liveModules.fetch_sub(1);
  return CUDA_SUCCESS;
}

FAKE_API CUresult cuModuleGetFunction(CUfunction *hfunc, CUmodule hmod,
                                      const char *name) {
  count(E_cuModuleGetFunction);
  if (!initialized())
    return fail(E_cuModuleGetFunction, CUDA_ERROR_NOT_INITIALIZED);
  if (!hfunc || !name)
    return fail(E_cuModuleGetFunction, CUDA_ERROR_INVALID_VALUE);
  FakeModule *m = live<FakeModule>(hmod, kModuleMagic);
  if (!m)
    return fail(E_cuModuleGetFunction, CUDA_ERROR_INVALID_HANDLE);
  State &s = state();
  std::lock_guard<std::mutex> lock(s.mutex);
  for (FakeFunction *f : m->functions) {
    if (f->name == name) {
      *hfunc = reinterpret_cast<CUfunction>(f);
      return CUDA_SUCCESS;
    }
  }
  if (!m->lenient)
    return fail(E_cuModuleGetFunction, CUDA_ERROR_NOT_FOUND);
  auto *f = keep(new FakeFunction());
  f->module = m;
  f->name = name;
  m->functions.push_back(f);
  *hfunc = reinterpret_cast<CUfunction>(f);
  return CUDA_SUCCESS;
}

FAKE_API CUresult cuFuncGetParamInfo(CUfunction func, size_t paramIndex,
                                     size_t *paramOffset, size_t *paramSize) {
  count(E_cuFuncGetParamInfo);
  if (!initialized())
    return fail(E_cuFuncGetParamInfo, CUDA_ERROR_NOT_INITIALIZED);
  FakeFunction *f = live<FakeFunction>(func, kFunctionMagic);
  if (!f)
    return fail(E_cuFuncGetParamInfo, CUDA_ERROR_INVALID_HANDLE);
  if (f->paramCount >= 0 && paramIndex >= size_t(f->paramCount))
    return fail(E_cuFuncGetParamInfo, CUDA_ERROR_INVALID_VALUE);
  if (paramOffset)
    *paramOffset = 8 * paramIndex;
  if (paramSize)
    *paramSize = 8;
  return CUDA_SUCCESS;
}

FAKE_API CUresult cuFuncGetAttribute(int *pi, CUfunction_attribute attrib,
                                     CUfunction hfunc) {
  count(E_cuFuncGetAttribute);
  if (!initialized())
    return fail(E_cuFuncGetAttribute, CUDA_ERROR_NOT_INITIALIZED);
  FakeFunction *f = live<FakeFunction>(hfunc, kFunctionMagic);
  if (!f || !pi)
    return fail(E_cuFuncGetAttribute, CUDA_ERROR_INVALID_HANDLE);
  switch (attrib) {
  case CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES:
    *pi = f->maxDynamicSmem.load() > kDefaultSmem ? f->maxDynamicSmem.load()
                                                  : kDefaultSmem;
    break;
  case CU_FUNC_ATTRIBUTE_MAX_THREADS_PER_BLOCK:
    *pi = 1024;
    break;
  case CU_FUNC_ATTRIBUTE_NUM_REGS:
    *pi = 32;
    break;
  default:
    *pi = 0;
    break;
  }
  return CUDA_SUCCESS;
}

FAKE_API CUresult cuFuncSetAttribute(CUfunction hfunc,
                                     CUfunction_attribute attrib, int value) {
  count(E_cuFuncSetAttribute);
  if (!initialized())
    return fail(E_cuFuncSetAttribute, CUDA_ERROR_NOT_INITIALIZED);
  FakeFunction *f = live<FakeFunction>(hfunc, kFunctionMagic);
  if (!f)
    return fail(E_cuFuncSetAttribute, CUDA_ERROR_INVALID_HANDLE);
  if (attrib == CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES) {
    if (value < 0 || value > kOptinSmem)
      return fail(E_cuFuncSetAttribute, CUDA_ERROR_INVALID_VALUE);
    f->maxDynamicSmem.store(value);
  }
  if (attrib == CU_FUNC_ATTRIBUTE_NON_PORTABLE_CLUSTER_SIZE_ALLOWED) {
    if (value != 0 && value != 1)
      return fail(E_cuFuncSetAttribute, CUDA_ERROR_INVALID_VALUE);
    f->nonPortableCluster.store(value != 0);
  }
  return CUDA_SUCCESS;
}

FAKE_API CUresult cuLaunchKernel(CUfunction f, unsigned int gridDimX,
                                 unsigned int gridDimY, unsigned int gridDimZ,
                                 unsigned int blockDimX, unsigned int blockDimY,
                                 unsigned int blockDimZ,
                                 unsigned int sharedMemBytes, CUstream hStream,
                                 void **kernelParams, void **extra) {
  count(E_cuLaunchKernel);
  unsigned grid[3] = {gridDimX, gridDimY, gridDimZ};
  unsigned block[3] = {blockDimX, blockDimY, blockDimZ};
  return launch(E_cuLaunchKernel, f, grid, block, sharedMemBytes, hStream,
                kernelParams, extra);
}

FAKE_API CUresult cuLaunchKernelEx(const CUlaunchConfig *config, CUfunction f,
                                   void **kernelParams, void **extra) {
  count(E_cuLaunchKernelEx);
  if (!config)
    return fail(E_cuLaunchKernelEx, CUDA_ERROR_INVALID_VALUE);
  unsigned grid[3] = {config->gridDimX, config->gridDimY, config->gridDimZ};
  unsigned block[3] = {config->blockDimX, config->blockDimY,
                       config->blockDimZ};
  for (unsigned i = 0; i < config->numAttrs; ++i) {
    const CUlaunchAttribute &attribute = config->attrs[i];
    if (attribute.id != CU_LAUNCH_ATTRIBUTE_CLUSTER_DIMENSION)
      continue;
    unsigned cluster[3] = {attribute.value.clusterDim.x,
                           attribute.value.clusterDim.y,
                           attribute.value.clusterDim.z};
    for (int d = 0; d < 3; ++d)
      if (cluster[d] == 0 || grid[d] % cluster[d] != 0)
        return fail(E_cuLaunchKernelEx, CUDA_ERROR_INVALID_CLUSTER_SIZE);
    // As the H100/H200 driver: 8 CTAs (portable), 16 once the kernel opted
    // into non-portable sizes.
    FakeFunction *ff = live<FakeFunction>(f, kFunctionMagic);
    uint64_t most = ff && ff->nonPortableCluster.load() ? 16 : 8;
    if (uint64_t(cluster[0]) * cluster[1] * cluster[2] > most)
      return fail(E_cuLaunchKernelEx, CUDA_ERROR_INVALID_CLUSTER_SIZE);
  }
  return launch(E_cuLaunchKernelEx, f, grid, block, config->sharedMemBytes,
                config->hStream, kernelParams, extra);
}

//===----------------------------------------------------------------------===//
// Streams, capture, graphs
//===----------------------------------------------------------------------===//

FAKE_API CUresult cuStreamCreate(CUstream *phStream, unsigned int flags) {
  count(E_cuStreamCreate);
  if (!initialized())
    return fail(E_cuStreamCreate, CUDA_ERROR_NOT_INITIALIZED);
  if (!phStream || (flags & ~unsigned(CU_STREAM_NON_BLOCKING)))
    return fail(E_cuStreamCreate, CUDA_ERROR_INVALID_VALUE);
  FakeContext *context = currentContext();
  if (!context)
    return fail(E_cuStreamCreate, CUDA_ERROR_INVALID_CONTEXT);
  auto *s = keep(new FakeStream());
  s->context = context;
  liveStreams.fetch_add(1);
  *phStream = reinterpret_cast<CUstream>(s);
  return CUDA_SUCCESS;
}

FAKE_API CUresult cuStreamDestroy(CUstream hStream) {
  count(E_cuStreamDestroy);
  if (!initialized())
    return fail(E_cuStreamDestroy, CUDA_ERROR_NOT_INITIALIZED);
  FakeStream *s = live<FakeStream>(hStream, kStreamMagic);
  if (!s)
    return fail(E_cuStreamDestroy, CUDA_ERROR_INVALID_HANDLE);
  {
    State &st = state();
    std::lock_guard<std::mutex> lock(st.mutex);
    if (s->capturing)
      return fail(E_cuStreamDestroy, CUDA_ERROR_STREAM_CAPTURE_UNSUPPORTED);
  }
  s->magic = kDead;
  liveStreams.fetch_sub(1);
  return CUDA_SUCCESS;
}

FAKE_API CUresult cuStreamSynchronize(CUstream hStream) {
  count(E_cuStreamSynchronize);
  if (!initialized())
    return fail(E_cuStreamSynchronize, CUDA_ERROR_NOT_INITIALIZED);
  FakeStream *s = nullptr;
  CUresult error;
  if (!resolveStream(hStream, &s, &error))
    return fail(E_cuStreamSynchronize, error);
  if (syncForbidden(s))
    return fail(E_cuStreamSynchronize, CUDA_ERROR_STREAM_CAPTURE_UNSUPPORTED);
  return CUDA_SUCCESS;
}

FAKE_API CUresult cuStreamQuery(CUstream hStream) {
  count(E_cuStreamQuery);
  if (!initialized())
    return fail(E_cuStreamQuery, CUDA_ERROR_NOT_INITIALIZED);
  FakeStream *s = nullptr;
  CUresult error;
  if (!resolveStream(hStream, &s, &error))
    return fail(E_cuStreamQuery, error);
  if (syncForbidden(s))
    return fail(E_cuStreamQuery, CUDA_ERROR_STREAM_CAPTURE_UNSUPPORTED);
  return CUDA_SUCCESS;
}

FAKE_API CUresult cuStreamWaitEvent(CUstream hStream, CUevent hEvent,
                                    unsigned int flags) {
  count(E_cuStreamWaitEvent);
  if (!initialized())
    return fail(E_cuStreamWaitEvent, CUDA_ERROR_NOT_INITIALIZED);
  FakeStream *s = nullptr;
  CUresult error;
  if (!resolveStream(hStream, &s, &error))
    return fail(E_cuStreamWaitEvent, error);
  if (!live<FakeEvent>(hEvent, kEventMagic) || flags != 0)
    return fail(E_cuStreamWaitEvent, CUDA_ERROR_INVALID_HANDLE);
  recordNode(s);
  return CUDA_SUCCESS;
}

FAKE_API CUresult cuStreamIsCapturing(CUstream hStream,
                                      CUstreamCaptureStatus *status) {
  count(E_cuStreamIsCapturing);
  if (!initialized())
    return fail(E_cuStreamIsCapturing, CUDA_ERROR_NOT_INITIALIZED);
  if (!status)
    return fail(E_cuStreamIsCapturing, CUDA_ERROR_INVALID_VALUE);
  FakeStream *s = nullptr;
  CUresult error;
  if (!resolveStream(hStream, &s, &error))
    return fail(E_cuStreamIsCapturing, error);
  State &st = state();
  std::lock_guard<std::mutex> lock(st.mutex);
  *status = !s || !s->capturing ? CU_STREAM_CAPTURE_STATUS_NONE
            : s->invalidated    ? CU_STREAM_CAPTURE_STATUS_INVALIDATED
                                : CU_STREAM_CAPTURE_STATUS_ACTIVE;
  return CUDA_SUCCESS;
}

FAKE_API CUresult cuStreamBeginCapture(CUstream hStream,
                                       CUstreamCaptureMode mode) {
  count(E_cuStreamBeginCapture);
  if (!initialized())
    return fail(E_cuStreamBeginCapture, CUDA_ERROR_NOT_INITIALIZED);
  if (isDefaultStream(hStream))
    return fail(E_cuStreamBeginCapture, CUDA_ERROR_STREAM_CAPTURE_UNSUPPORTED);
  FakeStream *s = nullptr;
  CUresult error;
  if (!resolveStream(hStream, &s, &error))
    return fail(E_cuStreamBeginCapture, error);
  State &st = state();
  std::lock_guard<std::mutex> lock(st.mutex);
  if (s->capturing)
    return fail(E_cuStreamBeginCapture, CUDA_ERROR_ILLEGAL_STATE);
  s->capturing = true;
  s->invalidated = false;
  s->mode = mode;
  s->captureThread = std::this_thread::get_id();
  s->nodes = 0;
  st.capturing.push_back(s);
  st.captures.store(static_cast<int>(st.capturing.size()));
  return CUDA_SUCCESS;
}

FAKE_API CUresult cuStreamEndCapture(CUstream hStream, CUgraph *phGraph) {
  count(E_cuStreamEndCapture);
  if (!initialized())
    return fail(E_cuStreamEndCapture, CUDA_ERROR_NOT_INITIALIZED);
  if (!phGraph)
    return fail(E_cuStreamEndCapture, CUDA_ERROR_INVALID_VALUE);
  *phGraph = nullptr;
  FakeStream *s = live<FakeStream>(hStream, kStreamMagic);
  if (!s)
    return fail(E_cuStreamEndCapture, CUDA_ERROR_INVALID_HANDLE);
  State &st = state();
  std::lock_guard<std::mutex> lock(st.mutex);
  if (!s->capturing)
    return fail(E_cuStreamEndCapture, CUDA_ERROR_ILLEGAL_STATE);
  s->capturing = false;
  for (size_t i = 0; i < st.capturing.size(); ++i) {
    if (st.capturing[i] == s) {
      st.capturing.erase(st.capturing.begin() + static_cast<long>(i));
      break;
    }
  }
  st.captures.store(static_cast<int>(st.capturing.size()));
  if (s->invalidated)
    return fail(E_cuStreamEndCapture, CUDA_ERROR_STREAM_CAPTURE_INVALIDATED);
  auto *graph = keep(new FakeGraph());
  graph->nodes = s->nodes;
  liveGraphs.fetch_add(1);
  *phGraph = reinterpret_cast<CUgraph>(graph);
  return CUDA_SUCCESS;
}

FAKE_API CUresult cuGraphDestroy(CUgraph hGraph) {
  count(E_cuGraphDestroy);
  FakeGraph *graph = live<FakeGraph>(hGraph, kGraphMagic);
  if (!graph)
    return fail(E_cuGraphDestroy, CUDA_ERROR_INVALID_HANDLE);
  graph->magic = kDead;
  liveGraphs.fetch_sub(1);
  return CUDA_SUCCESS;
}

FAKE_API CUresult cuGraphInstantiateWithFlags(CUgraphExec *phGraphExec,
                                              CUgraph hGraph,
                                              unsigned long long flags) {
  count(E_cuGraphInstantiateWithFlags);
  (void)flags;
  if (!phGraphExec || !live<FakeGraph>(hGraph, kGraphMagic))
    return fail(E_cuGraphInstantiateWithFlags, CUDA_ERROR_INVALID_VALUE);
  *phGraphExec = reinterpret_cast<CUgraphExec>(keep(new FakeGraphExec()));
  return CUDA_SUCCESS;
}

FAKE_API CUresult cuGraphLaunch(CUgraphExec hGraphExec, CUstream hStream) {
  count(E_cuGraphLaunch);
  if (!initialized())
    return fail(E_cuGraphLaunch, CUDA_ERROR_NOT_INITIALIZED);
  if (!live<FakeGraphExec>(hGraphExec, kGraphExecMagic))
    return fail(E_cuGraphLaunch, CUDA_ERROR_INVALID_VALUE);
  FakeStream *s = nullptr;
  CUresult error;
  if (!resolveStream(hStream, &s, &error))
    return fail(E_cuGraphLaunch, error);
  recordNode(s);
  return CUDA_SUCCESS;
}

FAKE_API CUresult cuGraphExecDestroy(CUgraphExec hGraphExec) {
  count(E_cuGraphExecDestroy);
  auto *exec = live<FakeGraphExec>(hGraphExec, kGraphExecMagic);
  if (!exec)
    return fail(E_cuGraphExecDestroy, CUDA_ERROR_INVALID_VALUE);
  exec->magic = kDead;
  return CUDA_SUCCESS;
}

//===----------------------------------------------------------------------===//
// Events
//===----------------------------------------------------------------------===//

FAKE_API CUresult cuEventCreate(CUevent *phEvent, unsigned int flags) {
  count(E_cuEventCreate);
  if (!initialized())
    return fail(E_cuEventCreate, CUDA_ERROR_NOT_INITIALIZED);
  (void)flags;
  if (!phEvent)
    return fail(E_cuEventCreate, CUDA_ERROR_INVALID_VALUE);
  FakeContext *context = currentContext();
  if (!context)
    return fail(E_cuEventCreate, CUDA_ERROR_INVALID_CONTEXT);
  auto *e = keep(new FakeEvent());
  e->context = context;
  liveEvents.fetch_add(1);
  *phEvent = reinterpret_cast<CUevent>(e);
  return CUDA_SUCCESS;
}

FAKE_API CUresult cuEventDestroy(CUevent hEvent) {
  count(E_cuEventDestroy);
  if (!initialized())
    return fail(E_cuEventDestroy, CUDA_ERROR_NOT_INITIALIZED);
  FakeEvent *e = live<FakeEvent>(hEvent, kEventMagic);
  if (!e)
    return fail(E_cuEventDestroy, CUDA_ERROR_INVALID_HANDLE);
  e->magic = kDead;
  liveEvents.fetch_sub(1);
  return CUDA_SUCCESS;
}

FAKE_API CUresult cuEventRecord(CUevent hEvent, CUstream hStream) {
  count(E_cuEventRecord);
  if (!initialized())
    return fail(E_cuEventRecord, CUDA_ERROR_NOT_INITIALIZED);
  FakeEvent *e = live<FakeEvent>(hEvent, kEventMagic);
  if (!e)
    return fail(E_cuEventRecord, CUDA_ERROR_INVALID_HANDLE);
  FakeStream *s = nullptr;
  CUresult error;
  if (!resolveStream(hStream, &s, &error))
    return fail(E_cuEventRecord, error);
  if (s && s->context != e->context)
    return fail(E_cuEventRecord, CUDA_ERROR_INVALID_HANDLE);
  recordNode(s);
  return CUDA_SUCCESS;
}

FAKE_API CUresult cuEventSynchronize(CUevent hEvent) {
  count(E_cuEventSynchronize);
  if (!initialized())
    return fail(E_cuEventSynchronize, CUDA_ERROR_NOT_INITIALIZED);
  if (!live<FakeEvent>(hEvent, kEventMagic))
    return fail(E_cuEventSynchronize, CUDA_ERROR_INVALID_HANDLE);
  if (syncForbidden(nullptr))
    return fail(E_cuEventSynchronize, CUDA_ERROR_STREAM_CAPTURE_UNSUPPORTED);
  return CUDA_SUCCESS;
}

FAKE_API CUresult cuEventQuery(CUevent hEvent) {
  count(E_cuEventQuery);
  if (!initialized())
    return fail(E_cuEventQuery, CUDA_ERROR_NOT_INITIALIZED);
  if (!live<FakeEvent>(hEvent, kEventMagic))
    return fail(E_cuEventQuery, CUDA_ERROR_INVALID_HANDLE);
  return CUDA_SUCCESS;
}

//===----------------------------------------------------------------------===//
// Memory
//===----------------------------------------------------------------------===//

FAKE_API CUresult cuMemAlloc(CUdeviceptr *dptr, size_t bytesize) {
  count(E_cuMemAlloc);
  if (!initialized())
    return fail(E_cuMemAlloc, CUDA_ERROR_NOT_INITIALIZED);
  if (!dptr || bytesize == 0)
    return fail(E_cuMemAlloc, CUDA_ERROR_INVALID_VALUE);
  if (!currentContext())
    return fail(E_cuMemAlloc, CUDA_ERROR_INVALID_CONTEXT);
  if (unsafeCallForbidden())
    return fail(E_cuMemAlloc, CUDA_ERROR_STREAM_CAPTURE_UNSUPPORTED);
  CUresult result = allocate(bytesize, AllocKind::Device, dptr);
  return result == CUDA_SUCCESS ? result : fail(E_cuMemAlloc, result);
}

FAKE_API CUresult cuMemAllocManaged(CUdeviceptr *dptr, size_t bytesize,
                                    unsigned int flags) {
  count(E_cuMemAllocManaged);
  if (!initialized())
    return fail(E_cuMemAllocManaged, CUDA_ERROR_NOT_INITIALIZED);
  if (!dptr || bytesize == 0 ||
      (flags != CU_MEM_ATTACH_GLOBAL && flags != CU_MEM_ATTACH_HOST))
    return fail(E_cuMemAllocManaged, CUDA_ERROR_INVALID_VALUE);
  if (!currentContext())
    return fail(E_cuMemAllocManaged, CUDA_ERROR_INVALID_CONTEXT);
  if (unsafeCallForbidden())
    return fail(E_cuMemAllocManaged, CUDA_ERROR_STREAM_CAPTURE_UNSUPPORTED);
  CUresult result = allocate(bytesize, AllocKind::Managed, dptr);
  return result == CUDA_SUCCESS ? result : fail(E_cuMemAllocManaged, result);
}

FAKE_API CUresult cuMemFree(CUdeviceptr dptr) {
  count(E_cuMemFree);
  if (!initialized())
    return fail(E_cuMemFree, CUDA_ERROR_NOT_INITIALIZED);
  if (!currentContext())
    return fail(E_cuMemFree, CUDA_ERROR_INVALID_CONTEXT);
  if (dptr == 0)
    return CUDA_SUCCESS;
  if (unsafeCallForbidden())
    return fail(E_cuMemFree, CUDA_ERROR_STREAM_CAPTURE_UNSUPPORTED);
  CUresult result = release(dptr, kDeviceOrManaged);
  return result == CUDA_SUCCESS ? result : fail(E_cuMemFree, result);
}

static CUresult allocAsync(Entry entry, CUdeviceptr *dptr, size_t bytesize,
                           FakePool *pool, CUstream hStream) {
  if (!initialized())
    return fail(entry, CUDA_ERROR_NOT_INITIALIZED);
  if (!dptr || bytesize == 0)
    return fail(entry, CUDA_ERROR_INVALID_VALUE);
  if (!state().memPools)
    return fail(entry, CUDA_ERROR_NOT_SUPPORTED);
  FakeStream *s = nullptr;
  CUresult error;
  if (!resolveStream(hStream, &s, &error))
    return fail(entry, error);
  (void)pool;
  recordNode(s);
  CUresult result = allocate(bytesize, AllocKind::Pool, dptr);
  return result == CUDA_SUCCESS ? result : fail(entry, result);
}

FAKE_API CUresult cuMemAllocAsync(CUdeviceptr *dptr, size_t bytesize,
                                  CUstream hStream) {
  count(E_cuMemAllocAsync);
  return allocAsync(E_cuMemAllocAsync, dptr, bytesize, nullptr, hStream);
}

FAKE_API CUresult cuMemAllocFromPoolAsync(CUdeviceptr *dptr, size_t bytesize,
                                          CUmemoryPool pool, CUstream hStream) {
  count(E_cuMemAllocFromPoolAsync);
  FakePool *p = live<FakePool>(pool, kPoolMagic);
  if (!p)
    return fail(E_cuMemAllocFromPoolAsync, CUDA_ERROR_INVALID_VALUE);
  return allocAsync(E_cuMemAllocFromPoolAsync, dptr, bytesize, p, hStream);
}

FAKE_API CUresult cuMemFreeAsync(CUdeviceptr dptr, CUstream hStream) {
  count(E_cuMemFreeAsync);
  if (!initialized())
    return fail(E_cuMemFreeAsync, CUDA_ERROR_NOT_INITIALIZED);
  FakeStream *s = nullptr;
  CUresult error;
  if (!resolveStream(hStream, &s, &error))
    return fail(E_cuMemFreeAsync, error);
  recordNode(s);
  CUresult result = release(dptr, kPoolOnly);
  return result == CUDA_SUCCESS ? result : fail(E_cuMemFreeAsync, result);
}

FAKE_API CUresult cuMemPoolCreate(CUmemoryPool *pool,
                                  const CUmemPoolProps *props) {
  count(E_cuMemPoolCreate);
  if (!initialized())
    return fail(E_cuMemPoolCreate, CUDA_ERROR_NOT_INITIALIZED);
  if (!pool || !props || props->allocType != CU_MEM_ALLOCATION_TYPE_PINNED ||
      props->location.type != CU_MEM_LOCATION_TYPE_DEVICE ||
      props->location.id < 0 || props->location.id >= state().deviceCount)
    return fail(E_cuMemPoolCreate, CUDA_ERROR_INVALID_VALUE);
  if (!state().memPools)
    return fail(E_cuMemPoolCreate, CUDA_ERROR_NOT_SUPPORTED);
  auto *p = keep(new FakePool());
  p->device = props->location.id;
  livePools.fetch_add(1);
  *pool = reinterpret_cast<CUmemoryPool>(p);
  return CUDA_SUCCESS;
}

FAKE_API CUresult cuMemPoolDestroy(CUmemoryPool pool) {
  count(E_cuMemPoolDestroy);
  FakePool *p = live<FakePool>(pool, kPoolMagic);
  if (!p)
    return fail(E_cuMemPoolDestroy, CUDA_ERROR_INVALID_VALUE);
  p->magic = kDead;
  livePools.fetch_sub(1);
  return CUDA_SUCCESS;
}

FAKE_API CUresult cuMemPoolSetAttribute(CUmemoryPool pool,
                                        CUmemPool_attribute attr,
                                        void *value) {
  count(E_cuMemPoolSetAttribute);
  FakePool *p = live<FakePool>(pool, kPoolMagic);
  if (!p || !value)
    return fail(E_cuMemPoolSetAttribute, CUDA_ERROR_INVALID_VALUE);
  if (attr == CU_MEMPOOL_ATTR_RELEASE_THRESHOLD)
    p->releaseThreshold = *static_cast<cuuint64_t *>(value);
  return CUDA_SUCCESS;
}

FAKE_API CUresult cuMemPoolTrimTo(CUmemoryPool pool, size_t minBytesToKeep) {
  count(E_cuMemPoolTrimTo);
  (void)minBytesToKeep;
  if (!live<FakePool>(pool, kPoolMagic))
    return fail(E_cuMemPoolTrimTo, CUDA_ERROR_INVALID_VALUE);
  return CUDA_SUCCESS;
}

FAKE_API CUresult cuDeviceGetDefaultMemPool(CUmemoryPool *pool,
                                            CUdevice dev) {
  count(E_cuDeviceGetDefaultMemPool);
  if (!initialized())
    return fail(E_cuDeviceGetDefaultMemPool, CUDA_ERROR_NOT_INITIALIZED);
  State &s = state();
  if (!pool || dev < 0 || dev >= s.deviceCount)
    return fail(E_cuDeviceGetDefaultMemPool, CUDA_ERROR_INVALID_VALUE);
  if (!s.memPools)
    return fail(E_cuDeviceGetDefaultMemPool, CUDA_ERROR_NOT_SUPPORTED);
  std::lock_guard<std::mutex> lock(s.mutex);
  if (!s.defaultPools[dev]) {
    s.defaultPools[dev] = keep(new FakePool());
    s.defaultPools[dev]->device = dev;
  }
  *pool = reinterpret_cast<CUmemoryPool>(s.defaultPools[dev]);
  return CUDA_SUCCESS;
}

FAKE_API CUresult cuMemcpyAsync(CUdeviceptr dst, CUdeviceptr src,
                                size_t ByteCount, CUstream hStream) {
  count(E_cuMemcpyAsync);
  if (!initialized())
    return fail(E_cuMemcpyAsync, CUDA_ERROR_NOT_INITIALIZED);
  FakeStream *s = nullptr;
  CUresult error;
  if (!resolveStream(hStream, &s, &error))
    return fail(E_cuMemcpyAsync, error);
  if (ByteCount && (!dst || !src))
    return fail(E_cuMemcpyAsync, CUDA_ERROR_INVALID_VALUE);
  recordNode(s);
  if (ByteCount)
    std::memmove(reinterpret_cast<void *>(dst),
                 reinterpret_cast<const void *>(src), ByteCount);
  return CUDA_SUCCESS;
}

FAKE_API CUresult cuMemcpyHtoD(CUdeviceptr dstDevice, const void *srcHost,
                               size_t ByteCount) {
  count(E_cuMemcpyHtoD);
  if (!initialized())
    return fail(E_cuMemcpyHtoD, CUDA_ERROR_NOT_INITIALIZED);
  if (!currentContext())
    return fail(E_cuMemcpyHtoD, CUDA_ERROR_INVALID_CONTEXT);
  if (ByteCount && (!dstDevice || !srcHost))
    return fail(E_cuMemcpyHtoD, CUDA_ERROR_INVALID_VALUE);
  if (unsafeCallForbidden())
    return fail(E_cuMemcpyHtoD, CUDA_ERROR_STREAM_CAPTURE_UNSUPPORTED);
  if (ByteCount)
    std::memcpy(reinterpret_cast<void *>(dstDevice), srcHost, ByteCount);
  return CUDA_SUCCESS;
}

FAKE_API CUresult cuMemcpyDtoH(void *dstHost, CUdeviceptr srcDevice,
                               size_t ByteCount) {
  count(E_cuMemcpyDtoH);
  if (!initialized())
    return fail(E_cuMemcpyDtoH, CUDA_ERROR_NOT_INITIALIZED);
  if (!currentContext())
    return fail(E_cuMemcpyDtoH, CUDA_ERROR_INVALID_CONTEXT);
  if (ByteCount && (!dstHost || !srcDevice))
    return fail(E_cuMemcpyDtoH, CUDA_ERROR_INVALID_VALUE);
  if (unsafeCallForbidden())
    return fail(E_cuMemcpyDtoH, CUDA_ERROR_STREAM_CAPTURE_UNSUPPORTED);
  if (ByteCount)
    std::memcpy(dstHost, reinterpret_cast<const void *>(srcDevice), ByteCount);
  return CUDA_SUCCESS;
}

template <typename T>
static CUresult memsetAsync(Entry entry, CUdeviceptr dst, T value, size_t n,
                            CUstream hStream) {
  if (!initialized())
    return fail(entry, CUDA_ERROR_NOT_INITIALIZED);
  FakeStream *s = nullptr;
  CUresult error;
  if (!resolveStream(hStream, &s, &error))
    return fail(entry, error);
  if (n && !dst)
    return fail(entry, CUDA_ERROR_INVALID_VALUE);
  recordNode(s);
  T *p = reinterpret_cast<T *>(dst);
  for (size_t i = 0; i < n; ++i)
    p[i] = value;
  return CUDA_SUCCESS;
}

FAKE_API CUresult cuMemsetD32Async(CUdeviceptr dstDevice, unsigned int ui,
                                   size_t N, CUstream hStream) {
  count(E_cuMemsetD32Async);
  return memsetAsync<uint32_t>(E_cuMemsetD32Async, dstDevice, ui, N, hStream);
}

FAKE_API CUresult cuMemsetD16Async(CUdeviceptr dstDevice, unsigned short us,
                                   size_t N, CUstream hStream) {
  count(E_cuMemsetD16Async);
  return memsetAsync<uint16_t>(E_cuMemsetD16Async, dstDevice, us, N, hStream);
}

FAKE_API CUresult cuMemsetD8Async(CUdeviceptr dstDevice, unsigned char uc,
                                  size_t N, CUstream hStream) {
  count(E_cuMemsetD8Async);
  return memsetAsync<uint8_t>(E_cuMemsetD8Async, dstDevice, uc, N, hStream);
}

FAKE_API CUresult cuMemHostRegister(void *p, size_t bytesize,
                                    unsigned int Flags) {
  count(E_cuMemHostRegister);
  if (!initialized())
    return fail(E_cuMemHostRegister, CUDA_ERROR_NOT_INITIALIZED);
  (void)Flags;
  if (!p || bytesize == 0)
    return fail(E_cuMemHostRegister, CUDA_ERROR_INVALID_VALUE);
  State &s = state();
  std::lock_guard<std::mutex> lock(s.mutex);
  if (!s.hostRegistrations.insert(reinterpret_cast<uintptr_t>(p)).second)
    return fail(E_cuMemHostRegister,
                CUDA_ERROR_HOST_MEMORY_ALREADY_REGISTERED);
  liveHostRegistrations.fetch_add(1);
  return CUDA_SUCCESS;
}

FAKE_API CUresult cuMemHostUnregister(void *p) {
  count(E_cuMemHostUnregister);
  if (!initialized())
    return fail(E_cuMemHostUnregister, CUDA_ERROR_NOT_INITIALIZED);
  State &s = state();
  std::lock_guard<std::mutex> lock(s.mutex);
  if (!s.hostRegistrations.erase(reinterpret_cast<uintptr_t>(p)))
    return fail(E_cuMemHostUnregister, CUDA_ERROR_HOST_MEMORY_NOT_REGISTERED);
  liveHostRegistrations.fetch_sub(1);
  return CUDA_SUCCESS;
}

FAKE_API CUresult cuTensorMapEncodeTiled(
    CUtensorMap *tensorMap, CUtensorMapDataType tensorDataType,
    cuuint32_t tensorRank, void *globalAddress, const cuuint64_t *globalDim,
    const cuuint64_t *globalStrides, const cuuint32_t *boxDim,
    const cuuint32_t *elementStrides, CUtensorMapInterleave interleave,
    CUtensorMapSwizzle swizzle, CUtensorMapL2promotion l2Promotion,
    CUtensorMapFloatOOBfill oobFill) {
  count(E_cuTensorMapEncodeTiled);
  (void)tensorDataType, (void)globalStrides, (void)elementStrides,
      (void)interleave, (void)swizzle, (void)l2Promotion, (void)oobFill;
  if (!initialized())
    return fail(E_cuTensorMapEncodeTiled, CUDA_ERROR_NOT_INITIALIZED);
  if (!tensorMap || tensorRank < 1 || tensorRank > 5 || !globalAddress ||
      !globalDim || !boxDim)
    return fail(E_cuTensorMapEncodeTiled, CUDA_ERROR_INVALID_VALUE);
  std::memset(tensorMap, 0, sizeof(*tensorMap));
  std::memcpy(tensorMap, &globalAddress, sizeof(globalAddress));
  return CUDA_SUCCESS;
}
