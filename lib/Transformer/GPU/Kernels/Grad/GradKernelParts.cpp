//===- GradKernelParts.cpp - pieces of the backward's kernels -------------===//
//
// See GradKernelParts.h.
//
//===----------------------------------------------------------------------===//
#include "GPU/Kernels/Grad/GradKernelParts.h"
#include "GPU/Kernels/Common/MmaFragments.h"
#include "GPU/Kernels/Common/WgmmaOps.h"
#include "Transformer/Passes.h"

#include "mlir/Dialect/Bufferization/IR/Bufferization.h"
#include "mlir/Dialect/Math/IR/Math.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/NVGPU/IR/NVGPUDialect.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/Vector/IR/VectorOps.h"
#include <limits>

using namespace mlir;
using namespace mlir::tx;

Value GradKernelParts::fcst(double v) {
  return arith::ConstantFloatOp::create(b, loc, cast<FloatType>(f32),
                                        APFloat(static_cast<float>(v)));
}

Value GradKernelParts::divui(Value x, int64_t y) {
  return arith::DivUIOp::create(b, loc, x, cst(y));
}

Value GradKernelParts::remui(Value x, int64_t y) {
  return arith::RemUIOp::create(b, loc, x, cst(y));
}

Value GradKernelParts::cmpi(arith::CmpIPredicate p, Value x, Value y) {
  return arith::CmpIOp::create(b, loc, p, x, y);
}

Value GradKernelParts::select(Value c, Value x, Value y) {
  return arith::SelectOp::create(b, loc, c, x, y);
}

Value GradKernelParts::ceilDiv(Value x, int64_t y) {
  return arith::CeilDivUIOp::create(b, loc, x, cst(y));
}

Value GradKernelParts::toBuffer(Value t) {
  auto ty = cast<RankedTensorType>(t.getType());
  return bufferization::ToBufferOp::create(
      b, loc, MemRefType::get(ty.getShape(), ty.getElementType()), t,
      /*read_only=*/true);
}

Value GradKernelParts::dim(Value buf, int64_t i) {
  return memref::DimOp::create(b, loc, buf, i);
}

Value GradKernelParts::allocResult(RankedTensorType ty,
                                   ArrayRef<Value> sizes) {
  SmallVector<Value> dyn;
  for (int64_t i = 0; i < ty.getRank(); ++i)
    if (ty.isDynamicDim(i))
      dyn.push_back(sizes[i]);
  return memref::AllocOp::create(b, loc, MemRefType::get(ty.getShape(), f32),
                                 dyn);
}

Value GradKernelParts::toTensor(Value buf, RankedTensorType ty) {
  return bufferization::ToTensorOp::create(b, loc, ty, buf, /*restrict=*/true,
                                           /*writable=*/true);
}

Value GradKernelParts::enterLaunch(Value blocks, int64_t warps,
                                   int64_t smemBytes, StringRef chip) {
  Value one = cst(1);
  Value bytes = arith::ConstantIntOp::create(b, loc, b.getI32Type(), smemBytes);
  auto launch = gpu::LaunchOp::create(b, loc, blocks, one, one,
                                      cst(warps * 32), one, one, bytes);
  // mma.sync and cp.async exist from sm_80, wgmma on sm_90a
  // (tx-check-gpu-target).
  launch->setAttr(kRequiredChipAttr, b.getStringAttr(chip));
  b.setInsertionPointToStart(&launch.getBody().front());
  gpu::TerminatorOp::create(b, loc);
  b.setInsertionPointToStart(&launch.getBody().front());
  tid = launch.getThreadIds().x;
  lane = remui(tid, 32);
  warp = divui(tid, 32);
  g = divui(lane, 4);
  t4 = remui(lane, 4);
  auto wg = gpu::AddressSpaceAttr::get(b.getContext(),
                                       gpu::AddressSpace::Workgroup);
  smem = gpu::DynamicSharedMemoryOp::create(
      b, loc,
      MemRefType::get({ShapedType::kDynamic}, b.getI8Type(),
                      MemRefLayoutAttrInterface(), wg));
  return launch.getBlockIds().x;
}

