//===- TxAttrs.cpp - tx attributes: GPU strategies ------------------------===//
//
// The verifiers of the typed strategies (every range check that does not
// depend on the problem; the rest is checked where a strategy is used), the
// tile sizes they give target-independent tiling, and the dialect's check
// that `tx.gpu_strategy` is one of them.
//
//===----------------------------------------------------------------------===//
#include "Transformer/TxAttrs.h"
#include "Transformer/TxDialect.h"

#include "mlir/IR/Builders.h"
#include "llvm/ADT/TypeSwitch.h"
#include "llvm/Support/MathExtras.h"

using namespace mlir;
using namespace mlir::tx;

#include "Transformer/TxAttrInterfaces.cpp.inc"
#define GET_ATTRDEF_CLASSES
#include "Transformer/TxAttrs.cpp.inc"

void TxDialect::registerAttributes() {
  addAttributes<
#define GET_ATTRDEF_LIST
#include "Transformer/TxAttrs.cpp.inc"
      >();
}

using EmitError = llvm::function_ref<InFlightDiagnostic()>;

/// `name` in [lo, hi], else an error that gives the range and the value.
static LogicalResult inRange(EmitError emitError, StringRef name, int64_t v,
                             int64_t lo, int64_t hi) {
  if (v >= lo && v <= hi)
    return success();
  return emitError() << "'" << name << "' must be in [" << lo << ", " << hi
                     << "], got " << v;
}

/// The key tile of the prefill families: a multiple of 32 in [32, 256].
static LogicalResult checkKvTile(EmitError emitError, int64_t kvTile) {
  if (kvTile >= 32 && kvTile <= 256 && kvTile % 32 == 0)
    return success();
  return emitError() << "'kv_tile' must be a multiple of 32 in [32, 256], got "
                     << kvTile;
}

//===----------------------------------------------------------------------===//
// Attention strategies
//===----------------------------------------------------------------------===//

LogicalResult SimtStrategyAttr::verify(EmitError emitError, int64_t warps,
                                       int64_t qTile, int64_t kvTile) {
  if (failed(inRange(emitError, "warps", warps, 1, 32)) ||
      failed(inRange(emitError, "q_tile", qTile, 1, 4096)) ||
      failed(checkKvTile(emitError, kvTile)))
    return failure();
  if (qTile % warps != 0 || qTile / warps > 16)
    return emitError() << "'q_tile' must be a multiple of 'warps', at most 16 "
                          "rows each, got q_tile = "
                       << qTile << ", warps = " << warps;
  return success();
}

/// The split-KV parameters of the prefill tensor-core strategies.
static LogicalResult checkPrefillSplits(EmitError emitError, int64_t kvSplits,
                                        int64_t numSms) {
  if (failed(inRange(emitError, "kv_splits", kvSplits, 0, 65536)) ||
      failed(inRange(emitError, "num_sms", numSms, 0, 4096)))
    return failure();
  if (kvSplits == 0 && numSms == 0)
    return emitError() << "'kv_splits' = 0 (chosen at run time) needs "
                          "'num_sms' >= 1";
  return success();
}

LogicalResult MmaStrategyAttr::verify(EmitError emitError, int64_t warps,
                                      int64_t qTile, int64_t kvTile,
                                      int64_t mTiles, int64_t kvSplits,
                                      int64_t numSms) {
  if (failed(inRange(emitError, "warps", warps, 1, 32)) ||
      failed(checkKvTile(emitError, kvTile)) ||
      failed(checkPrefillSplits(emitError, kvSplits, numSms)))
    return failure();
  if (mTiles != 1 && mTiles != 2)
    return emitError() << "'m_tiles' must be 1 or 2, got " << mTiles;
  if (qTile != 16 * mTiles * warps)
    return emitError() << "'q_tile' must be 16 * m_tiles * warps = "
                       << 16 * mTiles * warps << ", got " << qTile;
  return success();
}

LogicalResult WgmmaStrategyAttr::verify(EmitError emitError, int64_t warps,
                                        int64_t qTile, int64_t kvTile,
                                        int64_t stages,
                                        int64_t producerWarps,
                                        int64_t kvSplits, int64_t numSms) {
  if (failed(inRange(emitError, "warps", warps, 1, 32)) ||
      failed(checkPrefillSplits(emitError, kvSplits, numSms)))
    return failure();
  if (warps % 4 != 0)
    return emitError() << "'warps' must be a multiple of 4 (whole "
                          "warpgroups), got "
                       << warps;
  if (qTile != 16 * warps)
    return emitError() << "'q_tile' must be 16 * warps = " << 16 * warps
                       << ", got " << qTile;
  if (failed(checkKvTile(emitError, kvTile)) ||
      failed(inRange(emitError, "stages", stages, 2, 4)))
    return failure();
  if (producerWarps != 0 && producerWarps != 4)
    return emitError() << "'producer_warps' must be 0 or 4, got "
                       << producerWarps;
  return success();
}

LogicalResult DecodeStrategyAttr::verify(EmitError emitError, int64_t warps,
                                         int64_t kvSplits, int64_t numSms,
                                         int64_t stages, int64_t tileKeys,
                                         bool tensorCores, int64_t cluster,
                                         bool clusterShortOnly,
                                         bool mergeKernel) {
  if (failed(inRange(emitError, "warps", warps, 1, 32)) ||
      failed(inRange(emitError, "kv_splits", kvSplits, 0, 65536)) ||
      failed(inRange(emitError, "num_sms", numSms, 1, 4096)) ||
      failed(inRange(emitError, "stages", stages, 2, 4)) ||
      failed(inRange(emitError, "cluster", cluster, 0, 16)))
    return failure();
  if (tileKeys != 16 && tileKeys != 32)
    return emitError() << "'tile_keys' must be 16 or 32, got " << tileKeys;
  if (cluster > 0 && kvSplits > cluster)
    return emitError() << "'kv_splits' = " << kvSplits
                       << " is more than 'cluster' = " << cluster;
  if (clusterShortOnly && cluster == 0)
    return emitError() << "'cluster_short_only' needs 'cluster' > 0";
  return success();
}

