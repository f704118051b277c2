//===- FaultTest.cpp - the runtime's failure paths, by injected faults ----===//
//
// For every kind of driver call the runtime makes, makes one call of that
// kind fail (txRuntimeSetFaultInjection, the API form of
// TX_RUNTIME_INJECT_FAULT) during an entry point that makes it, and checks
//  - the failure is reported, naming the driver call, the CUDA error and the
//    kernel involved (where one is);
//  - nothing leaks: with the fake driver (LD_LIBRARY_PATH=build/fake-cuda),
//    its live allocations, streams, events, modules, pools and host
//    registrations are back where they were (after releasing what a failed
//    *release* necessarily left behind);
//  - the next call of the same entry point works.
// The list of driver calls is taken from the runtime itself (the "known:"
// list of a bad plan), so a driver call added to the runtime without a
// scenario here fails the test.
//
//   tx-runtime-faulttest            all scenarios (device-setup ones need
//                                   FAKE_CUDA_DEVICES=8, context push/pop
//                                   ones 2 devices; skipped otherwise)
//   tx-runtime-faulttest --init     run with TX_RUNTIME_INJECT_FAULT=cuInit:1
//   tx-runtime-faulttest --sync-launches
//                                   run with TX_RUNTIME_SYNC_LAUNCHES=1
//
// Runs on a real GPU too (without the leak checks). Exit status 0 when every
// check passed.
//
//===----------------------------------------------------------------------===//

#include "TestUtil.h"

#include <cstdint>
#include <cstdlib>
#include <functional>
#include <set>
#include <string>
#include <thread>
#include <vector>

using namespace txtest;

namespace {

struct Outcome {
  bool ok = false;      // the entry point's observable result was right
  int errors = 0;       // errors reported while it ran
  std::string message;  // the last of them
};

/// Runs `fn` on this thread and collects the errors it reported.
Outcome onThisThread(const std::function<bool()> &fn) {
  txRuntimeClearLastError();
  int before = txRuntimeThreadErrorCount();
  Outcome outcome;
  outcome.ok = fn();
  outcome.errors = txRuntimeThreadErrorCount() - before;
  outcome.message = takeError();
  return outcome;
}

/// Runs `fn` on a new thread (which starts without a current context).
Outcome onNewThread(const std::function<bool()> &fn) {
  Outcome outcome;
  std::thread thread([&] { outcome = onThisThread(fn); });
  thread.join();
  return outcome;
}

struct Live {
  long long allocations, streams, events, modules, pools, hostRegistrations;
  bool operator==(const Live &o) const {
    return allocations == o.allocations && streams == o.streams &&
           events == o.events && modules == o.modules && pools == o.pools &&
           hostRegistrations == o.hostRegistrations;
  }
};

Live live() {
  FakeCudaStats s = driver().stats();
  return Live{s.liveAllocations, s.liveStreams, s.liveEvents,
              s.liveModules,     s.livePools,   s.liveHostRegistrations};
}

std::string describe(const Live &l) {
  char text[200];
  std::snprintf(text, sizeof(text),
                "%lld allocations, %lld streams, %lld events, %lld modules, "
                "%lld pools, %lld host registrations",
                l.allocations, l.streams, l.events, l.modules, l.pools,
                l.hostRegistrations);
  return text;
}

/// What every scenario gets: a fresh module (so that per-kernel first-time
/// work happens again), its fill kernel, a stream, a device buffer.
struct Fixture {
  static constexpr uint32_t n = 256;
  CUmodule module = nullptr;
  CUfunction fill = nullptr;
  CUstream stream = nullptr;
  uint32_t *buffer = nullptr;

  void setUp() {
    module = mgpuModuleLoadJIT(const_cast<char *>(fillPtx()), 4);
    fill = mgpuModuleGetFunction(module, "tx_selftest_fill");
    stream = mgpuStreamCreate();
    buffer = static_cast<uint32_t *>(mgpuMemAlloc(n * 4, stream, 0));
    mgpuStreamSynchronize(stream);
  }
  void tearDown() {
    mgpuMemFree(buffer, stream);
    mgpuStreamSynchronize(stream);
    mgpuStreamDestroy(stream);
    mgpuModuleUnload(module);
  }

