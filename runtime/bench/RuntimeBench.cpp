//===- RuntimeBench.cpp - host cost of one call through the tx runtime ----===//
//
// Measures the host time of one call of a compiled entry point, i.e. of the
// runtime functions that MLIR's host code calls, with the real driver (on a
// GPU) or with the fake driver (LD_LIBRARY_PATH=build/fake-cuda: then it is
// the runtime's own cost plus the fake's, which is small and reported).
//
//   tx-runtime-bench pattern [--shape static|dynamic] [--mode M] [--iters N]
//       Runs the exact sequence of mgpu* calls that MLIR 22 emits for a
//       static-shape entry point (GetFunction, StreamCreate, LaunchKernel,
//       StreamSynchronize, StreamDestroy) or a dynamic-shape one (a device
//       temporary: alloc / launch / copy into the result / free, each in its
//       own StreamCreate..StreamDestroy bracket), on a tiny PTX kernel.
//   tx-runtime-bench entry --lib LIB.so --fn NAME --rows R --cols C [...]
//       Calls _mlir_ciface_NAME(in, out) of a compiled tx library whose NAME
//       takes one rank-2 f32 tensor and returns one of the same shape (e.g.
//       bench/host_cost/host_cost.mlir); through _mlir_ciface_NAME_on_stream
//       if the library has it, else through the same code wrapped in
//       txRuntimeBeginCall/EndCall (what the compiler generates).
//
// Modes (--mode): call (default; txRuntimeBeginCall(stream) ... EndCall, the
// _on_stream form), setstream (txRuntimeSetStream(stream, async=1) around the
// loop: the pre-#15 way to enqueue on a caller's stream), sync (the
// synchronous form: runtime streams, waits for each call), driver (pattern
// only: the same work as bare driver calls on the caller's stream -
// cuLaunchKernel, and for the dynamic shape cuMemAllocAsync, cuMemcpyAsync,
// cuMemFreeAsync - without the runtime: the floor). The tx functions are looked up with dlsym, so the
// binary also runs against an older runtime that lacks txRuntimeBeginCall
// (modes setstream/sync), to measure "before".
//
// Method: --batches batches of --iters calls each, host time per batch with
// clock_gettime(CLOCK_MONOTONIC), the stream synchronized between batches
// (untimed, so a full launch queue never throttles the host); prints the
// median and minimum over batches of ns per call. Checks the results on a GPU.
//
//===----------------------------------------------------------------------===//

#include "tx/Runtime.h"

#include <dlfcn.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <ctime>
#include <string>
#include <vector>

namespace {

// scale(out, in, n): out[i] = 2 * in[i] (f32).
const char kScalePtx[] = R"(
.version 7.0
.target sm_50
.address_size 64

.visible .entry tx_bench_scale(
    .param .u64 out,
    .param .u64 in,
    .param .u32 n)
{
    .reg .pred %p;
    .reg .b32 %r<6>;
    .reg .f32 %f<3>;
    .reg .b64 %rd<6>;
    ld.param.u64 %rd1, [out];
    ld.param.u64 %rd2, [in];
    ld.param.u32 %r1, [n];
    mov.u32 %r2, %ctaid.x;
    mov.u32 %r3, %ntid.x;
    mov.u32 %r4, %tid.x;
    mad.lo.s32 %r2, %r2, %r3, %r4;
    setp.ge.u32 %p, %r2, %r1;
    @%p bra DONE;
    cvta.to.global.u64 %rd1, %rd1;
    cvta.to.global.u64 %rd2, %rd2;
    mul.wide.u32 %rd3, %r2, 4;
    add.s64 %rd4, %rd2, %rd3;
    ld.global.f32 %f1, [%rd4];
    add.f32 %f2, %f1, %f1;
    add.s64 %rd5, %rd1, %rd3;
    st.global.f32 [%rd5], %f2;
DONE:
    ret;
}
)";

// Optional runtime API (absent from older runtimes).
using BeginCallFn = void (*)(CUstream);
using EndCallFn = int32_t (*)(void);
using SetStreamFn = void (*)(CUstream, int);
BeginCallFn beginCall = nullptr;
EndCallFn endCall = nullptr;
SetStreamFn setStream = nullptr;

// Driver entry points for mode=driver (from whatever libcuda.so.1 the runtime
// loaded; CUresult is an int).
using CuLaunchKernelFn = int (*)(CUfunction, unsigned, unsigned, unsigned,
                                 unsigned, unsigned, unsigned, unsigned,
                                 CUstream, void **, void **);
