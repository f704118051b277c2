//===- Passes.h - tx passes and pipelines ---------------------*- C++ -*-===//
//
// Passes (declared in Passes.td) and the named pipelines of tx:
//   tx-gpu-pipeline  tx -> linalg -> ... -> NVVM -> gpu.binary + host LLVM IR
//   tx-cpu-pipeline  tx -> linalg -> loops -> LLVM dialect (for mlir-runner)
//
//===----------------------------------------------------------------------===//
#ifndef TRANSFORMER_PASSES_H
#define TRANSFORMER_PASSES_H

#include "mlir/Dialect/Affine/IR/AffineOps.h"
#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Bufferization/IR/Bufferization.h"
#include "mlir/Dialect/Vector/IR/VectorOps.h"
#include "mlir/Dialect/ControlFlow/IR/ControlFlow.h"
#include "mlir/Dialect/ControlFlow/IR/ControlFlowOps.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/Dialect/LLVMIR/NVVMDialect.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/Math/IR/Math.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/NVGPU/IR/NVGPUDialect.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/Pass/Pass.h"
#include "mlir/Pass/PassOptions.h"

namespace mlir {
namespace tx {

#define GEN_PASS_DECL
#include "Transformer/Passes.h.inc"

/// Discardable string attribute that tx-attention-to-gpu puts on the
/// `gpu.launch` of a kernel whose instructions need a newer chip than sm_50:
/// "sm_80" (mma.sync, cp.async) or "sm_90a" (wgmma.mma_async, which exists
/// only on the architecture-specific sm_90a target). tx-check-gpu-target
/// fails when the pipeline's chip cannot run such a kernel.
inline constexpr llvm::StringLiteral kRequiredChipAttr = "tx.required_chip";
/// On a gpu.launch: launch it as a programmatic dependent of the work
/// before it on its stream (PDL; the kernel calls griddepcontrol.wait
/// before it reads what that work wrote). tx-programmatic-launches turns it
/// into a call of txRuntimeLaunchProgrammaticNext() before the launch.
inline constexpr llvm::StringLiteral kProgrammaticLaunchAttr =
    "tx.programmatic_launch";
/// On an llvm.alloca of the host code (128 bytes, 64-byte aligned): a
/// tensor map (txRuntimeEncodeTensorMap) that the kernels it is passed to
/// take by value; tx-tensor-map-params makes their parameter a 128-byte
/// `nvvm.grid_constant` and asks the runtime to pass the bytes.
inline constexpr llvm::StringLiteral kTensorMapAttr = "tx.tensor_map";
/// On a tx.attention_grad (tx-attention-grad-strategy) and on the two
/// scf.foralls tx-tile-attention-grad makes of it: `array<i64: q_tile,
/// kv_tile>`, the tiles of the backward's GPU kernels
/// (tx-map-attention-grad-to-gpu).
inline constexpr llvm::StringLiteral kGradTilesAttr = "tx.grad_tiles";
/// A unit attribute beside kGradTilesAttr (op and foralls): dQ is
/// accumulated across key tiles by f32 reductions in the dK/dV forall's
/// kernel (sm_90a wgmma), which then also replaces the dQ forall.
inline constexpr llvm::StringLiteral kGradDqReduceAttr = "tx.grad_dq_reduce";

#define GEN_PASS_REGISTRATION
#include "Transformer/Passes.h.inc"

/// Options of the `tx-gpu-pipeline` named pipeline.
struct GPUPipelineOptions : public PassPipelineOptions<GPUPipelineOptions> {
  Option<std::string> chip{*this, "chip",
                           llvm::cl::desc("Target SM: sm_NN, or sm_90a / sm_100a / sm_100f ... (default sm_90)"),
                           llvm::cl::init("sm_90")};
  Option<std::string> features{
      *this, "features",
      llvm::cl::desc("PTX features, +ptxNN (default: the lowest PTX version "
                     "that supports the chip, at least +ptx80)"),
      llvm::cl::init("")};
  Option<int> optLevel{*this, "opt-level",
                       llvm::cl::desc("LLVM optimization level for the NVVM "
                                      "code, 0..3 (default 3)"),
                       llvm::cl::init(3)};
  Option<std::string> format{
      *this, "format",
      llvm::cl::desc("Kernel object format: isa (PTX text), bin (cubin via "
                     "ptxas), fatbin (default; ptxas + fatbinary), offload "
                     "(LLVM IR)"),
      llvm::cl::init("fatbin")};
  Option<std::string> toolkit{
      *this, "toolkit",
      llvm::cl::desc("CUDA toolkit path: libdevice, and bin/ptxas for "
                     "bin/fatbin (default /usr/local/cuda)"),
      llvm::cl::init("/usr/local/cuda")};
  Option<bool> cInterface{
      *this, "c-interface",
      llvm::cl::desc("Emit a _mlir_ciface_ wrapper for every public function "
                     "(the C ABI of docs/ABI.md; default true)"),
      llvm::cl::init(true)};
  Option<bool> streamEntryPoints{
      *this, "stream-entry-points",
      llvm::cl::desc("With c-interface, also emit <f>_on_stream(..., CUstream) "
                     "-> i32 for every public function: enqueues the call on "
                     "the given stream and returns without waiting "
                     "(tx-stream-entry-points; default true)"),
      llvm::cl::init(true)};
  Option<std::string> softmax{
      *this, "softmax",
      llvm::cl::desc("Softmax strategy: fast (tx-softmax-to-gpu: rows on "
                     "warps/CTAs, vector loads, shuffle reductions) or simple "
                     "(reference lowering, one thread per element); default "
                     "fast"),
      llvm::cl::init("fast")};
  Option<std::string> attention{
      *this, "attention",
      llvm::cl::desc("Attention strategy: simple (reference lowering; scores "
                     "materialized) or flash (tx-attention-to-gpu: "
                     "FlashAttention-2 tiles, a CTA per query tile, tensor "
                     "cores for f16 on sm_80+; dynamic head dims or above 256 "
                     "fall back to simple); default flash"),
      llvm::cl::init("flash")};
  Option<bool> attentionGradKernels{
      *this, "attention-grad-kernels",
      llvm::cl::desc("tx.attention_grad: the tiled backward's kernels "
                     "(tx-attention-grad-strategy, tx-tile-attention-grad, "
                     "tx-map-attention-grad-to-gpu: sm_90a's one-pass "
                     "wgmma kernel, else the mma.sync pair) for the ops they "
                     "take, the reference lowering for the rest; default "
                     "true (false: every backward op takes the reference "
                     "lowering)"),
      llvm::cl::init(true)};
  Option<bool> attentionGradDeterministic{
      *this, "attention-grad-deterministic",
      llvm::cl::desc("tx.attention_grad kernels: bitwise-deterministic "
                     "gradients (the mma.sync pair, no reductions in an "
                     "order that varies) instead of sm_90a's one-pass wgmma "
                     "kernel whose dQ is summed by f32 reductions; default "
                     "false"),
      llvm::cl::init(false)};
  Option<int64_t> softmaxBlockSize{
      *this, "softmax-block-size",
      llvm::cl::desc("tx-softmax-to-gpu block-size (0 = from the shape)"),
      llvm::cl::init(0)};
  Option<int64_t> softmaxThreadsPerRow{
      *this, "softmax-threads-per-row",
      llvm::cl::desc("tx-softmax-to-gpu threads-per-row (0 = from the shape)"),
      llvm::cl::init(0)};
  Option<int64_t> softmaxMaxCachedVectors{
      *this, "softmax-max-cached-vectors",
      llvm::cl::desc("tx-softmax-to-gpu max-cached-vectors: longest "
                     "per-thread share of a row, in 16-byte vectors, kept in "
                     "registers (one read of the input); default 16"),
      llvm::cl::init(16)};
  Option<int64_t> softmaxGridCtas{
      *this, "softmax-grid-ctas",
      llvm::cl::desc("tx-softmax-to-gpu grid-ctas: 0 = one CTA per row "
                     "group (default), N > 0 = a persistent grid of at most N "
                     "CTAs looping over row groups"),
      llvm::cl::init(0)};
  Option<bool> softmaxPrefetch{
      *this, "softmax-prefetch",
      llvm::cl::desc("tx-softmax-to-gpu prefetch: software-pipeline the row "
                     "loads of a persistent kernel (default true)"),
      llvm::cl::init(true)};
  Option<bool> softmaxSmemRows{
      *this, "softmax-smem-rows",
      llvm::cl::desc("tx-softmax-to-gpu smem-rows: keep a streamed row in "
                     "dynamic shared memory between its two passes when it "
                     "fits (default true)"),
      llvm::cl::init(true)};
  Option<bool> softmaxBulkRows{
      *this, "softmax-bulk-rows",
      llvm::cl::desc("tx-softmax-to-gpu bulk-rows: on sm_90 and newer, "
                     "rows kept in shared memory arrive by cp.async.bulk "
                     "(mbarrier per chunk) in a persistent grid that loads "
                     "the next row while writing this one (default true)"),
      llvm::cl::init(true)};
  Option<int64_t> softmaxBulkChunkBytes{
      *this, "softmax-bulk-chunk-bytes",
      llvm::cl::desc("tx-softmax-to-gpu bulk-chunk-bytes: bytes per "
                     "cp.async.bulk chunk of a bulk-copied row, rounded up to "
                     "a multiple of 16 x the CTA size (0 = 32 x the CTA "
                     "size)"),
      llvm::cl::init(0)};
  Option<int64_t> softmaxBulkCtasPerSm{
      *this, "softmax-bulk-ctas-per-sm",
      llvm::cl::desc("tx-softmax-to-gpu bulk-ctas-per-sm: CTAs per SM of "
                     "the persistent grid of bulk-copied rows (0 = as many "
                     "row rings as fit, at most 2)"),
      llvm::cl::init(0)};
  Option<int64_t> softmaxStreamUnroll{
      *this, "softmax-stream-unroll",
      llvm::cl::desc("tx-softmax-to-gpu stream-unroll: 16-byte loads per "
                     "thread in flight when a row is streamed (0 = 4)"),
      llvm::cl::init(0)};
  Option<int64_t> attentionWarps{
      *this, "attention-warps",
      llvm::cl::desc("tx-attention-to-gpu warps: warps per CTA (0 = 4 for "
                     "the CUDA-core and decode kernels, 8 for the mma.sync "
                     "kernel, with wgmma 4 at head dims <= 64 else 8)"),
      llvm::cl::init(0)};
  Option<int64_t> attentionQTile{
      *this, "attention-q-tile",
      llvm::cl::desc("tx-attention-to-gpu q-tile: query rows per CTA of the "
                     "CUDA-core kernel (0 = 8 per warp, 4 above head dim "
                     "128); the tensor-core kernels use 16 * "
                     "attention-mma-row-tiles * warps (mma.sync) or 16 * "
                     "warps (wgmma)"),
      llvm::cl::init(0)};
  Option<bool> attentionTensorCores{
      *this, "attention-tensor-cores",
      llvm::cl::desc("tx-attention-to-gpu tensor-cores: mma.sync kernel for "
                     "f16/bf16 with head dims multiples of 16 up to 128, and "
                     "the decode kernel's tensor-core form (default true)"),
      llvm::cl::init(true)};
  Option<int64_t> attentionStages{
      *this, "attention-stages",
      llvm::cl::desc("tx-attention-to-gpu stages: K/V pipeline stages of the "
                     "wgmma kernel (0 = 2, or 3 with a producer warpgroup) "
                     "and of each warp of the decode kernel (0 = 3)"),
      llvm::cl::init(0)};
  Option<int64_t> attentionProducerWarps{
      *this, "attention-producer-warps",
      llvm::cl::desc("tx-attention-to-gpu producer-warps: 4 = the wgmma "
                     "kernel's K/V copies by a producer warpgroup (warp "
                     "specialization), 0 = by every warp, -1 = the "
                     "strategy's choice"),
      llvm::cl::init(-1)};
  Option<bool> attentionWgmma{
      *this, "attention-wgmma",
      llvm::cl::desc("tx-attention-to-gpu wgmma: with chip=sm_90a, the "
                     "warpgroup-MMA kernel (wgmma.mma_async) for f16 and "
                     "bf16 with head dims 64 or 128 (default true)"),
      llvm::cl::init(true)};
  Option<bool> attentionDecode{
      *this, "attention-decode",
      llvm::cl::desc("tx-attention-to-gpu decode: the split-KV decode "
                     "kernels when G * Sq <= attention-decode-max-rows "
                     "(default true)"),
      llvm::cl::init(true)};
  Option<int64_t> attentionDecodeMaxRows{
      *this, "attention-decode-max-rows",
      llvm::cl::desc("tx-attention-to-gpu decode-max-rows: most query rows "
                     "per K/V head (G * Sq) for the decode kernels, 1..32 "
                     "(default 16)"),
      llvm::cl::init(16)};
  Option<int64_t> attentionKvSplits{
      *this, "attention-kv-splits",
      llvm::cl::desc("tx-attention-to-gpu kv-splits: key chunks of the "
                     "decode kernels (0 = from the chip's SM count)"),
      llvm::cl::init(0)};
  Option<int64_t> attentionDecodeCluster{
      *this, "attention-decode-cluster",
      llvm::cl::desc("tx-attention-to-gpu decode-cluster: most splits of "
                     "the decode kernel merged in one thread-block cluster "
                     "through distributed shared memory on every call "
                     "(1..16, sm_90+); 0 = through a global workspace; -1 = "
                     "the strategy's choice: on sm_90+ a cluster of up to 8 "
                     "for short calls only (default -1)"),
      llvm::cl::init(-1)};
  Option<int64_t> attentionDecodeMergeKernel{
      *this, "attention-decode-merge-kernel",
      llvm::cl::desc("tx-attention-to-gpu decode-merge-kernel: 1 = the "
                     "decode kernel's splits are merged by a second kernel "
                     "launched as a programmatic dependent (PDL, sm_90+); 0 "
                     "= by the last CTA to arrive (arrival counters zeroed "
                     "by a memset); -1 = the strategy's choice, 1 on sm_90+ "
                     "(default -1)"),
      llvm::cl::init(-1)};
  Option<int64_t> attentionDecodeTileKeys{
      *this, "attention-decode-tile-keys",
      llvm::cl::desc("tx-attention-to-gpu decode-tile-keys: keys per warp "
                     "step of the decode kernel (0 = 16 where D allows, "
                     "else 32)"),
      llvm::cl::init(0)};
  Option<int64_t> attentionNumSms{
      *this, "attention-num-sms",
      llvm::cl::desc("tx-attention-to-gpu num-sms: SMs of the target GPU for "
                     "the automatic split count, and of the softmax's "
                     "persistent grid of bulk-copied rows (0 = from the "
                     "chip: 108 for sm_80, else 132, the H100/H200 SXM)"),
      llvm::cl::init(0)};
  Option<int64_t> attentionMmaRowTiles{
      *this, "attention-mma-row-tiles",
      llvm::cl::desc("tx-attention-to-gpu mma-row-tiles: m16 row tiles per "
                     "warp in the tensor-core kernel (0 = 2)"),
      llvm::cl::init(0)};
  Option<int64_t> attentionKvTile{
      *this, "attention-kv-tile",
      llvm::cl::desc("tx-attention-to-gpu kv-tile: keys per K/V step "
                     "(0 = 64, or 32 when a head dim exceeds 128 on CUDA "
                     "cores or 64 on mma.sync; 128 with wgmma, 64 with a "
                     "mask above head dim 64)"),
      llvm::cl::init(0)};
  Option<int64_t> blockSize{*this, "block-size",
                            llvm::cl::desc("Threads per CTA of the simple "
                                           "mapping (default 256)"),
                            llvm::cl::init(256)};
};

/// Options of the `tx-cpu-pipeline` named pipeline.
struct CPUPipelineOptions : public PassPipelineOptions<CPUPipelineOptions> {
  Option<std::string> attention{
      *this, "attention",
      llvm::cl::desc("Attention strategy: simple (reference lowering; scores "
                     "materialized) or tiled (tx-tile-attention and, for "
                     "tx.attention_grad, tx-tile-attention-grad: "
                     "FlashAttention-2 tiles, no Sq x Sk buffer); default "
                     "simple"),
      llvm::cl::init("simple")};
  Option<int64_t> attentionQTile{
      *this, "attention-q-tile",
      llvm::cl::desc("tx-tile-attention(-grad) q-tile: query rows per tile "
                     "(attention=tiled; default 64)"),
      llvm::cl::init(64)};
  Option<int64_t> attentionKvTile{
      *this, "attention-kv-tile",
      llvm::cl::desc("tx-tile-attention(-grad) kv-tile: keys per tile "
                     "(attention=tiled; default 64)"),
      llvm::cl::init(64)};
  Option<int64_t> attentionKvSplits{
      *this, "attention-kv-splits",
      llvm::cl::desc("tx-tile-attention kv-splits: split-KV chunks merged "
                     "with the log-sum-exp rule (attention=tiled; default 1: "
                     "no split)"),
      llvm::cl::init(1)};
  Option<std::string> softmax{
      *this, "softmax",
      llvm::cl::desc("Softmax strategy: simple (reference lowering) or tiled "
                     "(tx-tile-softmax: row tiles, and with "
                     "softmax-cols-per-tile an online softmax over chunks of "
                     "each row); default simple"),
      llvm::cl::init("simple")};
  Option<int64_t> softmaxRowsPerTile{
      *this, "softmax-rows-per-tile",
      llvm::cl::desc("tx-tile-softmax rows-per-tile (softmax=tiled; default "
                     "8)"),
      llvm::cl::init(8)};
  Option<int64_t> softmaxColsPerTile{
      *this, "softmax-cols-per-tile",
      llvm::cl::desc("tx-tile-softmax cols-per-tile: elements per "
                     "online-softmax chunk (softmax=tiled; default 0 = whole "
                     "rows)"),
      llvm::cl::init(0)};
};

/// Appends tx -> linalg -> bufferized memrefs (shared by both pipelines).
void buildTxToBufferizedLinalgPipeline(OpPassManager &pm);
/// Builds `tx-gpu-pipeline`. Emits an error and returns failure when an option
/// is invalid (unknown chip, missing toolkit, bad format).
LogicalResult buildTxGPUPipeline(OpPassManager &pm,
                                 const GPUPipelineOptions &options);
/// Builds `tx-cpu-pipeline`.
void buildTxCPUPipeline(OpPassManager &pm, const CPUPipelineOptions &options);

/// Registers both named pipelines.
void registerTxPipelines();
/// Registers every tx pass and pipeline (idempotent).
void registerTxPassesAndPipelines();

} // namespace tx
} // namespace mlir

#endif // TRANSFORMER_PASSES_H
