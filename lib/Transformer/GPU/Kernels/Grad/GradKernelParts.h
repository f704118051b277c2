//===- GradKernelParts.h - pieces of the backward's kernels -----*- C++ -*-===//
//
// The pieces both backward kernels (GradKernels.h) are assembled from: the
// launch and the thread's coordinates, shared-memory tile views, cp.async
// tile copies, the two tensor-core products of the backward (C = A·Bᵀ from
// two staged tiles; C += A·B with A in registers), and the f32 row stores.
// The mma.sync fragments themselves are Common/MmaFragments.h's. Private
// to GPU/Kernels/Grad.
//
//===----------------------------------------------------------------------===//
#ifndef TRANSFORMER_GPU_KERNELS_GRAD_GRADKERNELPARTS_H
#define TRANSFORMER_GPU_KERNELS_GRAD_GRADKERNELPARTS_H

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/IR/Builders.h"

namespace mlir {
namespace tx {

/// log2(e): the kernels' exponentials run on ex2.
inline constexpr double kGradLog2e = 1.4426950408889634;

/// Builds one kernel of the backward at `b`'s insertion point. The values
/// set by enterLaunch (tid, lane, warp, g, t4, smem) are the only state.
class GradKernelParts {
public:
  GradKernelParts(OpBuilder &b, Location loc, Type elt, int64_t D)
      : b(b), loc(loc), elt(elt), f32(b.getF32Type()), D(D), pitch(D + 8) {}

  OpBuilder &b;
  Location loc;
  Type elt, f32;
  /// Head dim; shared rows hold `pitch` = D + 8 elements (16 bytes of
  /// padding against ldmatrix bank conflicts).
  int64_t D, pitch;
  Value tid, lane, warp, g, t4, smem;

  // ---- index and float arithmetic -----------------------------------------
  Value cst(int64_t v) { return arith::ConstantIndexOp::create(b, loc, v); }
  Value fcst(double v);
  Value add(Value x, Value y) { return arith::AddIOp::create(b, loc, x, y); }
  Value add(Value x, int64_t y) { return y ? add(x, cst(y)) : x; }
  Value sub(Value x, Value y) { return arith::SubIOp::create(b, loc, x, y); }
  Value mul(Value x, Value y) { return arith::MulIOp::create(b, loc, x, y); }
  Value mul(Value x, int64_t y) { return y == 1 ? x : mul(x, cst(y)); }
  Value divui(Value x, int64_t y);
  Value remui(Value x, int64_t y);
  Value minsi(Value x, Value y) { return arith::MinSIOp::create(b, loc, x, y); }
  Value maxsi(Value x, Value y) { return arith::MaxSIOp::create(b, loc, x, y); }
  Value cmpi(arith::CmpIPredicate p, Value x, Value y);
  Value select(Value c, Value x, Value y);
  Value ceilDiv(Value x, int64_t y);

  // ---- host side -----------------------------------------------------------
  /// A read-only buffer of tensor `t` (identity layout).
  Value toBuffer(Value t);
  Value dim(Value buf, int64_t i);
  /// An f32 buffer of `ty`'s shape; `sizes` gives every dimension.
  Value allocResult(RankedTensorType ty, ArrayRef<Value> sizes);
  /// The f32 tensor of buffer `buf` (written by the kernel).
  Value toTensor(Value buf, RankedTensorType ty);

