//===- Pipelines.cpp - tx-gpu-pipeline, tx-cpu-pipeline -------------------===//
//
// The named pipelines. The NVVM part follows upstream's
// `gpu-lower-to-nvvm-pipeline` (mlir/lib/Dialect/GPU/Pipelines/
// GPUToNVVMPipeline.cpp) but takes tx's defaults (sm_90, a PTX version the
// chip needs, the CUDA toolkit path) and validates them first.
//
//===----------------------------------------------------------------------===//
#include "GPU/Strategy/AttentionKnobs.h"
#include "Transformer/GPUTarget.h"
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
#define GEN_PASS_DEF_TXEMITCINTERFACE
#include "Transformer/Passes.h.inc"
} // namespace tx
} // namespace mlir

using namespace mlir;
using namespace mlir::tx;

//===----------------------------------------------------------------------===//
// Target defaults
//===----------------------------------------------------------------------===//

/// The default PTX feature for a chip: the chip's minimum, at least +ptx80
/// (LLVM's NVPTX backend needs PTX 8.0 for sm_90 code).
static std::string defaultFeatures(StringRef chip) {
  std::optional<GPUTarget> t = GPUTarget::fromChip(chip);
  int ptx = t ? std::max(80, t->minPtx) : 80;
  return "+ptx" + std::to_string(ptx);
}

