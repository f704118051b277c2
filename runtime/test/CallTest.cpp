//===- CallTest.cpp - stream-ordered calls and per-thread runtime state --===//
//
// Checks txRuntimeBeginCall / txRuntimeEndCall / txRuntimeFail and the
// per-thread state of the runtime, by running the exact sequences of mgpu*
// calls that MLIR 22 host code makes (a static-shape call: one launch into
// the result; a dynamic-shape call: a device temporary allocated, launched
// into, copied into the result and freed, each step in its own
// StreamCreate..StreamDestroy bracket) inside and outside calls:
//   - a call enqueues everything on its stream and returns without waiting;
//     with the fake driver: no synchronization, no cuMemAlloc/cuMemFree, no
//     stream creation, no module load, at most one context query per call;
//   - a call can be captured into a CUDA graph (and the graph replayed);
//   - txRuntimeFail records its message and EndCall reports it; nothing
//     aborts; the next call works;
//   - a call whose device memory cannot be allocated reports it, launches
//     nothing on the missing memory, and the next call works;
//   - two threads inside calls at once on different streams get their own
//     results, streams and errors;
//   - contexts: a thread without one, another context current, a caller
//     switching contexts between calls; txRuntimeSetStream is per thread;
//     calls nest.
// Runs with the fake driver (LD_LIBRARY_PATH=build/fake-cuda; the context
// checks need FAKE_CUDA_DEVICES=2) and on a GPU. Exit status 0 when every
// check passed.
//
//===----------------------------------------------------------------------===//

#include "TestUtil.h"

#include <cstdint>
#include <cstdlib>
#include <string>
#include <thread>
#include <vector>

using namespace txtest;

