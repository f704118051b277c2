//===- GPUTarget.cpp - the one table of NVIDIA chip facts -----------------===//
#include "Transformer/GPUTarget.h"

#include <algorithm>
#include <iterator>

using namespace mlir::tx;

namespace {
/// One row per compute capability (KiB; the opt-in maximum per CTA and the
/// SM's shared memory, CUDA C++ Programming Guide; PTX from its release
/// notes and LLVM 22's NVPTX target).
struct Row {
  int sm;
  int ptx, ptxA, ptxF; // minimum PTX of sm_NN, sm_NNa, sm_NNf; 0: no such chip
  int64_t ctaKiB;      // opt-in dynamic shared memory per CTA
  int64_t smKiB;       // shared memory per SM
  int64_t numSms;      // SMs assumed when none is given
};
constexpr Row kRows[] = {
    {50, 40, 0, 0, 48, 64, 132},    {52, 40, 0, 0, 48, 96, 132},
    {53, 40, 0, 0, 48, 64, 132},    {60, 50, 0, 0, 48, 64, 132},
    {61, 50, 0, 0, 48, 96, 132},    {62, 50, 0, 0, 48, 64, 132},
    {70, 60, 0, 0, 96, 96, 132},    {72, 61, 0, 0, 96, 96, 132},
    {75, 63, 0, 0, 64, 64, 132},    {80, 70, 0, 0, 163, 164, 108},
    {86, 71, 0, 0, 99, 100, 132},   {87, 74, 0, 0, 163, 164, 132},
    {89, 78, 0, 0, 99, 100, 132},   {90, 78, 80, 0, 227, 228, 132},
    {100, 86, 86, 88, 227, 228, 132}, {101, 86, 86, 88, 227, 228, 132},
    {103, 88, 88, 88, 227, 228, 132}, {110, 0, 0, 88, 227, 228, 132},
    {120, 87, 87, 88, 99, 100, 132}, {121, 88, 88, 88, 99, 100, 132},
};

GPUTarget fromRow(const Row &r, char suffix) {
  GPUTarget t;
  t.sm = r.sm;
  t.suffix = suffix;
  t.minPtx = suffix == 'a' ? r.ptxA : suffix == 'f' ? r.ptxF : r.ptx;
  t.maxSharedMemoryPerCta = r.ctaKiB * 1024;
  t.sharedMemoryPerSm = r.smKiB * 1024;
  t.defaultNumSms = r.numSms;
  return t;
}
} // namespace

std::optional<GPUTarget> GPUTarget::fromChip(llvm::StringRef chip) {
  char suffix = 0;
  if (!chip.consume_front("sm_"))
    return std::nullopt;
  if (chip.consume_back("a"))
    suffix = 'a';
  else if (chip.consume_back("f"))
    suffix = 'f';
  int sm;
  if (chip.getAsInteger(10, sm))
    return std::nullopt;
  const Row *row = std::find_if(std::begin(kRows), std::end(kRows),
                                [&](const Row &r) { return r.sm == sm; });
  if (row == std::end(kRows))
    return std::nullopt;
  GPUTarget t = fromRow(*row, suffix);
  if (t.minPtx == 0)
    return std::nullopt;
  return t;
}

GPUTarget GPUTarget::fromSm(int sm, bool wgmma) {
  const Row *row = std::begin(kRows);
  for (const Row &r : kRows)
    if (r.sm <= sm)
      row = &r;
  GPUTarget t = fromRow(*row, wgmma && row->sm == 90 ? 'a' : 0);
  t.sm = sm; // a number between rows keeps its own value
  return t;
}

int64_t GPUTarget::largestSharedMemoryPerCta() {
  int64_t kib = 0;
  for (const Row &r : kRows)
    kib = std::max(kib, r.ctaKiB);
  return kib * 1024;
}
