//===- SoftmaxKernel.cpp - tx.softmax: the kernel of one row configuration -===//
//
// tx's fast softmax (see the pass description in Passes.td). The row is the
// unit of work: a warp or a CTA reads it with 16-byte vector loads, reduces
// max and sum with warp shuffles (and shared memory across warps), and writes
// exp(x - max) / sum once. Memory traffic is one read and one write of the
// tensor when the row fits in registers; otherwise the normalizing pass reads
// the row a second time (from L2 for rows of the sizes this handles).
//
// This file holds the launch (SoftmaxKernelBuilder::build); the rest of
// the builder is in SoftmaxRowOps.cpp, SoftmaxRowBodies.cpp and
// SoftmaxBulkRows.cpp (SoftmaxKernelBuilder.h).
//
//===----------------------------------------------------------------------===//
#include "GPU/Kernels/Softmax/SoftmaxKernelBuilder.h"

#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include <limits>

using namespace mlir;
using namespace mlir::tx;

void SoftmaxKernelBuilder::build() {
  int64_t rowsPerBlock = cfg.blockSize / cfg.threadsPerRow;
  int64_t warps = cfg.blockSize / 32;
  Value one = cst(1);
  Value grid = arith::CeilDivUIOp::create(b, loc, rows, cst(rowsPerBlock));
  bool gridStride = cfg.gridCtas > 0;
  if (gridStride)
    grid = arith::MinUIOp::create(b, loc, grid, cst(cfg.gridCtas));
  auto wg = gpu::AddressSpaceAttr::get(b.getContext(),
                                       gpu::AddressSpace::Workgroup);
  auto smemTy = MemRefType::get({std::max<int64_t>(warps, 1)}, f32,
                                MemRefLayoutAttrInterface(), wg);
  SmallVector<Type> attributions;
  // With a shared-memory row the reduction slots live in the dynamic
  // shared memory too: MLIR 22 declares gpu.dynamic_shared_memory as a
  // 1-byte .shared variable, so static workgroup buffers placed after it
  // would overlap the row (and lose their 16-byte alignment).
  const int64_t slotBytes = (std::max<int64_t>(warps, 1) * 4 + 15) / 16 * 16;
  if (cfg.threadsPerRow > 32 && cfg.smemRowBytes == 0)
    attributions = {smemTy, smemTy};
  // cp.async.bulk rows: one 8-byte mbarrier per chunk slot of the ring.
  // The layout (KernelConfig::dynamicSmemBytes): two reduction slots,
  // [the mbarriers,] the row or the ring, 16 bytes of alignment slack.
  const int64_t bulkSlots = cfg.ringSlots();
  const int64_t bufBytes =
      bulkSlots > 0 ? bulkSlots * cfg.bulkChunkBytes : cfg.smemRowBytes;
  const int64_t barBytes = bulkSlots > 0 ? bulkSlots * 8 + 8 : 0;
  const int64_t barSlotBytes = (barBytes + 15) / 16 * 16;
  Value dynSmem;
  if (cfg.smemRowBytes > 0)
    dynSmem = arith::ConstantIntOp::create(b, loc, b.getI32Type(),
                                           cfg.dynamicSmemBytes());
  auto launch = gpu::LaunchOp::create(
      b, loc, grid, one, one, cst(cfg.blockSize), one, one,
      /*dynamicSharedMemorySize=*/dynSmem, /*asyncTokenType=*/nullptr,
      /*asyncDependencies=*/ValueRange{}, attributions);
  OpBuilder::InsertionGuard guard(b);
  b.setInsertionPointToStart(&launch.getBody().front());
  if (cfg.smemRowBytes > 0) {
    Value base = gpu::DynamicSharedMemoryOp::create(
        b, loc,
        MemRefType::get({ShapedType::kDynamic}, b.getI8Type(),
                        MemRefLayoutAttrInterface(), wg));
    int64_t elems = bufBytes * 8 / elt.getIntOrFloatBitWidth();
    // [reduction slot A | slot B | row], each 16-byte aligned (16-byte
    // accesses fault otherwise).
    Value addr = memref::ExtractAlignedPointerAsIndexOp::create(b, loc, base);
    Value pad = arith::RemUIOp::create(
        b, loc,
        arith::SubIOp::create(b, loc, cst(16),
                              arith::RemUIOp::create(b, loc, addr, cst(16))),
        cst(16));
    smemA = memref::ViewOp::create(b, loc, smemTy, base, pad, ValueRange{});
    smemB = memref::ViewOp::create(b, loc, smemTy, base,
                                   arith::AddIOp::create(b, loc, pad,
                                                         cst(slotBytes)),
                                   ValueRange{});
    if (barBytes > 0)
      bars = memref::ViewOp::create(
          b, loc,
          MemRefType::get({barBytes / 8}, b.getI64Type(),
                          MemRefLayoutAttrInterface(), wg),
          base, arith::AddIOp::create(b, loc, pad, cst(2 * slotBytes)),
          ValueRange{});
    smemRow = memref::ViewOp::create(
        b, loc,
        MemRefType::get({elems}, elt, MemRefLayoutAttrInterface(), wg), base,
        arith::AddIOp::create(b, loc, pad,
                              cst(2 * slotBytes + barSlotBytes)),
        ValueRange{});
  }
  if (cfg.threadsPerRow > 32 && cfg.smemRowBytes == 0) {
    smemA = launch.getWorkgroupAttributions()[0];
    smemB = launch.getWorkgroupAttributions()[1];
  }
  Value tid = launch.getThreadIds().x;
  Value bid = launch.getBlockIds().x;
  lane = arith::RemUIOp::create(b, loc, tid, cst(cfg.threadsPerRow));
  Value rowInBlock =
      arith::DivUIOp::create(b, loc, tid, cst(cfg.threadsPerRow));
  if (cfg.threadsPerRow > 32) {
    warp = arith::DivUIOp::create(b, loc, tid, cst(32));
    laneInWarp = arith::RemUIOp::create(b, loc, tid, cst(32));
  }
  numVec = cfg.vectorWidth == 1
               ? cols
               : arith::DivUIOp::create(b, loc, cols, cst(cfg.vectorWidth))
                     .getResult();
  negInf = fcst(-std::numeric_limits<float>::infinity());
  zero = fcst(0.0f);
  Value last = arith::SubIOp::create(b, loc, rows, cst(1));

  // The row of this thread in the row group starting at `base`. A
  // CTA-per-row kernel has one row per CTA and the grid covers exactly R
  // rows. With several rows per CTA (or a persistent grid) threads may run
  // past R: they compute on row R-1 (so that every lane of a warp takes
  // part in the shuffles) and store nothing.
  auto setRow = [&](Value base) {
    row = arith::AddIOp::create(b, loc, base, rowInBlock);
    if (rowsPerBlock > 1 || gridStride) {
      rowValid =
          arith::CmpIOp::create(b, loc, arith::CmpIPredicate::ult, row, rows);
      row = arith::MinUIOp::create(b, loc, row, last);
    }
  };
  Value firstRow = arith::MulIOp::create(b, loc, bid, cst(rowsPerBlock));
  if (cfg.bulkChunkBytes > 0) {
    bulkRows(tid, bid, launch.getGridSize().x);
  } else if (!gridStride) {
    setRow(firstRow);
    body();
  } else {
    // A persistent grid: CTA `bid` takes row groups bid, bid + grid, ...
    // The loop bounds are uniform over the CTA, so every lane of a warp
    // takes part in each iteration's shuffles.
    Value stride = arith::MulIOp::create(b, loc, grid, cst(rowsPerBlock));
    if (cfg.cached > 0 && !cfg.peel && cfg.prefetch) {
      // Software pipelined: the loads of the next row group are issued
      // before the current one is reduced, so that every warp keeps a
      // row group of loads in flight.
      setRow(firstRow);
      SmallVector<Value> xs0 = cachedLoad();
      auto loop = scf::ForOp::create(b, loc, firstRow, rows, stride, xs0);
      b.setInsertionPointToStart(loop.getBody());
      Value base = loop.getInductionVar();
      setRow(arith::AddIOp::create(b, loc, base, stride));
      SmallVector<Value> next = cachedLoad();
      setRow(base);
      cachedCompute(loop.getRegionIterArgs());
      scf::YieldOp::create(b, loc, next);
    } else {
      auto loop = scf::ForOp::create(b, loc, firstRow, rows, stride);
      b.setInsertionPointToStart(loop.getBody());
      setRow(loop.getInductionVar());
      body();
      // The next iteration reuses the shared-memory reduction slots.
      if (cfg.threadsPerRow > 32)
        gpu::BarrierOp::create(b, loc);
    }
  }
  b.setInsertionPointToEnd(&launch.getBody().front());
  gpu::TerminatorOp::create(b, loc);
}

void mlir::tx::buildSoftmaxKernel(OpBuilder &b, Location loc, Value in,
                                  Value out, Value rows, Value cols,
                                  int64_t staticCols, Type elt,
                                  const KernelConfig &cfg) {
  SoftmaxKernelBuilder(b, loc, in, out, rows, cols, staticCols, elt, cfg)
      .build();
}
