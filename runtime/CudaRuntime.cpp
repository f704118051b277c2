//===- CudaRuntime.cpp - tx CUDA host runtime (libtx_cuda_runtime.so) -----===//
//
// The host-side runtime that code lowered by MLIR 22's `gpu-to-llvm` pass and
// translated with the gpu.binary embedding (SelectObjectAttr) calls into.
// Debian's LLVM/MLIR packages ship no CUDA runtime wrappers, so tx provides
// its own, written directly over the CUDA *driver* API (cuda.h). At link time
// the toolkit's stub libcuda.so is used; at run time the real driver's
// libcuda.so.1.
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
//   tx API    txRuntimeGetLastError, txRuntimeClearLastError,
//             txRuntimeErrorCount, txRuntimeSynchronize
// The cuSPARSE / cuSPARSELt wrappers of upstream's CudaRuntimeWrappers.cpp
// (mgpuCreateSparseEnv, mgpuSpMV, ...) are deliberately not provided.
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
//   caller's context is never changed.
//   Note: LLVM 22 loads every gpu.binary from a global constructor (priority
//   123) and unloads it from a global destructor, i.e. before main() or at
//   dlopen() time; the module lands on whatever the default device is then
//   (device 0 unless something set it earlier).
//
// Error policy:
//   Every failing CUDA call is reported - never silently dropped - as one
//   line on stderr, "tx-runtime: error: <entry>: <cuCall> failed: <NAME>
//   (<description>); <what: kernel name / module description / sizes>", and
//   recorded for txRuntimeGetLastError()/txRuntimeErrorCount(). With
//   TX_RUNTIME_ABORT_ON_ERROR=1 the process aborts right after printing.
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
//
// Other behaviour:
//   - mgpuStreamDestroy keeps up to kStreamPoolCapacity streams per context
//     for reuse by mgpuStreamCreate (MLIR creates and destroys a stream
//     around every synchronous launch); TX_RUNTIME_STREAM_POOL=0 disables it.
//   - Dynamic shared memory above the default limit is opted into
//     automatically (CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES).
//   - The first launch of each kernel checks the driver's parameter count
//     against MLIR's paramsCount and refuses a mismatched launch.
//   - TX_RUNTIME_SYNC_LAUNCHES=1 synchronizes after every launch so that
//     faults during execution are reported against the kernel that caused
//     them.
//
//===----------------------------------------------------------------------===//

#include "tx/Runtime.h"

#include <cuda.h>

#include <atomic>
#include <cinttypes>
#include <cstdarg>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <memory>
#include <mutex>
#include <string>
#include <unordered_map>
#include <vector>