using CuModuleGetFunctionFn = int (*)(CUfunction *, CUmodule, const char *);
using CuMemAllocAsyncFn = int (*)(uintptr_t *, size_t, CUstream);
using CuMemFreeAsyncFn = int (*)(uintptr_t, CUstream);
using CuMemcpyAsyncFn = int (*)(uintptr_t, uintptr_t, size_t, CUstream);

// Fake driver interface (null with a real driver).
using FakeCallCountFn = long long (*)(const char *);
FakeCallCountFn fakeCallCount = nullptr;

enum class Mode { Call, SetStream, Sync, Driver };

const char *modeName(Mode mode) {
  switch (mode) {
  case Mode::Call:
    return "call";
  case Mode::SetStream:
    return "setstream";
  case Mode::Sync:
    return "sync";
  case Mode::Driver:
    return "driver";
  }
  return "?";
}

double nowNs() {
  timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return ts.tv_sec * 1e9 + ts.tv_nsec;
}

struct Options {
  std::string command;
  std::string shape = "static";
  Mode mode = Mode::Call;
  int iters = 200;
  int batches = 50;
  std::string lib, fn;
  int64_t rows = 4, cols = 128;
  bool useNullStream = false;
};

[[noreturn]] void usage() {
  std::fprintf(stderr,
               "usage: tx-runtime-bench pattern [--shape static|dynamic] "
               "[--mode call|setstream|sync|driver] [--iters N] "
               "[--batches B] [--null-stream]\n"
               "       tx-runtime-bench entry --lib LIB.so --fn NAME --rows R "
               "--cols C [--mode call|setstream|sync] [--iters N] "
               "[--batches B]\n");
  std::exit(2);
}

Options parse(int argc, char **argv) {
  Options o;
  if (argc < 2)
    usage();
  o.command = argv[1];
  for (int i = 2; i < argc; ++i) {
    std::string a = argv[i];
    auto next = [&]() -> std::string {
      if (i + 1 >= argc)
        usage();
      return argv[++i];
    };
    if (a == "--shape")
      o.shape = next();
    else if (a == "--mode") {
      std::string m = next();
      o.mode = m == "call"        ? Mode::Call
               : m == "setstream" ? Mode::SetStream
               : m == "sync"      ? Mode::Sync
               : m == "driver"    ? Mode::Driver
                                  : (usage(), Mode::Call);
    } else if (a == "--iters")
      o.iters = std::atoi(next().c_str());
    else if (a == "--batches")
      o.batches = std::atoi(next().c_str());
    else if (a == "--lib")
      o.lib = next();
    else if (a == "--fn")
      o.fn = next();
    else if (a == "--rows")
      o.rows = std::atoll(next().c_str());
    else if (a == "--cols")
      o.cols = std::atoll(next().c_str());
    else if (a == "--null-stream")
      o.useNullStream = true;
    else
      usage();
  }
  if ((o.command != "pattern" && o.command != "entry") ||
      (o.shape != "static" && o.shape != "dynamic") || o.iters < 1 ||
      o.batches < 1)
    usage();
  return o;
}

/// Driver calls made so far, by name (fake driver only).
struct CallCounts {
  static constexpr const char *kNames[] = {
      "cuCtxGetCurrent",   "cuCtxSetCurrent",     "cuCtxPushCurrent",
      "cuCtxPopCurrent",   "cuModuleGetFunction", "cuFuncGetParamInfo",
      "cuFuncSetAttribute", "cuLaunchKernel",     "cuStreamCreate",
      "cuStreamSynchronize", "cuStreamDestroy",   "cuMemAlloc",
      "cuMemFree",         "cuMemAllocAsync",     "cuMemAllocFromPoolAsync",
      "cuMemFreeAsync",    "cuMemcpyAsync"};
  long long values[sizeof(kNames) / sizeof(kNames[0])] = {};
  void read() {
    for (size_t i = 0; i < sizeof(kNames) / sizeof(kNames[0]); ++i)
      values[i] = fakeCallCount ? fakeCallCount(kNames[i]) : 0;
  }
};

void printCallsPerCall(const CallCounts &before, const CallCounts &after,
                       long long calls) {
  if (!fakeCallCount)
    return;
  std::printf("  driver calls per call (fake driver):");
  bool any = false;
  for (size_t i = 0; i < sizeof(CallCounts::kNames) / sizeof(char *); ++i) {
    long long n = after.values[i] - before.values[i];
    if (n <= 0)
      continue;
    std::printf(" %s %.2f", CallCounts::kNames[i], double(n) / calls);
    any = true;
  }
  std::printf("%s\n", any ? "" : " none");
}

