//===- CheckGPUTarget.cpp - tx-check-gpu-target ---------------------------===//
//
// tx-gpu-pipeline's first pass: the target options are checked, and so is
// every op of the input that the chip or the PTX version cannot express, so
// that the user gets a located diagnostic instead of an abort in LLVM's
// NVPTX instruction selection ("Cannot select: intrinsic ...").
//
//===----------------------------------------------------------------------===//
#include "Transformer/GPUTarget.h"
#include "Transformer/Passes.h"

#include "mlir/Dialect/LLVMIR/NVVMDialect.h"
#include "llvm/ADT/StringSwitch.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/Program.h"

namespace mlir {
namespace tx {
#define GEN_PASS_DEF_TXCHECKGPUTARGET
#include "Transformer/Passes.h.inc"
} // namespace tx
} // namespace mlir

using namespace mlir;
using namespace mlir::tx;

/// Newest PTX version (times 10) LLVM 22's NVPTX backend knows.
static constexpr int kMaxLLVMPtx = 90;

/// Parses sm_NN, sm_NNa, sm_NNf (GPUTarget's table). Returns the number, or
/// -1 for a chip that does not exist.
static int parseChip(StringRef chip, char &suffix) {
  std::optional<GPUTarget> t = GPUTarget::fromChip(chip);
  suffix = t ? t->suffix : 0;
  return t ? t->sm : -1;
}

/// Highest PTX version (times 10) the installed ptxas accepts, read from
/// `ptxas --version` ("release 13.0"), or 0 when unknown.
static int ptxasMaxPtx(StringRef ptxas) {
  SmallString<128> out;
  if (llvm::sys::fs::createTemporaryFile("tx-ptxas-version", "txt", out))
    return 0;
  std::optional<StringRef> redirects[] = {std::nullopt, StringRef(out),
                                          std::nullopt};
  int rc = llvm::sys::ExecuteAndWait(ptxas, {ptxas, "--version"}, std::nullopt,
                                     redirects);
  auto buf = llvm::MemoryBuffer::getFile(out);
  llvm::sys::fs::remove(out);
  if (rc != 0 || !buf)
    return 0;
  StringRef text = (*buf)->getBuffer();
  size_t pos = text.find("release ");
  if (pos == StringRef::npos)
    return 0;
  StringRef ver = text.drop_front(pos + 8).take_until([](char c) {
    return c == ',' || c == '\n';
  });
  auto [majS, minS] = ver.split('.');
  int maj = 0, min = 0;
  if (majS.getAsInteger(10, maj) || minS.getAsInteger(10, min))
    return 0;
  // CUDA release -> newest PTX ISA it accepts (PTX ISA release notes).
  if (maj >= 13)
    return 90 + min;
  if (maj == 12)
    return llvm::StringSwitch<int>(minS)
        .Case("0", 80).Case("1", 81).Case("2", 82).Case("3", 83)
        .Case("4", 84).Case("5", 85).Case("6", 85).Case("8", 87)
        .Case("9", 88).Default(80);
  if (maj == 11)
    return 70 + min;
  return 0;
}

static std::string ptxVersion(int v) {
  return std::to_string(v / 10) + "." + std::to_string(v % 10);
}

/// What one NVVM op needs: the oldest chip (`sm`, architecture-specific when
/// `archSpecific`) and the PTX version (times 10). Upstream's
/// RequiresSMInterface covers a few ops; this table covers those LLVM 22's
/// NVPTX backend (or ptxas, for inline-PTX ops) accepts only on newer chips
/// and that tx's kernels and tests use. Sources: PTX ISA, "Target ISA
/// notes" of each instruction (mbarrier tx-count and try_wait, cp.async.bulk,
/// fence.proxy, griddepcontrol, elect, stmatrix, clusters: sm_90;
/// wgmma and setmaxnreg: sm_90a; cp.async and mbarrier: sm_80; ldmatrix:
/// sm_75) and "cp.async.bulk.tensor" (the shared::cta destination is PTX
/// 8.6; the gather4/im2col::w modes and CTA groups are sm_100a, PTX 8.6).
struct NVVMOpNeeds {
  int sm = 0;
  bool archSpecific = false;
  int ptx = 0;
  std::string what; // the feature that needs it, "" for the op itself
};
static NVVMOpNeeds nvvmOpNeeds(Operation *op) {
  if (auto load = dyn_cast<NVVM::CpAsyncBulkTensorGlobalToSharedClusterOp>(op)) {
    NVVM::TMALoadMode mode = load.getMode();
    if (mode != NVVM::TMALoadMode::TILE && mode != NVVM::TMALoadMode::IM2COL)
      return {100, true, 86,
              "the " + NVVM::stringifyTMALoadMode(mode).str() + " mode"};
    if (load.getGroup())
      return {100, true, 86, "a CTA group"};
    if (load.getIsCTAOnly())
      return {90, false, 86, "a shared::cta destination (isCTAOnly)"};
    return {90, false, 0, ""};
  }
  StringRef name = op->getName().getStringRef();
  if (!name.consume_front("nvvm."))
    return {};
  if (name.starts_with("wgmma.") || name == "setmaxregister")
    return {90, true, 0, ""};
  if (name.starts_with("cp.async.bulk.") || name.starts_with("fence.proxy") ||
      name == "fence.mbarrier.init" || name == "fence.sc.cluster" ||
      name == "griddepcontrol" || name == "elect.sync" ||
      name == "stmatrix" || name.starts_with("cluster.") ||
      (name.starts_with("mbarrier.") &&
       (name.contains("expect_tx") || name.contains("complete_tx") ||
        name.contains("try_wait"))))
    return {90, false, 0, ""};
  if (name.starts_with("cp.async.") || name.starts_with("mbarrier."))
    return {80, false, 0, ""};
  if (name == "ldmatrix")
    return {75, false, 0, ""};
  if (name.starts_with("clusterlaunchcontrol."))
    return {100, false, 86, ""};
  return {};
}

