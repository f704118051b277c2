//===- Pipelines.cpp - tx-gpu-pipeline, tx-cpu-pipeline -------------------===//
//
// The named pipelines. The NVVM part follows upstream's
// `gpu-lower-to-nvvm-pipeline` (mlir/lib/Dialect/GPU/Pipelines/
// GPUToNVVMPipeline.cpp) but takes tx's defaults (sm_90, a PTX version the
// chip needs, the CUDA toolkit path) and validates them first.
//
//===----------------------------------------------------------------------===//
#include "Transformer/Passes.h"

#include "mlir/Conversion/Passes.h"
#include "mlir/Dialect/Bufferization/Transforms/Passes.h"
#include "mlir/Dialect/GPU/Transforms/Passes.h"
#include "mlir/Dialect/Linalg/Passes.h"
#include "mlir/Dialect/MemRef/Transforms/Passes.h"
#include "mlir/Pass/PassManager.h"
#include "mlir/Pass/PassRegistry.h"
#include "mlir/Transforms/Passes.h"
#include "llvm/ADT/StringSwitch.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/Program.h"
#include <mutex>

namespace mlir {
namespace tx {
#define GEN_PASS_DEF_TXCHECKGPUTARGET
#define GEN_PASS_DEF_TXEMITCINTERFACE
#include "Transformer/Passes.h.inc"
} // namespace tx
} // namespace mlir

using namespace mlir;
using namespace mlir::tx;

//===----------------------------------------------------------------------===//
// Target checks
//===----------------------------------------------------------------------===//

/// Minimum PTX ISA version (times 10) that can target `sm` (e.g. 90 -> 78),
/// or 0 for an unknown SM number. From the PTX ISA release notes.
static int minPtxForSm(int sm, bool archSpecific) {
  switch (sm) {
  case 50: case 52: case 53: return 40;
  case 60: case 61: case 62: return 50;
  case 70: return 60;
  case 72: return 61;
  case 75: return 63;
  case 80: return 70;
  case 86: return 71;
  case 87: return 74;
  case 89: return 78;
  case 90: return archSpecific ? 80 : 78;
  case 100: case 101: return 86;
  case 103: return 88;
  case 120: return 87;
  case 121: return 88;
  default: return 0;
  }
}

/// Parses sm_NN, sm_NNa, sm_NNf. Returns the number, or -1.
static int parseChip(StringRef chip, bool &archSpecific) {
  archSpecific = false;
  if (!chip.consume_front("sm_"))
    return -1;
  if (chip.consume_back("a") || chip.consume_back("f"))
    archSpecific = true;
  int sm;
  if (chip.getAsInteger(10, sm))
    return -1;
  return minPtxForSm(sm, archSpecific) ? sm : -1;
}

/// The default PTX feature for a chip: the chip's minimum, at least +ptx80
/// (LLVM's NVPTX backend needs PTX 8.0 for sm_90 code).
static std::string defaultFeatures(StringRef chip) {
  bool arch;
  int sm = parseChip(chip, arch);
  int ptx = sm < 0 ? 80 : std::max(80, minPtxForSm(sm, arch));
  return "+ptx" + std::to_string(ptx);
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

namespace {
struct TxCheckGPUTargetPass
    : public tx::impl::TxCheckGPUTargetBase<TxCheckGPUTargetPass> {
  using Base::Base;
  void runOnOperation() override {
    ModuleOp module = getOperation();
    auto fail = [&](const Twine &msg) {
      module.emitError("tx-gpu-pipeline: ") << msg;
      signalPassFailure();
    };
    bool arch;
    int sm = parseChip(chip, arch);
    if (sm < 0)
      return fail("unknown chip '" + chip +
                  "'; expected sm_NN, sm_NNa or sm_NNf with NN one of 50, 52, "
                  "53, 60, 61, 62, 70, 72, 75, 80, 86, 87, 89, 90, 100, 101, "
                  "103, 120, 121");
    if (softmax != "fast" && softmax != "simple")
      return fail("unknown softmax strategy '" + softmax +
                  "'; expected fast or simple");
    if (format != "isa" && format != "bin" && format != "fatbin" &&
        format != "offload")
      return fail("unknown format '" + format +
                  "'; expected isa, bin, fatbin or offload");
    // PTX version among the features.
    int ptx = 0;
    SmallVector<StringRef> feats;
    StringRef(features).split(feats, ',', -1, false);
    for (StringRef f : feats) {
      StringRef rest = f.trim();
      if (rest.consume_front("+ptx")) {
        if (rest.getAsInteger(10, ptx))
          return fail("malformed PTX feature '" + f + "'; expected +ptxNN");
      }
    }
    int need = minPtxForSm(sm, arch);
    auto ver = [](int v) {
      return std::to_string(v / 10) + "." + std::to_string(v % 10);
    };
    if (ptx && ptx < need)
      return fail("PTX " + ver(ptx) + " cannot target " + chip +
                  ", which needs PTX " + ver(need) + " or later");
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
    }
  }
};
struct TxEmitCInterfacePass
    : public tx::impl::TxEmitCInterfaceBase<TxEmitCInterfacePass> {
  void runOnOperation() override {
    for (auto func : getOperation().getOps<func::FuncOp>())
      if (func.isPublic() && !func.isExternal())
        func->setAttr("llvm.emit_c_interface", UnitAttr::get(&getContext()));
  }
};
} // namespace

