//===- EntryTest.cpp - compiled entry points over the runtime ------------===//
//
//   tx-runtime-entrytest LIB.so
//
// Calls the entry points of a library compiled by scripts/tx-compile.sh from
// test/Runtime/Inputs/small.mlir:
//   softmax_dyn_f16(tensor<?x?xf16>) -> tensor<?x?xf16>   (fast kernel; the
//       result is written into the out-parameter, no temporary)
//   attn_gqa_causal_f32(q 1x4x16x32, k 1x2x16x32, v 1x2x16x32 f32)
//   softmax_dim0_dyn_f16(tensor<?x?xf16>) -> tensor<?x?xf16> (reference
//       lowering: device temporaries, allocated and freed in the call)
// synchronously and stream-ordered (through _mlir_ciface_<f>_on_stream when
// the library has it, else through the same host code between
// txRuntimeBeginCall and txRuntimeEndCall, which is what that entry point
// does), and with a fault injected into each driver call a stream-ordered
// call makes: the failure must be reported naming the call, the error and
// (for launches) the compiled kernel; EndCall must return nonzero; nothing
// may leak (fake driver); the next call must work. With the fake driver
// (LD_LIBRARY_PATH=build/fake-cuda) kernels do not run, so results are only
// checked on a GPU (softmax rows sum to 1).
//
//===----------------------------------------------------------------------===//

#include "TestUtil.h"

#include <dlfcn.h>

#include <cmath>
#include <cstdint>
#include <cstdlib>
#include <string>
#include <thread>
#include <vector>

using namespace txtest;

