//===- GradKernels.h - the attention backward's mma.sync kernels -*- C++ -*-===//
//
// The GPU kernels of FlashAttention-2's backward (Dao 2023, "FlashAttention-2:
// Faster Attention with Better Parallelism and Work Partitioning",
// Algorithm 2), built by tx-map-attention-grad-to-gpu from the two foralls
// of tx-tile-attention-grad:
//
//   dK, dV   one CTA per (batch, K/V head, key tile of kv-tile keys); warp w
//            owns keys [16w, 16w + 16) of the tile and their dK, dV
//            accumulators (f32, mma.sync C fragments); the CTA loops over
//            the H / Hkv query heads of its K/V head and their query tiles
//            of q-tile rows (from the first tile a causal row sees). Per
//            query tile: Q, dO staged in shared memory (cp.async), and
//              Sᵀ  = K·Qᵀ                  (mma.sync, the tile's keys x rows)
//              Pᵀ  = exp2(Sᵀ·scale·log2 e − LSE·log2 e)   (0 where hidden)
//              dV += Pᵀ·dO                 (Pᵀ packed to Q's type: A fragments)
//              dPᵀ = V·dOᵀ
//              dSᵀ = Pᵀ ∘ (dPᵀ − Δ)         (Δ = rowsum(dO ∘ O), per row)
//              dK += dSᵀ·Q                 (times scale once at the end)
//   dQ       one CTA per (batch, head, query tile of q-tile rows); warp w
//            owns rows [16w, 16w + 16) and their dQ accumulator; the CTA
//            loops over key tiles of kv-tile keys (up to the last key a
//            causal row sees): S = Q·Kᵀ, P, dP = dO·Vᵀ, dS as above,
//            dQ += dS·K.
//
// No atomics: every gradient element is summed by one thread in a fixed
// order, so the kernels are bitwise deterministic (dK, dV of a K/V head sum
// its query heads in order). No Sq x Sk buffer exists. The kernels take f16
// or bf16 Q/K/V/dO with D = Dv in {64, 128} (multiples of 16 in general),
// the scale as a constant, causal attention aligned bottom-right (key j
// visible to row i iff j <= i + Sk - Sq), GQA/MQA, any Sq, Sk; masks, soft
// caps, windows and per-sequence lengths stay on the reference lowering
// (tx-attention-grad-strategy does not mark them). Results are f32
// [B, Hkv, Sk, D] (dK, dV) and [B, H, Sq, D] (dQ), as the foralls'.
//
//===----------------------------------------------------------------------===//
#ifndef TRANSFORMER_GPU_KERNELS_GRAD_GRADKERNELS_H
#define TRANSFORMER_GPU_KERNELS_GRAD_GRADKERNELS_H

#include "mlir/IR/Builders.h"
#include "mlir/IR/BuiltinTypes.h"

namespace mlir {
namespace tx {

/// What both backward kernels read (whole tensors, defined outside the
/// tiled foralls).
struct AttentionGradKernelProblem {
  Value query, key, value, gradOutput; // [B, H|Hkv, Sq|Sk, D], f16 or bf16
  Value lse, delta;                    // f32 [B, H, Sq]
  double scale = 1.0;
  bool causal = false;
  int64_t qTile = 64, kvTile = 64; // multiples of 16
};

/// Emits the dK, dV kernel (host code, before bufferization) and returns
/// dK, dV as f32 tensors of `dkType`, `dvType`.
SmallVector<Value> buildAttentionDkDvKernel(OpBuilder &b, Location loc,
                                            const AttentionGradKernelProblem &p,
                                            RankedTensorType dkType,
                                            RankedTensorType dvType);

/// Emits the dQ kernel and returns dQ as an f32 tensor of `dqType`.
Value buildAttentionDqKernel(OpBuilder &b, Location loc,
                             const AttentionGradKernelProblem &p,
                             RankedTensorType dqType);

/// Emits the sm_90a kernel that computes dK, dV and dQ in one pass
/// (WgmmaGradKernel.cpp: 128-key tiles, 64-row query tiles, dQ by f32
/// reductions, not deterministic) and returns dK, dV, dQ as f32 tensors.
/// D = Dv in {64, 128}.
SmallVector<Value> buildAttentionGradWgmmaKernel(
    OpBuilder &b, Location loc, const AttentionGradKernelProblem &p,
    RankedTensorType dkType, RankedTensorType dvType,
    RankedTensorType dqType);

} // namespace tx
} // namespace mlir

#endif // TRANSFORMER_GPU_KERNELS_GRAD_GRADKERNELS_H