/// Runs `call` in batches; returns per-call ns (median, min).
template <typename CallFn, typename SyncFn>
void timeBatches(const Options &o, const char *label, CallFn &&call,
                 SyncFn &&sync) {
  // Warm-up: first launches check parameters, opt into shared memory, fill
  // caches and pools.
  for (int i = 0; i < 20; ++i)
    call();
  sync();
  // Driver calls are counted over the timed loops only (not the syncs).
  CallCounts before, after, total;
  std::vector<double> perCall;
  for (int b = 0; b < o.batches; ++b) {
    before.read();
    double t0 = nowNs();
    for (int i = 0; i < o.iters; ++i)
      call();
    double t1 = nowNs();
    after.read();
    for (size_t k = 0; k < sizeof(CallCounts::kNames) / sizeof(char *); ++k)
      total.values[k] += after.values[k] - before.values[k];
    sync();
    perCall.push_back((t1 - t0) / o.iters);
  }
  CallCounts zero;
  std::sort(perCall.begin(), perCall.end());
  std::printf("%s: %.0f ns per call (median of %d batches of %d; min %.0f)\n",
              label, perCall[perCall.size() / 2], o.batches, o.iters,
              perCall.front());
  printCallsPerCall(zero, total, (long long)o.batches * o.iters);
}

int checkErrors(int errorsBefore) {
  int errors = txRuntimeErrorCount() - errorsBefore;
  if (errors) {
    const char *last = txRuntimeGetLastError();
    std::printf("FAILED: %d runtime errors; last: %s\n", errors,
                last ? last : "(on another thread)");
    return 1;
  }
  return 0;
}

//===----------------------------------------------------------------------===//
// pattern
//===----------------------------------------------------------------------===//

