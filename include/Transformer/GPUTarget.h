//===- GPUTarget.h - the one table of NVIDIA chip facts --------*- C++ -*-===//
//
// Everything tx needs to know about a chip, derived once from `chip=`
// (`sm_NN`, `sm_NNa`, `sm_NNf`): the PTX it needs, shared memory per CTA
// and per SM, the SM count to assume when none is given, and which
// instructions exist (mma.sync, wgmma, TMA, clusters). The pipelines, the
// strategy and mapping passes and the kernels read it here; no chip
// constant lives anywhere else (issue #39).
//
// Sources: CUDA C++ Programming Guide, "Technical Specifications per Compute
// Capability" (shared memory per SM and the opt-in maximum per block), the
// PTX ISA release notes and LLVM 22's NVPTX target (the PTX versions).
//
//===----------------------------------------------------------------------===//
#ifndef TRANSFORMER_GPUTARGET_H
#define TRANSFORMER_GPUTARGET_H

#include "llvm/ADT/StringRef.h"
#include <cstdint>
#include <optional>

namespace mlir {
namespace tx {

struct GPUTarget {
  int sm = 90;      // compute capability as a number (sm_90a -> 90)
  char suffix = 0;  // 'a' (architecture-specific), 'f' (family) or 0
  int minPtx = 78;  // lowest PTX ISA version (times 10) that targets it
  /// Dynamic shared memory a CTA can opt into (bytes).
  int64_t maxSharedMemoryPerCta = 232448;
  /// Shared memory of one SM (bytes); each resident CTA also reserves
  /// kReservedSharedMemoryPerCta of it.
  int64_t sharedMemoryPerSm = 233472;
  /// Shared memory the system reserves for each resident CTA (sm_80+).
  static constexpr int64_t kReservedSharedMemoryPerCta = 1024;
  /// The largest opt-in shared memory per CTA of any chip in the table (a
  /// bound for values that are checked against the chip later).
  static int64_t largestSharedMemoryPerCta();
  /// SMs to assume when the user gives none (the split-KV decode split
  /// count, persistent grids): the datacenter part of each architecture.
  int64_t defaultNumSms = 132;

  /// mma.sync m16n8k16 and cp.async (sm_80+).
  bool hasMmaSync() const { return sm >= 80; }
  /// wgmma.mma_async and setmaxnreg: the sm_90a target only.
  bool hasWgmma() const { return sm == 90 && suffix == 'a'; }
  /// cp.async.bulk (TMA), mbarrier transactions, thread-block clusters,
  /// programmatic dependent launch (sm_90+).
  bool hasHopperFeatures() const { return sm >= 90; }

  /// The target of `chip`, or std::nullopt for a chip that does not exist.
  static std::optional<GPUTarget> fromChip(llvm::StringRef chip);
  /// The target of compute capability `sm` (without a suffix; `wgmma`
  /// selects sm_90a), for passes configured by `sm=NN`; unknown numbers get
  /// the facts of the nearest older chip.
  static GPUTarget fromSm(int sm, bool wgmma = false);
};

} // namespace tx
} // namespace mlir

#endif // TRANSFORMER_GPUTARGET_H
