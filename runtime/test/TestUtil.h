//===- TestUtil.h - shared helpers of the runtime's test programs --------===//
//
// PASS/FAIL reporting, access to the fake driver's statistics (when the fake
// build/fake-cuda/libcuda.so.1 is the loaded driver) and to a few driver
// entry points the runtime does not wrap (stream capture, contexts), looked
// up with dlsym so that the programs need no CUDA headers and run against
// the real driver as well.
//
//===----------------------------------------------------------------------===//

#ifndef TX_RUNTIME_TEST_TESTUTIL_H
#define TX_RUNTIME_TEST_TESTUTIL_H

#include "FakeCuda.h"
#include "tx/Runtime.h"

#include <dlfcn.h>

#include <atomic>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <string>

namespace txtest {

inline std::atomic<int> &failureCount() {
  static std::atomic<int> failures{0};
  return failures;
}

inline bool expect(bool condition, const std::string &what) {
  std::printf("[%s] %s\n", condition ? "PASS" : "FAIL", what.c_str());
  if (!condition)
    ++failureCount();
  return condition;
}

inline bool contains(const std::string &text, const char *needle) {
  return text.find(needle) != std::string::npos;
}

/// The calling thread's last runtime error ("" if none), then cleared.
inline std::string takeError() {
  const char *error = txRuntimeGetLastError();
  std::string text = error ? error : "";
  txRuntimeClearLastError();
  return text;
}

/// fill(out, base, n): out[i] = base + i for i < n (u32). The fake driver
/// runs it on the host.
inline const char *fillPtx() {
  return R"(
.version 7.0
.target sm_50
.address_size 64

.visible .entry tx_selftest_fill(
    .param .u64 out,
    .param .u32 base,
    .param .u32 n)
{
    .reg .pred %p;
    .reg .b32 %r<6>;
    .reg .b64 %rd<4>;
    ld.param.u64 %rd1, [out];
    ld.param.u32 %r1, [base];
    ld.param.u32 %r2, [n];
    mov.u32 %r3, %ctaid.x;
    mov.u32 %r4, %ntid.x;
    mov.u32 %r5, %tid.x;
    mad.lo.s32 %r3, %r3, %r4, %r5;
    setp.ge.u32 %p, %r3, %r2;
    @%p bra DONE;
    cvta.to.global.u64 %rd2, %rd1;
    mul.wide.u32 %rd3, %r3, 4;
    add.s64 %rd2, %rd2, %rd3;
    add.s32 %r4, %r1, %r3;
    st.global.u32 [%rd2], %r4;
DONE:
    ret;
}
)";
}

/// Driver entry points used directly by the tests (CUresult is an int).
struct Driver {
  using GetStats = void (*)(FakeCudaStats *);
  using CallCount = long long (*)(const char *);
  using RegisterKernel = void (*)(const char *, FakeCudaKernelFn);
  GetStats fakeGetStats = nullptr;
  CallCount fakeCallCount = nullptr;
  RegisterKernel fakeRegisterKernel = nullptr;

  int (*streamBeginCapture)(CUstream, int) = nullptr;
  int (*streamEndCapture)(CUstream, void **) = nullptr;
  int (*graphInstantiate)(void **, void *, unsigned long long) = nullptr;
  int (*graphLaunch)(void *, CUstream) = nullptr;
  int (*graphExecDestroy)(void *) = nullptr;
  int (*graphDestroy)(void *) = nullptr;
  int (*streamCreate)(CUstream *, unsigned) = nullptr;
  int (*streamDestroy)(CUstream) = nullptr;
  int (*streamSynchronize)(CUstream) = nullptr;
  int (*ctxGetCurrent)(void **) = nullptr;
  int (*ctxSetCurrent)(void *) = nullptr;
  int (*deviceGetCount)(int *) = nullptr;
  int (*devicePrimaryCtxRetain)(void **, int) = nullptr;
  int (*moduleUnload)(CUmodule) = nullptr;
  int (*memFreeAsync)(uintptr_t, CUstream) = nullptr;

  bool isFake() const { return fakeGetStats != nullptr; }

  FakeCudaStats stats() const {
    FakeCudaStats s;
    std::memset(&s, 0, sizeof(s));
    if (fakeGetStats)
      fakeGetStats(&s);
    return s;
  }
  long long calls(const char *name) const {
    return fakeCallCount ? fakeCallCount(name) : 0;
  }
};

/// Looks the entry points up (after the runtime has loaded the driver).
inline Driver &driver() {
  static Driver d = [] {
    Driver r;
    auto sym = [](const char *name) { return dlsym(RTLD_DEFAULT, name); };
#define TX_SYM(field, name) r.field = reinterpret_cast<decltype(r.field)>(sym(name))
    TX_SYM(fakeGetStats, "fakeCudaGetStats");
    TX_SYM(fakeCallCount, "fakeCudaCallCount");
    TX_SYM(fakeRegisterKernel, "fakeCudaRegisterKernel");
    TX_SYM(streamBeginCapture, "cuStreamBeginCapture_v2");
    TX_SYM(streamEndCapture, "cuStreamEndCapture");
    TX_SYM(graphInstantiate, "cuGraphInstantiateWithFlags");
    TX_SYM(graphLaunch, "cuGraphLaunch");
    TX_SYM(graphExecDestroy, "cuGraphExecDestroy");
    TX_SYM(graphDestroy, "cuGraphDestroy");
    TX_SYM(streamCreate, "cuStreamCreate");
    TX_SYM(streamDestroy, "cuStreamDestroy_v2");
    TX_SYM(streamSynchronize, "cuStreamSynchronize");
    TX_SYM(ctxGetCurrent, "cuCtxGetCurrent");
    TX_SYM(ctxSetCurrent, "cuCtxSetCurrent");
    TX_SYM(deviceGetCount, "cuDeviceGetCount");
    TX_SYM(devicePrimaryCtxRetain, "cuDevicePrimaryCtxRetain");
    TX_SYM(moduleUnload, "cuModuleUnload");
    TX_SYM(memFreeAsync, "cuMemFreeAsync");
#undef TX_SYM
    return r;
  }();
  return d;
}

inline int exitStatus(const char *program) {
  int failures = failureCount().load();
  std::printf("%s: %s (%d failed)\n", program, failures ? "FAILED" : "PASSED",
              failures);
  return failures ? 1 : 0;
}

} // namespace txtest

#endif // TX_RUNTIME_TEST_TESTUTIL_H