int runPattern(const Options &o) {
  CUmodule module = mgpuModuleLoadJIT(const_cast<char *>(kScalePtx), 4);
  if (!module)
    return 1;
  static const char kKernel[] = "tx_bench_scale";
  const uint32_t n = 256;
  CUstream stream = o.useNullStream ? nullptr : mgpuStreamCreate();
  void *in = mgpuMemAlloc(n * sizeof(float), stream, 0);
  void *out = mgpuMemAlloc(n * sizeof(float), stream, 0);
  std::vector<float> host(n);
  for (uint32_t i = 0; i < n; ++i)
    host[i] = float(i);
  mgpuMemcpy(in, host.data(), n * sizeof(float), stream);
  mgpuMemset32(out, 0, n, stream);
  mgpuStreamSynchronize(stream);
  int errorsBefore = txRuntimeErrorCount();

  bool dynamic = o.shape == "dynamic";
  // One call, as MLIR's host code makes it.
  auto body = [&] {
    void *dst = out;
    void *tmp = nullptr;
    if (dynamic) {
      CUstream s = mgpuStreamCreate();
      tmp = mgpuMemAlloc(n * sizeof(float), s, 0);
      mgpuStreamSynchronize(s);
      mgpuStreamDestroy(s);
      dst = tmp;
    }
    CUfunction f = mgpuModuleGetFunction(module, kKernel);
    CUstream s = mgpuStreamCreate();
    void *a0 = dst, *a1 = in;
    uint32_t a2 = n;
    void *params[] = {&a0, &a1, &a2};
    mgpuLaunchKernel(f, 1, 1, 1, 256, 1, 1, 0, s, params, nullptr, 3);
    mgpuStreamSynchronize(s);
    mgpuStreamDestroy(s);
    if (dynamic) {
      s = mgpuStreamCreate();
      mgpuMemcpy(out, tmp, n * sizeof(float), s);
      mgpuStreamSynchronize(s);
      mgpuStreamDestroy(s);
      s = mgpuStreamCreate();
      mgpuMemFree(tmp, s);
      mgpuStreamSynchronize(s);
      mgpuStreamDestroy(s);
    }
  };

  char label[128];
  std::snprintf(label, sizeof(label), "pattern %s, mode %s%s",
                o.shape.c_str(), modeName(o.mode),
                o.useNullStream ? ", null stream" : "");
  auto syncStream = [&] { mgpuStreamSynchronize(stream); };
  switch (o.mode) {
  case Mode::Call:
    if (!beginCall || !endCall) {
      std::printf("%s: skipped (this runtime has no txRuntimeBeginCall)\n",
                  label);
      return 0;
    }
    timeBatches(
        o, label,
        [&] {
          beginCall(stream);
          body();
          if (endCall() != 0)
            std::abort();
        },
        syncStream);
    break;
  case Mode::SetStream:
    if (!setStream || o.useNullStream) {
      std::printf("%s: skipped\n", label);
      return 0;
    }
    setStream(stream, 1);
    timeBatches(o, label, body, [&] {
      setStream(nullptr, 0);
      syncStream();
      setStream(stream, 1);
    });
    setStream(nullptr, 0);
    break;
  case Mode::Sync:
    timeBatches(o, label, body, syncStream);
    break;
  case Mode::Driver: {
    // The same work as bare driver calls: the floor under the runtime.
    auto launchKernel = reinterpret_cast<CuLaunchKernelFn>(
        dlsym(RTLD_DEFAULT, "cuLaunchKernel"));
    auto getFunction = reinterpret_cast<CuModuleGetFunctionFn>(
        dlsym(RTLD_DEFAULT, "cuModuleGetFunction"));
    auto allocAsync = reinterpret_cast<CuMemAllocAsyncFn>(
        dlsym(RTLD_DEFAULT, "cuMemAllocAsync"));
    auto freeAsync = reinterpret_cast<CuMemFreeAsyncFn>(
        dlsym(RTLD_DEFAULT, "cuMemFreeAsync"));
    auto memcpyAsync = reinterpret_cast<CuMemcpyAsyncFn>(
        dlsym(RTLD_DEFAULT, "cuMemcpyAsync"));
    if (!launchKernel || !getFunction || !allocAsync || !freeAsync ||
        !memcpyAsync) {
      std::printf("%s: skipped (driver entry points not found)\n", label);
      return 0;
    }
    CUfunction f = nullptr;
    if (getFunction(&f, module, kKernel) != 0)
      return 1;
    timeBatches(
        o, label,
        [&] {
          uintptr_t tmp = 0;
          if (dynamic && allocAsync(&tmp, n * sizeof(float), stream) != 0)
            std::abort();
          void *a0 = dynamic ? reinterpret_cast<void *>(tmp) : out, *a1 = in;
          uint32_t a2 = n;
          void *params[] = {&a0, &a1, &a2};
          if (launchKernel(f, 1, 1, 1, 256, 1, 1, 0, stream, params,
                           nullptr) != 0)
            std::abort();
          if (dynamic &&
              (memcpyAsync(reinterpret_cast<uintptr_t>(out), tmp,
                           n * sizeof(float), stream) != 0 ||
               freeAsync(tmp, stream) != 0))
            std::abort();
        },
        syncStream);
    break;
  }
  }

  int status = checkErrors(errorsBefore);
  if (!fakeCallCount) { // real GPU: check the kernel's output
    std::vector<float> result(n, -1.0f);
    mgpuMemcpy(result.data(), out, n * sizeof(float), stream);
    mgpuStreamSynchronize(stream);
    for (uint32_t i = 0; i < n; ++i)
      if (result[i] != 2.0f * float(i)) {
        std::printf("FAILED: out[%u] = %g, expected %g\n", i, result[i],
                    2.0 * i);
        return 1;
      }
  }
  mgpuMemFree(in, stream);
  mgpuMemFree(out, stream);
  if (stream)
    mgpuStreamSynchronize(stream);
  mgpuStreamDestroy(stream);
  return status;
}

//===----------------------------------------------------------------------===//
// entry
//===----------------------------------------------------------------------===//

struct MemRef2D {
  float *allocated;
  float *aligned;
  int64_t offset;
  int64_t sizes[2];
  int64_t strides[2];
};