namespace {

template <int Rank> struct MemRef {
  void *allocated;
  void *aligned;
  int64_t offset;
  int64_t sizes[Rank];
  int64_t strides[Rank];
};

template <int Rank>
MemRef<Rank> memref(void *data, const int64_t (&sizes)[Rank]) {
  MemRef<Rank> m;
  m.allocated = m.aligned = data;
  m.offset = 0;
  int64_t stride = 1;
  for (int i = Rank - 1; i >= 0; --i) {
    m.sizes[i] = sizes[i];
    m.strides[i] = stride;
    stride *= sizes[i];
  }
  return m;
}

using Softmax = void (*)(MemRef<2> *, MemRef<2> *);
using SoftmaxOnStream = int32_t (*)(MemRef<2> *, MemRef<2> *, CUstream);
using Attention = void (*)(MemRef<4> *, MemRef<4> *, MemRef<4> *,
                           MemRef<4> *);
using AttentionOnStream = int32_t (*)(MemRef<4> *, MemRef<4> *, MemRef<4> *,
                                      MemRef<4> *, CUstream);

struct Library {
  Softmax softmax = nullptr;
  SoftmaxOnStream softmaxOnStream = nullptr;
  Softmax scratch = nullptr; // softmax_dim0_dyn_f16: has temporaries
  SoftmaxOnStream scratchOnStream = nullptr;
  Attention attention = nullptr;
  AttentionOnStream attentionOnStream = nullptr;
};

struct Buffers {
  static constexpr int64_t rows = 8, cols = 64;
  CUstream stream = nullptr;
  uint16_t *x = nullptr, *y = nullptr;                   // f16
  float *q = nullptr, *k = nullptr, *v = nullptr, *o = nullptr; // f32
  MemRef<2> mx, my;
  MemRef<4> mq, mk, mv, mo;
};

Library lib;
Buffers buf;

double halfToDouble(uint16_t h) {
  int exponent = (h >> 10) & 0x1f, mantissa = h & 0x3ff;
  double value = exponent ? std::ldexp(1.0 + mantissa / 1024.0, exponent - 15)
                          : std::ldexp(mantissa / 1024.0, -14);
  return (h & 0x8000) ? -value : value;
}

/// x in [-2, 2) exactly representable in f16: k / 64 for k in [-128, 128).
uint16_t halfOf(int k) {
  if (k == 0)
    return 0;
  double v = std::fabs(k / 64.0);
  int e = 0;
  double m = std::frexp(v, &e); // v = m * 2^e, m in [0.5, 1)
  uint16_t bits = uint16_t(((e - 1 + 15) << 10) |
                           (int(std::lround((m * 2 - 1) * 1024)) & 0x3ff));
  return k < 0 ? uint16_t(bits | 0x8000) : bits;
}


void *alloc(size_t bytes) { return mgpuMemAlloc(bytes, buf.stream, 0); }

void setUp() {
  CUstream s = nullptr;
  driver().streamCreate(&s, 1);
  buf.stream = s;
  const int64_t n = Buffers::rows * Buffers::cols;
  buf.x = static_cast<uint16_t *>(alloc(n * 2));
  buf.y = static_cast<uint16_t *>(alloc(n * 2));
  buf.q = static_cast<float *>(alloc(4 * 16 * 32 * 4));
  buf.k = static_cast<float *>(alloc(2 * 16 * 32 * 4));
  buf.v = static_cast<float *>(alloc(2 * 16 * 32 * 4));
  buf.o = static_cast<float *>(alloc(4 * 16 * 32 * 4));
  mgpuMemset16(buf.x, 0x3c00 /* 1.0 */, n, s);
  mgpuMemset32(buf.q, 0, 4 * 16 * 32, s);
  mgpuMemset32(buf.k, 0, 2 * 16 * 32, s);
  mgpuMemset32(buf.v, 0, 2 * 16 * 32, s);
  mgpuStreamSynchronize(s);
  buf.mx = memref<2>(buf.x, {Buffers::rows, Buffers::cols});
  buf.my = memref<2>(buf.y, {Buffers::rows, Buffers::cols});
  buf.mq = memref<4>(buf.q, {1, 4, 16, 32});
  buf.mk = memref<4>(buf.k, {1, 2, 16, 32});
  buf.mv = memref<4>(buf.v, {1, 2, 16, 32});
  buf.mo = memref<4>(buf.o, {1, 4, 16, 32});
}

enum Entry { kSoftmax, kAttention, kScratch };
const char *entryName(Entry e) {
  return e == kSoftmax     ? "softmax_dyn_f16"
         : e == kAttention ? "attn_gqa_causal_f32"
                           : "softmax_dim0_dyn_f16";
}

/// One stream-ordered call of an entry point; returns EndCall's results.
int callOnStream(Entry entry) {
  if (entry != kAttention) {
    Softmax f = entry == kSoftmax ? lib.softmax : lib.scratch;
    SoftmaxOnStream fs =
        entry == kSoftmax ? lib.softmaxOnStream : lib.scratchOnStream;
    if (fs)
      return fs(&buf.mx, &buf.my, buf.stream);
    txRuntimeBeginCall(buf.stream);
    f(&buf.mx, &buf.my);
    return txRuntimeEndCall();
  }
  if (lib.attentionOnStream)
    return lib.attentionOnStream(&buf.mq, &buf.mk, &buf.mv, &buf.mo,
                                 buf.stream);
  txRuntimeBeginCall(buf.stream);
  lib.attention(&buf.mq, &buf.mk, &buf.mv, &buf.mo);
  return txRuntimeEndCall();
}

/// On a GPU: every softmax row of y sums to 1 (f16 results).
bool softmaxResultRight() {
  if (driver().isFake())
    return true;
  const int64_t n = Buffers::rows * Buffers::cols;
  std::vector<uint16_t> host(n);
  mgpuMemcpy(host.data(), buf.y, n * 2, buf.stream);
  mgpuStreamSynchronize(buf.stream);
  for (int64_t r = 0; r < Buffers::rows; ++r) {
    double sum = 0;
    for (int64_t c = 0; c < Buffers::cols; ++c)
      sum += halfToDouble(host[r * Buffers::cols + c]);
    if (std::fabs(sum - 1.0) > 1e-2)
      return false;
  }
  return true;
}

/// Two host threads call the compiled softmax at once, each on its own
/// stream with its own data; each checks its results (on a GPU) against a
/// host softmax, and one thread's failure (txRuntimeFail in its call) stays
/// its own.
void testTwoThreads() {
  const int64_t rows = 64, cols = 256, n = rows * cols;
  const int iterations = 100;
  struct Result {
    int wrong = 0, errors = 0, ok = 0;
    std::string lastError;
  } results[2];
  auto worker = [&](int id) {
    Result &r = results[id];
    Driver &d = driver();
    void *current = nullptr;
    d.ctxGetCurrent(&current);
    if (!current) {
      d.devicePrimaryCtxRetain(&current, 0);
      d.ctxSetCurrent(current);
    }
    CUstream stream = nullptr;
    d.streamCreate(&stream, 1);
    auto *x = static_cast<uint16_t *>(mgpuMemAlloc(n * 2, stream, 0));
    auto *y = static_cast<uint16_t *>(mgpuMemAlloc(n * 2, stream, 0));
    std::vector<uint16_t> hx(n), hy(n);
    std::vector<double> reference(n);
    for (int64_t i = 0; i < n; ++i)
      hx[i] = halfOf(int((i * (7 + 4 * id) + 13 * id) % 256) - 128);
    for (int64_t row = 0; row < rows; ++row) {
      double max = -1e30, sum = 0;
      for (int64_t c = 0; c < cols; ++c)
        max = std::fmax(max, halfToDouble(hx[row * cols + c]));
      for (int64_t c = 0; c < cols; ++c)
        sum += std::exp(halfToDouble(hx[row * cols + c]) - max);
      for (int64_t c = 0; c < cols; ++c)
        reference[row * cols + c] =
            std::exp(halfToDouble(hx[row * cols + c]) - max) / sum;
    }
    mgpuMemcpy(x, hx.data(), n * 2, stream);
    mgpuStreamSynchronize(stream);
    MemRef<2> mx = memref<2>(x, {rows, cols}), my = memref<2>(y, {rows, cols});
    for (int i = 0; i < iterations; ++i) {
      mgpuMemset16(y, 0, n, stream);
      int errors;
      if (id == 1 && i == iterations / 2) {
        txRuntimeBeginCall(stream);
        txRuntimeFail("thread 1: deliberate failure");
        errors = txRuntimeEndCall();
      } else if (lib.softmaxOnStream) {
        errors = lib.softmaxOnStream(&mx, &my, stream);
      } else {
        txRuntimeBeginCall(stream);
        lib.softmax(&mx, &my);
        errors = txRuntimeEndCall();
      }
      if (errors) {
        ++r.errors;
        continue;
      }
      ++r.ok;
      if (driver().isFake())
        continue;
      mgpuMemcpy(hy.data(), y, n * 2, stream);
      mgpuStreamSynchronize(stream);
      for (int64_t k = 0; k < n; ++k)
        if (std::fabs(halfToDouble(hy[k]) - reference[k]) >
            2e-3 * std::fmax(1.0, reference[k]) + 1e-4) {
          ++r.wrong;
          break;
        }
    }
    const char *last = txRuntimeGetLastError();
    r.lastError = last ? last : "";
    mgpuMemFree(x, stream);
    mgpuMemFree(y, stream);
    mgpuStreamSynchronize(stream);
    d.streamDestroy(stream);
  };
  std::thread a(worker, 0), b(worker, 1);
  a.join();
  b.join();
  expect(results[0].ok == iterations && results[1].ok == iterations - 1 &&
             results[0].wrong == 0 && results[1].wrong == 0,
         "two threads call the compiled softmax at once on two streams: " +
             std::string(driver().isFake() ? "every call succeeds"
                                           : "every result is right"));
  expect(results[0].errors == 0 && results[0].lastError.empty() &&
             results[1].errors == 1 &&
             results[1].lastError == "thread 1: deliberate failure",
         "each thread sees only its own failure");
}

void zeroResult() {
  mgpuMemset16(buf.y, 0, Buffers::rows * Buffers::cols, buf.stream);
  mgpuStreamSynchronize(buf.stream);
}

struct Live {
  long long allocations, streams, events;
  bool operator==(const Live &o) const {
    return allocations == o.allocations && streams == o.streams &&
           events == o.events;
  }
};
Live live() {
  FakeCudaStats s = driver().stats();
  return Live{s.liveAllocations, s.liveStreams, s.liveEvents};
}

} // namespace

