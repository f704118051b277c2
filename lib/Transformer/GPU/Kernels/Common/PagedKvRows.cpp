//===- PagedKvRows.cpp - a paged KV cache's rows, as kernels read them ----===//
//
// See PagedKvRows.h.
//
//===----------------------------------------------------------------------===//
#include "GPU/Kernels/Common/PagedKvRows.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Bufferization/IR/Bufferization.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"

using namespace mlir;
using namespace mlir::tx;
using namespace mlir::tx::kernel;

PagedKvRows PagedKvRows::build(OpBuilder &b, Location loc, Value keyPool,
                               Value valuePool, Value table,
                               int64_t tileKeys) {
  PagedKvRows r;
  auto tTy = cast<RankedTensorType>(table.getType());
  r.table = bufferization::ToBufferOp::create(
      b, loc, MemRefType::get(tTy.getShape(), tTy.getElementType()), table,
      /*read_only=*/true);
  auto kTy = cast<MemRefType>(keyPool.getType());
  int64_t ps = kTy.getDimSize(1);
  r.pageSize = ShapedType::isDynamic(ps)
                   ? memref::DimOp::create(b, loc, keyPool, 1).getResult()
                   : arith::ConstantIndexOp::create(b, loc, ps).getResult();
  r.numPages = arith::MinUIOp::create(
      b, loc, memref::DimOp::create(b, loc, keyPool, 0),
      memref::DimOp::create(b, loc, valuePool, 0));
  // Tiles start at multiples of tileKeys; a static page size that is a
  // multiple of it (both powers of two) holds whole tiles.
  r.tileInOnePage = !ShapedType::isDynamic(ps) && ps % tileKeys == 0;
  r.staticPageSize = ShapedType::isDynamic(ps) ? 0 : ps;
  return r;
}

Value PagedKvRows::pageId(OpBuilder &b, Location loc, Value batch,
                          Value page) const {
  Value id = memref::LoadOp::create(b, loc, table, ValueRange{batch, page});
  return arith::IndexCastOp::create(b, loc, b.getIndexType(), id);
}

Value PagedKvRows::tilePage(OpBuilder &b, Location loc, Value batch,
                            Value j0) const {
  if (!tileInOnePage)
    return Value();
  return pageId(b, loc, batch, arith::DivUIOp::create(b, loc, j0, pageSize));
}

SmallVector<Value> PagedKvRows::index(OpBuilder &b, Location loc,
                                      Value batch, Value kh, Value tilePage,
                                      Value j0, Value j, Value col,
                                      Value &ok) const {
  Value id = tilePage, row;
  if (id) {
    // The tile's rows are consecutive rows of its page.
    row = arith::AddIOp::create(
        b, loc, arith::RemUIOp::create(b, loc, j0, pageSize),
        arith::SubIOp::create(b, loc, j, j0));
  } else {
    id = pageId(b, loc, batch, arith::DivUIOp::create(b, loc, j, pageSize));
    row = arith::RemUIOp::create(b, loc, j, pageSize);
  }
  return {checked(b, loc, id, ok), row, kh, col};
}

Value PagedKvRows::checked(OpBuilder &b, Location loc, Value id,
                           Value &ok) const {
  using P = arith::CmpIPredicate;
  Value zero = arith::ConstantIndexOp::create(b, loc, 0);
  Value valid = arith::AndIOp::create(
      b, loc, arith::CmpIOp::create(b, loc, P::sge, id, zero),
      arith::CmpIOp::create(b, loc, P::slt, id, numPages));
  ok = arith::AndIOp::create(b, loc, ok, valid);
  return arith::SelectOp::create(b, loc, valid, id, zero);
}

SmallVector<SmallVector<Value>>
PagedKvRows::stridedIndex(OpBuilder &b, Location loc, Value batch, Value kh,
                          Value row0, Value r0, int64_t step, Value col,
                          Value lastRow, MutableArrayRef<Value> ok) const {
  const int64_t ps = staticPageSize;
  auto cst = [&](int64_t v) {
    return arith::ConstantIndexOp::create(b, loc, v).getResult();
  };
  auto add = [&](Value x, Value y) {
    return arith::AddIOp::create(b, loc, x, y).getResult();
  };
  // Row row0 + r0 + i * step (row0 % ps == 0, r0 < step): with step >= ps
  // its page is row0 / ps + r0 / ps + i * step / ps and its row r0 % ps;
  // with step < ps, page row0 / ps + (i * step) / ps and row
  // (i * step) % ps + r0 (r0 + i * step stays below the next multiple of
  // step, so of ps).
  Value base = arith::DivUIOp::create(b, loc, row0, cst(ps));
  Value rowIn = r0;
  if (step >= ps) {
    base = add(base, arith::DivUIOp::create(b, loc, r0, cst(ps)));
    rowIn = arith::RemUIOp::create(b, loc, r0, cst(ps));
  }
  Value lastPage = arith::DivUIOp::create(b, loc, lastRow, cst(ps));
  llvm::DenseMap<int64_t, std::pair<Value, Value>> idOf; // page offset
  SmallVector<SmallVector<Value>> out;
  for (size_t i = 0; i < ok.size(); ++i) {
    int64_t off = int64_t(i) * step / ps;
    auto [it, fresh] = idOf.try_emplace(off);
    if (fresh) {
      Value valid = arith::ConstantIntOp::create(b, loc, b.getI1Type(), 1);
      Value page = arith::MinUIOp::create(b, loc, add(base, cst(off)),
                                          lastPage);
      Value id = checked(b, loc, pageId(b, loc, batch, page), valid);
      it->second = {id, valid};
    }
    ok[i] = arith::AndIOp::create(b, loc, ok[i], it->second.second);
    Value row =
        step >= ps ? rowIn : add(rowIn, cst(int64_t(i) * step % ps));
    out.push_back({it->second.first, row, kh, col});
  }
  return out;
}
