//===- ModRegions.h - score and mask functions inside a kernel --*- C++ -*-===//
//
// The score and mask functions of tx.attention (its `score_mod` and
// `mask_mod` regions, TxOps.td "Score and mask functions"; issue #42), as
// the attention kernels evaluate them for one score: the region's body is
// cloned at the builder's insertion point inside the kernel, with its
// captured tensors read from their buffers.
//
// Private to lib/Transformer.
//
//===----------------------------------------------------------------------===//
#ifndef TRANSFORMER_GPU_MODREGIONS_H
#define TRANSFORMER_GPU_MODREGIONS_H

#include "mlir/IR/Builders.h"

namespace mlir {
namespace tx {
namespace kernel {

/// Host side, before the launch: the captured operands of a region as the
/// kernel reads them, a read-only buffer (memref) for each ranked tensor,
/// scalars as they are.
SmallVector<Value> modCaptureBuffers(OpBuilder &b, Location loc,
                                     ValueRange captures);

/// The value `mod` (a non-empty score_mod or mask_mod region) yields for
/// one score: its body cloned at `b`'s insertion point with the arguments
/// bound to `score` (f32; null for a mask_mod), the index values `bhij`
/// (batch, query head, query row, key of the whole op) and `buffers`
/// (modCaptureBuffers of its captured operands). A `tensor.extract` of a
/// captured tensor becomes a `memref.load` of its buffer (`tensor.dim` a
/// `memref.dim`), also inside nested regions of the body.
///
/// `fastMath` (kernels of f16/bf16 inputs): the body's f32 `math.tanh`
/// becomes PTX `tanh.approx.f32` (2^-11 relative, the softcap attribute's
/// form in the tensor-core kernels) and its f32 `arith.divf` a multiply by
/// the rounded reciprocal of a constant divisor, else `div.full.f32`
/// (2 ulp; what Triton, hence FlexAttention, emits for `/`). Their error
/// is below the f16/bf16 rounding of P and the output; f32 kernels keep
/// the exact forms (libdevice's tanhf, IEEE division).
Value inlineModInKernel(OpBuilder &b, Region &mod, ValueRange buffers,
                        Value score, ValueRange bhij, bool fastMath = false);

/// A kernel's score and mask functions: their regions and, built on the
/// host before the launch, their captured operands' buffers; applied to
/// one score inside the kernel.
struct ScoreMods {
  Region *score = nullptr, *mask = nullptr; // null: absent
  SmallVector<Value> scoreBuffers, maskBuffers;
  bool fastMath = false; // inlineModInKernel's, for every evaluation

  /// The buffers of `scoreCaptures` and `maskCaptures` (modCaptureBuffers)
  /// at `b`'s insertion point (host side); `fastMath` as inlineModInKernel's
  /// (the kernel's inputs are f16 or bf16).
  static ScoreMods build(OpBuilder &b, Location loc, Region *score,
                         ValueRange scoreCaptures, Region *mask,
                         ValueRange maskCaptures, bool fastMath);
  /// `x` (f32, natural units: after the scale and the soft cap) through
  /// the score function at indices `bhij` (b, h, q_idx, kv_idx, index
  /// values of the whole op, in range); `x` itself without one.
  Value applyScore(OpBuilder &b, Value x, ValueRange bhij) const;
  /// `x`, or `negInf` where the mask function hides key kv_idx from query
  /// q_idx (indices as applyScore's); `x` itself without one.
  Value applyMask(OpBuilder &b, Location loc, Value x, Value negInf,
                  ValueRange bhij) const;
};

} // namespace kernel
} // namespace tx
} // namespace mlir

#endif // TRANSFORMER_GPU_MODREGIONS_H