namespace {

//===----------------------------------------------------------------------===//
// Error reporting
//===----------------------------------------------------------------------===//

/// Names for the CUresults one is likely to meet, for when cuGetErrorName
/// itself cannot answer (the toolkit's stub libcuda.so answers nothing).
const char *fallbackErrorName(CUresult result) {
  switch (result) {
#define TX_CASE(e)                                                             \
  case e:                                                                      \
    return #e;
    TX_CASE(CUDA_SUCCESS)
    TX_CASE(CUDA_ERROR_INVALID_VALUE)
    TX_CASE(CUDA_ERROR_OUT_OF_MEMORY)
    TX_CASE(CUDA_ERROR_NOT_INITIALIZED)
    TX_CASE(CUDA_ERROR_DEINITIALIZED)
    TX_CASE(CUDA_ERROR_STUB_LIBRARY)
    TX_CASE(CUDA_ERROR_CALL_REQUIRES_NEWER_DRIVER)
    TX_CASE(CUDA_ERROR_DEVICE_UNAVAILABLE)
    TX_CASE(CUDA_ERROR_NO_DEVICE)
    TX_CASE(CUDA_ERROR_INVALID_DEVICE)
    TX_CASE(CUDA_ERROR_DEVICE_NOT_LICENSED)
    TX_CASE(CUDA_ERROR_INVALID_IMAGE)
    TX_CASE(CUDA_ERROR_INVALID_CONTEXT)
    TX_CASE(CUDA_ERROR_NO_BINARY_FOR_GPU)
    TX_CASE(CUDA_ERROR_INVALID_PTX)
    TX_CASE(CUDA_ERROR_JIT_COMPILER_NOT_FOUND)
    TX_CASE(CUDA_ERROR_UNSUPPORTED_PTX_VERSION)
    TX_CASE(CUDA_ERROR_JIT_COMPILATION_DISABLED)
    TX_CASE(CUDA_ERROR_INVALID_SOURCE)
    TX_CASE(CUDA_ERROR_SHARED_OBJECT_INIT_FAILED)
    TX_CASE(CUDA_ERROR_OPERATING_SYSTEM)
    TX_CASE(CUDA_ERROR_INVALID_HANDLE)
    TX_CASE(CUDA_ERROR_ILLEGAL_STATE)
    TX_CASE(CUDA_ERROR_NOT_FOUND)
    TX_CASE(CUDA_ERROR_NOT_READY)
    TX_CASE(CUDA_ERROR_ILLEGAL_ADDRESS)
    TX_CASE(CUDA_ERROR_LAUNCH_OUT_OF_RESOURCES)
    TX_CASE(CUDA_ERROR_LAUNCH_TIMEOUT)
    TX_CASE(CUDA_ERROR_PRIMARY_CONTEXT_ACTIVE)
    TX_CASE(CUDA_ERROR_CONTEXT_IS_DESTROYED)
    TX_CASE(CUDA_ERROR_ASSERT)
    TX_CASE(CUDA_ERROR_HOST_MEMORY_ALREADY_REGISTERED)
    TX_CASE(CUDA_ERROR_HOST_MEMORY_NOT_REGISTERED)
    TX_CASE(CUDA_ERROR_HARDWARE_STACK_ERROR)
    TX_CASE(CUDA_ERROR_ILLEGAL_INSTRUCTION)
    TX_CASE(CUDA_ERROR_MISALIGNED_ADDRESS)
    TX_CASE(CUDA_ERROR_INVALID_ADDRESS_SPACE)
    TX_CASE(CUDA_ERROR_INVALID_PC)
    TX_CASE(CUDA_ERROR_LAUNCH_FAILED)
    TX_CASE(CUDA_ERROR_COOPERATIVE_LAUNCH_TOO_LARGE)
    TX_CASE(CUDA_ERROR_NOT_PERMITTED)
    TX_CASE(CUDA_ERROR_NOT_SUPPORTED)
    TX_CASE(CUDA_ERROR_SYSTEM_NOT_READY)
    TX_CASE(CUDA_ERROR_SYSTEM_DRIVER_MISMATCH)
    TX_CASE(CUDA_ERROR_COMPAT_NOT_SUPPORTED_ON_DEVICE)
    TX_CASE(CUDA_ERROR_TIMEOUT)
    TX_CASE(CUDA_ERROR_INVALID_CLUSTER_SIZE)
    TX_CASE(CUDA_ERROR_FUNCTION_NOT_LOADED)
    TX_CASE(CUDA_ERROR_UNKNOWN)
#undef TX_CASE
  default:
    return nullptr;
  }
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

/// The last reported error and the error count. Heap-allocated and never
/// freed, so it stays usable from global destructors (module unloads) that
/// run after this library's own static objects would have been destroyed.
struct ErrorLog {
  std::mutex mutex;
  std::string last;
  bool hasLast = false;
  std::atomic<int> count{0};
};

ErrorLog &errorLog() {
  static ErrorLog *log = new ErrorLog();
  return *log;
}

bool abortOnError() {
  const char *value = std::getenv("TX_RUNTIME_ABORT_ON_ERROR");
  return value && *value && std::strcmp(value, "0") != 0;
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

/// Prints, records and counts one error; aborts if so configured.
void reportError(std::string message) {
  std::fprintf(stderr, "tx-runtime: error: %s\n", message.c_str());
  std::fflush(stderr);
  ErrorLog &log = errorLog();
  {
    std::lock_guard<std::mutex> lock(log.mutex);
    log.last = std::move(message);
    log.hasLast = true;
  }
  log.count.fetch_add(1, std::memory_order_relaxed);
  if (abortOnError())
    std::abort();
}

/// Reports a failing CUDA call `call` made on behalf of entry point `entry`;
/// `subject` says what was involved (kernel, module, sizes...).
void reportCudaError(const char *entry, const char *call, CUresult result,
                     const std::string &subject) {
  std::string message =
      format("%s: %s failed: %s (%s)", entry, call, errorName(result).c_str(),
             errorDescription(result).c_str());
  if (!subject.empty())
    message += "; " + subject;
  reportError(std::move(message));
}

/// Returns true on success; otherwise reports the failure, describing the
/// subject with `describe()` (only evaluated on failure, so successful calls
/// on hot paths build no strings).
template <typename DescribeFn>
bool check(CUresult result, const char *entry, const char *call,
           DescribeFn &&describe) {
  if (result == CUDA_SUCCESS)
    return true;
  reportCudaError(entry, call, result, describe());
  return false;
}

bool check(CUresult result, const char *entry, const char *call) {
  return check(result, entry, call, [] { return std::string(); });
}

//===----------------------------------------------------------------------===//
// Runtime state
//===----------------------------------------------------------------------===//

struct ModuleInfo {
  std::string description; // "module #N (<size>-byte <format> at <addr>...)"
  CUcontext context = nullptr;
};

/// What identifies a kernel in messages; immutable and shared, so launches
/// can hold on to it without copying strings.
struct KernelId {
  std::string name;
  std::string moduleDescription;
  CUmodule module = nullptr;
  CUcontext context = nullptr;
};
using KernelIdRef = std::shared_ptr<const KernelId>;

struct FunctionInfo {
  KernelIdRef id;
  int32_t configuredSmem = 0;      // largest dynamic smem opted into so far
  long long driverParamCount = -2; // -2: not queried yet, -1: unknown
};

constexpr size_t kStreamPoolCapacity = 8;

struct State {
  std::mutex mutex;
  bool initAttempted = false;
  CUresult initResult = CUDA_SUCCESS;
  std::unordered_map<int, CUcontext> primaryContexts;
  std::unordered_map<CUmodule, ModuleInfo> modules;
  std::unordered_map<CUfunction, FunctionInfo> functions;
  std::unordered_map<CUstream, CUcontext> streamContexts;
  std::unordered_map<CUstream, KernelIdRef> lastKernelOnStream;
  std::unordered_map<CUcontext, std::vector<CUstream>> streamPool;
  KernelIdRef lastKernel; // most recently launched kernel, any stream
  unsigned nextModuleId = 1;
};

/// Never destroyed, for the same reason as errorLog().
State &state() {
  static State *s = new State();
  return *s;
}

std::atomic<int> defaultDevice{0};

/// Name of the kernel most recently asked for with mgpuModuleGetFunction on
/// this thread. MLIR 22 calls mgpuModuleGetFunction immediately before each
/// launch, so when a launch receives a null function this names the kernel.
thread_local char lastRequestedKernel[256];

void setLastRequestedKernel(const char *name) {
  std::snprintf(lastRequestedKernel, sizeof(lastRequestedKernel), "%s",
                name ? name : "");
}

/// Retains (once) and returns the primary context of `device`. On failure
/// reports on behalf of `entry`, mentioning `describeSubject()`, and returns
/// the error. `describeSubject()` is only evaluated on the slow path and never
/// under the state lock (descriptions may consult the state themselves).
template <typename DescribeFn>
CUresult acquirePrimaryContext(int device, const char *entry,
                               DescribeFn &&describeSubject, CUcontext *out) {
  *out = nullptr;
  State &s = state();
  {
    std::lock_guard<std::mutex> lock(s.mutex);
    if (s.initAttempted && s.initResult == CUDA_SUCCESS) {
      auto it = s.primaryContexts.find(device);
      if (it != s.primaryContexts.end()) {
        *out = it->second;
        return CUDA_SUCCESS;
      }
    }
  }

  // Slow path: first use of the driver or of this device, or a failed init.
  std::string subject = describeSubject();
  std::lock_guard<std::mutex> lock(s.mutex);
  if (!s.initAttempted) {
    s.initAttempted = true;
    s.initResult = cuInit(0);
    if (s.initResult != CUDA_SUCCESS) {
      reportCudaError(entry, "cuInit", s.initResult,
                      "no usable CUDA driver/GPU in this process" +
                          (subject.empty() ? "" : "; " + subject));
      return s.initResult;
    }
  } else if (s.initResult != CUDA_SUCCESS) {
    reportCudaError(entry, "cuInit", s.initResult,
                    "the CUDA driver failed to initialize earlier, no GPU "
                    "work is possible in this process" +
                        (subject.empty() ? "" : "; " + subject));
    return s.initResult;
  }
  auto it = s.primaryContexts.find(device); // another thread may have won
  if (it != s.primaryContexts.end()) {
    *out = it->second;
    return CUDA_SUCCESS;
  }

  auto describeDevice = [&] {
    return format("device ordinal %d (set with mgpuSetDefaultDevice)%s%s",
                  device, subject.empty() ? "" : "; ", subject.c_str());
  };
  CUdevice cuDevice = 0;
  CUresult result = cuDeviceGet(&cuDevice, device);
  if (!check(result, entry, "cuDeviceGet", describeDevice))
    return result;
  CUcontext context = nullptr;
  result = cuDevicePrimaryCtxRetain(&context, cuDevice);
  if (!check(result, entry, "cuDevicePrimaryCtxRetain", describeDevice))
    return result;
  s.primaryContexts.emplace(device, context);
  *out = context;
  return CUDA_SUCCESS;
}

/// Makes `context` current for the lifetime of the guard (see the context
/// model at the top of the file). ok() is false if `context` is null or
/// making it current failed (already reported).
class ContextGuard {
public:
  ContextGuard(CUcontext context, const char *entry) : entryName(entry) {
    if (!context)
      return;
    CUcontext current = nullptr;
    if (!check(cuCtxGetCurrent(&current), entry, "cuCtxGetCurrent"))
      return;
    if (current == context) {
      isOk = true;
    } else if (!current) {
      isOk = check(cuCtxSetCurrent(context), entry, "cuCtxSetCurrent");
    } else {
      isOk = pushed =
          check(cuCtxPushCurrent(context), entry, "cuCtxPushCurrent");
    }
  }
  ~ContextGuard() {
    if (pushed) {
      CUcontext popped = nullptr;
      check(cuCtxPopCurrent(&popped), entryName, "cuCtxPopCurrent");
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

/// The default device's primary context, or null (error already reported,
/// mentioning `describeSubject()`).
template <typename DescribeFn>
CUcontext defaultContext(const char *entry, DescribeFn &&describeSubject) {
  CUcontext context = nullptr;
  acquirePrimaryContext(defaultDevice.load(std::memory_order_relaxed), entry,
                        describeSubject, &context);
  return context;
}

CUcontext defaultContext(const char *entry) {
  return defaultContext(entry, [] { return std::string(); });
}

//===----------------------------------------------------------------------===//
// Descriptions of the things involved in errors
//===----------------------------------------------------------------------===//

/// "<size>-byte <format> at <address>, first bytes: xx xx ..." for a binary
/// handed to a module load.
std::string describeBinary(const void *data, size_t size) {
  const auto *bytes = static_cast<const unsigned char *>(data);
  const char *kind = "blob of unrecognized format (not cubin/fatbin/PTX)";
  if (size >= 4 && bytes[0] == 0x7f && bytes[1] == 'E' && bytes[2] == 'L' &&
      bytes[3] == 'F') {
    kind = "cubin (ELF)";
  } else if (size >= 4 && bytes[0] == 0x50 && bytes[1] == 0xed &&
             bytes[2] == 0x55 && bytes[3] == 0xba) {
    kind = "fatbin";
  } else {
    // PTX is text; look for its mandatory ".version" directive near the top.
    size_t window = size < 4096 ? size : 4096;
    std::string head(reinterpret_cast<const char *>(bytes), window);
    if (head.find(".version") != std::string::npos)
      kind = "PTX text";
  }
  std::string text = format("%zu-byte %s at %p, first bytes:", size, kind,
                            data);
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
  State &s = state();
  std::lock_guard<std::mutex> lock(s.mutex);
  std::string text = stream ? format("stream %p", static_cast<void *>(stream))
                            : std::string("the default (null) stream");
  auto it = s.lastKernelOnStream.find(stream);
  if (it != s.lastKernelOnStream.end())
    text += "; last kernel launched on it: '" + it->second->name + "'";
  else if (s.lastKernel)
    text += "; last kernel launched (any stream): '" + s.lastKernel->name + "'";
  return text;
}

//===----------------------------------------------------------------------===//
// Module loading
//===----------------------------------------------------------------------===//

/// Loads `data` (cubin, fatbin or NUL-terminated PTX) into the default
/// device's primary context. `jitOptLevel` < 0 leaves the JIT optimization
/// level at the driver's default.
CUmodule loadModule(const char *entry, void *data, const std::string &binary,
                    int jitOptLevel) {
  CUcontext context =
      defaultContext(entry, [&] { return "module: " + binary; });
  ContextGuard guard(context, entry);
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
  CUresult result =
      cuModuleLoadDataEx(&module, data, static_cast<unsigned>(options.size()),
                         options.data(), values.data());
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
  return module;
}

//===----------------------------------------------------------------------===//
// Launch helpers
//===----------------------------------------------------------------------===//

struct Dim3 {
  intptr_t x, y, z;
};

std::string describeLaunch(const std::string &kernel,
                           const std::string &moduleDescription,
                           const Dim3 *cluster, const Dim3 &grid,
                           const Dim3 &block, int32_t smem, CUstream stream) {
  std::string text = "kernel '" + kernel + "'";
  if (!moduleDescription.empty())
    text += " from " + moduleDescription;
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

/// Counts the kernel's parameters with cuFuncGetParamInfo (no count query
/// exists); -1 if the driver cannot tell (the check is then skipped).
long long queryParamCount(CUfunction function) {
  for (size_t index = 0; index < 4096; ++index) {
    size_t offset = 0, size = 0;
    CUresult result = cuFuncGetParamInfo(function, index, &offset, &size);
    if (result == CUDA_ERROR_INVALID_VALUE)
      return static_cast<long long>(index);
    if (result != CUDA_SUCCESS)
      return -1;
  }
  return -1;
}

/// Shared implementation of mgpuLaunchKernel and mgpuLaunchClusterKernel.
/// `paramsCount` < 0 means the caller did not pass one.
void launch(const char *entry, CUfunction function, const Dim3 *cluster,
            const Dim3 &grid, const Dim3 &block, int32_t smem,
            CUstream stream, void **params, void **extra,
            long long paramsCount) {
  if (!function) {
    if (lastRequestedKernel[0])
      reportError(format(
          "%s: null kernel function handle; mgpuModuleGetFunction for kernel "
          "'%s' (the last one requested on this thread) failed earlier",
          entry, lastRequestedKernel));
    else
      reportError(format("%s: null kernel function handle (no kernel was "
                         "looked up on this thread)",
                         entry));
    return;
  }

  // Copy what we need, so the lock is not held across driver calls.
  FunctionInfo info;
  {
    State &s = state();
    std::lock_guard<std::mutex> lock(s.mutex);
    auto it = s.functions.find(function);
    if (it != s.functions.end())
      info = it->second;
  }
  if (!info.id) {
    auto id = std::make_shared<KernelId>();
    id->name = format("<kernel %p, not looked up through this runtime>",
                      static_cast<void *>(function));
    info.id = std::move(id);
  }
  const KernelId &kernel = *info.id;
  auto describe = [&] {
    return describeLaunch(kernel.name, kernel.moduleDescription, cluster, grid,
                          block, smem, stream);
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
  if (!valid) {
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
  ContextGuard guard(context, entry);
  if (!guard.ok())
    return;

  // First launch of this kernel: compare the driver's parameter count with
  // the number of parameters MLIR packed. A mismatch would make the kernel
  // read garbage, so refuse the launch.
  if (info.driverParamCount == -2) {
    info.driverParamCount = queryParamCount(function);
    State &s = state();
    std::lock_guard<std::mutex> lock(s.mutex);
    auto it = s.functions.find(function);
    if (it != s.functions.end())
      it->second.driverParamCount = info.driverParamCount;
  }
  if (paramsCount >= 0 && !extra && info.driverParamCount >= 0 &&
      info.driverParamCount != paramsCount) {
    reportError(format("%s: kernel expects %lld parameters but the launch "
                       "passes %lld (host and device ABI disagree); %s",
                       entry, info.driverParamCount, paramsCount,
                       describe().c_str()));
    return;
  }

  // Opt into dynamic shared memory beyond the default limit.
  if (smem > info.configuredSmem) {
    CUresult result = cuFuncSetAttribute(
        function, CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES, smem);
    if (!check(result, entry,
               "cuFuncSetAttribute(MAX_DYNAMIC_SHARED_SIZE_BYTES)", [&] {
                 int optin = -1, staticSmem = -1;
                 CUdevice device = 0;
                 if (cuCtxGetDevice(&device) == CUDA_SUCCESS)
                   cuDeviceGetAttribute(
                       &optin,
                       CU_DEVICE_ATTRIBUTE_MAX_SHARED_MEMORY_PER_BLOCK_OPTIN,
                       device);
                 cuFuncGetAttribute(&staticSmem,
                                    CU_FUNC_ATTRIBUTE_SHARED_SIZE_BYTES,
                                    function);
                 return describe() +
                        format("; device allows %d bytes per block, kernel "
                               "uses %d bytes of static shared memory",
                               optin, staticSmem);
               }))
      return;
    State &s = state();
    std::lock_guard<std::mutex> lock(s.mutex);
    auto it = s.functions.find(function);
    if (it != s.functions.end() && it->second.configuredSmem < smem)
      it->second.configuredSmem = smem;
  }

  CUresult result;
  const char *call;
  if (cluster) {
    CUlaunchAttribute attribute;
    std::memset(&attribute, 0, sizeof(attribute));
    attribute.id = CU_LAUNCH_ATTRIBUTE_CLUSTER_DIMENSION;
    attribute.value.clusterDim.x = static_cast<unsigned>(cluster->x);
    attribute.value.clusterDim.y = static_cast<unsigned>(cluster->y);
    attribute.value.clusterDim.z = static_cast<unsigned>(cluster->z);
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
    config.attrs = &attribute;
    config.numAttrs = 1;
    call = "cuLaunchKernelEx";
    result = cuLaunchKernelEx(&config, function, params, extra);
  } else {
    call = "cuLaunchKernel";
    result = cuLaunchKernel(
        function, static_cast<unsigned>(grid.x),
        static_cast<unsigned>(grid.y), static_cast<unsigned>(grid.z),
        static_cast<unsigned>(block.x), static_cast<unsigned>(block.y),
        static_cast<unsigned>(block.z), static_cast<unsigned>(smem), stream,
        params, extra);
  }
  if (!check(result, entry, call, describe))
    return;

  {
    State &s = state();
    std::lock_guard<std::mutex> lock(s.mutex);
    s.lastKernelOnStream[stream] = info.id;
    s.lastKernel = info.id;
  }

  if (syncLaunches())
    check(cuStreamSynchronize(stream), entry,
          "cuStreamSynchronize (TX_RUNTIME_SYNC_LAUNCHES)", [&] {
            return "kernel failed during execution: " + describe();
          });
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

} // namespace

//===----------------------------------------------------------------------===//
// tx runtime API
//===----------------------------------------------------------------------===//

extern "C" TX_RUNTIME_EXPORT const char *txRuntimeGetLastError(void) {
  ErrorLog &log = errorLog();
  std::lock_guard<std::mutex> lock(log.mutex);
  return log.hasLast ? log.last.c_str() : nullptr;
}

extern "C" TX_RUNTIME_EXPORT void txRuntimeClearLastError(void) {
  ErrorLog &log = errorLog();
  std::lock_guard<std::mutex> lock(log.mutex);
  log.last.clear();
  log.hasLast = false;
}

extern "C" TX_RUNTIME_EXPORT int txRuntimeErrorCount(void) {
  return errorLog().count.load(std::memory_order_relaxed);
}

extern "C" TX_RUNTIME_EXPORT int txRuntimeSynchronize(void) {
  const char *entry = "txRuntimeSynchronize";
  CUcontext context = nullptr;
  CUresult result = acquirePrimaryContext(
      defaultDevice.load(std::memory_order_relaxed), entry,
      [] { return std::string(); }, &context);
  if (result != CUDA_SUCCESS)
    return static_cast<int>(result);
  ContextGuard guard(context, entry);
  if (!guard.ok())
    return static_cast<int>(CUDA_ERROR_INVALID_CONTEXT);
  result = cuCtxSynchronize();
  check(result, entry, "cuCtxSynchronize", [] {
    State &s = state();
    std::lock_guard<std::mutex> lock(s.mutex);
    return s.lastKernel
               ? "last kernel launched: '" + s.lastKernel->name + "'"
               : std::string("no kernel was launched through this runtime");
  });
  return static_cast<int>(result);
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
  return loadModule(entry, data, describeBinary(data, gpuBlobSize),
                    /*jitOptLevel=*/-1);
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
  return loadModule(entry, data, describeBinary(data, size), level);
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
      info = it->second;
      s.modules.erase(it);
    } else {
      info.description = format("module %p (not loaded through this runtime)",
                                static_cast<void *>(module));
    }
    // Forget the module's kernels: their handles die with it.
    for (auto fit = s.functions.begin(); fit != s.functions.end();) {
      if (fit->second.id->module == module)
        fit = s.functions.erase(fit);
      else
        ++fit;
    }
  }

  // MLIR unloads from a global destructor. By then the driver has usually
  // shut down already (it does so at exit, before those destructors run),
  // taking its contexts and their modules with it: nothing is left to unload.
  CUcontext current = nullptr;
  if (cuCtxGetCurrent(&current) == CUDA_ERROR_DEINITIALIZED)
    return;

  CUcontext context = info.context ? info.context : defaultContext(entry);
  ContextGuard guard(context, entry);
  if (!guard.ok())
    return;
  CUresult result = cuModuleUnload(module);
  if (result == CUDA_ERROR_DEINITIALIZED)
    return; // As above: the driver shut down meanwhile.
  check(result, entry, "cuModuleUnload",
        [&] { return "module: " + info.description; });
}

extern "C" TX_RUNTIME_EXPORT CUfunction
mgpuModuleGetFunction(CUmodule module, const char *name) {
  const char *entry = "mgpuModuleGetFunction";
  if (!name) {
    reportError(format("%s: null kernel name (module %p)", entry,
                       static_cast<void *>(module)));
    return nullptr;
  }
  setLastRequestedKernel(name);
  if (!module) {
    reportError(format("%s: cannot look up kernel '%s': its module handle is "
                       "null (loading the gpu.binary that holds it failed "
                       "earlier; see the first tx-runtime error)",
                       entry, name));
    return nullptr;
  }

  CUcontext context = nullptr;
  std::string moduleDescription;
  {
    State &s = state();
    std::lock_guard<std::mutex> lock(s.mutex);
    auto it = s.modules.find(module);
    if (it != s.modules.end()) {
      context = it->second.context;
      moduleDescription = it->second.description;
    }
  }
  if (moduleDescription.empty())
    moduleDescription = describeModule(module);
  auto describe = [&] {
    return format("kernel '%s' in %s", name, moduleDescription.c_str());
  };
  if (!context)
    context = defaultContext(entry, describe);
  ContextGuard guard(context, entry);
  if (!guard.ok())
    return nullptr;

  CUfunction function = nullptr;
  if (!check(cuModuleGetFunction(&function, module, name), entry,
             "cuModuleGetFunction", describe))
    return nullptr;

  State &s = state();
  std::lock_guard<std::mutex> lock(s.mutex);
  FunctionInfo &info = s.functions[function];
  if (!info.id) {
    auto id = std::make_shared<KernelId>();
    id->name = name;
    id->moduleDescription = std::move(moduleDescription);
    id->module = module;
    id->context = context;
    info.id = std::move(id);
  }
  return function;
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

// An external stream set by txRuntimeSetStream: compiled code then enqueues
// on it (mgpuStreamCreate returns it, mgpuStreamDestroy leaves it alone) and,
// in async mode, does not wait for it (mgpuStreamSynchronize returns).
static std::atomic<CUstream> externalStream{nullptr};
static std::atomic<int> externalStreamAsync{0};

extern "C" TX_RUNTIME_EXPORT void txRuntimeSetStream(CUstream stream,
                                                     int async) {
  externalStream.store(stream);
  externalStreamAsync.store(stream ? async : 0);
}

extern "C" TX_RUNTIME_EXPORT CUstream mgpuStreamCreate(void) {
  const char *entry = "mgpuStreamCreate";
  if (CUstream ext = externalStream.load())
    return ext;
  CUcontext context = defaultContext(entry);
  if (!context)
    return nullptr;
  if (streamPoolEnabled()) {
    State &s = state();
    std::lock_guard<std::mutex> lock(s.mutex);
    std::vector<CUstream> &pool = s.streamPool[context];
    if (!pool.empty()) {
      CUstream stream = pool.back();
      pool.pop_back();
      return stream;
    }
  }
  ContextGuard guard(context, entry);
  if (!guard.ok())
    return nullptr;
  CUstream stream = nullptr;
  if (!check(cuStreamCreate(&stream, CU_STREAM_NON_BLOCKING), entry,
             "cuStreamCreate"))
    return nullptr;
  State &s = state();
  std::lock_guard<std::mutex> lock(s.mutex);
  s.streamContexts[stream] = context;
  return stream;
}

extern "C" TX_RUNTIME_EXPORT void mgpuStreamDestroy(CUstream stream) {
  const char *entry = "mgpuStreamDestroy";
  if (!stream)
    return; // Creation failure was reported when it happened.
  if (stream == externalStream.load())
    return; // Owned by the caller of txRuntimeSetStream.
  CUcontext context = nullptr;
  {
    State &s = state();
    std::lock_guard<std::mutex> lock(s.mutex);
    s.lastKernelOnStream.erase(stream);
    auto it = s.streamContexts.find(stream);
    if (it != s.streamContexts.end()) {
      context = it->second;
      // Keep the stream for reuse. Work still queued on it just completes
      // first, as it would after cuStreamDestroy.
      std::vector<CUstream> &pool = s.streamPool[context];
      if (streamPoolEnabled() && pool.size() < kStreamPoolCapacity) {
        pool.push_back(stream);
        return;
      }
      s.streamContexts.erase(it);
    }
  }
  ContextGuard guard(context ? context : defaultContext(entry), entry);
  if (!guard.ok())
    return;
  check(cuStreamDestroy(stream), entry, "cuStreamDestroy",
        [&] { return format("stream %p", static_cast<void *>(stream)); });
}

extern "C" TX_RUNTIME_EXPORT void mgpuStreamSynchronize(CUstream stream) {
  const char *entry = "mgpuStreamSynchronize";
  if (stream && stream == externalStream.load() && externalStreamAsync.load())
    return; // Async mode: the caller synchronizes (e.g. with CUDA events).
  ContextGuard guard(defaultContext(entry), entry);
  if (!guard.ok())
    return;
  check(cuStreamSynchronize(stream), entry, "cuStreamSynchronize",
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
  check(cuStreamWaitEvent(stream, event, /*Flags=*/0), entry,
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
  if (!check(cuEventCreate(&event, CU_EVENT_DISABLE_TIMING), entry,
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
  check(cuEventDestroy(event), entry, "cuEventDestroy",
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
  check(cuEventSynchronize(event), entry, "cuEventSynchronize", [&] {
    State &s = state();
    std::lock_guard<std::mutex> lock(s.mutex);
    return format("event %p; last kernel launched: '%s'",
                  static_cast<void *>(event),
                  s.lastKernel ? s.lastKernel->name.c_str() : "(none)");
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
  check(cuEventRecord(event, stream), entry, "cuEventRecord", [&] {
    return format("event %p; ", static_cast<void *>(event)) +
           describeStream(stream);
  });
}

//===----------------------------------------------------------------------===//
// Memory
//===----------------------------------------------------------------------===//

extern "C" TX_RUNTIME_EXPORT void *mgpuMemAlloc(uint64_t sizeBytes,
                                                CUstream /*stream*/,
                                                uint8_t isHostShared) {
  const char *entry = "mgpuMemAlloc";
  if (sizeBytes == 0)
    return nullptr;
  auto describe = [&] {
    return format("%" PRIu64 " bytes of %s memory", sizeBytes,
                  isHostShared ? "managed (host_shared)" : "device");
  };
  ContextGuard guard(defaultContext(entry, describe), entry);
  if (!guard.ok())
    return nullptr;
  CUdeviceptr ptr = 0;
  if (isHostShared) {
    if (!check(cuMemAllocManaged(&ptr, sizeBytes, CU_MEM_ATTACH_GLOBAL), entry,
               "cuMemAllocManaged", describe))
      return nullptr;
  } else if (!check(cuMemAlloc(&ptr, sizeBytes), entry, "cuMemAlloc",
                    describe)) {
    return nullptr;
  }
  return reinterpret_cast<void *>(ptr);
}

extern "C" TX_RUNTIME_EXPORT void mgpuMemFree(void *ptr, CUstream /*stream*/) {
  const char *entry = "mgpuMemFree";
  if (!ptr)
    return; // Zero-byte or failed allocation.
  ContextGuard guard(defaultContext(entry), entry);
  if (!guard.ok())
    return;
  check(cuMemFree(reinterpret_cast<CUdeviceptr>(ptr)), entry, "cuMemFree",
        [&] { return format("pointer %p", ptr); });
}

extern "C" TX_RUNTIME_EXPORT void mgpuMemcpy(void *dst, void *src,
                                             size_t sizeBytes,
                                             CUstream stream) {
  const char *entry = "mgpuMemcpy";
  if (sizeBytes == 0)
    return;
  auto describe = [&] {
    return format("copy of %zu bytes from %p to %p on ", sizeBytes, src, dst) +
           describeStream(stream);
  };
  ContextGuard guard(defaultContext(entry, describe), entry);
  if (!guard.ok())
    return;
  check(cuMemcpyAsync(reinterpret_cast<CUdeviceptr>(dst),
                      reinterpret_cast<CUdeviceptr>(src), sizeBytes, stream),
        entry, "cuMemcpyAsync", describe);
}

extern "C" TX_RUNTIME_EXPORT void mgpuMemset32(void *dst, unsigned int value,
                                               size_t count, CUstream stream) {
  const char *entry = "mgpuMemset32";
  if (count == 0)
    return;
  auto describe = [&] {
    return format("%zu 32-bit elements at %p set to 0x%08x", count, dst,
                  value);
  };
  ContextGuard guard(defaultContext(entry, describe), entry);
  if (!guard.ok())
    return;
  check(cuMemsetD32Async(reinterpret_cast<CUdeviceptr>(dst), value, count,
                         stream),
        entry, "cuMemsetD32Async", describe);
}

extern "C" TX_RUNTIME_EXPORT void mgpuMemset16(void *dst, unsigned short value,
                                               size_t count, CUstream stream) {
  const char *entry = "mgpuMemset16";
  if (count == 0)
    return;
  auto describe = [&] {
    return format("%zu 16-bit elements at %p set to 0x%04x", count, dst,
                  static_cast<unsigned>(value));
  };
  ContextGuard guard(defaultContext(entry, describe), entry);
  if (!guard.ok())
    return;
  check(cuMemsetD16Async(reinterpret_cast<CUdeviceptr>(dst), value, count,
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
  check(cuMemHostRegister(ptr, sizeBytes, /*Flags=*/0), entry,
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
  check(cuMemHostUnregister(ptr), entry, "cuMemHostUnregister",
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
  if (device < 0) {
    reportError(format("mgpuSetDefaultDevice: invalid device ordinal %" PRId32,
                       device));
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
  return check(cuTensorMapEncodeTiled(tensorMap, tensorDataType, tensorRank,
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
  if (!check(cuMemAlloc(&deviceMap, sizeof(CUtensorMap)), entry, "cuMemAlloc",
             [] { return std::string("128-byte tensor map descriptor"); }))
    return nullptr;
  if (!check(cuMemcpyHtoD(deviceMap, &tensorMap, sizeof(CUtensorMap)), entry,
             "cuMemcpyHtoD",
             [] { return std::string("128-byte tensor map descriptor"); })) {
    check(cuMemFree(deviceMap), entry, "cuMemFree",
          [] { return std::string("128-byte tensor map descriptor"); });
    return nullptr;
  }
  return reinterpret_cast<void *>(deviceMap);
}