  // ---- the kernel ----------------------------------------------------------
  /// A gpu.launch of `blocks` CTAs of `warps` warps with `smemBytes` of
  /// dynamic shared memory (sm_80+); the insertion point moves into its
  /// body and the thread's coordinates are set. Returns the block id.
  /// `chip`: the oldest chip the kernel's instructions exist on.
  Value enterLaunch(Value blocks, int64_t warps, int64_t smemBytes,
                    StringRef chip = "sm_80");
  /// `rows` x pitch elements of `elt` at `byteOffset` of shared memory.
  Value tileView(Value byteOffset, int64_t rows);
  Value tileView(int64_t byteOffset, int64_t rows) {
    return tileView(cst(byteOffset), rows);
  }
  /// `n` f32 at `byteOffset` of shared memory.
  Value floatView(Value byteOffset, int64_t n);
  /// cp.async of rows [row0, row0 + rows) of buf[i0, i1, :, 0:D] into
  /// `view`; rows at or past `rowLimit` are zero-filled. Not waited for.
  void copyTile(Value buf, Value i0, Value i1, Value row0, Value rowLimit,
                int64_t rows, Value view, int64_t threads);
  /// Waits for every cp.async of this thread, then a CTA barrier.
  void waitCopies();
  /// Closes this thread's current group of cp.async copies (possibly
  /// empty), then waits until at most `pending` groups are in flight.
  void commitAndWait(int64_t pending);
  /// Closes this thread's current group of cp.async copies.
  void commit();
  void barrier();
  /// C (16 x 8n, f32) = A·Bᵀ with A = rows [aRow0, aRow0 + 16) of `aView`
  /// and B = rows [0, 8n) of `bView`, both `rows x D` tiles. Returns the
  /// n C fragments' elements: [4 * nt + e].
  SmallVector<Value> productABt(Value aView, Value aRow0, Value bView,
                                int64_t n);
  /// acc[dt] += A·B for the D/8 fragments of acc: A (16 x k) given by k/8
  /// C fragments' elements `a` (packed to `elt`), B = rows [0, k) of the
  /// `k x D` tile `bView` (ldmatrix.trans).
  void accumulateAB(ArrayRef<Value> a, Value bView, int64_t k,
                    SmallVector<Value> &acc);
  /// The backward's element-wise step on the elements of n8 C fragments,
  /// in place: s[4 nt + e] becomes P = exp2(s·scale·log2 e − LSE·log2 e),
  /// 0 where `visible(nt, e)` is false (no callback: all visible); returns
  /// dS = P ∘ (dp − Δ). `stats(nt, e)` gives (LSE·log2 e, Δ) of the
  /// element's query row.
  SmallVector<Value> probabilitiesAndDs(
      SmallVector<Value> &s, ArrayRef<Value> dp, double scale,
      llvm::function_ref<std::pair<Value, Value>(int64_t, int64_t)> stats,
      llvm::function_ref<Value(int64_t, int64_t)> visible);
  /// D/8 zero accumulators (vector<2x2xf32>).
  SmallVector<Value> zeroAccumulators();
  /// acc * factor into out[i0, i1, row, :] for this thread's rows row0 + g
  /// and row0 + g + 8 that are below `rowLimit`.
  void storeRows(ArrayRef<Value> acc, double factor, Value out, Value i0,
                 Value i1, Value row0, Value rowLimit);
  /// Row i's LSE·log2 e and Δ from the f32 [B, H, Sq] buffers at (bi, h):
  /// +inf and 0 for rows at or past Sq, +inf for a row that saw no key
  /// (LSE = -inf), so that exp2(S·scale·log2 e − LSE·log2 e) is 0 there.
  std::pair<Value, Value> rowStats(Value lse, Value delta, Value bi, Value h,
                                   Value i, Value Sq);
  /// A dK/dV CTA's loop: over (query head of K/V head `kh`'s group of G,
  /// query tile of `rows` rows from the first one a causal row of which
  /// sees key `n0`), flattened into one scf.for over two stages. Before the
  /// loop, `issue(stage, h, m0)` starts the first tile's copies and the
  /// current cp.async group (with the caller's K/V copies) is closed; each
  /// step starts the next tile's copies into the other stage, waits for its
  /// own (then, with `fenceAsync`, makes them visible to wgmma), and
  /// computes (`step(stage, h, m0, acc)` returns the new accumulators).
  struct QueryTileLoop {
    Value n0, shift, Sq, kh, G;
    int64_t rows;
    bool causal, fenceAsync;
  };
  SmallVector<Value> queryTileLoop(
      const QueryTileLoop &l, llvm::function_ref<SmallVector<Value>()> init,
      llvm::function_ref<void(Value, Value, Value)> issue,
      llvm::function_ref<SmallVector<Value>(Value, Value, Value, ValueRange)>
          step);
  /// Threads tid < `rows` store query row m0 + tid's LSE·log2 e and Δ of
  /// head h (rowStats) at [tid] of the f32 shared views.
  void stageRowStats(Value lse, Value delta, Value bi, Value h, Value m0,
                     Value Sq, int64_t rows, Value lseView, Value deltaView);
  /// Row and column of element `e` of a C fragment within its 16 x 8 tile.
  Value fragRow(int64_t e) { return add(g, 8 * (e / 2)); }
  Value fragCol(int64_t e) { return add(mul(t4, 2), e % 2); }
};

} // namespace tx
} // namespace mlir

#endif // TRANSFORMER_GPU_KERNELS_GRAD_GRADKERNELPARTS_H
