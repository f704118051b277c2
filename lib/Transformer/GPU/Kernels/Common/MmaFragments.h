//===- MmaFragments.h - mma.sync m16n8k16 building blocks -------*- C++ -*-===//
//
// The tensor-core building blocks every mma.sync kernel shares (the flash
// forward, the backward's dK/dV and dQ kernels): ldmatrix, the m16n8k16
// multiply-accumulate for f16 and bf16, packing f32 accumulators into A
// fragments, ex2.approx. Free functions of the builder and location: no
// state.
//
// Fragment layouts (PTX ISA, "Matrix Fragments for mma.m16n8k16"), with
// g = lane / 4 and t = lane % 4:
//   A (16 x 16, row-major)  vector<4x2xT>: rows g, g+8, g, g+8 and columns
//                           2t..2t+1, 2t..2t+1, 8+2t.., 8+2t..
//   B (16 x 8, "col")       vector<2x2xT>: k rows 2t..2t+1 and 8+2t..,
//                           column g
//   C, D (16 x 8, f32)      vector<2x2xf32>: row g then row g+8, columns
//                           2t, 2t+1
// A C fragment pair (two adjacent n8 tiles) packed to T is the A fragment
// of the next product over the same 16 columns (FlashAttention-2's P·V).
//
//===----------------------------------------------------------------------===//
#ifndef TRANSFORMER_GPU_KERNELS_COMMON_MMAFRAGMENTS_H
#define TRANSFORMER_GPU_KERNELS_COMMON_MMAFRAGMENTS_H

#include "mlir/IR/Builders.h"
#include "mlir/IR/BuiltinTypes.h"
#include <utility>

namespace mlir {
namespace tx {
namespace mma {

/// vector<rows x cols x t>.
VectorType fragmentType(int64_t rows, int64_t cols, Type t);

/// ldmatrix of `tiles` (1, 2 or 4) 8x8 matrices of `elt` from the shared
/// memory `view` at this lane's `idx` (lanes 8i..8i+7 address matrix i's
/// rows), transposed when `trans`: vector<tiles x 2 x elt>.
Value ldmatrix(OpBuilder &b, Location loc, Value view, ValueRange idx,
               bool trans, int64_t tiles, Type elt);

/// An ldmatrix x4 result as two B fragments: matrices (0, 1) and (2, 3).
std::pair<Value, Value> splitX4(OpBuilder &b, Location loc, Value x4,
                                Type elt);

/// D = A·B + C, mma.sync m16n8k16 with f32 accumulators; `elt` (f16 or
/// bf16) is A's and B's element type.
Value mmaSync(OpBuilder &b, Location loc, Value a, Value bb, Value c,
              Type elt);

/// f32 values xs[2r], xs[2r+1] as row r of a vector<n/2 x 2 x t> (rounded
/// to `t` when it is not f32).
Value pack(OpBuilder &b, Location loc, ArrayRef<Value> xs, Type t);

/// 2^x, ex2.approx.ftz.f32 (relative error 2^-22).
Value fastExp2(OpBuilder &b, Location loc, Value x);

} // namespace mma
} // namespace tx
} // namespace mlir

#endif // TRANSFORMER_GPU_KERNELS_COMMON_MMAFRAGMENTS_H