namespace {

const char *kFill = "tx_selftest_fill";
CUmodule module = nullptr;

/// The stream the last fill launch of this thread ran on (fake driver).
thread_local void *lastFillStream = nullptr;

/// Host version of tx_selftest_fill for the fake driver, which also records
/// the stream it was launched on.
void fakeFill(const FakeCudaLaunch *launch, void **params) {
  auto *out = *static_cast<uint32_t **>(params[0]);
  uint32_t base = *static_cast<uint32_t *>(params[1]);
  uint32_t n = *static_cast<uint32_t *>(params[2]);
  uint64_t threads = uint64_t(launch->grid[0]) * launch->block[0];
  for (uint64_t i = 0; i < threads && i < n; ++i)
    out[i] = base + static_cast<uint32_t>(i);
  lastFillStream = launch->stream;
}

void launchFill(uint32_t *out, uint32_t base, uint32_t n, CUstream s,
                intptr_t block = 128) {
  CUfunction f = mgpuModuleGetFunction(module, kFill);
  void *a0 = out;
  void *params[] = {&a0, &base, &n};
  mgpuLaunchKernel(f, (n + 127) / 128, 1, 1, block, 1, 1, 0, s, params,
                   nullptr, 3);
}

/// The host code of a static-shape entry point: out[i] = base + i.
void staticCall(uint32_t *out, uint32_t base, uint32_t n) {
  CUstream s = mgpuStreamCreate();
  launchFill(out, base, n, s);
  mgpuStreamSynchronize(s);
  mgpuStreamDestroy(s);
}

/// The host code of a dynamic-shape entry point: the result goes through a
/// device temporary. `bytes` overrides the temporary's size (to fail it).
void dynamicCall(uint32_t *out, uint32_t base, uint32_t n,
                 uint64_t bytes = 0) {
  CUstream s = mgpuStreamCreate();
  auto *tmp = static_cast<uint32_t *>(mgpuMemAlloc(bytes ? bytes : n * 4, s, 0));
  mgpuStreamSynchronize(s);
  mgpuStreamDestroy(s);
  s = mgpuStreamCreate();
  launchFill(tmp, base, n, s);
  mgpuStreamSynchronize(s);
  mgpuStreamDestroy(s);
  s = mgpuStreamCreate();
  mgpuMemcpy(out, tmp, n * 4, s);
  mgpuStreamSynchronize(s);
  mgpuStreamDestroy(s);
  s = mgpuStreamCreate();
  mgpuMemFree(tmp, s);
  mgpuStreamSynchronize(s);
  mgpuStreamDestroy(s);
}

/// Waits for `stream` (outside calls) and checks out[i] == base + i.
bool check(const uint32_t *out, uint32_t base, uint32_t n, CUstream stream) {
  std::vector<uint32_t> host(n, 0);
  mgpuMemcpy(host.data(), const_cast<uint32_t *>(out), n * 4, stream);
  mgpuStreamSynchronize(stream);
  for (uint32_t i = 0; i < n; ++i)
    if (host[i] != base + i)
      return false;
  return true;
}

/// A stream of the caller's own (not the runtime's), as PyTorch's would be,
/// in device 0's primary context (made current first if the thread has no
/// current context, as the CUDA runtime API would).
CUstream callerStream() {
  Driver &d = driver();
  void *current = nullptr;
  d.ctxGetCurrent(&current);
  if (!current) {
    void *primary = nullptr;
    d.devicePrimaryCtxRetain(&primary, 0);
    d.ctxSetCurrent(primary);
  }
  CUstream s = nullptr;
  int rc = d.streamCreate(&s, 1 /*CU_STREAM_NON_BLOCKING*/);
  if (rc != 0 || !s) {
    std::printf("[FAIL] cuStreamCreate for a caller's stream: %d\n", rc);
    ++failureCount();
  }
  return s;
}

struct Counts {
  const char *names[12] = {"cuStreamSynchronize", "cuCtxSynchronize",
                           "cuEventSynchronize",  "cuMemAlloc",
                           "cuMemFree",           "cuStreamCreate",
                           "cuStreamDestroy",     "cuModuleLoadDataEx",
                           "cuModuleGetFunction", "cuCtxGetCurrent",
                           "cuCtxSetCurrent",     "cuCtxPushCurrent"};
  long long values[12] = {};
  void read() {
    for (int i = 0; i < 12; ++i)
      values[i] = driver().calls(names[i]);
  }
};

//===----------------------------------------------------------------------===//

void testBasicCalls() {
  const uint32_t n = 1000;
  CUstream stream = callerStream();
  auto *out = static_cast<uint32_t *>(mgpuMemAlloc(n * 4, stream, 0));
  mgpuStreamSynchronize(stream);

  for (bool dynamic : {false, true}) {
    const char *kind = dynamic ? "dynamic-shape" : "static-shape";
    // Warm up (first lookups, parameter check), then count driver calls.
    txRuntimeBeginCall(stream);
    dynamic ? dynamicCall(out, 1, n) : staticCall(out, 1, n);
    txRuntimeEndCall();
    mgpuStreamSynchronize(stream);
    Counts before, after;
    before.read();
    long long launches = driver().stats().launches;
    const int calls = 10;
    int errors = 0;
    for (int i = 0; i < calls; ++i) {
      txRuntimeBeginCall(stream);
      dynamic ? dynamicCall(out, 100 + i, n) : staticCall(out, 100 + i, n);
      errors += txRuntimeEndCall();
    }
    after.read();
    long long launched = driver().stats().launches - launches;
    expect(errors == 0, std::string(kind) + " calls: EndCall returns 0");
    if (driver().isFake()) {
      expect(launched == calls && lastFillStream == stream,
             std::string(kind) + " calls launch on the caller's stream");
      std::string blocking;
      for (int i = 0; i < 9; ++i)
        if (after.values[i] != before.values[i])
          blocking += std::string(" ") + before.names[i] + " x" +
                      std::to_string(after.values[i] - before.values[i]);
      expect(blocking.empty(),
             std::string(kind) +
                 " calls make no synchronizing, cuMemAlloc/cuMemFree, stream "
                 "creation, module or kernel lookup driver calls" +
                 (blocking.empty() ? "" : ":" + blocking));
      long long contextCalls = 0;
      for (int i = 9; i < 12; ++i)
        contextCalls += after.values[i] - before.values[i];
      expect(contextCalls == calls,
             std::string(kind) + " calls make one context query per call (" +
                 std::to_string(contextCalls) + " in " +
                 std::to_string(calls) + " calls)");
    }
    expect(check(out, 100 + calls - 1, n, stream),
           std::string(kind) + " calls: the result is right once the stream "
                               "is synchronized");
  }

  // The legacy default stream (NULL) is a valid call stream.
  txRuntimeBeginCall(nullptr);
  dynamicCall(out, 500, n);
  int errors = txRuntimeEndCall();
  expect(errors == 0 && txRuntimeSynchronize() == 0 && check(out, 500, n, stream),
         "a call on the legacy default stream (NULL) works");

  mgpuMemFree(out, stream);
  mgpuStreamSynchronize(stream);
  driver().streamDestroy(stream);
}

void testFail() {
  const uint32_t n = 256;
  CUstream stream = callerStream();
  auto *out = static_cast<uint32_t *>(mgpuMemAlloc(n * 4, stream, 0));
  int processErrors = txRuntimeErrorCount();

  // A failed run-time check in host code: txRuntimeFail, then return early.
  txRuntimeBeginCall(stream);
  txRuntimeFail("tx.attention: head dimension D of query and key differ");
  int errors = txRuntimeEndCall();
  expect(errors == 1 &&
             takeError() ==
                 "tx.attention: head dimension D of query and key differ",
         "txRuntimeFail in a call: EndCall returns 1, the message is kept");
  expect(txRuntimeErrorCount() == processErrors + 1,
         "txRuntimeFail is counted process-wide");

  txRuntimeBeginCall(stream);
  staticCall(out, 7, n);
  expect(txRuntimeEndCall() == 0 && check(out, 7, n, stream),
         "the call after a failed call works");

  int threadErrors = txRuntimeThreadErrorCount();
  txRuntimeFail("tx.softmax: out-parameter sizes differ from the result");
  expect(txRuntimeThreadErrorCount() == threadErrors + 1 &&
             takeError() ==
                 "tx.softmax: out-parameter sizes differ from the result",
         "txRuntimeFail without a call is recorded for the synchronous form");

  expect(txRuntimeEndCall() == 1 &&
             contains(takeError(), "no call is active on this thread"),
         "txRuntimeEndCall without txRuntimeBeginCall is reported");

  // Errors of a call carry the call's stream.
  txRuntimeBeginCall(stream);
  launchFill(out, 0, n, stream, /*block=*/4096);
  errors = txRuntimeEndCall();
  char where[64];
  std::snprintf(where, sizeof(where), "in the call on stream %p",
                static_cast<void *>(stream));
  std::string message = takeError();
  expect(errors == 1 && contains(message, "cuLaunchKernel") &&
             contains(message, kFill) && contains(message, where),
         "a launch error in a call names the kernel and the call's stream: " +
             message);

  mgpuMemFree(out, stream);
  mgpuStreamSynchronize(stream);
  driver().streamDestroy(stream);
}

void testOutOfMemory() {
  const uint32_t n = 256;
  CUstream stream = callerStream();
  auto *out = static_cast<uint32_t *>(mgpuMemAlloc(n * 4, stream, 0));
  mgpuMemset32(out, 0, n, stream);
  mgpuStreamSynchronize(stream);

  for (bool injected : {false, true}) {
    const char *how = injected ? "injected" : "real";
    long long launches = driver().stats().launches;
    long long allocations = driver().stats().liveAllocations;
    if (injected)
      txRuntimeSetFaultInjection(
          "cuMemAllocFromPoolAsync:1:CUDA_ERROR_OUT_OF_MEMORY");
    txRuntimeBeginCall(stream);
    // 1 TiB: more than any device has (the fake's limit is 1 GiB).
    dynamicCall(out, 40, n, injected ? 0 : uint64_t(1) << 40);
    int errors = txRuntimeEndCall();
    txRuntimeSetFaultInjection(nullptr);
    std::string message = takeError();
    expect(errors == 1 && contains(message, "cuMemAllocFromPoolAsync") &&
               contains(message, "CUDA_ERROR_OUT_OF_MEMORY"),
           std::string(how) + " out-of-memory in a call: reported once, "
                              "EndCall returns 1: " + message);
    if (driver().isFake())
      expect(driver().stats().launches == launches &&
                 driver().stats().liveAllocations == allocations,
             std::string(how) + " out-of-memory: nothing was launched on the "
                                "missing memory, nothing leaked");
    expect(check(out, 0, 1, stream),
           std::string(how) + " out-of-memory: the result was not written");
    txRuntimeBeginCall(stream);
    dynamicCall(out, 41, n);
    errors = txRuntimeEndCall();
    expect(errors == 0 && check(out, 41, n, stream),
           std::string(how) + " out-of-memory: the next call works");
    mgpuMemset32(out, 0, n, stream);
    mgpuStreamSynchronize(stream);
  }
  mgpuMemFree(out, stream);
  mgpuStreamSynchronize(stream);
  driver().streamDestroy(stream);
}

void testCapture() {
  Driver &d = driver();
  if (!d.streamBeginCapture || !d.streamEndCapture || !d.graphInstantiate ||
      !d.graphLaunch) {
    std::printf("[SKIP] capture: the driver lacks the graph entry points\n");
    return;
  }
  const uint32_t n = 512;
  CUstream stream = callerStream();
  auto *out = static_cast<uint32_t *>(mgpuMemAlloc(n * 4, stream, 0));
  mgpuMemset32(out, 0, n, stream);
  // Warm up outside the capture (kernel lookup and parameter check).
  txRuntimeBeginCall(stream);
  dynamicCall(out, 0, n);
  txRuntimeEndCall();
  mgpuStreamSynchronize(stream);

  long long nodes = d.stats().capturedNodes;
  int rc = d.streamBeginCapture(stream, 0 /*GLOBAL*/);
  txRuntimeBeginCall(stream);
  dynamicCall(out, 77, n);
  int errors = txRuntimeEndCall();
  void *graph = nullptr;
  int endRc = d.streamEndCapture(stream, &graph);
  expect(rc == 0 && errors == 0 && endRc == 0 && graph,
         "a dynamic-shape call is captured into a CUDA graph (global mode)");
  if (d.isFake())
    expect(d.stats().capturedNodes - nodes == 4,
           "the graph holds the allocation, launch, copy and free (" +
               std::to_string(d.stats().capturedNodes - nodes) + " nodes)");
  if (graph) {
    void *exec = nullptr;
    mgpuMemset32(out, 0, n, stream);
    mgpuStreamSynchronize(stream);
    int irc = d.graphInstantiate(&exec, graph, 0);
    int lrc = exec ? d.graphLaunch(exec, stream) : -1;
    mgpuStreamSynchronize(stream);
    expect(irc == 0 && lrc == 0 && (d.isFake() || check(out, 77, n, stream)),
           "the captured call replays");
    if (exec)
      d.graphExecDestroy(exec);
    d.graphDestroy(graph);
  }
  // Control: the synchronous form synchronizes and so breaks a capture
  // (checked with the fake only; it proves the check above has teeth).
  if (d.isFake()) {
    d.streamBeginCapture(stream, 0);
    dynamicCall(out, 1, n);
    graph = nullptr;
    endRc = d.streamEndCapture(stream, &graph);
    takeError();
    expect(endRc != 0 && !graph,
           "control: a synchronous call during a capture invalidates it");
  }
  mgpuMemFree(out, stream);
  mgpuStreamSynchronize(stream);
  d.streamDestroy(stream);
}

void testTwoThreads() {
  const uint32_t n = 4096;
  const int iterations = 200;
  struct Result {
    int wrong = 0, errors = 0, streamMismatches = 0;
    int failedIteration = -1;
    std::string lastError;
    bool lastErrorIsNull = false;
  } results[2];
  auto worker = [&](int id) {
    Result &r = results[id];
    CUstream stream = callerStream();
    auto *out = static_cast<uint32_t *>(mgpuMemAlloc(n * 4, stream, 0));
    mgpuStreamSynchronize(stream);
    for (int i = 0; i < iterations; ++i) {
      uint32_t base = uint32_t(id) * 1000000u + uint32_t(i) * 10u;
      txRuntimeBeginCall(stream);
      if (id == 0 && i == iterations / 2)
        txRuntimeFail("thread 0: deliberate failure");
      else
        if (i % 2)
          dynamicCall(out, base, n);
        else
          staticCall(out, base, n);
      int errors = txRuntimeEndCall();
      if (errors) {
        ++r.errors;
        r.failedIteration = i;
        continue;
      }
      if (driver().isFake() && lastFillStream != stream)
        ++r.streamMismatches;
      if (!check(out, base, n, stream))
        ++r.wrong;
    }
    const char *last = txRuntimeGetLastError();
    r.lastErrorIsNull = last == nullptr;
    r.lastError = last ? last : "";
    mgpuMemFree(out, stream);
    mgpuStreamSynchronize(stream);
    driver().streamDestroy(stream);
  };
  std::thread a(worker, 0), b(worker, 1);
  a.join();
  b.join();
  expect(results[0].wrong == 0 && results[1].wrong == 0,
         "two threads in calls at once on different streams: every result "
         "is right");
  expect(results[0].streamMismatches == 0 && results[1].streamMismatches == 0,
         "each thread's launches ran on its own stream");
  expect(results[0].errors == 1 &&
             results[0].failedIteration == iterations / 2 &&
             results[0].lastError == "thread 0: deliberate failure",
         "thread 0's failure is reported to thread 0's call only");
  expect(results[1].errors == 0 && results[1].lastErrorIsNull,
         "thread 1 sees no error");
}

void testContexts() {
  Driver &d = driver();
  const uint32_t n = 128;
  CUstream stream = callerStream();
  auto *out = static_cast<uint32_t *>(mgpuMemAlloc(n * 4, stream, 0));
  mgpuStreamSynchronize(stream);
  void *primary = nullptr;
  d.ctxGetCurrent(&primary);

  // A thread that has no current context.
  bool ok = false;
  void *afterwards = nullptr;
  std::thread([&] {
    txRuntimeBeginCall(stream);
    staticCall(out, 3, n);
    ok = txRuntimeEndCall() == 0;
    d.ctxGetCurrent(&afterwards);
  }).join();
  expect(ok && check(out, 3, n, stream) && afterwards == primary,
         "a call on a thread without a current context works and leaves the "
         "primary context current");

  int devices = 1;
  if (d.deviceGetCount)
    d.deviceGetCount(&devices);
  if (devices < 2 || !d.devicePrimaryCtxRetain) {
    std::printf("[SKIP] other contexts: needs 2 devices\n");
  } else {
    std::thread([&] {
      void *other = nullptr;
      d.devicePrimaryCtxRetain(&other, 1);
      // Another context current during the call: pushed, popped again.
      d.ctxSetCurrent(other);
      txRuntimeBeginCall(stream);
      staticCall(out, 4, n);
      int errors = txRuntimeEndCall();
      void *current = nullptr;
      d.ctxGetCurrent(&current);
      expect(errors == 0 && current == other,
             "a call with another context current works and restores it");
      // The caller switches contexts between calls.
      d.ctxSetCurrent(primary);
      txRuntimeBeginCall(stream);
      staticCall(out, 5, n);
      errors = txRuntimeEndCall();
      d.ctxSetCurrent(other);
      txRuntimeBeginCall(stream);
      staticCall(out, 6, n);
      errors += txRuntimeEndCall();
      d.ctxGetCurrent(&current);
      expect(errors == 0 && current == other,
             "calls stay correct when the caller switches contexts between "
             "them");
      d.ctxSetCurrent(primary);
    }).join();
    expect(check(out, 6, n, stream), "... and their results are right");
  }
  mgpuMemFree(out, stream);
  mgpuStreamSynchronize(stream);
  d.streamDestroy(stream);
}

void testSetStreamAndNesting() {
  const uint32_t n = 128;
  CUstream mine = callerStream(), other = callerStream();
  auto *out = static_cast<uint32_t *>(mgpuMemAlloc(n * 4, mine, 0));
  mgpuStreamSynchronize(mine);

  // txRuntimeSetStream is per thread.
  txRuntimeSetStream(mine, 0);
  staticCall(out, 8, n);
  void *onMine = lastFillStream;
  void *elsewhere = nullptr;
  std::thread([&] {
    staticCall(out, 9, n);
    elsewhere = lastFillStream;
  }).join();
  txRuntimeSetStream(nullptr, 0);
  if (driver().isFake())
    expect(onMine == mine && elsewhere != mine && elsewhere != nullptr,
           "txRuntimeSetStream redirects only the calling thread");
  expect(check(out, 9, n, mine), "... and both synchronous calls work");

  // A thread's pooled streams go to the other threads when it exits.
  if (driver().isFake()) {
    std::thread([&] { mgpuStreamDestroy(mgpuStreamCreate()); }).join();
    long long created = driver().calls("cuStreamCreate");
    std::thread([&] { mgpuStreamDestroy(mgpuStreamCreate()); }).join();
    expect(driver().calls("cuStreamCreate") == created,
           "an exited thread's pooled stream is reused by another thread");
  }

  // Nested calls: the innermost stream is used; the outer one comes back.
  txRuntimeBeginCall(mine);
  txRuntimeBeginCall(other);
  staticCall(out, 10, n);
  void *inner = lastFillStream;
  int innerErrors = txRuntimeEndCall();
  mgpuStreamSynchronize(other); // inside the outer call: a real wait
  staticCall(out, 11, n);
  void *outer = lastFillStream;
  int outerErrors = txRuntimeEndCall();
  expect(innerErrors == 0 && outerErrors == 0 && check(out, 11, n, mine) &&
             (!driver().isFake() || (inner == other && outer == mine)),
         "nested calls use the innermost call's stream");

  mgpuMemFree(out, mine);
  mgpuStreamSynchronize(mine);
  driver().streamDestroy(mine);
  driver().streamDestroy(other);
}

} // namespace

int main() {
  unsetenv("TX_RUNTIME_ABORT_ON_ERROR");
  std::setvbuf(stdout, nullptr, _IOLBF, 0);
  module = mgpuModuleLoadJIT(const_cast<char *>(fillPtx()), 4);
  if (!module) {
    std::printf("tx-runtime-calltest: no usable driver: %s\n",
                txRuntimeGetLastError());
    return 1;
  }
  if (driver().fakeRegisterKernel)
    driver().fakeRegisterKernel(kFill, fakeFill);
  std::printf("driver: %s\n", driver().isFake() ? "fake" : "real");
  testBasicCalls();
  testFail();
  testOutOfMemory();
  testCapture();
  testTwoThreads();
  testContexts();
  testSetStreamAndNesting();
  mgpuModuleUnload(module);
  return exitStatus("tx-runtime-calltest");
}