//===----------------------------------------------------------------------===//
// Pipelines
//===----------------------------------------------------------------------===//

void mlir::tx::buildTxToBufferizedLinalgPipeline(OpPassManager &pm) {
  pm.addPass(createConvertTxToLinalg());
  pm.addPass(createTxDecomposeSoftmax());
  pm.addPass(createCanonicalizerPass());
  pm.addPass(createCSEPass());
  bufferization::OneShotBufferizePassOptions bufOpts;
  bufOpts.bufferizeFunctionBoundaries = true;
  bufOpts.functionBoundaryTypeConversion =
      bufferization::LayoutMapOption::IdentityLayoutMap;
  bufOpts.allowReturnAllocsFromLoops = true;
  pm.addPass(bufferization::createOneShotBufferizePass(bufOpts));
  pm.addPass(createCanonicalizerPass());
  pm.addPass(createCSEPass());
}

LogicalResult mlir::tx::buildTxGPUPipeline(OpPassManager &pm,
                                           const GPUPipelineOptions &options) {
  std::string features = options.features.empty()
                             ? defaultFeatures(options.chip)
                             : std::string(options.features);
  TxCheckGPUTargetOptions check;
  check.chip = options.chip;
  check.features = features;
  check.format = options.format;
  check.toolkit = options.toolkit;
  check.softmax = options.softmax;
  pm.addPass(createTxCheckGPUTarget(check));

  if (options.cInterface)
    pm.addPass(createTxEmitCInterface());
  if (options.softmax == "fast") {
    TxSoftmaxToGPUOptions sm;
    sm.blockSize = options.softmaxBlockSize;
    sm.threadsPerRow = options.softmaxThreadsPerRow;
    sm.maxCachedVectors = options.softmaxMaxCachedVectors;
    pm.addNestedPass<func::FuncOp>(createTxSoftmaxToGPU(sm));
  }
  buildTxToBufferizedLinalgPipeline(pm);
  // Results become out-parameters (destination-passing ABI); a static result
  // buffer is the out-parameter itself, no copy.
  bufferization::BufferResultsToOutParamsPassOptions outParams;
  outParams.hoistStaticAllocs = true;
  outParams.modifyPublicFunctions = true;
  pm.addPass(bufferization::createBufferResultsToOutParamsPass(outParams));
  pm.addPass(createConvertLinalgToParallelLoopsPass());
  pm.addPass(createCanonicalizerPass());
  TxMapParallelLoopsToGPUOptions mapOpts;
  mapOpts.blockSize = options.blockSize;
  pm.addNestedPass<func::FuncOp>(createTxMapParallelLoopsToGPU(mapOpts));
  pm.addPass(createGpuKernelOutliningPass());

  // From here on, upstream's NVVM lowering (as gpu-lower-to-nvvm-pipeline).
  pm.addPass(createConvertVectorToSCFPass());
  pm.addPass(createSCFToControlFlowPass());
  // Expand memref views before any function is converted: upstream's
  // expand-strided-metadata crashes (LLVM 22.1.8) on a dynamic
  // memref.expand_shape whose source is already a converted function argument.
  pm.addPass(memref::createExpandStridedMetadataPass());
  pm.addPass(createConvertNVVMToLLVMPass());
  pm.addPass(createConvertFuncToLLVMPass());
  GpuNVVMAttachTargetOptions target;
  target.triple = "nvptx64-nvidia-cuda";
  target.chip = options.chip;
  target.features = features;
  target.optLevel = options.optLevel;
  pm.addPass(createGpuNVVMAttachTarget(target));
  pm.addPass(createLowerAffinePass());
  pm.addPass(createArithToLLVMConversionPass());
  pm.addPass(createConvertIndexToLLVMPass());
  pm.addPass(createCanonicalizerPass());
  pm.addPass(createCSEPass());

  ConvertGpuOpsToNVVMOpsOptions nvvm;
  nvvm.indexBitwidth = 64;
  OpPassManager &gpuPM = pm.nest<gpu::GPUModuleOp>();
  gpuPM.addPass(createConvertGpuOpsToNVVMOps(nvvm));
  gpuPM.addPass(createCanonicalizerPass());
  gpuPM.addPass(createCSEPass());
  gpuPM.addPass(createReconcileUnrealizedCastsPass());

  pm.addPass(createGpuToLLVMConversionPass());
  GpuModuleToBinaryPassOptions bin;
  bin.compilationTarget = options.format;
  bin.toolkitPath = options.toolkit;
  pm.addPass(createGpuModuleToBinaryPass(bin));
  pm.addPass(createConvertMathToLLVMPass());
  pm.addPass(createCanonicalizerPass());
  pm.addPass(createCSEPass());
  pm.addPass(createReconcileUnrealizedCastsPass());
  return success();
}

