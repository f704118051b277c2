//===- SoftmaxKernel.h - tx.softmax's row kernels -----------------*- C++ -*-===//
//
// The kernel of one softmax configuration over the rows of an [R, N]
// buffer (SoftmaxKernel.cpp), used by tx-map-softmax-to-gpu
// (SoftmaxToGPU.cpp), which chooses the configuration. Private to
// lib/Transformer.
//
//===----------------------------------------------------------------------===//
#ifndef TRANSFORMER_GPU_SOFTMAXKERNEL_H
#define TRANSFORMER_GPU_SOFTMAXKERNEL_H

#include "mlir/IR/Builders.h"

namespace mlir {
namespace tx {

/// How one kernel maps rows onto threads.
struct KernelConfig {
  int64_t vectorWidth;   // elements per load (1 = scalar)
  int64_t threadsPerRow; // 32 or blockSize
  int64_t blockSize;     // threads per CTA
  int64_t cached;        // vectors per thread kept in registers (0 = stream)
  bool peel = false;     // rows not vector-aligned: scalar head and tail
  int64_t gridCtas = 0;  // > 0: at most this many CTAs, grid-stride over rows
  bool prefetch = true;  // persistent register path: load the next rows early
  int64_t unroll = 4;    // streamed rows: vectors loaded per thread before use
  int64_t smemRowBytes = 0; // > 0: a streamed row (CTA per row) is kept in
                            // dynamic shared memory between its two passes
  int64_t bulkChunkBytes = 0; // > 0 (sm_90+, with smemRowBytes and a
                              // persistent grid): the copy engine streams
                              // rows into shared memory in chunks of this
                              // many bytes (cp.async.bulk + mbarriers), the
                              // next row's while this one is written
  int64_t bulkSlots = 0; // bulk rows: chunk slots of the ring (at least a
                         // row's chunks; 0 = exactly a row's)

  /// Bulk rows: the chunk slots of the ring (0 without bulk copies).
  int64_t ringSlots() const {
    if (bulkChunkBytes <= 0)
      return 0;
    int64_t rowChunks = (smemRowBytes + bulkChunkBytes - 1) / bulkChunkBytes;
    return bulkSlots > rowChunks ? bulkSlots : rowChunks;
  }
  /// The dynamic shared memory of the kernel's launch in bytes (0: none):
  /// with a shared-memory row, two reduction slots of one f32 per warp
  /// (16-byte aligned), the mbarriers of the ring (8 bytes a slot + 8,
  /// 16-byte aligned), the row or the ring, 16 bytes of alignment slack.
  int64_t dynamicSmemBytes() const {
    if (smemRowBytes <= 0)
      return 0;
    int64_t warps = blockSize / 32 > 1 ? blockSize / 32 : 1;
    int64_t slotBytes = (warps * 4 + 15) / 16 * 16;
    int64_t slots = ringSlots();
    int64_t barBytes = slots > 0 ? slots * 8 + 8 : 0;
    int64_t bufBytes = slots > 0 ? slots * bulkChunkBytes : smemRowBytes;
    return 2 * slotBytes + (barBytes + 15) / 16 * 16 + bufBytes + 16;
  }
};

/// Emits the gpu.launch of configuration `cfg` at the builder's insertion
/// point (host code): ceil(R / rows per CTA) CTAs (at most cfg.gridCtas
/// when set, striding over the row groups) over the rows of `in` ([R, N]
/// memref of `elt`; `rows` = R, `cols` = N, `staticCols` = N or -1) writing
/// `out`.
void buildSoftmaxKernel(OpBuilder &b, Location loc, Value in, Value out,
                        Value rows, Value cols, int64_t staticCols, Type elt,
                        const KernelConfig &cfg);

} // namespace tx
} // namespace mlir

#endif // TRANSFORMER_GPU_SOFTMAXKERNEL_H
