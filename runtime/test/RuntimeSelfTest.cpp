//===- RuntimeSelfTest.cpp - self-test of libtx_cuda_runtime.so -----------===//
//
// Checks that the runtime reports CUDA failures properly, and - when a GPU
// and a real driver are present - that the happy path works.
//
//  (a) mgpuModuleLoad of bytes that are no cubin must record an error naming
//      cuModuleLoadData(Ex) - or, without a usable driver/GPU (e.g. with the
//      toolkit's stub libcuda.so), naming cuInit - plus the CUDA error name.
//  (b) mgpuModuleGetFunction(nullptr, "k") must report an error naming kernel
//      'k'; a launch of the resulting null function must name 'k' too.
//  (c) With a GPU (or the fake driver, LD_LIBRARY_PATH=build/fake-cuda):
//      allocate, memset32/memset16 known patterns, copy back and compare;
//      JIT a small PTX kernel, launch it (plain, with opted-in dynamic shared
//      memory, and as a cluster launch) and check its output; with the fake
//      driver, check that no driver call failed on this correct program (the
//      launch-time parameter check reads the count from the image instead of
//      probing the driver past the last parameter); check that mistakes
//      (unknown kernel, too few or too many parameters) are reported with the
//      kernel's name and that a failing operation never crashes.
//
//   tx-runtime-selftest [--happy-path]
// --happy-path runs only (c)'s correct program, no deliberate mistake, so
// that `compute-sanitizer --report-api-errors all` must report no API error.
//
// Exit status: 0 when every check passed, 1 otherwise.
//
//===----------------------------------------------------------------------===//

#include "tx/Runtime.h"

#include "FakeCuda.h"

#include <dlfcn.h>

#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <vector>

namespace {

int failures = 0;
bool happyPathOnly = false;

/// Driver calls that failed so far (fake driver only; -1 otherwise).
long long failedDriverCalls() {
  using GetStats = void (*)(FakeCudaStats *);
  auto getStats =
      reinterpret_cast<GetStats>(dlsym(RTLD_DEFAULT, "fakeCudaGetStats"));
  if (!getStats)
    return -1;
  FakeCudaStats stats;
  getStats(&stats);
  return stats.failedCalls;
}

void expect(bool condition, const char *what) {
  std::printf("[%s] %s\n", condition ? "PASS" : "FAIL", what);
  if (!condition)
    ++failures;
}

bool contains(const char *text, const char *needle) {
  return text && std::strstr(text, needle) != nullptr;
}

/// Returns the recorded error (or "") and clears it, printing it.
std::string takeError() {
  const char *error = txRuntimeGetLastError();
  std::string text = error ? error : "";
  if (error)
    std::printf("       recorded: %s\n", error);
  txRuntimeClearLastError();
  return text;
}

/// fill(out, base, n): out[i] = base + i for i < n.
const char kFillPtx[] = R"(
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

/// tensor_map_copy(map, out): out[0..15] = the 16 words of the 128-byte
/// parameter `map` (a tensor map passed by value, txRuntimeTensorMapParamsNext).
const char kTensorMapPtx[] = R"(
.version 7.0
.target sm_50
.address_size 64

.visible .entry tx_selftest_tensor_map_copy(
    .param .align 64 .b8 map[128],
    .param .u64 out)
{
    .reg .b64 %rd<4>;
    .reg .b32 %r<2>;
    mov.u32 %r1, %tid.x;
    ld.param.u64 %rd1, [out];
    cvta.to.global.u64 %rd1, %rd1;
    ld.param.u64 %rd2, [map+0];
    st.global.u64 [%rd1+0], %rd2;
    ld.param.u64 %rd2, [map+8];
    st.global.u64 [%rd1+8], %rd2;
    ld.param.u64 %rd2, [map+16];
    st.global.u64 [%rd1+16], %rd2;
    ld.param.u64 %rd2, [map+24];
    st.global.u64 [%rd1+24], %rd2;
    ld.param.u64 %rd2, [map+32];
    st.global.u64 [%rd1+32], %rd2;
    ld.param.u64 %rd2, [map+40];
    st.global.u64 [%rd1+40], %rd2;
    ld.param.u64 %rd2, [map+48];
    st.global.u64 [%rd1+48], %rd2;
    ld.param.u64 %rd2, [map+56];
    st.global.u64 [%rd1+56], %rd2;
    ld.param.u64 %rd2, [map+64];
    st.global.u64 [%rd1+64], %rd2;
    ld.param.u64 %rd2, [map+72];
    st.global.u64 [%rd1+72], %rd2;
    ld.param.u64 %rd2, [map+80];
    st.global.u64 [%rd1+80], %rd2;
    ld.param.u64 %rd2, [map+88];
    st.global.u64 [%rd1+88], %rd2;
    ld.param.u64 %rd2, [map+96];
    st.global.u64 [%rd1+96], %rd2;
    ld.param.u64 %rd2, [map+104];
    st.global.u64 [%rd1+104], %rd2;
    ld.param.u64 %rd2, [map+112];
    st.global.u64 [%rd1+112], %rd2;
    ld.param.u64 %rd2, [map+120];
    st.global.u64 [%rd1+120], %rd2;
    ret;
}
)";

