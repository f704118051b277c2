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
#include "mlir/Dialect/Bufferization/Pipelines/Passes.h"
#include "mlir/Dialect/Bufferization/Transforms/Passes.h"
#include "mlir/Dialect/GPU/Transforms/Passes.h"
#include "mlir/Dialect/Linalg/Passes.h"
#include "mlir/Dialect/MemRef/Transforms/Passes.h"
#include "mlir/Dialect/SCF/Transforms/Passes.h"
#include "mlir/Pass/PassManager.h"
#include "mlir/Pass/PassRegistry.h"
#include "mlir/Transforms/Passes.h"
#include "llvm/ADT/StringSwitch.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/Program.h"

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

/// Minimum PTX ISA version (times 10) that can target `sm` with `suffix`
/// ('\0', 'a' or 'f'), or 0 when that chip does not exist. From the PTX ISA
/// release notes and LLVM 22's NVPTX target.
static int minPtxForSm(int sm, char suffix) {
  if (suffix == 'f') {
    switch (sm) {
    case 100: case 101: case 103: case 110: case 120: case 121: return 88;
    default: return 0;
    }
  }
  if (suffix == 'a') {
    switch (sm) {
    case 90: return 80;
    case 100: case 101: return 86;
    case 103: return 88;
    case 120: return 87;
    case 121: return 88;
    default: return 0;
    }
  }
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
  case 90: return 78;
  case 100: case 101: return 86;
  case 103: return 88;
  case 120: return 87;
  case 121: return 88;
  default: return 0;
  }
}

/// The largest dynamic shared memory a CTA can opt into on sm_NN (bytes).
static int64_t maxSharedMemoryOf(int sm) {
  // CUDA C Programming Guide, "Technical Specifications per Compute
  // Capability": 227 KiB on sm_90/sm_100/sm_103/sm_110, 99 KiB on the
  // consumer chips sm_120/sm_121 (as on sm_86/sm_89).
  return sm >= 120             ? 101376
         : sm >= 90            ? 232448
         : sm == 80 || sm == 87 ? 166912
         : sm >= 86             ? 101376
         : sm == 75             ? 65536
         : sm >= 70             ? 98304
                                : 49152;
}

/// Newest PTX version (times 10) LLVM 22's NVPTX backend knows.
static constexpr int kMaxLLVMPtx = 90;

/// Parses sm_NN, sm_NNa, sm_NNf. Returns the number, or -1 for a chip that
/// does not exist.
static int parseChip(StringRef chip, char &suffix) {
  suffix = 0;
  if (!chip.consume_front("sm_"))
    return -1;
  if (chip.consume_back("a"))
    suffix = 'a';
  else if (chip.consume_back("f"))
    suffix = 'f';
  int sm;
  if (chip.getAsInteger(10, sm))
    return -1;
  return minPtxForSm(sm, suffix) ? sm : -1;
}