int main(int argc, char **argv) {
  unsetenv("TX_RUNTIME_ABORT_ON_ERROR");
  std::setvbuf(stdout, nullptr, _IOLBF, 0);
  if (argc != 2) {
    std::fprintf(stderr, "usage: tx-runtime-entrytest LIB.so\n");
    return 2;
  }
  void *handle = dlopen(argv[1], RTLD_NOW | RTLD_LOCAL);
  if (!handle) {
    std::printf("FAILED: dlopen: %s\n", dlerror());
    return 1;
  }
  lib.softmax = reinterpret_cast<Softmax>(
      dlsym(handle, "_mlir_ciface_softmax_dyn_f16"));
  lib.softmaxOnStream = reinterpret_cast<SoftmaxOnStream>(
      dlsym(handle, "_mlir_ciface_softmax_dyn_f16_on_stream"));
  lib.attention = reinterpret_cast<Attention>(
      dlsym(handle, "_mlir_ciface_attn_gqa_causal_f32"));
  lib.attentionOnStream = reinterpret_cast<AttentionOnStream>(
      dlsym(handle, "_mlir_ciface_attn_gqa_causal_f32_on_stream"));
  lib.scratch = reinterpret_cast<Softmax>(
      dlsym(handle, "_mlir_ciface_softmax_dim0_dyn_f16"));
  lib.scratchOnStream = reinterpret_cast<SoftmaxOnStream>(
      dlsym(handle, "_mlir_ciface_softmax_dim0_dyn_f16_on_stream"));
  if (!lib.softmax || !lib.attention || !lib.scratch) {
    std::printf("FAILED: the library lacks small.mlir's entry points\n");
    return 1;
  }
  std::printf("driver: %s; entry points: %s\n",
              driver().isFake() ? "fake" : "real",
              lib.softmaxOnStream ? "_on_stream (compiled)"
                                  : "synchronous, wrapped in Begin/EndCall");
  int loadErrors = txRuntimeErrorCount();
  expect(loadErrors == 0, "the library's kernels loaded without error");
  long long failedBefore = driver().stats().failedCalls;
  setUp();

  // The synchronous form.
  int before = txRuntimeErrorCount();
  lib.scratch(&buf.mx, &buf.my);
  lib.softmax(&buf.mx, &buf.my);
  lib.attention(&buf.mq, &buf.mk, &buf.mv, &buf.mo);
  expect(txRuntimeErrorCount() == before && softmaxResultRight(),
         "synchronous calls work");

  // The stream-ordered form.
  zeroResult();
  int errors = callOnStream(kScratch) + callOnStream(kSoftmax) +
               callOnStream(kAttention);
  mgpuStreamSynchronize(buf.stream);
  expect(errors == 0 && softmaxResultRight(), "stream-ordered calls work");
  if (driver().isFake())
    expect(driver().stats().failedCalls == failedBefore,
           "no driver call failed (fake driver's count)");

  // A fault in each driver call of a stream-ordered call. (Compiled code
  // copies on the device only a result that aliases another, none here:
  // cuMemcpyAsync faults are covered by calls.test/faults.test.)
  struct Fault {
    const char *call;
    const char *error;
    Entry entry;
    const char *mustName;
  } faults[] = {
      {"cuMemAllocFromPoolAsync", "CUDA_ERROR_OUT_OF_MEMORY", kScratch,
       "bytes of device memory"},
      {"cuLaunchKernel", "CUDA_ERROR_LAUNCH_OUT_OF_RESOURCES", kSoftmax,
       "kernel 'softmax_dyn_f16_kernel'"},
      {"cuMemFreeAsync", "CUDA_ERROR_INVALID_VALUE", kScratch, "pointer"},
      {"cuLaunchKernel", "CUDA_ERROR_LAUNCH_OUT_OF_RESOURCES", kAttention,
       "kernel 'attn_gqa_causal_f32_kernel'"},
      {"cuCtxGetCurrent", "CUDA_ERROR_INVALID_CONTEXT", kAttention,
       "txRuntimeBeginCall"},
  };
  for (const Fault &fault : faults) {
    std::string name = std::string(entryName(fault.entry)) + ", " + fault.call;
    zeroResult();
    Live baseline = live();
    std::string plan = std::string(fault.call) + ":1:" + fault.error;
    txRuntimeSetFaultInjection(plan.c_str());
    int failed = callOnStream(fault.entry);
    txRuntimeSetFaultInjection(nullptr);
    mgpuStreamSynchronize(buf.stream);
    std::string message = takeError();
    expect(failed != 0 && contains(message, fault.call) &&
               contains(message, fault.error) &&
               contains(message, fault.mustName),
           name + ": reported, EndCall returns " + std::to_string(failed) +
               ": " + message);
    if (driver().isFake() && std::string(fault.call) != "cuMemFreeAsync")
      expect(live() == baseline, name + ": nothing leaked");
    errors = callOnStream(fault.entry);
    mgpuStreamSynchronize(buf.stream);
    expect(errors == 0 && (fault.entry != kSoftmax || softmaxResultRight()),
           name + ": the next call works");
  }
  testTwoThreads();
  return exitStatus("tx-runtime-entrytest");
}