  /// Launches fill(buffer, base, n) (looking the kernel up as compiled code
  /// does) and, if `check`, waits and checks the result.
  bool launchFill(uint32_t base, int32_t smem = 0, bool cluster = false,
                  bool check = true) {
    CUfunction f = mgpuModuleGetFunction(module, "tx_selftest_fill");
    void *out = buffer;
    uint32_t count = n;
    void *params[] = {&out, &base, &count};
    if (cluster)
      mgpuLaunchClusterKernel(f, 2, 1, 1, 2, 1, 1, 128, 1, 1, smem, stream,
                              params, nullptr);
    else
      mgpuLaunchKernel(f, 2, 1, 1, 128, 1, 1, smem, stream, params, nullptr,
                       3);
    return !check || readBack(base);
  }

  bool readBack(uint32_t base) {
    std::vector<uint32_t> host(n, 0);
    mgpuMemcpy(host.data(), buffer, n * 4, stream);
    mgpuStreamSynchronize(stream);
    for (uint32_t i = 0; i < n; ++i)
      if (host[i] != base + i)
        return false;
    return true;
  }
};

struct Scenario {
  const char *call;           // the driver call made to fail
  const char *error;          // the CUDA error injected
  const char *kernel;         // kernel the message must name, or null
  const char *alsoExpected;   // another substring the message must have
  std::function<Outcome(Fixture &)> run;
  /// After the failing run: releases what a failed release left behind.
  std::function<void(Fixture &)> cleanUp;
  const char *plan = nullptr; // overrides "<call>:1:<error>"
  bool skip = false;
  const char *skipReason = nullptr;
  long long poolsLeft = 0; // pools a failed cuMemPoolDestroy leaves
};

std::set<std::string> covered;

void runScenario(const Scenario &scenario) {
  covered.insert(scenario.call);
  std::string name = scenario.call;
  if (scenario.skip) {
    std::printf("[SKIP] %s: %s\n", scenario.call, scenario.skipReason);
    return;
  }
  Fixture fixture;
  fixture.setUp();
  txRuntimeClearLastError();
  Live before = live();

  std::string plan = scenario.plan
                         ? scenario.plan
                         : name + ":1:" + std::string(scenario.error);
  txRuntimeSetFaultInjection(plan.c_str());
  Outcome failed = scenario.run(fixture);
  txRuntimeSetFaultInjection(nullptr);
  if (scenario.cleanUp)
    scenario.cleanUp(fixture);

  std::string &m = failed.message;
  bool named = contains(m, scenario.call) && contains(m, scenario.error) &&
               contains(m, "[injected by TX_RUNTIME_INJECT_FAULT]") &&
               (!scenario.kernel || contains(m, scenario.kernel)) &&
               (!scenario.alsoExpected || contains(m, scenario.alsoExpected));
  expect(failed.errors >= 1 && named,
         name + ": reported with the call, the CUDA error" +
             (scenario.kernel ? std::string(" and kernel '") +
                                    scenario.kernel + "'"
                              : std::string()) +
             " (" + std::to_string(failed.errors) + " error(s)): " + m);
  if (driver().isFake()) {
    Live after = live();
    after.pools -= scenario.poolsLeft;
    expect(after == before, name + ": nothing leaked (" + describe(after) +
                                ", before " + describe(before) + ")");
  }
  Outcome next = scenario.run(fixture);
  expect(next.ok && next.errors == 0,
         name + ": the next call works" +
             (next.errors ? " (error: " + next.message + ")" : ""));
  fixture.tearDown();
  takeError();
}

//===----------------------------------------------------------------------===//
// Scenarios
//===----------------------------------------------------------------------===//

std::vector<Scenario> scenarios(int deviceCount) {
  std::vector<Scenario> list;
  static const char *kFill = "tx_selftest_fill";

  // Modules and kernels.
  list.push_back({"cuModuleLoadDataEx", "CUDA_ERROR_INVALID_PTX", nullptr,
                  "PTX text", [](Fixture &) {
                    return onThisThread([] {
                      CUmodule m = mgpuModuleLoadJIT(
                          const_cast<char *>(fillPtx()), 4);
                      mgpuModuleUnload(m);
                      return m != nullptr;
                    });
                  }});
  static CUmodule unloadFailed = nullptr;
  list.push_back({"cuModuleUnload", "CUDA_ERROR_INVALID_HANDLE", nullptr,
                  "module #",
                  [](Fixture &) {
                    return onThisThread([] {
                      unloadFailed = mgpuModuleLoadJIT(
                          const_cast<char *>(fillPtx()), 4);
                      mgpuModuleUnload(unloadFailed);
                      return unloadFailed != nullptr;
                    });
                  },
                  [](Fixture &) { mgpuModuleUnload(unloadFailed); }});
  list.push_back({"cuModuleGetFunction", "CUDA_ERROR_NOT_FOUND", kFill,
                  nullptr, [](Fixture &) {
                    return onThisThread([] {
                      CUmodule m = mgpuModuleLoadJIT(
                          const_cast<char *>(fillPtx()), 4);
                      CUfunction f = mgpuModuleGetFunction(m, kFill);
                      mgpuModuleUnload(m);
                      return f != nullptr;
                    });
                  }});
  // Launches (a fresh module each time: first-launch work happens again).
  list.push_back({"cuFuncGetParamInfo", "CUDA_ERROR_INVALID_HANDLE", kFill,
                  nullptr, [](Fixture &f) {
                    return onThisThread([&] { return f.launchFill(7); });
                  }});
  list.push_back({"cuFuncSetAttribute", "CUDA_ERROR_INVALID_VALUE", kFill,
                  "MAX_DYNAMIC_SHARED_SIZE_BYTES", [](Fixture &f) {
                    return onThisThread(
                        [&] { return f.launchFill(8, 100 * 1024); });
                  }});
  list.push_back({"cuLaunchKernel", "CUDA_ERROR_LAUNCH_OUT_OF_RESOURCES",
                  kFill, "grid (2, 1, 1)", [](Fixture &f) {
                    return onThisThread([&] { return f.launchFill(9); });
                  }});
  list.push_back({"cuLaunchKernelEx", "CUDA_ERROR_INVALID_CLUSTER_SIZE", kFill,
                  "cluster (2, 1, 1)", [](Fixture &f) {
                    return onThisThread(
                        [&] { return f.launchFill(10, 0, /*cluster=*/true); });
                  }});
  // Only made while describing a cuFuncSetAttribute failure.
  for (const char *call : {"cuCtxGetDevice", "cuFuncGetAttribute"}) {
    static std::string plans[2];
    std::string &plan = plans[std::string(call) == "cuCtxGetDevice" ? 0 : 1];
    plan = std::string("cuFuncSetAttribute:1:CUDA_ERROR_INVALID_VALUE,") +
           call + ":1:CUDA_ERROR_UNKNOWN";
    Scenario s{"cuFuncSetAttribute", "CUDA_ERROR_INVALID_VALUE", kFill,
               "device allows", [](Fixture &f) {
                 return onThisThread(
                     [&] { return f.launchFill(11, 100 * 1024); });
               }};
    s.plan = plan.c_str();
    list.push_back(s);
    covered.insert(call);
  }

  // Streams and events.
  static CUstream destroyFailed = nullptr;
  list.push_back({"cuStreamCreate", "CUDA_ERROR_OUT_OF_MEMORY", nullptr,
                  "mgpuStreamCreate", [](Fixture &) {
                    return onThisThread([] {
                      CUstream s = mgpuStreamCreate();
                      mgpuStreamDestroy(s);
                      return s != nullptr;
                    });
                  }});
  list.push_back({"cuStreamDestroy", "CUDA_ERROR_INVALID_HANDLE", nullptr,
                  "mgpuStreamDestroy",
                  [](Fixture &) {
                    return onThisThread([] {
                      destroyFailed = mgpuStreamCreate();
                      mgpuStreamDestroy(destroyFailed);
                      return destroyFailed != nullptr;
                    });
                  },
                  [](Fixture &) { mgpuStreamDestroy(destroyFailed); }});
  list.push_back({"cuStreamSynchronize", "CUDA_ERROR_ILLEGAL_ADDRESS", kFill,
                  "last kernel launched on it", [](Fixture &f) {
                    return onThisThread([&] { return f.launchFill(12); });
                  }});
  static CUevent eventDestroyFailed = nullptr;
  auto eventRoundTrip = [](Fixture &f) {
    return onThisThread([&] {
      CUevent e = mgpuEventCreate();
      if (!e)
        return false;
      CUstream other = mgpuStreamCreate();
      mgpuEventRecord(e, f.stream);
      mgpuStreamWaitEvent(other, e);
      mgpuEventSynchronize(e);
      eventDestroyFailed = e;
      mgpuEventDestroy(e);
      mgpuStreamDestroy(other);
      return e != nullptr;
    });
  };
  list.push_back({"cuEventCreate", "CUDA_ERROR_OUT_OF_MEMORY", nullptr,
                  "mgpuEventCreate", eventRoundTrip});
  list.push_back({"cuEventRecord", "CUDA_ERROR_INVALID_HANDLE", nullptr,
                  "mgpuEventRecord", eventRoundTrip});
  list.push_back({"cuStreamWaitEvent", "CUDA_ERROR_INVALID_HANDLE", nullptr,
                  "mgpuStreamWaitEvent", eventRoundTrip});
  list.push_back({"cuEventSynchronize", "CUDA_ERROR_LAUNCH_FAILED", nullptr,
                  "mgpuEventSynchronize", eventRoundTrip});
  list.push_back({"cuEventDestroy", "CUDA_ERROR_INVALID_HANDLE", nullptr,
                  "mgpuEventDestroy", eventRoundTrip,
                  [](Fixture &) { mgpuEventDestroy(eventDestroyFailed); }});

  // Memory.
  static void *freeFailed = nullptr;
  list.push_back({"cuMemAllocFromPoolAsync", "CUDA_ERROR_OUT_OF_MEMORY",
                  nullptr, "4096 bytes of device memory", [](Fixture &f) {
                    return onThisThread([&] {
                      void *p = mgpuMemAlloc(4096, f.stream, 0);
                      mgpuMemFree(p, f.stream);
                      mgpuStreamSynchronize(f.stream);
                      return p != nullptr;
                    });
                  }});
  list.push_back({"cuMemFreeAsync", "CUDA_ERROR_INVALID_VALUE", nullptr,
                  "mgpuMemFree",
                  [](Fixture &f) {
                    return onThisThread([&] {
                      freeFailed = mgpuMemAlloc(4096, f.stream, 0);
                      mgpuMemFree(freeFailed, f.stream);
                      mgpuStreamSynchronize(f.stream);
                      return freeFailed != nullptr;
                    });
                  },
                  [](Fixture &f) { mgpuMemFree(freeFailed, f.stream); }});
  auto managedRoundTrip = [](Fixture &f) {
    return onThisThread([&] {
      auto *p = static_cast<uint32_t *>(mgpuMemAlloc(64, f.stream, 1));
      freeFailed = p;
      if (p) {
        mgpuMemset32(p, 5u, 16, f.stream);
        mgpuStreamSynchronize(f.stream);
      }
      bool ok = p && p[15] == 5u;
      mgpuMemFree(p, f.stream);
      return ok;
    });
  };
  list.push_back({"cuMemAllocManaged", "CUDA_ERROR_OUT_OF_MEMORY", nullptr,
                  "managed (host_shared)", managedRoundTrip});
  list.push_back({"cuMemFree", "CUDA_ERROR_INVALID_VALUE", nullptr,
                  "mgpuMemFree", managedRoundTrip,
                  [](Fixture &f) { mgpuMemFree(freeFailed, f.stream); }});
  list.push_back({"cuMemcpyAsync", "CUDA_ERROR_ILLEGAL_ADDRESS", kFill,
                  "copy of 1024 bytes", [](Fixture &f) {
                    return onThisThread([&] { return f.launchFill(13); });
                  }});
  list.push_back({"cuMemsetD32Async", "CUDA_ERROR_INVALID_VALUE", nullptr,
                  "32-bit elements", [](Fixture &f) {
                    return onThisThread([&] {
                      mgpuMemset32(f.buffer, 3u, Fixture::n, f.stream);
                      std::vector<uint32_t> h(Fixture::n);
                      mgpuMemcpy(h.data(), f.buffer, Fixture::n * 4, f.stream);
                      mgpuStreamSynchronize(f.stream);
                      return h[0] == 3u && h[Fixture::n - 1] == 3u;
                    });
                  }});
  list.push_back({"cuMemsetD16Async", "CUDA_ERROR_INVALID_VALUE", nullptr,
                  "16-bit elements", [](Fixture &f) {
                    return onThisThread([&] {
                      mgpuMemset16(f.buffer, 0x1234, 2 * Fixture::n, f.stream);
                      std::vector<uint32_t> h(Fixture::n);
                      mgpuMemcpy(h.data(), f.buffer, Fixture::n * 4, f.stream);
                      mgpuStreamSynchronize(f.stream);
                      return h[0] == 0x12341234u;
                    });
                  }});
  // Page-aligned, as older drivers require.
  static void *hostBuffer = std::aligned_alloc(4096, 1 << 16);
  auto registerRoundTrip = [](Fixture &) {
    return onThisThread([] {
      int errors = txRuntimeThreadErrorCount();
      mgpuMemHostRegister(hostBuffer, 1 << 16);
      if (txRuntimeThreadErrorCount() != errors)
        return false; // not registered: nothing to unregister
      mgpuMemHostUnregister(hostBuffer);
      return true;
    });
  };
  list.push_back({"cuMemHostRegister", "CUDA_ERROR_HOST_MEMORY_ALREADY_REGISTERED",
                  nullptr, "bytes of host memory", registerRoundTrip});
  list.push_back({"cuMemHostUnregister", "CUDA_ERROR_HOST_MEMORY_NOT_REGISTERED",
                  nullptr, "host pointer", registerRoundTrip,
                  [](Fixture &) { mgpuMemHostUnregister(hostBuffer); }});

  // TMA descriptors: encode, then a 128-byte cuMemAlloc + cuMemcpyHtoD that
  // must be freed again when the copy fails. A successful call keeps its
  // descriptor (by design), so the next-call check leaves one allocation.
  auto tmaRoundTrip = [](Fixture &f) {
    return onThisThread([&] {
      // The fixture's buffer as a 16x16 f32 tensor.
      auto *tensor = reinterpret_cast<float *>(f.buffer);
      struct {
        float *allocated, *aligned;
        int64_t offset, sizes[2], strides[2];
      } desc{tensor, tensor, 0, {16, 16}, {16, 1}};
      int64_t box[2] = {8, 8};
      void *map = mgpuTensorMapEncodeTiledMemref(2, &desc, /*FLOAT32=*/7, 0,
                                                 0, 0, 0, box);
      return map != nullptr;
    });
  };
  list.push_back({"cuTensorMapEncodeTiled", "CUDA_ERROR_INVALID_VALUE",
                  nullptr, "tensor map of rank 2", tmaRoundTrip});
  list.push_back({"cuMemAlloc", "CUDA_ERROR_OUT_OF_MEMORY", nullptr,
                  "128-byte tensor map descriptor", tmaRoundTrip});
  list.push_back({"cuMemcpyHtoD", "CUDA_ERROR_INVALID_VALUE", nullptr,
                  "128-byte tensor map descriptor", tmaRoundTrip});

  // Contexts.
  list.push_back({"cuCtxGetCurrent", "CUDA_ERROR_INVALID_CONTEXT", nullptr,
                  "mgpuMemset32", [](Fixture &f) {
                    return onThisThread([&] {
                      mgpuMemset32(f.buffer, 4u, Fixture::n, f.stream);
                      mgpuStreamSynchronize(f.stream);
                      return true;
                    });
                  }});
  list.push_back({"cuCtxSetCurrent", "CUDA_ERROR_INVALID_CONTEXT", nullptr,
                  "mgpuMemset32", [](Fixture &f) {
                    return onNewThread([&] {
                      mgpuMemset32(f.buffer, 4u, Fixture::n, f.stream);
                      mgpuStreamSynchronize(f.stream);
                      return true;
                    });
                  }});
  // With another device's context current, entry points push and pop.
  auto underOtherContext = [](Fixture &f) {
    return onNewThread([&] {
      void *other = nullptr;
      driver().devicePrimaryCtxRetain(&other, 1);
      driver().ctxSetCurrent(other);
      mgpuMemset32(f.buffer, 4u, Fixture::n, f.stream);
      void *current = nullptr;
      driver().ctxGetCurrent(&current);
      return current == other;
    });
  };
  bool twoDevices = deviceCount >= 2 && driver().devicePrimaryCtxRetain;
  list.push_back({"cuCtxPushCurrent", "CUDA_ERROR_INVALID_CONTEXT", nullptr,
                  "mgpuMemset32", underOtherContext, nullptr, nullptr,
                  !twoDevices, "needs 2 devices (FAKE_CUDA_DEVICES=2)"});
  list.push_back({"cuCtxPopCurrent", "CUDA_ERROR_INVALID_CONTEXT", nullptr,
                  "mgpuMemset32", underOtherContext, nullptr, nullptr,
                  !twoDevices, "needs 2 devices (FAKE_CUDA_DEVICES=2)"});
  list.push_back({"cuCtxSynchronize", "CUDA_ERROR_LAUNCH_FAILED", kFill,
                  "last kernel launched", [](Fixture &f) {
                    return onThisThread([&] {
                      f.launchFill(14, 0, false, /*check=*/false);
                      return txRuntimeSynchronize() == 0 && f.readBack(14);
                    });
                  }});

  // Device setup (first use of a device): each scenario uses a device no
  // one used before. The pool steps fall back to cuMemAlloc when they fail.
  // The failing run sets up a device no one used before; the next run uses
  // the same device (each scenario runs exactly twice).
  auto onFreshDevice = [](Fixture &) {
    static int device = 1;
    static bool failingRun = true;
    if (failingRun)
      ++device;
    failingRun = !failingRun;
    return onThisThread([] {
      mgpuSetDefaultDevice(device);
      void *p = mgpuMemAlloc(256, nullptr, 0);
      mgpuMemFree(p, nullptr);
      mgpuSetDefaultDevice(0);
      return p != nullptr;
    });
  };
  bool manyDevices = deviceCount >= 8;
  const char *manyReason = "needs 8 devices (FAKE_CUDA_DEVICES=8)";
  list.push_back({"cuDeviceGet", "CUDA_ERROR_INVALID_DEVICE", nullptr,
                  "device ordinal", onFreshDevice, nullptr, nullptr,
                  !manyDevices, manyReason});
  list.push_back({"cuDevicePrimaryCtxRetain", "CUDA_ERROR_OUT_OF_MEMORY",
                  nullptr, "device ordinal", onFreshDevice, nullptr,
                  nullptr, !manyDevices, manyReason});
  list.push_back({"cuDeviceGetAttribute", "CUDA_ERROR_INVALID_VALUE", nullptr,
                  "MEMORY_POOLS_SUPPORTED", onFreshDevice, nullptr,
                  nullptr, !manyDevices, manyReason});
  list.push_back({"cuMemPoolCreate", "CUDA_ERROR_OUT_OF_MEMORY", nullptr,
                  "not stream-ordered", onFreshDevice, nullptr, nullptr,
                  !manyDevices, manyReason});
  list.push_back({"cuMemPoolSetAttribute", "CUDA_ERROR_INVALID_VALUE",
                  nullptr, "not stream-ordered", onFreshDevice, nullptr,
                  nullptr, !manyDevices, manyReason});
  // cuMemPoolDestroy is only called when cuMemPoolSetAttribute failed; the
  // pool whose destruction failed stays (and is counted: one more pool).
  {
    Scenario s{"cuMemPoolDestroy", "CUDA_ERROR_INVALID_VALUE", nullptr,
               "memory pool of device", onFreshDevice, nullptr,
               "cuMemPoolSetAttribute:1:CUDA_ERROR_INVALID_VALUE,"
               "cuMemPoolDestroy:1:CUDA_ERROR_INVALID_VALUE",
               !manyDevices, manyReason};
    s.poolsLeft = 1;
    list.push_back(s);
  }
  return list;
}

/// Every driver call the runtime makes, from the "known:" list it prints for
/// an unknown call.
std::vector<std::string> runtimeDriverCalls() {
  txRuntimeSetFaultInjection("tx_no_such_call:1");
  std::string message = takeError();
  std::vector<std::string> calls;
  size_t pos = message.find("(known:");
  if (pos == std::string::npos)
    return calls;
  pos += 7;
  while (pos < message.size()) {
    while (pos < message.size() && message[pos] == ' ')
      ++pos;
    size_t end = message.find_first_of(" )", pos);
    if (end == std::string::npos || end == pos)
      break;
    calls.push_back(message.substr(pos, end - pos));
    pos = end;
    if (message[pos] == ')')
      break;
  }
  return calls;
}

int deviceCount() {
  int n = 1;
  if (driver().deviceGetCount)
    driver().deviceGetCount(&n);
  return n;
}

/// TX_RUNTIME_INJECT_FAULT=cuInit:1: the driver never initializes; every
/// entry point reports it and returns, nothing hangs.
int runInit() {
  int before = txRuntimeThreadErrorCount();
  CUstream s = mgpuStreamCreate();
  std::string first = takeError();
  expect(s == nullptr && contains(first, "cuInit failed") &&
             contains(first, "CUDA_ERROR_UNKNOWN") &&
             contains(first, "[injected by TX_RUNTIME_INJECT_FAULT]"),
         "cuInit: the first entry point reports it: " + first);
  void *p = mgpuMemAlloc(64, nullptr, 0);
  std::string second = takeError();
  expect(p == nullptr && contains(second, "failed to initialize earlier"),
         "cuInit: later entry points report the earlier failure: " + second);
  txRuntimeBeginCall(nullptr);
  expect(txRuntimeEndCall() != 0, "cuInit: a stream-ordered call fails");
  expect(txRuntimeThreadErrorCount() - before >= 3,
         "cuInit: every attempt was reported");
  return exitStatus("tx-runtime-faulttest --init");
}

/// TX_RUNTIME_SYNC_LAUNCHES=1: launches synchronize unless the stream is
/// capturing, which the runtime asks with cuStreamIsCapturing.
int runSyncLaunches() {
  Scenario s{"cuStreamIsCapturing", "CUDA_ERROR_INVALID_HANDLE",
             "tx_selftest_fill", "TX_RUNTIME_SYNC_LAUNCHES", [](Fixture &f) {
               return onThisThread([&] { return f.launchFill(21); });
             }};
  runScenario(s);
  Driver &d = driver();
  if (d.isFake() && d.streamBeginCapture) {
    Fixture f;
    f.setUp();
    long long syncs = d.calls("cuStreamSynchronize");
    d.streamBeginCapture(f.stream, 0 /*GLOBAL*/);
    txRuntimeBeginCall(f.stream);
    f.launchFill(22, 0, false, /*check=*/false);
    int errors = txRuntimeEndCall();
    void *graph = nullptr;
    int rc = d.streamEndCapture(f.stream, &graph);
    expect(errors == 0 && rc == 0 && graph &&
               d.calls("cuStreamSynchronize") == syncs,
           "TX_RUNTIME_SYNC_LAUNCHES does not synchronize a capturing stream");
    if (graph)
      d.graphDestroy(graph);
    f.tearDown();
  }
  return exitStatus("tx-runtime-faulttest --sync-launches");
}

} // namespace