Value GradKernelParts::tileView(Value byteOffset, int64_t rows) {
  auto wg = gpu::AddressSpaceAttr::get(b.getContext(),
                                       gpu::AddressSpace::Workgroup);
  auto ty = MemRefType::get({rows, pitch}, elt, MemRefLayoutAttrInterface(), wg);
  return memref::ViewOp::create(b, loc, ty, smem, byteOffset, ValueRange{});
}

Value GradKernelParts::floatView(Value byteOffset, int64_t n) {
  auto wg = gpu::AddressSpaceAttr::get(b.getContext(),
                                       gpu::AddressSpace::Workgroup);
  auto ty = MemRefType::get({n}, f32, MemRefLayoutAttrInterface(), wg);
  return memref::ViewOp::create(b, loc, ty, smem, byteOffset, ValueRange{});
}

void GradKernelParts::copyTile(Value buf, Value i0, Value i1, Value row0,
                               Value rowLimit, int64_t rows, Value view,
                               int64_t threads) {
  const int64_t perCopy = 8; // 16 bytes of f16 / bf16
  const int64_t chunksPerRow = D / perCopy;
  auto tokTy = nvgpu::DeviceAsyncTokenType::get(b.getContext());
  Value lastRow = maxsi(sub(rowLimit, cst(1)), cst(0));
  scf::ForOp::create(
      b, loc, tid, cst(rows * chunksPerRow), cst(threads), ValueRange{},
      [&](OpBuilder &, Location, Value c, ValueRange) {
        Value r = divui(c, chunksPerRow);
        Value col = mul(remui(c, chunksPerRow), perCopy);
        Value gRow = add(row0, r);
        Value ok = cmpi(arith::CmpIPredicate::slt, gRow, rowLimit);
        Value n = select(ok, cst(perCopy), cst(0));
        nvgpu::DeviceAsyncCopyOp::create(
            b, loc, tokTy, view, ValueRange{r, col}, buf,
            ValueRange{i0, i1, minsi(gRow, lastRow), col},
            b.getIndexAttr(perCopy), n, b.getUnitAttr());
        scf::YieldOp::create(b, loc);
      });
}

void GradKernelParts::waitCopies() {
  commitAndWait(0);
  barrier();
}

void GradKernelParts::commitAndWait(int64_t pending) {
  auto tokTy = nvgpu::DeviceAsyncTokenType::get(b.getContext());
  Value tok = nvgpu::DeviceAsyncCreateGroupOp::create(b, loc, tokTy,
                                                      ValueRange{});
  nvgpu::DeviceAsyncWaitOp::create(b, loc, tok,
                                   b.getI32IntegerAttr(pending));
}

void GradKernelParts::commit() {
  auto tokTy = nvgpu::DeviceAsyncTokenType::get(b.getContext());
  nvgpu::DeviceAsyncCreateGroupOp::create(b, loc, tokTy, ValueRange{});
}

void GradKernelParts::barrier() { gpu::BarrierOp::create(b, loc); }

std::pair<Value, Value> GradKernelParts::rowStats(Value lse, Value delta,
                                                  Value bi, Value h, Value i,
                                                  Value Sq) {
  Value ok = cmpi(arith::CmpIPredicate::slt, i, Sq);
  Value idx = minsi(i, maxsi(sub(Sq, cst(1)), cst(0)));
  Value l = memref::LoadOp::create(b, loc, lse, ValueRange{bi, h, idx});
  Value d = memref::LoadOp::create(b, loc, delta, ValueRange{bi, h, idx});
  Value inf = fcst(std::numeric_limits<double>::infinity());
  Value live = arith::AndIOp::create(
      b, loc, ok,
      arith::CmpFOp::create(b, loc, arith::CmpFPredicate::ONE, l,
                            arith::NegFOp::create(b, loc, inf)));
  Value lL2 = arith::MulFOp::create(b, loc, l, fcst(kGradLog2e));
  return {select(live, lL2, inf), select(ok, d, fcst(0.0))};
}

