//===- PagedKv.cpp - tx.attention's paged K/V: types and verifier ---------===//
//
// A tx.attention with `page_table` reads K and V from page pools
// [num_pages, page_size, Hkv, D] (TxOps.td, "Paged KV cache"). Here: the
// contiguous type they stand for, and the rules of the pools and the table;
// AttentionOp::verify then checks every other rule on the contiguous types.
//
//===----------------------------------------------------------------------===//
#include "IR/VerifyHelpers.h"
#include "Transformer/TxOps.h"

#include "llvm/Support/MathExtras.h"

using namespace mlir;
using namespace mlir::tx;

RankedTensorType AttentionOp::getLogicalKvType(RankedTensorType t) {
  Value table = getPageTable();
  if (!table || t.getRank() != 4)
    return t;
  auto pt = cast<RankedTensorType>(table.getType()).getShape();
  int64_t b = pt.empty() ? ShapedType::kDynamic : pt[0];
  if (ShapedType::isDynamic(b))
    b = getQuery().getType().getDimSize(0);
  int64_t pages = pt.size() < 2 ? ShapedType::kDynamic : pt[1];
  int64_t pageSize = t.getDimSize(1);
  int64_t sk = ShapedType::isDynamic(pages) || ShapedType::isDynamic(pageSize)
                   ? ShapedType::kDynamic
                   : pages * pageSize;
  return RankedTensorType::get({b, t.getDimSize(2), sk, t.getDimSize(3)},
                               t.getElementType());
}

LogicalResult mlir::tx::verifyPagedKv(Operation *op, RankedTensorType qTy,
                                      RankedTensorType kTy,
                                      RankedTensorType vTy, Value pageTable) {
  if (failed(verifyRanks(
          op, {{kTy, 4, "key", "[num_pages, page_size, Hkv, D] (a page pool)"},
               {vTy, 4, "value",
                "[num_pages, page_size, Hkv, Dv] (a page pool)"}})))
    return failure();
  auto ptTy = cast<RankedTensorType>(pageTable.getType());
  int64_t b = qTy.getRank() > 0 ? qTy.getDimSize(0) : ShapedType::kDynamic;
  if (ptTy.getRank() != 2 || !compatible(ptTy.getDimSize(0), b))
    return op->emitOpError()
           << "page_table must have shape [B, max_pages] = ["
           << dimStr(b) << ", max_pages] (one row of page ids per batch), got "
           << ptTy;
  auto k = kTy.getShape(), v = vTy.getShape();
  if (!compatible(k[0], v[0]))
    return op->emitOpError() << "number of pages (num_pages) of the key pool ("
                             << dimStr(k[0]) << ") and the value pool ("
                             << dimStr(v[0]) << ") must match";
  if (!compatible(k[1], v[1]))
    return op->emitOpError() << "page size of the key pool (" << dimStr(k[1])
                             << ") and the value pool (" << dimStr(v[1])
                             << ") must match";
  int64_t pageSize = ShapedType::isDynamic(k[1]) ? v[1] : k[1];
  if (!ShapedType::isDynamic(pageSize) &&
      (pageSize < 1 || pageSize > 256 || !llvm::isPowerOf2_64(pageSize)))
    return op->emitOpError()
           << "page size (dimension 1 of the key and value pools) must be a "
              "power of two from 1 to 256, got "
           << pageSize;
  return success();
}