int runEntry(const Options &o) {
  if (o.lib.empty() || o.fn.empty())
    usage();
  void *lib = dlopen(o.lib.c_str(), RTLD_NOW | RTLD_LOCAL);
  if (!lib) {
    std::printf("FAILED: dlopen %s: %s\n", o.lib.c_str(), dlerror());
    return 1;
  }
  using EntryFn = void (*)(MemRef2D *, MemRef2D *);
  using OnStreamFn = int32_t (*)(MemRef2D *, MemRef2D *, CUstream);
  std::string name = "_mlir_ciface_" + o.fn;
  auto entry = reinterpret_cast<EntryFn>(dlsym(lib, name.c_str()));
  auto onStream = reinterpret_cast<OnStreamFn>(
      dlsym(lib, (name + "_on_stream").c_str()));
  if (!entry) {
    std::printf("FAILED: %s not in %s\n", name.c_str(), o.lib.c_str());
    return 1;
  }
  const int64_t n = o.rows * o.cols;
  CUstream stream = mgpuStreamCreate();
  auto *in = static_cast<float *>(mgpuMemAlloc(n * sizeof(float), stream, 0));
  auto *out = static_cast<float *>(mgpuMemAlloc(n * sizeof(float), stream, 0));
  std::vector<float> host(n);
  for (int64_t i = 0; i < n; ++i)
    host[i] = float((i * 7) % 13) * 0.25f;
  mgpuMemcpy(in, host.data(), n * sizeof(float), stream);
  mgpuMemset32(out, 0, n, stream);
  mgpuStreamSynchronize(stream);
  MemRef2D a{in, in, 0, {o.rows, o.cols}, {o.cols, 1}};
  MemRef2D r{out, out, 0, {o.rows, o.cols}, {o.cols, 1}};
  int errorsBefore = txRuntimeErrorCount();

  char label[256];
  std::snprintf(label, sizeof(label), "entry %s (%lldx%lld f32), mode %s%s",
                o.fn.c_str(), (long long)o.rows, (long long)o.cols,
                modeName(o.mode),
                o.mode == Mode::Call
                    ? (onStream ? " via _on_stream" : " via Begin/EndCall")
                    : "");
  auto syncStream = [&] { mgpuStreamSynchronize(stream); };
  switch (o.mode) {
  case Mode::Call:
    if (!onStream && (!beginCall || !endCall)) {
      std::printf("%s: skipped (no _on_stream entry and no "
                  "txRuntimeBeginCall)\n",
                  label);
      return 0;
    }
    timeBatches(
        o, label,
        [&] {
          int32_t rc;
          if (onStream) {
            rc = onStream(&a, &r, stream);
          } else {
            beginCall(stream);
            entry(&a, &r);
            rc = endCall();
          }
          if (rc != 0)
            std::abort();
        },
        syncStream);
    break;
  case Mode::SetStream:
    if (!setStream) {
      std::printf("%s: skipped\n", label);
      return 0;
    }
    setStream(stream, 1);
    timeBatches(o, label, [&] { entry(&a, &r); },
                [&] {
                  setStream(nullptr, 0);
                  syncStream();
                  setStream(stream, 1);
                });
    setStream(nullptr, 0);
    break;
  case Mode::Sync:
    timeBatches(o, label, [&] { entry(&a, &r); }, syncStream);
    break;
  case Mode::Driver:
    usage();
  }
  int status = checkErrors(errorsBefore);
  if (!fakeCallCount && o.fn.find("softmax") != std::string::npos) {
    std::vector<float> result(n, 0.0f);
    mgpuMemcpy(result.data(), out, n * sizeof(float), stream);
    mgpuStreamSynchronize(stream);
    for (int64_t row = 0; row < o.rows; ++row) {
      double sum = 0;
      for (int64_t c = 0; c < o.cols; ++c)
        sum += result[row * o.cols + c];
      if (std::fabs(sum - 1.0) > 1e-4) {
        std::printf("FAILED: softmax row %lld sums to %g\n", (long long)row,
                    sum);
        return 1;
      }
    }
    std::printf("  result checked: every row sums to 1\n");
  }
  mgpuMemFree(in, stream);
  mgpuMemFree(out, stream);
  mgpuStreamSynchronize(stream);
  mgpuStreamDestroy(stream);
  return status;
}

} // namespace

int main(int argc, char **argv) {
  Options o = parse(argc, argv);
  beginCall =
      reinterpret_cast<BeginCallFn>(dlsym(RTLD_DEFAULT, "txRuntimeBeginCall"));
  endCall = reinterpret_cast<EndCallFn>(dlsym(RTLD_DEFAULT, "txRuntimeEndCall"));
  setStream =
      reinterpret_cast<SetStreamFn>(dlsym(RTLD_DEFAULT, "txRuntimeSetStream"));
  fakeCallCount =
      reinterpret_cast<FakeCallCountFn>(dlsym(RTLD_DEFAULT, "fakeCudaCallCount"));
  std::setvbuf(stdout, nullptr, _IOLBF, 0);
  return o.command == "pattern" ? runPattern(o) : runEntry(o);
}