/// The fake driver's version of tx_selftest_tensor_map_copy: params[0]
/// addresses the parameter's bytes, the 128-byte map itself.
void fakeTensorMapCopy(const FakeCudaLaunch *, void **params) {
  auto *out = *static_cast<unsigned char **>(params[1]);
  std::memcpy(out, params[0], 128);
}

/// Encodes a 2-D f16 map of `device` (64 x 8 elements, rows of 128 bytes,
/// one box of all of it, 128-byte swizzle) into `map`.
void encodeSelftestMap(void *map, void *device) {
  txRuntimeEncodeTensorMap(map, /*FLOAT16=*/6, 2, device, 64, 8, 1, 1, 1,
                           128, 0, 0, 0, 64, 8, 1, 1, 1, /*128B=*/3);
}

/// Launches tx_selftest_fill over n elements and checks the result.
/// `cluster` > 0: a cluster launch of that many CTAs per cluster (above 8,
/// a non-portable size, which the runtime opts the kernel into).
bool runFill(CUfunction fill, void *device, uint32_t base, uint32_t n,
             int32_t smem, int cluster, CUstream stream) {
  void *out = device;
  void *params[] = {&out, &base, &n};
  const intptr_t block = 128;
  intptr_t grid = (n + block - 1) / block;
  if (cluster > 0) // a multiple of the cluster
    grid = (grid + cluster - 1) / cluster * cluster;
  if (cluster > 0)
    mgpuLaunchClusterKernel(fill, cluster, 1, 1, grid, 1, 1, block, 1, 1,
                            smem, stream, params, nullptr);
  else
    mgpuLaunchKernel(fill, grid, 1, 1, block, 1, 1, smem, stream, params,
                     nullptr, 3);
  std::vector<uint32_t> host(n, 0);
  mgpuMemcpy(host.data(), device, n * sizeof(uint32_t), stream);
  mgpuStreamSynchronize(stream);
  for (uint32_t i = 0; i < n; ++i)
    if (host[i] != base + i)
      return false;
  return true;
}