/// The default PTX feature for a chip: the chip's minimum, at least +ptx80
/// (LLVM's NVPTX backend needs PTX 8.0 for sm_90 code).
static std::string defaultFeatures(StringRef chip) {
  char suffix;
  int sm = parseChip(chip, suffix);
  int ptx = sm < 0 ? 80 : std::max(80, minPtxForSm(sm, suffix));
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
    // Reported at the module's location, without the op attached (no IR
    // dump): these are option errors, not errors of the input.
    auto fail = [&](const Twine &msg) {
      mlir::emitError(module.getLoc(), "tx-gpu-pipeline: ") << msg;
      signalPassFailure();
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
    int ptx = 0;
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
    int need = minPtxForSm(sm, suffix);
    auto ver = [](int v) {
      return std::to_string(v / 10) + "." + std::to_string(v % 10);
    };
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
    // Kernels generated earlier for a newer chip (tx-attention-to-gpu run
    // on its own, then this pipeline): LLVM's NVPTX backend would abort
    // ("Cannot select") on their mma.sync/cp.async/wgmma.
    module.walk([&](Operation *op) {
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
      signalPassFailure();
      return WalkResult::interrupt();
    });
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
  check.attention = options.attention;
  pm.addPass(createTxCheckGPUTarget(check));
  // Out-of-range tensor.dim/memref.dim: a diagnostic, not a crash in the gpu
  // dialect's canonicalization (issue #14).
  pm.addPass(createTxCheckDims());

  if (options.cInterface)
    pm.addPass(createTxEmitCInterface());
  if (options.attention == "flash")
  {
    // tx.attention's GPU path: strategy -> tiling -> GPU mapping.
    TxAttentionStrategyOptions at;
    at.warps = options.attentionWarps;
    at.qTile = options.attentionQTile;
    at.kvTile = options.attentionKvTile;
    at.tensorCores = options.attentionTensorCores;
    at.mmaRowTiles = options.attentionMmaRowTiles;
    at.stages = options.attentionStages;
    at.producerWarps = options.attentionProducerWarps;
    at.decode = options.attentionDecode;
    at.decodeMaxRows = options.attentionDecodeMaxRows;
    at.kvSplits = options.attentionKvSplits;
    at.decodeTileKeys = options.attentionDecodeTileKeys;
    at.decodeCluster = options.attentionDecodeCluster;
    at.decodeMergeKernel = options.attentionDecodeMergeKernel;
    // The chip decides the tensor-core kernel (sm_80+) and the largest
    // dynamic shared memory per CTA (opt-in maximum of each architecture).
    char suffix = 0;
    int sm = parseChip(options.chip, suffix);
    // wgmma.mma_async exists only on the arch-specific sm_90a target.
    at.wgmma = options.attentionWgmma && sm == 90 && suffix == 'a';
    if (sm > 0) {
      at.sm = sm;
      at.maxSharedMemory = maxSharedMemoryOf(sm);
    }
    at.numSms = options.attentionNumSms > 0 ? int64_t(options.attentionNumSms)
                                            : (sm == 80 ? 108 : 132);
    pm.addNestedPass<func::FuncOp>(createTxAttentionStrategy(at));
    TxTileAttentionOptions tile;
    tile.fromStrategy = true;
    tile.decompose = false;
    pm.addNestedPass<func::FuncOp>(createTxTileAttention(tile));
    pm.addNestedPass<func::FuncOp>(createTxStageAttention());
    pm.addNestedPass<func::FuncOp>(createTxPipelineAttention());
    TxMapAttentionToGPUOptions map;
    map.sm = at.sm;
    map.wgmma = at.wgmma;
    map.maxSharedMemory = at.maxSharedMemory;
    pm.addNestedPass<func::FuncOp>(createTxMapAttentionToGPU(map));
  }
  if (options.softmax == "fast") {
    // tx.softmax's GPU path: strategy -> tiling -> GPU mapping.
    TxSoftmaxStrategyOptions sm;
    sm.blockSize = options.softmaxBlockSize;
    sm.threadsPerRow = options.softmaxThreadsPerRow;
    sm.maxCachedVectors = options.softmaxMaxCachedVectors;
    sm.gridCtas = options.softmaxGridCtas;
    sm.prefetch = options.softmaxPrefetch;
    sm.streamUnroll = options.softmaxStreamUnroll;
    sm.smemRows = options.softmaxSmemRows;
    {
      char suffix = 0;
      int smv = parseChip(options.chip, suffix);
      if (smv > 0) {
        sm.maxSharedMemory = maxSharedMemoryOf(smv);
        sm.sm = smv;
        sm.numSms = options.attentionNumSms > 0
                        ? int64_t(options.attentionNumSms)
                        : (smv == 80 ? 108 : 132);
      }
    }
    sm.bulkRows = options.softmaxBulkRows;
    sm.bulkChunkBytes = options.softmaxBulkChunkBytes;
    sm.bulkCtasPerSm = options.softmaxBulkCtasPerSm;
    pm.addNestedPass<func::FuncOp>(createTxSoftmaxStrategy(sm));
    TxTileSoftmaxOptions smTile;
    smTile.fromStrategy = true;
    pm.addNestedPass<func::FuncOp>(createTxTileSoftmax(smTile));
    pm.addNestedPass<func::FuncOp>(createTxStageSoftmax());
    TxMapSoftmaxToGPUOptions smMap; // for a user's row tiling
    smMap.sm = sm.sm ? sm.sm : smMap.sm;
    smMap.numSms = sm.numSms;
    smMap.maxSharedMemory = sm.maxSharedMemory;
    pm.addNestedPass<func::FuncOp>(createTxMapSoftmaxToGPU(smMap));
  }
  buildTxToBufferizedLinalgPipeline(pm);
  // Results become out-parameters (destination-passing ABI, docs/ABI.md): a
  // static result buffer is the out-parameter itself (upstream's hoisting);
  // tx-results-in-place does the same for every other result buffer the
  // function allocates, after a run-time check of the out-parameter's sizes.
  bufferization::BufferResultsToOutParamsPassOptions outParams;
  outParams.hoistStaticAllocs = true;
  outParams.modifyPublicFunctions = true;
  outParams.addResultAttribute = true; // result numbers for the messages
  pm.addPass(bufferization::createBufferResultsToOutParamsPass(outParams));
  pm.addNestedPass<func::FuncOp>(createTxResultsInPlace());
  // <f>_on_stream(..., CUstream) -> i32 beside every C entry point.
  if (options.cInterface && options.streamEntryPoints)
    pm.addPass(createTxStreamEntryPoints());
  pm.addPass(createConvertLinalgToParallelLoopsPass());
  pm.addPass(createCanonicalizerPass());
  TxMapParallelLoopsToGPUOptions mapOpts;
  mapOpts.blockSize = options.blockSize;
  pm.addNestedPass<func::FuncOp>(createTxMapParallelLoopsToGPU(mapOpts));
  // Constants and other index computations used in a launch body are cloned
  // into it first: LLVM 22's gpu-kernel-outlining no longer sinks them, and
  // every constant it captures becomes a kernel parameter (a runtime value
  // to ptxas: `kt % 2` became a 64-bit division).
  pm.addPass(createGpuLaunchSinkIndexComputationsPass());
  // Launches marked tx.programmatic_launch: a runtime call before each.
  pm.addPass(createTxProgrammaticLaunches());
  pm.addPass(createGpuKernelOutliningPass());

  // From here on, upstream's NVVM lowering (as gpu-lower-to-nvvm-pipeline).
  pm.addPass(createConvertVectorToSCFPass());
  pm.addPass(createSCFToControlFlowPass());
  // Host run-time checks report through txRuntimeFail and return early
  // instead of aborting the caller's process (needs CFG form).
  pm.addPass(createTxHostChecksToErrors());
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
  gpuPM.addPass(createConvertNVGPUToNVVMPass());
  gpuPM.addPass(createConvertGpuOpsToNVVMOps(nvvm));
  gpuPM.addPass(createCanonicalizerPass());
  gpuPM.addPass(createCSEPass());
  gpuPM.addPass(createReconcileUnrealizedCastsPass());

  pm.addPass(createGpuToLLVMConversionPass());
  // One stream per call instead of one per launch/allocation/free.
  pm.addPass(createTxCallStream());
  // Tensor maps (host llvm.alloca marked tx.tensor_map) passed by value.
  pm.addPass(createTxTensorMapParams());
  GpuModuleToBinaryPassOptions bin;
  // tx's "offload" (LLVM IR) is upstream's "llvm"; LLVM 22.1.8's
  // gpu-module-to-binary reports an unknown name but does not fail.
  bin.compilationTarget =
      options.format == "offload" ? std::string("llvm")
                                  : std::string(options.format);
  bin.toolkitPath = options.toolkit;
  pm.addPass(createGpuModuleToBinaryPass(bin));
  pm.addPass(createConvertMathToLLVMPass());
  pm.addPass(createCanonicalizerPass());
  pm.addPass(createCSEPass());
  pm.addPass(createReconcileUnrealizedCastsPass());
  // Nothing but LLVM dialect, gpu.binary and gpu.launch_func may be left
  // (upstream conversions print an error and exit 0 otherwise; issue #14).
  pm.addPass(createTxCheckLowered({/*gpu=*/true, "tx-gpu-pipeline"}));
  return success();
}

namespace {
/// Fails with one diagnostic: how tx-cpu-pipeline reports a bad option (the
/// pipeline builder itself cannot fail).
struct TxCPUPipelineOptionErrorPass
    : public PassWrapper<TxCPUPipelineOptionErrorPass,
                         OperationPass<ModuleOp>> {
  MLIR_DEFINE_EXPLICIT_INTERNAL_INLINE_TYPE_ID(TxCPUPipelineOptionErrorPass)
  explicit TxCPUPipelineOptionErrorPass(std::string message)
      : message(std::move(message)) {}
  StringRef getArgument() const override { return "tx-cpu-pipeline-option-error"; }
  void runOnOperation() override {
    mlir::emitError(getOperation().getLoc(), "tx-cpu-pipeline: ") << message;
    signalPassFailure();
  }
  std::string message;
};
} // namespace

void mlir::tx::buildTxCPUPipeline(OpPassManager &pm,
                                  const CPUPipelineOptions &options) {
  // Both strategies are "simple" or "tiled"; anything else is one
  // diagnostic (and nothing else runs).
  for (auto [what, value] :
       {std::pair<StringRef, StringRef>{"attention", options.attention},
        {"softmax", options.softmax}})
    if (value != "simple" && value != "tiled") {
      pm.addPass(std::make_unique<TxCPUPipelineOptionErrorPass>(
          ("unknown " + what + " strategy '" + value +
           "'; expected simple or tiled")
              .str()));
      return;
    }
  bool tiled = options.attention == "tiled";
  bool tiledSoftmax = options.softmax == "tiled";
  pm.addPass(createTxCheckDims());
  pm.addNestedPass<func::FuncOp>(createTxCheckAttentionLengths());
  if (tiled) {
    TxTileAttentionOptions tile;
    tile.qTile = options.attentionQTile;
    tile.kvTile = options.attentionKvTile;
    tile.kvSplits = options.attentionKvSplits;
    pm.addNestedPass<func::FuncOp>(createTxTileAttention(tile));
  }
  if (tiledSoftmax) {
    TxTileSoftmaxOptions tile;
    tile.rowsPerTile = options.softmaxRowsPerTile;
    tile.colsPerTile = options.softmaxColsPerTile;
    pm.addNestedPass<func::FuncOp>(createTxTileSoftmax(tile));
  }
  // Elementwise ops on tensors that a test's @main uses around the tx ops
  // (arith.extf of an f16 result before printing it, say): linalg.generic,
  // which bufferizes (issue #44).
  pm.addPass(createConvertElementwiseToLinalgPass());
  buildTxToBufferizedLinalgPipeline(pm);
  // The tiled attention's and softmax's scf.forall run sequentially on the
  // CPU.
  pm.addPass(createForallToForLoopPass());
  // The tiles' temporaries are allocated inside the loops: free them (upstream
  // ownership-based deallocation) so that memory does not grow with the
  // number of tiles.
  if (tiled || tiledSoftmax)
    bufferization::buildBufferDeallocationPipeline(pm);
  pm.addPass(createConvertLinalgToLoopsPass());
  pm.addPass(createConvertVectorToSCFPass());
  pm.addPass(memref::createExpandStridedMetadataPass());
  pm.addPass(createLowerAffinePass());
  pm.addPass(createSCFToControlFlowPass());
  // A failed run-time check: a located message on stderr and exit status 1.
  pm.addPass(createTxCpuChecksToExit());
  pm.addPass(createConvertVectorToLLVMPass());
  pm.addPass(createConvertMathToLLVMPass());
  pm.addPass(createArithToLLVMConversionPass());
  pm.addPass(createConvertIndexToLLVMPass());
  pm.addPass(createFinalizeMemRefToLLVMConversionPass());
  pm.addPass(createConvertControlFlowToLLVMPass());
  ConvertFuncToLLVMPassOptions funcOpts;
  pm.addPass(createConvertFuncToLLVMPass(funcOpts));
  pm.addPass(createReconcileUnrealizedCastsPass());
  pm.addPass(createTxCheckLowered({/*gpu=*/false, "tx-cpu-pipeline"}));
}