SmallVector<Value> GradKernelParts::productABt(Value aView, Value aRow0,
                                               Value bView, int64_t n) {
  VectorType accTy = mma::fragmentType(2, 2, f32);
  Value zero = arith::ConstantOp::create(
      b, loc, accTy, DenseElementsAttr::get(accTy, b.getZeroAttr(f32)));
  SmallVector<Value> acc(n, zero);
  Value aRow = add(aRow0, remui(lane, 16));
  Value aCol = mul(divui(lane, 16), 8);
  Value bRow = remui(lane, 8);
  Value bCol = mul(divui(lane, 8), 8);
  // Two k16 chunks per step: A from two ldmatrix x4, B from one x4 per
  // n8 tile (matrices 0, 1: chunk kk; 2, 3: chunk kk + 1).
  for (int64_t kk = 0; kk < D / 16; kk += 2) {
    Value a0 = mma::ldmatrix(b, loc, aView, {aRow, add(aCol, kk * 16)},
                             /*trans=*/false, 4, elt);
    Value a1 = mma::ldmatrix(b, loc, aView, {aRow, add(aCol, kk * 16 + 16)},
                             /*trans=*/false, 4, elt);
    for (int64_t nt = 0; nt < n; ++nt) {
      auto [b0, b1] = mma::splitX4(
          b, loc,
          mma::ldmatrix(b, loc, bView, {add(bRow, nt * 8), add(bCol, kk * 16)},
                        /*trans=*/false, 4, elt),
          elt);
      acc[nt] = mma::mmaSync(b, loc, a0, b0, acc[nt], elt);
      acc[nt] = mma::mmaSync(b, loc, a1, b1, acc[nt], elt);
    }
  }
  SmallVector<Value> out;
  for (int64_t nt = 0; nt < n; ++nt)
    for (int64_t e = 0; e < 4; ++e)
      out.push_back(vector::ExtractOp::create(
          b, loc, acc[nt], ArrayRef<int64_t>{e / 2, e % 2}));
  return out;
}

void GradKernelParts::accumulateAB(ArrayRef<Value> a, Value bView, int64_t k,
                                   SmallVector<Value> &acc) {
  Value bRow = remui(lane, 16);
  Value bCol = mul(divui(lane, 16), 8);
  for (int64_t kc = 0; kc < k / 16; ++kc) {
    Value frag = mma::pack(b, loc, a.slice(kc * 8, 8), elt);
    for (int64_t dt = 0; dt < D / 8; dt += 2) {
      auto [b0, b1] = mma::splitX4(
          b, loc,
          mma::ldmatrix(b, loc, bView, {add(bRow, kc * 16), add(bCol, dt * 8)},
                        /*trans=*/true, 4, elt),
          elt);
      acc[dt] = mma::mmaSync(b, loc, frag, b0, acc[dt], elt);
      acc[dt + 1] = mma::mmaSync(b, loc, frag, b1, acc[dt + 1], elt);
    }
  }
}

SmallVector<Value> GradKernelParts::probabilitiesAndDs(
    SmallVector<Value> &s, ArrayRef<Value> dp, double scale,
    llvm::function_ref<std::pair<Value, Value>(int64_t, int64_t)> stats,
    llvm::function_ref<Value(int64_t, int64_t)> visible) {
  Value scaleL2 = fcst(scale * kGradLog2e), zero = fcst(0.0);
  SmallVector<Value> ds(s.size());
  for (int64_t i = 0, n = s.size(); i < n; ++i) {
    auto [lL2, delta] = stats(i / 4, i % 4);
    Value p = mma::fastExp2(
        b, loc,
        math::FmaOp::create(b, loc, s[i], scaleL2,
                            arith::NegFOp::create(b, loc, lL2)));
    if (visible)
      p = select(visible(i / 4, i % 4), p, zero);
    s[i] = p;
    ds[i] = arith::MulFOp::create(b, loc, p,
                                  arith::SubFOp::create(b, loc, dp[i], delta));
  }
  return ds;
}

SmallVector<Value> GradKernelParts::zeroAccumulators() {
  VectorType accTy = mma::fragmentType(2, 2, f32);
  Value zero = arith::ConstantOp::create(
      b, loc, accTy, DenseElementsAttr::get(accTy, b.getZeroAttr(f32)));
  return SmallVector<Value>(D / 8, zero);
}