int64_t SimtStrategyAttr::getQueryTileRows() const { return getQTile(); }
int64_t SimtStrategyAttr::getKeyTileSize() const { return getKvTile(); }
bool SimtStrategyAttr::packsQueryHeads() const { return false; }
int64_t MmaStrategyAttr::getQueryTileRows() const { return getQTile(); }
int64_t MmaStrategyAttr::getKeyTileSize() const { return getKvTile(); }
bool MmaStrategyAttr::packsQueryHeads() const { return false; }
int64_t WgmmaStrategyAttr::getQueryTileRows() const { return getQTile(); }
int64_t WgmmaStrategyAttr::getKeyTileSize() const { return getKvTile(); }
bool WgmmaStrategyAttr::packsQueryHeads() const { return false; }
int64_t DecodeStrategyAttr::getQueryTileRows() const { return 0; }
int64_t DecodeStrategyAttr::getKeyTileSize() const { return getTileKeys(); }
bool DecodeStrategyAttr::packsQueryHeads() const { return true; }

//===----------------------------------------------------------------------===//
// Softmax strategy
//===----------------------------------------------------------------------===//

LogicalResult SoftmaxKernelAttr::verify(
    EmitError emitError, int64_t vectorWidth, int64_t threadsPerRow,
    int64_t blockSize, int64_t cached, bool peel, int64_t gridCtas,
    bool prefetch, int64_t unroll, int64_t smemRowBytes,
    int64_t bulkChunkBytes, int64_t bulkSlots) {
  if (vectorWidth < 1 || vectorWidth > 16 || !llvm::isPowerOf2_64(vectorWidth))
    return emitError() << "'vector_width' must be a power of two in [1, 16] "
                          "(elements, at most 16 bytes), got "
                       << vectorWidth;
  if (blockSize < 32 || blockSize > 1024 || !llvm::isPowerOf2_64(blockSize))
    return emitError() << "'block_size' must be a power of two in [32, 1024], "
                          "got "
                       << blockSize;
  if (!(threadsPerRow == blockSize ||
        (threadsPerRow >= 2 && threadsPerRow <= 32 &&
         llvm::isPowerOf2_64(threadsPerRow))))
    return emitError() << "'threads_per_row' must be a power of two in "
                          "[2, 32] or block_size, got "
                       << threadsPerRow;
  if (failed(inRange(emitError, "cached", cached, 0, 64)) ||
      failed(inRange(emitError, "unroll", unroll, 1, 16)) ||
      failed(inRange(emitError, "grid_ctas", gridCtas, 0,
                     (int64_t(1) << 31) - 1)) ||
      failed(inRange(emitError, "smem_row_bytes", smemRowBytes, 0,
                     (int64_t(1) << 31) - 1)) ||
      failed(inRange(emitError, "bulk_chunk_bytes", bulkChunkBytes, 0,
                     int64_t(1) << 20)) ||
      failed(inRange(emitError, "bulk_slots", bulkSlots, 0, 4096)))
    return failure();
  return success();
}

LogicalResult SoftmaxStrategyAttr::verify(EmitError emitError,
                                          int64_t rowsPerCta,
                                          SoftmaxKernelAttr scalar,
                                          SoftmaxKernelAttr vector) {
  if (!scalar)
    return emitError() << "'scalar' (a #tx.softmax_kernel) is missing";
  if (scalar.getVectorWidth() != 1)
    return emitError() << "'scalar.vector_width' must be 1, got "
                       << scalar.getVectorWidth();
  if (vector && vector.getVectorWidth() < 2)
    return emitError() << "'vector.vector_width' must be at least 2, got "
                       << vector.getVectorWidth();
  SoftmaxKernelAttr k = vector ? vector : scalar;
  int64_t rows = k.getBlockSize() / k.getThreadsPerRow();
  if (rowsPerCta != rows)
    return emitError() << "'rows_per_cta' must be " << rows
                       << " (block_size / threads_per_row of the "
                       << (vector ? "vector" : "scalar") << " kernel), got "
                       << rowsPerCta;
  return success();
}

int64_t SoftmaxStrategyAttr::getRowsPerTile() const { return getRowsPerCta(); }

//===----------------------------------------------------------------------===//
// `tx.gpu_strategy` on any op
//===----------------------------------------------------------------------===//

LogicalResult TxDialect::verifyOperationAttribute(Operation *op,
                                                  NamedAttribute attr) {
  if (attr.getName() != kGpuStrategyAttr)
    return success(); // tx's other discardable attributes
  Attribute a = attr.getValue();
  if (isa<AttentionTilingAttr, SoftmaxStrategyAttr>(a))
    return success();
  InFlightDiagnostic diag =
      op->emitError() << "'" << kGpuStrategyAttr
                      << "' must be a strategy attribute "
                         "(#tx.simt_strategy, #tx.mma_strategy, "
                         "#tx.wgmma_strategy, #tx.decode_strategy or "
                         "#tx.softmax_strategy), got "
                      << a;
  if (isa<DictionaryAttr>(a))
    diag << " (the dictionary form {family = \"...\", ...} was replaced by "
            "these attributes: docs/TxAttrs.md)";
  return diag;
}