void gpuChecks() {
  int errorsBefore = txRuntimeErrorCount();
  long long failedBefore = failedDriverCalls();
  const uint32_t n = 1000;

  CUstream stream = mgpuStreamCreate();
  expect(stream != nullptr, "mgpuStreamCreate returns a stream");

  // Memset32 a pattern and read it back.
  void *device = mgpuMemAlloc(n * sizeof(uint32_t), stream, 0);
  expect(device != nullptr, "mgpuMemAlloc returns device memory");
  mgpuMemset32(device, 0xC0FFEE01u, n, stream);
  std::vector<uint32_t> host(n, 0);
  mgpuMemcpy(host.data(), device, n * sizeof(uint32_t), stream);
  mgpuStreamSynchronize(stream);
  bool ok = true;
  for (uint32_t v : host)
    ok = ok && v == 0xC0FFEE01u;
  expect(ok, "memset32 pattern 0xC0FFEE01 reads back on every element");

  // Memset16 over part of it.
  mgpuMemset16(device, 0xBEEF, 10, stream);
  mgpuMemcpy(host.data(), device, n * sizeof(uint32_t), stream);
  mgpuStreamSynchronize(stream);
  expect(host[0] == 0xBEEFBEEFu && host[4] == 0xBEEFBEEFu &&
             host[5] == 0xC0FFEE01u,
         "memset16 of 10 halves rewrites exactly 5 words");

  // Device-to-device copy and events across two streams.
  void *other = mgpuMemAlloc(n * sizeof(uint32_t), stream, 0);
  CUstream second = mgpuStreamCreate();
  CUevent event = mgpuEventCreate();
  mgpuMemcpy(other, device, n * sizeof(uint32_t), stream);
  mgpuEventRecord(event, stream);
  mgpuStreamWaitEvent(second, event);
  mgpuMemcpy(host.data(), other, n * sizeof(uint32_t), second);
  mgpuEventSynchronize(event);
  mgpuStreamSynchronize(second);
  expect(host[0] == 0xBEEFBEEFu && host[n - 1] == 0xC0FFEE01u,
         "device-to-device copy ordered by an event across streams");
  mgpuEventDestroy(event);
  mgpuStreamDestroy(second);
  mgpuMemFree(other, stream);

  // Managed (host_shared) memory is host-accessible.
  auto *managed =
      static_cast<uint32_t *>(mgpuMemAlloc(64 * sizeof(uint32_t), stream, 1));
  expect(managed != nullptr, "mgpuMemAlloc(host_shared) returns memory");
  if (managed) {
    mgpuMemset32(managed, 7u, 64, stream);
    mgpuStreamSynchronize(stream);
    expect(managed[0] == 7u && managed[63] == 7u,
           "managed memory written by memset32 is readable on the host");
    mgpuMemFree(managed, stream);
  }

  // JIT a PTX kernel and launch it.
  CUmodule module = mgpuModuleLoadJIT(const_cast<char *>(kFillPtx), 4);
  expect(module != nullptr, "mgpuModuleLoadJIT loads PTX");
  CUfunction fill = mgpuModuleGetFunction(module, "tx_selftest_fill");
  expect(fill != nullptr, "mgpuModuleGetFunction finds tx_selftest_fill");
  if (fill) {
    expect(runFill(fill, device, 100, n, 0, 0, stream),
           "kernel launch writes out[i] = 100 + i");
    expect(runFill(fill, device, 200, n, 100 * 1024, 0, stream),
           "launch with 100 KiB dynamic shared memory (opt-in) works");
    expect(runFill(fill, device, 300, n, 0, 2, stream),
           "cluster launch (cluster 2x1x1) works");
    expect(runFill(fill, device, 400, n, 100 * 1024, 16, stream),
           "cluster launch of 16 CTAs (non-portable size) with 100 KiB "
           "dynamic shared memory works");
    // A programmatic dependent launch (cuLaunchKernelEx with programmatic
    // stream serialization), alone and with a cluster; the request is used
    // up by that launch (the fake driver counts the entry points).
    using CallCount = long long (*)(const char *);
    auto callCount = reinterpret_cast<CallCount>(
        dlsym(RTLD_DEFAULT, "fakeCudaCallCount"));
    long long exBefore = callCount ? callCount("cuLaunchKernelEx") : 0;
    txRuntimeLaunchProgrammaticNext();
    expect(runFill(fill, device, 500, n, 0, 0, stream),
           "programmatic dependent launch (txRuntimeLaunchProgrammaticNext) "
           "works");
    long long exAfter = callCount ? callCount("cuLaunchKernelEx") : 0;
    expect(runFill(fill, device, 600, n, 0, 0, stream),
           "the launch after it is a plain one and works");
    if (callCount) {
      expect(exAfter == exBefore + 1,
             "the programmatic launch went through cuLaunchKernelEx");
      expect(callCount("cuLaunchKernelEx") == exAfter,
             "the request is used up by one launch");
    }
    txRuntimeLaunchProgrammaticNext();
    expect(runFill(fill, device, 700, n, 100 * 1024, 16, stream),
           "programmatic dependent cluster launch of 16 CTAs works");
  }
  // A tensor map encoded by the runtime and passed by value
  // (txRuntimeTensorMapParamsNext): the kernel reads the 128 bytes the host
  // encoded.
  using RegisterKernel = void (*)(const char *, FakeCudaKernelFn);
  if (auto reg = reinterpret_cast<RegisterKernel>(
          dlsym(RTLD_DEFAULT, "fakeCudaRegisterKernel")))
    reg("tx_selftest_tensor_map_copy", fakeTensorMapCopy);
  CUmodule mapModule =
      mgpuModuleLoadJIT(const_cast<char *>(kTensorMapPtx), 4);
  CUfunction mapCopy =
      mapModule ? mgpuModuleGetFunction(mapModule,
                                        "tx_selftest_tensor_map_copy")
                : nullptr;
  expect(mapCopy != nullptr,
         "the tensor-map kernel (a 128-byte .param) loads");
  alignas(64) static unsigned char map[128];
  encodeSelftestMap(map, device);
  bool nonzero = false;
  for (unsigned char c : map)
    nonzero = nonzero || c != 0;
  expect(nonzero, "txRuntimeEncodeTensorMap encodes a 2-D f16 map");
  void *mapOut = mgpuMemAlloc(128, stream, 0);
  if (mapCopy && mapOut) {
    void *mapPtr = map;
    void *params[] = {&mapPtr, &mapOut};
    mgpuMemset32(mapOut, 0, 32, stream);
    txRuntimeTensorMapParamsNext(1);
    mgpuLaunchKernel(mapCopy, 1, 1, 1, 1, 1, 1, 0, stream, params, nullptr,
                     2);
    unsigned char back[128];
    mgpuMemcpy(back, mapOut, 128, stream);
    mgpuStreamSynchronize(stream);
    expect(std::memcmp(back, map, 128) == 0,
           "the kernel's by-value parameter holds the 128 bytes of the map "
           "(txRuntimeTensorMapParamsNext)");
    // A cluster launch passes no parameter count (the image's is used).
    mgpuMemset32(mapOut, 0, 32, stream);
    txRuntimeTensorMapParamsNext(1);
    mgpuLaunchClusterKernel(mapCopy, 1, 1, 1, 1, 1, 1, 1, 1, 1, 0, stream,
                            params, nullptr);
    mgpuMemcpy(back, mapOut, 128, stream);
    mgpuStreamSynchronize(stream);
    expect(std::memcmp(back, map, 128) == 0,
           "the same through a cluster launch (mgpuLaunchClusterKernel)");
  }
  // The same PTX through mgpuModuleLoad (cuModuleLoadData accepts PTX too).
  CUmodule module2 =
      mgpuModuleLoad(const_cast<char *>(kFillPtx), sizeof(kFillPtx));
  expect(module2 != nullptr, "mgpuModuleLoad loads NUL-terminated PTX");
  expect(txRuntimeSynchronize() == 0, "txRuntimeSynchronize returns 0");
  expect(txRuntimeErrorCount() == errorsBefore,
         "happy path reported no errors");
  if (failedBefore >= 0)
    expect(failedDriverCalls() == failedBefore,
           "happy path: no driver call failed (fake driver's count)");
  takeError();
  if (!happyPathOnly && mapCopy && mapOut) {
    // Mistakes: nothing is launched, each is reported.
    void *mapPtr = map;
    void *params[] = {&mapPtr, &mapOut};
    auto refused = [&](uint64_t mask, void *which, long long count,
                       const char *needle) {
      mapPtr = which;
      int before = txRuntimeErrorCount();
      txRuntimeTensorMapParamsNext(mask);
      mgpuLaunchKernel(mapCopy, 1, 1, 1, 1, 1, 1, 0, stream, params, nullptr,
                       count);
      std::string e = takeError();
      return txRuntimeErrorCount() == before + 1 && contains(e.c_str(), needle);
    };
    expect(refused(1u << 5, map, 2, "parameter 5 as a tensor map"),
           "a tensor-map parameter past the launch's parameters is refused");
    expect(refused(1, map + 8, 2, "not a 64-byte aligned"),
           "a misaligned tensor map is refused");
    alignas(64) static unsigned char zero[128];
    expect(refused(1, zero, 2, "was not encoded"),
           "a tensor map that was never encoded (all zero) is refused");
    // A refused encoding leaves the buffer zeroed (it held an earlier
    // good map and garbage), so a launch with it is refused too.
    int before = txRuntimeErrorCount();
    alignas(64) unsigned char bad[128];
    encodeSelftestMap(bad, device);
    std::memset(bad + 64, 0xAB, 64);
    txRuntimeEncodeTensorMap(bad, 6, 2, device, 64, 8, 1, 1, 1, 128, 0, 0, 0,
                             300, 8, 1, 1, 1, 3);
    std::string e = takeError();
    expect(txRuntimeErrorCount() == before + 1 &&
               contains(e.c_str(), "box 300"),
           "txRuntimeEncodeTensorMap refuses a box over 256 elements");
    expect(refused(1, bad, 2, "was not encoded"),
           "... and leaves the map zeroed: the launch with it is refused");
    before = txRuntimeErrorCount();
    encodeSelftestMap(bad, device);
    txRuntimeEncodeTensorMap(bad, 6, 0, device, 64, 8, 1, 1, 1, 128, 0, 0, 0,
                             64, 8, 1, 1, 1, 3);
    e = takeError();
    expect(txRuntimeErrorCount() == before + 1 &&
               contains(e.c_str(), "rank must be 1..5"),
           "txRuntimeEncodeTensorMap refuses rank 0, naming the rank");
    expect(refused(1, bad, 2, "was not encoded"),
           "... and the earlier good map in the buffer is not launched");
  }
  if (mapOut)
    mgpuMemFree(mapOut, stream);
  if (mapModule)
    mgpuModuleUnload(mapModule);
  if (happyPathOnly) {
    mgpuModuleUnload(module2);
    mgpuModuleUnload(module);
    mgpuMemFree(device, stream);
    mgpuStreamSynchronize(stream);
    mgpuStreamDestroy(stream);
    return;
  }

  // Mistakes are reported with the kernel's name and do not crash.
  CUfunction missing = mgpuModuleGetFunction(module, "no_such_kernel");
  std::string error = takeError();
  expect(missing == nullptr && contains(error.c_str(), "no_such_kernel") &&
             contains(error.c_str(), "cuModuleGetFunction") &&
             contains(error.c_str(), "CUDA_ERROR_NOT_FOUND"),
         "unknown kernel: error names cuModuleGetFunction, "
         "CUDA_ERROR_NOT_FOUND and the kernel");
  if (fill) {
    void *out = device;
    uint32_t base = 0;
    void *params[] = {&out, &base};
    mgpuLaunchKernel(fill, 1, 1, 1, 32, 1, 1, 0, stream, params, nullptr, 2);
    error = takeError();
    expect(contains(error.c_str(), "tx_selftest_fill") &&
               contains(error.c_str(), "expects 3 parameters") &&
               contains(error.c_str(), "passes 2"),
           "too few parameters: the launch is refused, naming the kernel");
    uint32_t extra = 0;
    void *params4[] = {&out, &base, &base, &extra};
    mgpuLaunchKernel(fill, 1, 1, 1, 32, 1, 1, 0, stream, params4, nullptr, 4);
    error = takeError();
    expect(contains(error.c_str(), "tx_selftest_fill") &&
               contains(error.c_str(), "expects 3 parameters") &&
               contains(error.c_str(), "passes 4"),
           "too many parameters: the launch is refused, naming the kernel");
    mgpuLaunchKernel(fill, 1, 1, 1, 4096, 1, 1, 0, stream, params, nullptr,
                     3);
    error = takeError();
    expect(contains(error.c_str(), "cuLaunchKernel") &&
               contains(error.c_str(), "tx_selftest_fill") &&
               contains(error.c_str(), "CUDA_ERROR_INVALID_VALUE"),
           "4096-thread block: cuLaunchKernel error names the kernel");
  }

  mgpuModuleUnload(module2);
  mgpuModuleUnload(module);
  mgpuMemFree(device, stream);
  mgpuStreamDestroy(stream);
  takeError();
}

} // namespace