void GradKernelParts::storeRows(ArrayRef<Value> acc, double factor, Value out,
                                Value i0, Value i1, Value row0,
                                Value rowLimit) {
  Value f = factor == 1.0 ? Value() : fcst(factor);
  VectorType pair = VectorType::get({2}, f32);
  for (int64_t hh = 0; hh < 2; ++hh) {
    Value row = add(add(row0, g), 8 * hh);
    auto ifOp = scf::IfOp::create(
        b, loc, cmpi(arith::CmpIPredicate::slt, row, rowLimit), false);
    OpBuilder::InsertionGuard guard(b);
    b.setInsertionPointToStart(ifOp.thenBlock());
    for (int64_t dt = 0; dt < D / 8; ++dt) {
      Value v = vector::ExtractOp::create(b, loc, acc[dt],
                                          ArrayRef<int64_t>{hh});
      if (f)
        v = arith::MulFOp::create(
            b, loc, v, vector::BroadcastOp::create(b, loc, pair, f));
      vector::StoreOp::create(b, loc, v, out,
                              ValueRange{i0, i1, row, add(mul(t4, 2), dt * 8)});
    }
  }
}

SmallVector<Value> GradKernelParts::queryTileLoop(
    const QueryTileLoop &l, llvm::function_ref<SmallVector<Value>()> init,
    llvm::function_ref<void(Value, Value, Value)> issue,
    llvm::function_ref<SmallVector<Value>(Value, Value, Value, ValueRange)>
        step) {
  Value qtBegin = cst(0);
  if (l.causal)
    qtBegin = divui(maxsi(sub(l.n0, l.shift), cst(0)), l.rows);
  Value nQ = maxsi(sub(ceilDiv(l.Sq, l.rows), qtBegin), cst(0));
  Value total = mul(l.G, nQ);
  Value divisor = maxsi(nQ, cst(1));
  auto tileOf = [&](Value it) -> std::pair<Value, Value> {
    Value gh = arith::DivUIOp::create(b, loc, it, divisor);
    Value qt = add(qtBegin, arith::RemUIOp::create(b, loc, it, divisor));
    return {add(mul(l.kh, l.G), gh), mul(qt, l.rows)};
  };
  auto issueStep = [&](Value it) {
    auto ifOp = scf::IfOp::create(
        b, loc, cmpi(arith::CmpIPredicate::slt, it, total), false);
    OpBuilder::InsertionGuard guard(b);
    b.setInsertionPointToStart(ifOp.thenBlock());
    auto [h, m0] = tileOf(it);
    issue(remui(it, 2), h, m0);
  };
  issueStep(cst(0));
  commit(); // the caller's copies and the first query tile: step 0's group
  auto loop = scf::ForOp::create(
      b, loc, cst(0), total, cst(1), init(),
      [&](OpBuilder &, Location, Value it, ValueRange acc) {
        barrier(); // step it - 1 has read the stage it + 1 fills
        issueStep(add(it, 1));
        commitAndWait(1); // step it's group has landed
        if (l.fenceAsync)
          wgmma::fenceProxyAsync(b, loc);
        barrier();
        auto [h, m0] = tileOf(it);
        scf::YieldOp::create(b, loc, step(remui(it, 2), h, m0, acc));
      });
  commitAndWait(0); // no copy outlives the CTA (a loop of no step)
  return SmallVector<Value>(loop.getResults());
}

void GradKernelParts::stageRowStats(Value lse, Value delta, Value bi, Value h,
                                    Value m0, Value Sq, int64_t rows,
                                    Value lseView, Value deltaView) {
  auto ifOp = scf::IfOp::create(
      b, loc, cmpi(arith::CmpIPredicate::ult, tid, cst(rows)), false);
  OpBuilder::InsertionGuard guard(b);
  b.setInsertionPointToStart(ifOp.thenBlock());
  auto [lL2, d] = rowStats(lse, delta, bi, h, add(m0, tid), Sq);
  memref::StoreOp::create(b, loc, lL2, lseView, ValueRange{tid});
  memref::StoreOp::create(b, loc, d, deltaView, ValueRange{tid});
}