namespace {
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

/// tx.attention's GPU path: strategy -> tiling -> staging -> pipelining ->
/// GPU mapping, with the chip's target facts (GPUTarget).
static void addAttentionGPUPath(OpPassManager &pm,
                                const GPUPipelineOptions &options) {
  TxAttentionStrategyOptions at;
#define TX_COPY(knob, Knob) at.knob = options.attention##Knob;
  TX_ATTENTION_CHOICE_KNOBS(TX_COPY)
#undef TX_COPY
  // The chip decides the tensor-core kernel (sm_80+) and the largest
  // dynamic shared memory per CTA (opt-in maximum of each architecture).
  std::optional<GPUTarget> chip = GPUTarget::fromChip(options.chip);
  // wgmma.mma_async exists only on the arch-specific sm_90a target.
  at.wgmma = options.attentionWgmma && chip && chip->hasWgmma();
  GPUTarget target = chip ? *chip : GPUTarget::fromSm(at.sm);
  if (chip) {
    at.sm = chip->sm;
    at.maxSharedMemory = target.maxSharedMemoryPerCta;
  }
  at.numSms = options.attentionNumSms > 0 ? int64_t(options.attentionNumSms)
                                          : target.defaultNumSms;
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
  // tx.attention_grad: the backward's mma.sync kernels where they apply
  // (tx-attention-grad-strategy decides), the reference lowering elsewhere.
  if (!options.attentionGradKernels)
    return;
  TxAttentionGradStrategyOptions gradStrategy;
  gradStrategy.sm = at.sm;
  gradStrategy.wgmma = at.wgmma;
  gradStrategy.deterministic = options.attentionGradDeterministic;
  pm.addNestedPass<func::FuncOp>(createTxAttentionGradStrategy(gradStrategy));
  TxTileAttentionGradOptions gradTile;
  gradTile.fromStrategy = true;
  gradTile.decompose = false;
  pm.addNestedPass<func::FuncOp>(createTxTileAttentionGrad(gradTile));
  pm.addNestedPass<func::FuncOp>(createTxMapAttentionGradToGPU());
}

/// tx.softmax's GPU path: strategy -> tiling -> staging -> GPU mapping.
static void addSoftmaxGPUPath(OpPassManager &pm,
                              const GPUPipelineOptions &options) {
  TxSoftmaxStrategyOptions sm;
  sm.blockSize = options.softmaxBlockSize;
  sm.threadsPerRow = options.softmaxThreadsPerRow;
  sm.maxCachedVectors = options.softmaxMaxCachedVectors;
  sm.gridCtas = options.softmaxGridCtas;
  sm.prefetch = options.softmaxPrefetch;
  sm.streamUnroll = options.softmaxStreamUnroll;
  sm.smemRows = options.softmaxSmemRows;
  if (std::optional<GPUTarget> t = GPUTarget::fromChip(options.chip)) {
    sm.maxSharedMemory = t->maxSharedMemoryPerCta;
    sm.sm = t->sm;
    sm.numSms = options.attentionNumSms > 0 ? int64_t(options.attentionNumSms)
                                            : t->defaultNumSms;
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

/// The math ops a score or mask function may use that upstream lowers on
/// no target (math.clampf, math.ipowi) or not on the CPU (math.isinf):
/// tx-expand-math, and upstream's convert-math-to-funcs for math.ipowi only
/// (math.fpowi keeps its LLVM lowering: the exponent width bound is above
/// any integer type's).
static void addMathExpansions(OpPassManager &pm) {
  pm.addPass(createTxExpandMath());
  ConvertMathToFuncsOptions funcs;
  funcs.minWidthOfFPowIExponent = 1024;
  pm.addPass(createConvertMathToFuncs(funcs));
}

/// Bufferization, the destination-passing ABI, the simple mapping of the
/// remaining parallel loops and kernel outlining.
static void addHostAndLaunchPasses(OpPassManager &pm,
                                   const GPUPipelineOptions &options) {
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
  addMathExpansions(pm);
  // Constants and other index computations used in a launch body are cloned
  // into it first: LLVM 22's gpu-kernel-outlining no longer sinks them, and
  // every constant it captures becomes a kernel parameter (a runtime value
  // to ptxas: `kt % 2` became a 64-bit division).
  pm.addPass(createGpuLaunchSinkIndexComputationsPass());
  // Launches marked tx.programmatic_launch: a runtime call before each.
  pm.addPass(createTxProgrammaticLaunches());
  pm.addPass(createGpuKernelOutliningPass());
}

/// From here on, upstream's NVVM lowering (as gpu-lower-to-nvvm-pipeline),
/// tx's host-side passes in between, the binary and the final check.
static void addNVVMLowering(OpPassManager &pm,
                            const GPUPipelineOptions &options,
                            const std::string &features) {
  // arith.remf -> libdevice's fmod before the module-wide arith-to-llvm
  // below would make it an llvm.frem that convert-gpu-to-nvvm rejects.
  pm.addNestedPass<gpu::GPUModuleOp>(createTxGpuLibdeviceCalls());
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
  // A paged KV cache is read through gathers for now (issue #43).
  pm.addNestedPass<func::FuncOp>(createTxGatherKvPages());

  if (options.cInterface)
    pm.addPass(createTxEmitCInterface());
  if (options.attention == "flash")
    addAttentionGPUPath(pm, options);
  if (options.softmax == "fast")
    addSoftmaxGPUPath(pm, options);
  addHostAndLaunchPasses(pm, options);
  addNVVMLowering(pm, options, features);
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
  pm.addNestedPass<func::FuncOp>(createTxGatherKvPages());
  if (tiled) {
    TxTileAttentionOptions tile;
    tile.qTile = options.attentionQTile;
    tile.kvTile = options.attentionKvTile;
    tile.kvSplits = options.attentionKvSplits;
    pm.addNestedPass<func::FuncOp>(createTxTileAttention(tile));
    TxTileAttentionGradOptions grad;
    grad.qTile = options.attentionQTile;
    grad.kvTile = options.attentionKvTile;
    pm.addNestedPass<func::FuncOp>(createTxTileAttentionGrad(grad));
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
  addMathExpansions(pm);
  pm.addPass(createConvertVectorToSCFPass());
  pm.addPass(memref::createExpandStridedMetadataPass());
  pm.addPass(createLowerAffinePass());
  pm.addPass(createSCFToControlFlowPass());
  // A failed run-time check: a located message on stderr and exit status 1.
  pm.addPass(createTxCpuChecksToExit());
  pm.addPass(createConvertVectorToLLVMPass());
  pm.addPass(createConvertMathToLLVMPass());
  // What has no LLVM intrinsic (math.erf, math.erfc, math.cbrt, ...): libm.
  pm.addPass(createConvertMathToLibmPass());
  pm.addPass(createArithToLLVMConversionPass());
  pm.addPass(createConvertIndexToLLVMPass());
  pm.addPass(createFinalizeMemRefToLLVMConversionPass());
  pm.addPass(createConvertControlFlowToLLVMPass());
  ConvertFuncToLLVMPassOptions funcOpts;
  pm.addPass(createConvertFuncToLLVMPass(funcOpts));
  pm.addPass(createReconcileUnrealizedCastsPass());
  pm.addPass(createTxCheckLowered({/*gpu=*/false, "tx-cpu-pipeline"}));
}

