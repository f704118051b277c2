//===- WgmmaOps.h - sm_90a warpgroup-MMA building blocks ---------*- C++ -*-===//
//
// What every wgmma kernel shares (the flash forward's warpgroup kernel, the
// backward's): the shared-memory matrix descriptor of a 128-byte swizzled
// tile, inline PTX statements with f32 results (wgmma's accumulators), the
// async-proxy fence, and the text of one wgmma.mma_async. Free functions of
// the builder and location: no state.
//
// The tiles these descriptors address (PTX ISA, "Shared Memory Matrix
// Layout", 128B swizzle): rows of 64 f16/bf16 elements (128 bytes), the
// 16-byte chunk c of row r stored at chunk c ^ (r % 8), 8-row atoms of
// 1 KiB aligned to 1 KiB; a matrix with more than 64 columns is stored as
// 64-column blocks one after the other. The same layout serves an operand
// read K-major (its rows are the MMA's M or N, the K steps move 32 bytes
// along the row) and MN-major (imm-trans = 1: its rows are K, a k16 step
// moves 16 rows, 2 KiB).
//
//===----------------------------------------------------------------------===//
#ifndef TRANSFORMER_GPU_KERNELS_COMMON_WGMMAOPS_H
#define TRANSFORMER_GPU_KERNELS_COMMON_WGMMAOPS_H

#include "mlir/IR/Builders.h"
#include <string>

namespace mlir {
namespace tx {
namespace wgmma {

/// The wgmma shared-memory matrix descriptor (PTX ISA, "Matrix Descriptor
/// Format") of a 128B-swizzled operand at shared address `addr` (i64):
/// address >> 4 in bits 0-13; leading byte offset 16 (not used by swizzled
/// layouts whose K or N step fits one atom) in bits 16-29; stride byte
/// offset 1024 (from one 8-row atom to the next) in bits 32-45; swizzle
/// mode 1 (128 bytes) in bits 62-63. Offsets inside an atom (the k16 steps)
/// are added to the address field, as CUTLASS does.
Value descriptor(OpBuilder &b, Location loc, Value addr);

/// `desc` moved by `bytes` (a multiple of 16) along shared memory.
Value descriptorPlus(OpBuilder &b, Location loc, Value desc, int64_t bytes);

/// Inline PTX with side effects and `nOut` f32 results (wgmma and its
/// fences, commit and wait, which must share one statement when an
/// accumulator is read between them).
SmallVector<Value> inlinePtx(OpBuilder &b, Location loc, StringRef text,
                             StringRef constraints, ValueRange operands,
                             int64_t nOut);

/// "{$first, ..., $first+n-1}": an inline-PTX register list.
std::string regList(int64_t first, int64_t n);

/// fence.proxy.async.shared::cta: generic-proxy writes to shared memory
/// (st.shared, cp.async) made visible to wgmma's and the bulk copies'
/// async proxy.
void fenceProxyAsync(OpBuilder &b, Location loc);


/// One inline-PTX statement of warpgroup MMAs: wgmma.fence, the products
/// added in order, commit_group and wait_group 0, so no accumulator is
/// touched while a product is in flight. Accumulators are m64nN f32 tiles,
/// N / 2 registers per thread laid out as mma.sync's C fragments (warp w of
/// the warpgroup: rows 16w + g and 16w + g + 8, columns 8j + 2t, 8j + 2t + 1
/// in registers 4j .. 4j + 3; g = lane / 4, t = lane % 4). A fresh
/// accumulator's first product overwrites it (scale-d false).
class WgmmaStatement {
public:
  /// `elt`: f16 or bf16, A's and B's element type.
  WgmmaStatement(OpBuilder &b, Location loc, Type elt)
      : b(b), loc(loc), elt(elt) {}

  /// An m64nN accumulator: `init` (N / 2 f32 values) or, when empty, a
  /// fresh one. Returns its id.
  int64_t accumulator(int64_t n, ArrayRef<Value> init = {});
  /// acc += A·B, k16: A (64 x 16) and B (16 x N) from shared memory
  /// (descriptors); `transA` / `transB`: the operand is MN-major.
  void sharedA(int64_t acc, Value aDesc, Value bDesc, bool transA,
               bool transB);
  /// acc += A·B, k16, A in registers (four f16x2/bf16x2 i32: the mma.sync
  /// A fragment of the warp's 16 rows), B from shared memory.
  void registerA(int64_t acc, ArrayRef<Value> aRegs, Value bDesc,
                 bool transB);
  /// Emits the statement; returns each accumulator's N / 2 values.
  SmallVector<SmallVector<Value>> emit();

private:
  struct Acc {
    int64_t n;
    SmallVector<Value> init;
    bool written = false;
  };
  struct Product {
    int64_t acc;
    SmallVector<Value> a; // one descriptor, or four registers
    Value bDesc;
    bool transA, transB, zero;
  };
  OpBuilder &b;
  Location loc;
  Type elt;
  SmallVector<Acc> accs;
  SmallVector<Product> products;
};

} // namespace wgmma
} // namespace tx
} // namespace mlir

#endif // TRANSFORMER_GPU_KERNELS_COMMON_WGMMAOPS_H