void mlir::tx::buildTxCPUPipeline(OpPassManager &pm,
                                  const CPUPipelineOptions &) {
  buildTxToBufferizedLinalgPipeline(pm);
  pm.addPass(createConvertLinalgToLoopsPass());
  pm.addPass(createConvertVectorToSCFPass());
  pm.addPass(memref::createExpandStridedMetadataPass());
  pm.addPass(createLowerAffinePass());
  pm.addPass(createSCFToControlFlowPass());
  pm.addPass(createConvertVectorToLLVMPass());
  pm.addPass(createConvertMathToLLVMPass());
  pm.addPass(createArithToLLVMConversionPass());
  pm.addPass(createConvertIndexToLLVMPass());
  pm.addPass(createFinalizeMemRefToLLVMConversionPass());
  pm.addPass(createConvertControlFlowToLLVMPass());
  ConvertFuncToLLVMPassOptions funcOpts;
  pm.addPass(createConvertFuncToLLVMPass(funcOpts));
  pm.addPass(createReconcileUnrealizedCastsPass());
}

void mlir::tx::registerTxPipelines() {
  PassPipelineRegistration<GPUPipelineOptions>(
      "tx-gpu-pipeline",
      "Compile tx (and linalg) to NVIDIA GPU code: tx -> linalg -> bufferize "
      "-> parallel loops -> GPU mapping -> NVVM -> gpu.binary, host code in "
      "the LLVM dialect",
      [](OpPassManager &pm, const GPUPipelineOptions &options) {
        (void)buildTxGPUPipeline(pm, options);
      });
  PassPipelineRegistration<CPUPipelineOptions>(
      "tx-cpu-pipeline",
      "Compile tx (and linalg) to LLVM dialect CPU code (loops), runnable "
      "with mlir-runner",
      [](OpPassManager &pm, const CPUPipelineOptions &options) {
        buildTxCPUPipeline(pm, options);
      });
}

void mlir::tx::registerTxPassesAndPipelines() {
  static std::once_flag once;
  std::call_once(once, [] {
    registerTxPasses();
    registerTxPipelines();
  });
}