int main(int argc, char **argv) {
  unsetenv("TX_RUNTIME_ABORT_ON_ERROR");
  std::setvbuf(stdout, nullptr, _IOLBF, 0);
  std::string mode = argc > 1 ? argv[1] : "";
  if (mode == "--init")
    return runInit();
  // Streams are created and destroyed for real, so that cuStreamCreate and
  // cuStreamDestroy happen and leaks of streams show.
  setenv("TX_RUNTIME_STREAM_POOL", "0", 1);
  // Initialize the driver (and load it: driver() looks symbols up in it).
  CUstream warmup = mgpuStreamCreate();
  mgpuStreamDestroy(warmup);
  if (txRuntimeThreadErrorCount() != 0) {
    std::printf("tx-runtime-faulttest: no usable driver: %s\n",
                txRuntimeGetLastError());
    return 1;
  }
  if (mode == "--sync-launches")
    return runSyncLaunches();

  int devices = deviceCount();
  std::printf("driver: %s, %d device(s)\n",
              driver().isFake() ? "fake" : "real", devices);
  for (const Scenario &scenario : scenarios(devices))
    runScenario(scenario);

  // Run elsewhere: cuInit (--init), cuStreamIsCapturing (--sync-launches).
  covered.insert("cuInit");
  covered.insert("cuStreamIsCapturing");
  std::vector<std::string> calls = runtimeDriverCalls();
  expect(!calls.empty(), "the runtime lists its driver calls");
  for (const std::string &call : calls)
    expect(covered.count(call) == 1,
           "driver call " + call + " has a failure scenario");
  return exitStatus("tx-runtime-faulttest");
}