namespace {
struct TxCheckGPUTargetPass
    : public tx::impl::TxCheckGPUTargetBase<TxCheckGPUTargetPass> {
  using Base::Base;

  void runOnOperation() override {
    std::optional<GPUTarget> target = GPUTarget::fromChip(chip);
    int ptx = 0;
    if (failed(checkOptions(ptx)))
      return signalPassFailure();
    // Without +ptxNN, LLVM emits the chip's minimum PTX version.
    int effectivePtx = ptx ? ptx : target->minPtx;
    if (failed(checkRequiredChips(*target)) ||
        failed(checkNVVMOps(*target, effectivePtx)) || failed(checkReturns()))
      signalPassFailure();
  }

  /// No public function returns one value twice: each result of an entry
  /// point is written into its own caller buffer (docs/ABI.md), and
  /// upstream's buffer-results-to-out-params crashes on such a return.
  LogicalResult checkReturns() {
    for (auto func : getOperation().getOps<func::FuncOp>()) {
      if (!func.isPublic() || func.isExternal())
        continue;
      auto ret = dyn_cast<func::ReturnOp>(func.getBody().back().getTerminator());
      if (!ret)
        continue;
      for (unsigned j = 0; j < ret.getNumOperands(); ++j)
        for (unsigned i = 0; i < j; ++i)
          if (ret.getOperand(i) == ret.getOperand(j))
            return ret.emitError("tx-gpu-pipeline: @")
                   << func.getSymName() << " returns one value as results "
                   << i << " and " << j
                   << "; each result of an entry point is written into its "
                      "own buffer of the caller (docs/ABI.md): return it "
                      "once, or return a copy";
    }
    return success();
  }

  /// The options; reported at the module's location, without the op
  /// attached (no IR dump): these are option errors, not errors of the
  /// input. Sets `ptx` to the +ptxNN feature's version (0 when none).
  LogicalResult checkOptions(int &ptx) {
    ModuleOp module = getOperation();
    auto fail = [&](const Twine &msg) {
      mlir::emitError(module.getLoc(), "tx-gpu-pipeline: ") << msg;
      return failure();
    };
    char suffix;
    int sm = parseChip(chip, suffix);
    if (sm < 0)
      return fail("unknown chip '" + chip +
                  "'; expected sm_NN with NN one of 50, 52, 53, 60, 61, 62, 70, "
                  "72, 75, 80, 86, 87, 89, 90, 100, 101, 103, 120, 121, or an "
                  "architecture-specific sm_90a, sm_100a, sm_101a, sm_103a, "
                  "sm_120a, sm_121a, sm_100f, sm_101f, sm_103f, sm_110f, "
                  "sm_120f, sm_121f");
    if (softmax != "fast" && softmax != "simple")
      return fail("unknown softmax strategy '" + softmax +
                  "'; expected fast or simple");
    if (attention != "simple" && attention != "flash")
      return fail("unknown attention strategy '" + attention +
                  "'; expected simple or flash");
    if (format != "isa" && format != "bin" && format != "fatbin" &&
        format != "offload")
      return fail("unknown format '" + format +
                  "'; expected isa, bin, fatbin or offload");
    // Features: +ptxNN (and +sm_NN, which LLVM also accepts).
    ptx = 0;
    SmallVector<StringRef> feats;
    StringRef(features).split(feats, ',', -1, false);
    for (StringRef f : feats) {
      StringRef rest = f.trim();
      if (rest.consume_front("+ptx")) {
        if (rest.getAsInteger(10, ptx))
          return fail("malformed PTX feature '" + f + "'; expected +ptxNN");
      } else if (!rest.starts_with("+sm_")) {
        return fail("unknown feature '" + f + "'; expected +ptxNN (e.g. +ptx80)");
      }
    }
    int need = GPUTarget::fromChip(chip)->minPtx;
    auto ver = ptxVersion;
    if (ptx && ptx < need)
      return fail("PTX " + ver(ptx) + " cannot target " + chip +
                  ", which needs PTX " + ver(need) + " or later");
    // The toolkit provides libdevice (math functions) for every format and
    // ptxas for bin/fatbin.
    if (!llvm::sys::fs::is_directory(toolkit))
      return fail("CUDA toolkit '" + toolkit +
                  "' does not exist; pass toolkit=<CUDA path> (it provides "
                  "libdevice, and ptxas for format=bin/fatbin)");
    if (format == "bin" || format == "fatbin") {
      SmallString<256> ptxas(toolkit);
      llvm::sys::path::append(ptxas, "bin", "ptxas");
      if (!llvm::sys::fs::can_execute(ptxas))
        return fail("format '" + format + "' needs ptxas, but '" + ptxas +
                    "' does not exist; pass toolkit=<CUDA path> or use "
                    "format=isa");
      int maxPtx = ptxasMaxPtx(ptxas);
      if (ptx && maxPtx && ptx > maxPtx)
        return fail("PTX " + ver(ptx) + " was requested but the installed " +
                    ptxas + " accepts at most PTX " + ver(maxPtx));
      if (maxPtx >= 90 && sm < 75)
        return fail("the installed " + ptxas + " (CUDA 13 or later) no longer "
                    "compiles for " + chip + " (sm_75 or newer needed); use "
                    "format=isa or an older toolkit");
    }
    if (ptx > kMaxLLVMPtx)
      return fail("PTX " + ver(ptx) + " is newer than LLVM 22's NVPTX backend "
                  "supports (PTX " + ver(kMaxLLVMPtx) + ")");
    return success();
  }

  /// Kernels generated earlier for a newer chip (tx-attention-to-gpu run on
  /// its own, then this pipeline): LLVM's NVPTX backend would abort
  /// ("Cannot select") on their mma.sync/cp.async/wgmma.
  LogicalResult checkRequiredChips(const GPUTarget &target) {
    int sm = target.sm;
    char suffix = target.suffix;
    WalkResult r = getOperation().walk([&](Operation *op) {
      auto req = op->getAttrOfType<StringAttr>(kRequiredChipAttr);
      if (!req)
        return WalkResult::advance();
      char reqSuffix = 0;
      int reqSm = parseChip(req.getValue(), reqSuffix);
      bool ok = reqSm > 0 && (reqSuffix == 'a' ? sm == reqSm && suffix == 'a'
                                               : sm >= reqSm);
      if (ok)
        return WalkResult::advance();
      op->emitError("tx-gpu-pipeline: this kernel was generated for ")
          << req.getValue() << " (" << kRequiredChipAttr
          << ") and cannot be compiled for chip " << chip
          << (reqSuffix == 'a' ? "" : " (older)")
          << "; run tx-attention-to-gpu with the pipeline's chip, or pass "
             "chip="
          << req.getValue();
      return WalkResult::interrupt();
    });
    return failure(r.wasInterrupted());
  }

  /// NVVM ops of the input (hand-written kernels) that the chip or the PTX
  /// version cannot express: the ops' own RequiresSMInterface (upstream's
  /// table) and nvvmOpNeeds. Upstream checks neither before LLVM's
  /// instruction selection, which aborts.
  LogicalResult checkNVVMOps(const GPUTarget &target, int ptx) {
    auto have = NVVM::NVVMCheckSMVersion(target.suffix == 'a', target.sm);
    WalkResult r = getOperation().walk([&](Operation *op) {
      if (auto req = dyn_cast<NVVM::RequiresSMInterface>(op)) {
        NVVM::NVVMCheckSMVersion need = req.getRequiredMinSMVersion();
        if (!need.isCompatibleWith(have)) {
          std::string list;
          for (int v : need.smVersionList)
            list += (list.empty() ? "sm_" : ", sm_") + std::to_string(v) +
                    (need.archAccelerated ? "a" : "");
          op->emitError("tx-gpu-pipeline: ")
              << op->getName() << " needs "
              << (need.archAccelerated ? "the chip " + list
                                       : list + " or newer")
              << "; chip is " << chip;
          return WalkResult::interrupt();
        }
      }
      NVVMOpNeeds n = nvvmOpNeeds(op);
      std::string with = n.what.empty() ? "" : " with " + n.what;
      bool chipOk = n.archSpecific
                        ? target.sm == n.sm && target.suffix == 'a'
                        : target.sm >= n.sm;
      if (n.sm && !chipOk) {
        op->emitError("tx-gpu-pipeline: ")
            << op->getName() << with << " needs "
            << (n.archSpecific ? "the architecture-specific chip sm_" +
                                     std::to_string(n.sm) + "a"
                               : "sm_" + std::to_string(n.sm) + " or newer")
            << "; chip is " << chip;
        return WalkResult::interrupt();
      }
      if (n.ptx > ptx) {
        op->emitError("tx-gpu-pipeline: ")
            << op->getName() << with << " needs PTX " << ptxVersion(n.ptx)
            << " or later; the target uses PTX " << ptxVersion(ptx)
            << "; pass features=+ptx" << n.ptx;
        return WalkResult::interrupt();
      }
      return WalkResult::advance();
    });
    return failure(r.wasInterrupted());
  }
};

} // namespace
