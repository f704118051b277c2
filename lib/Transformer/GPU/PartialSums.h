//===- PartialSums.h - O's running sum in two parts (tensor cores) -*- C++ -*-===//
//
// Why: the tensor cores add in f32 with truncation (Fasi et al., "Numerical
// behavior of NVIDIA tensor cores", PeerJ CS 2021: products aligned to the
// largest exponent and the sum rounded toward zero). A flash kernel that
// keeps O = sum_j P_j V_j in the accumulator of its mma.sync / wgmma loses
// up to an ulp of the whole running sum at every k16 step, always towards
// zero: after thousands of steps (a row of 131072 keys: 8192 steps) the
// relative loss is ~5e-4, and f16 outputs came out about one ulp low on
// average (issue #38; cuDNN's kernels show the same drift, FlashAttention-2
// avoids it there by splitting the keys).
//
// What: every `windowKeys` keys the kernel folds its register O into a
// second sum kept in thread-local memory (one fma.rn per element, so that
// sum is rounded to nearest) and restarts O from zero; the accumulator
// never sums more than one window, which bounds the drift to
// windowKeys / Sk of what it was. The local sum carries its own anchor a_L
// (the exp2-domain row maximum it is scaled to): folding at anchor a gives
//   L = L * 2^(a_L - a) + O,  a_L = a,  O = 0
// and the end gives O_total = L * 2^(a_L - a) + O, because the row maximum
// only grows (a >= a_L, so the factor is at most 1). a_L starts at -inf
// with L = 0 (factor 2^-inf = 0). The buffer lives in thread-local memory
// (its address escapes, so LLVM cannot promote it back to registers): the
// kernels have no registers to spare, and the folds are rare.
//
// O is held as C fragments of mma.sync / wgmma: vector<2x2xf32> per m16
// tile and 8 columns, element [hh][c] in row 2 mt + hh of the thread
// (fragment f = mt * DT + dt).
//
// Private to lib/Transformer.
//
//===----------------------------------------------------------------------===//
#ifndef TRANSFORMER_GPU_PARTIALSUMS_H
#define TRANSFORMER_GPU_PARTIALSUMS_H

#include "mlir/IR/Builders.h"
#include "mlir/Support/LLVM.h"

namespace mlir {
namespace tx {

/// Keys summed in the tensor-core accumulator before it is folded into the
/// thread-local sum. The drift left is about 2048 / 131072 of the 0.86 ulp
/// measured at Sk = 131072 in one accumulator (~0.014 ulp).
constexpr int64_t kPartialSumKeys = 2048;

/// The thread-local second sum of O for `mTiles` m16 tiles of `dTiles`
/// 8-column fragments (2 mTiles rows per thread).
class PartialSums {
public:
  /// Allocates the buffer in the entry block of the enclosing gpu.launch
  /// body and initializes it at the builder's insertion point.
  PartialSums(OpBuilder &b, Location loc, int64_t mTiles, int64_t dTiles);

  /// When `now` (i1): folds `o` into the buffer and returns zero
  /// fragments, else returns `o`. `anchor` builds the anchors of o's rows
  /// (one value per row) inside the branch.
  SmallVector<Value> foldIf(Value now, ValueRange o,
                            function_ref<SmallVector<Value>()> anchor);

  /// The whole sum: buffer * 2^(a_L - anchor) + o.
  SmallVector<Value> total(ValueRange o, ArrayRef<Value> anchor);

private:
  Value slot(int64_t index);            // pointer to float `index`
  Value load(int64_t index, Type type);
  void store(Value x, int64_t index);
  Value exp2(Value x);
  /// Buffer * 2^(a_L - anchor) + o for every fragment, which becomes the
  /// buffer (anchored at `anchor`); `group` fragments at a time.
  SmallVector<Value> combine(ValueRange o, ArrayRef<Value> anchor);

  OpBuilder &b;
  Location loc;
  int64_t mTiles, dTiles;
  // Fragments folded at a time: their loads, then their stores. The
  // accesses are volatile, so that ptxas keeps that order and never holds
  // more than `group` fragments of the buffer in registers (the kernels
  // have none to spare).
  static constexpr int64_t group = 4;
  Value base; // !llvm.ptr: 2 mTiles anchors, then mTiles * dTiles * 4 floats
};

} // namespace tx
} // namespace mlir

#endif // TRANSFORMER_GPU_PARTIALSUMS_H