int main(int argc, char **argv) {
  // Errors below are intentional; never abort on them.
  unsetenv("TX_RUNTIME_ABORT_ON_ERROR");
  // Keep our lines in order with the runtime's stderr reports.
  std::setvbuf(stdout, nullptr, _IOLBF, 0);
  happyPathOnly = argc > 1 && std::strcmp(argv[1], "--happy-path") == 0;
  if (happyPathOnly) {
    CUstream probe = mgpuStreamCreate();
    if (!probe) {
      std::printf("tx-runtime-selftest: FAILED (no usable GPU: %s)\n",
                  txRuntimeGetLastError());
      return 1;
    }
    mgpuStreamDestroy(probe);
    gpuChecks();
    std::printf("tx-runtime-selftest: %s (happy path only)\n",
                failures ? "FAILED" : "PASSED");
    return failures ? 1 : 0;
  }

  // (a) A buffer that is no cubin.
  static char notACubin[] = "not a cubin";
  int countBefore = txRuntimeErrorCount();
  CUmodule bad = mgpuModuleLoad(notACubin, sizeof(notACubin));
  const char *error = txRuntimeGetLastError();
  expect(bad == nullptr, "(a) mgpuModuleLoad of garbage returns null");
  expect(error != nullptr, "(a) txRuntimeGetLastError() is set");
  expect(txRuntimeErrorCount() == countBefore + 1,
         "(a) txRuntimeErrorCount() went up by one");
  bool noDriver = contains(error, "cuInit");
  if (error)
    std::printf("       recorded: %s\n", error);
  if (noDriver) {
    std::printf("       (no usable driver/GPU: checking the cuInit report)\n");
    expect(contains(error, "CUDA_ERROR_"),
           "(a) cuInit failure is reported with its CUDA error name");
  } else {
    expect(contains(error, "cuModuleLoadData") &&
               contains(error, "CUDA_ERROR_"),
           "(a) error names cuModuleLoadData and the CUDA error name");
    expect(contains(error, "12-byte"),
           "(a) error describes the module (its size)");
  }
  txRuntimeClearLastError();
  expect(txRuntimeGetLastError() == nullptr,
         "(a) txRuntimeClearLastError() clears it");
  mgpuModuleUnload(bad); // null: a no-op, must not crash

  // (b) A null module.
  CUfunction function = mgpuModuleGetFunction(nullptr, "k");
  error = txRuntimeGetLastError();
  if (error)
    std::printf("       recorded: %s\n", error);
  expect(function == nullptr && contains(error, "'k'"),
         "(b) mgpuModuleGetFunction(nullptr, \"k\") reports kernel 'k'");
  txRuntimeClearLastError();
  mgpuLaunchKernel(function, 1, 1, 1, 1, 1, 1, 0, nullptr, nullptr, nullptr,
                   0);
  error = txRuntimeGetLastError();
  if (error)
    std::printf("       recorded: %s\n", error);
  expect(contains(error, "'k'"),
         "(b) launching the null function reports kernel 'k'");
  txRuntimeClearLastError();

  // (c) The happy path, when there is a GPU.
  if (noDriver)
    std::printf("(c) skipped: no GPU / real driver in this process\n");
  else
    gpuChecks();

  std::printf("tx-runtime-selftest: %s (%s)\n",
              failures ? "FAILED" : "PASSED",
              noDriver ? "no GPU: error reporting checked"
                       : "GPU: error reporting and happy path checked");
  return failures ? 1 : 0;
}
