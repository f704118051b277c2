//===- WgmmaGradKernel.cpp - the backward on sm_90a warpgroup MMA ---------===//
//
// buildAttentionGradWgmmaKernel (GradKernels.h): FlashAttention-2's
// backward (Algorithm 2) in one kernel on Hopper's wgmma.mma_async, with dQ
// accumulated across key tiles by f32 reductions in global memory (as
// FlashAttention-2 and -3 do; a bulk reduction of each warpgroup's
// contiguous 64-row tile, as FlashAttention-3's TMA reduce-add): five products per step instead of the
// separate dQ kernel's seven. Not deterministic (the order of the dQ
// reductions varies); the mma.sync pair of kernels is.
//
// One CTA per (batch, K/V head, key tile of 128 keys): two warpgroups,
// warpgroup w owning keys [64w, 64w + 64) of the tile and their dK, dV
// accumulators (m64 x D f32, wgmma's accumulator layout). K and V are
// staged once; the CTA loops over the H / Hkv query heads of its K/V head
// and their query tiles of 64 rows (from the first a causal row of which
// sees the tile), flattened, with Q, dO, LSE·log2 e and Δ double-buffered by
// cp.async. Per step, warpgroup w:
//   Sᵀ, dPᵀ (64 keys x 64 rows) = K_w·Qᵀ, V_w·dOᵀ   (both from shared memory)
//   Pᵀ = exp2(Sᵀ·scale·log2 e − LSE·log2 e), dSᵀ = Pᵀ ∘ (dPᵀ − Δ)
//   dV_w += Pᵀ·dO, dK_w += dSᵀ·Q   (Pᵀ, dSᵀ as register A fragments)
//   dSᵀ into shared memory; dQ_w (64 rows x D) = dS_w·K_w (A MN-major)
//   dQ[rows] += scale·dQ_w         (through shared memory, one
//                                   cp.reduce.async.bulk .add.f32)
// Tiles are in wgmma's 128-byte swizzled layout (Common/WgmmaOps.h).
// Shared memory: K, V (128 x D each), two stages of Q, dO (64 x D each)
// and LSE·log2 e, Δ (64 f32 each, in a 1 KiB slot), dSᵀ (128 x 64), each
// warpgroup's f32 dQ tile (64 x D).
//
//===----------------------------------------------------------------------===//
#include "GPU/Kernels/Common/MmaFragments.h"
#include "GPU/Kernels/Common/WgmmaOps.h"
#include "GPU/Kernels/Grad/GradKernelParts.h"
#include "GPU/Kernels/Grad/GradKernels.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Dialect/LLVMIR/NVVMDialect.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/NVGPU/IR/NVGPUDialect.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/Vector/IR/VectorOps.h"

using namespace mlir;
using namespace mlir::tx;

namespace {

constexpr int64_t kKeys = 128, kRows = 64, kThreads = 256;

/// The values one CTA's steps share.
struct WgCta {
  Value q, dO, lse, delta, dq; // global buffers
  Value bi, kh, n0, Sq, H, shift;
  Value wg, wtid, wi;          // warpgroup, thread and warp in it
  Value base;                  // shared address (i64) of the 1 KiB-aligned start
  Value pad;                   // byte offset of `base` in dynamic shared memory
  int64_t D;
  // Byte offsets from `base`.
  int64_t kAt, vAt, stagesAt, stageBytes, dsAt, dqAt, end;
};

/// One stage: Q, dO (swizzled), then LSE·log2 e and Δ (f32).
struct Stage {
  int64_t qAt, doAt, lseAt, deltaAt; // byte offsets from `base`
  Value lseView, deltaView;
};

WgCta layout(int64_t D) {
  WgCta c;
  c.D = D;
  c.kAt = 0;
  c.vAt = kKeys * D * 2;
  c.stagesAt = 2 * kKeys * D * 2;
  c.stageBytes = 2 * kRows * D * 2 + 1024;
  c.dsAt = c.stagesAt + 2 * c.stageBytes;
  c.dqAt = c.dsAt + kKeys * kRows * 2;
  c.end = c.dqAt + 2 * kRows * D * 4;
  return c;
}

Value i64(GradKernelParts &k, Value x) {
  return arith::IndexCastUIOp::create(k.b, k.loc, k.b.getI64Type(), x);
}

/// A view of `rows` x `cols` elements of `t` at byte `at` from c.base.
Value sharedView(GradKernelParts &k, const WgCta &c, Value at, int64_t rows,
                 int64_t cols, Type t) {
  auto wgs = gpu::AddressSpaceAttr::get(k.b.getContext(),
                                        gpu::AddressSpace::Workgroup);
  auto ty = MemRefType::get({rows, cols}, t, MemRefLayoutAttrInterface(), wgs);
  return memref::ViewOp::create(k.b, k.loc, ty, k.smem, k.add(c.pad, at),
                                ValueRange{});
}

Stage stageAt(GradKernelParts &k, const WgCta &c, Value s) {
  Stage st;
  st.qAt = 0;
  st.doAt = kRows * c.D * 2;
  st.lseAt = 2 * kRows * c.D * 2;
  st.deltaAt = st.lseAt + kRows * 4;
  Value at = k.add(k.mul(s, c.stageBytes), c.stagesAt);
  auto flat = [&](int64_t off) {
    auto wgs = gpu::AddressSpaceAttr::get(k.b.getContext(),
                                          gpu::AddressSpace::Workgroup);
    auto ty =
        MemRefType::get({kRows}, k.f32, MemRefLayoutAttrInterface(), wgs);
    return memref::ViewOp::create(k.b, k.loc, ty, k.smem,
                                  k.add(k.add(c.pad, at), off), ValueRange{})
        .getResult();
  };
  st.lseView = flat(st.lseAt);
  st.deltaView = flat(st.deltaAt);
  return st;
}

/// cp.async of rows [row0, row0 + rows) of buf[i0, i1, :, 0:D] into the
/// swizzled tile at byte `at` (64-column block cb at rows cb * rows of a
/// [rows * D / 64, 64] view); rows at or past `rowLimit` are zero-filled.
void copySwizzled(GradKernelParts &k, const WgCta &c, Value buf, Value i0,
                  Value i1, Value row0, Value rowLimit, int64_t rows,
                  Value at) {
  const int64_t cpr = c.D / 8, total = rows * cpr;
  Value view = sharedView(k, c, at, rows * c.D / 64, 64, k.elt);
  auto tokTy = nvgpu::DeviceAsyncTokenType::get(k.b.getContext());
  Value lastRow = k.maxsi(k.sub(rowLimit, k.cst(1)), k.cst(0));
  for (int64_t i = 0; i < total / kThreads; ++i) {
    Value chunk = k.add(k.tid, i * kThreads);
    Value r = k.divui(chunk, cpr), ch = k.remui(chunk, cpr);
    Value gRow = k.add(row0, r);
    Value n = k.select(k.cmpi(arith::CmpIPredicate::slt, gRow, rowLimit),
                       k.cst(8), k.cst(0));
    Value dRow = k.add(k.mul(k.divui(ch, 8), rows), r);
    Value dCol = k.mul(
        arith::XOrIOp::create(k.b, k.loc, k.remui(ch, 8), k.remui(r, 8)), 8);
    nvgpu::DeviceAsyncCopyOp::create(
        k.b, k.loc, tokTy, view, ValueRange{dRow, dCol}, buf,
        ValueRange{i0, i1, k.minsi(gRow, lastRow), k.mul(ch, 8)},
        k.b.getIndexAttr(8), n, k.b.getUnitAttr());
  }
}

/// Starts loading query rows m0.. of head h into stage s.
void issueQueryTile(GradKernelParts &k, const WgCta &c, Value s, Value h,
                    Value m0) {
  Stage st = stageAt(k, c, s);
  Value at = k.add(k.mul(s, c.stageBytes), c.stagesAt);
  copySwizzled(k, c, c.q, c.bi, h, m0, c.Sq, kRows, k.add(at, st.qAt));
  copySwizzled(k, c, c.dO, c.bi, h, m0, c.Sq, kRows, k.add(at, st.doAt));
  k.stageRowStats(c.lse, c.delta, c.bi, h, m0, c.Sq, kRows, st.lseView,
                  st.deltaView);
}

/// The descriptor of the swizzled tile at byte `at` (Value) plus `bytes`.
Value desc(GradKernelParts &k, const WgCta &c, Value at, int64_t bytes) {
  Value addr = arith::AddIOp::create(k.b, k.loc, c.base, i64(k, at));
  return wgmma::descriptorPlus(k.b, k.loc,
                               wgmma::descriptor(k.b, k.loc, addr), bytes);
}

/// Two f32 as one f16x2 / bf16x2: the i32 register and the vector.
std::pair<Value, Value> packPair(GradKernelParts &k, Value x0, Value x1) {
  Value v = vector::FromElementsOp::create(
      k.b, k.loc, VectorType::get({2}, k.f32), ValueRange{x0, x1});
  v = arith::TruncFOp::create(k.b, k.loc, VectorType::get({2}, k.elt), v);
  Value i = vector::BitCastOp::create(
      k.b, k.loc, VectorType::get({1}, k.b.getI32Type()), v);
  return {vector::ExtractOp::create(k.b, k.loc, i, ArrayRef<int64_t>{0}), v};
}

/// The k16 A fragments (four i32 each) of an m64 x n accumulator packed.
SmallVector<Value> packFragments(GradKernelParts &k, ArrayRef<Value> acc) {
  SmallVector<Value> regs;
  for (size_t i = 0; i < acc.size(); i += 2)
    regs.push_back(packPair(k, acc[i], acc[i + 1]).first);
  return regs;
}

/// Row (within the warpgroup's 64) and column of accumulator element i.
Value accRow(GradKernelParts &k, const WgCta &c, int64_t i) {
  return k.add(k.add(k.mul(c.wi, 16), k.g), 8 * ((i % 4) / 2));
}
Value accCol(GradKernelParts &k, int64_t i) {
  return k.add(k.add(k.mul(k.t4, 2), i % 2), 8 * (i / 4));
}

/// dSᵀ (this warpgroup's 64 keys x 64 rows) into the swizzled dS tile.
void storeDsT(GradKernelParts &k, const WgCta &c, ArrayRef<Value> dsT) {
  Value view = sharedView(k, c, k.cst(c.dsAt), kKeys, 64, k.elt);
  for (size_t i = 0; i < dsT.size(); i += 2) {
    Value r = k.add(k.mul(c.wg, 64), accRow(k, c, i));
    Value chunk = arith::XOrIOp::create(k.b, k.loc, k.cst(i / 4),
                                        k.remui(r, 8));
    Value col = k.add(k.mul(chunk, 8), k.mul(k.t4, 2));
    vector::StoreOp::create(k.b, k.loc, packPair(k, dsT[i], dsT[i + 1]).second,
                            view, ValueRange{r, col});
  }
}

void warpgroupBarrier(GradKernelParts &k, const WgCta &c) {
  Value id = arith::IndexCastUIOp::create(
      k.b, k.loc, k.b.getI32Type(), k.add(c.wg, 1));
  Value n = arith::ConstantIntOp::create(k.b, k.loc, k.b.getI32Type(), 128);
  NVVM::BarrierOp::create(k.b, k.loc, TypeRange{}, id, n, {}, Value());
}

/// `body` under `if (cond)`.
void ifThen(GradKernelParts &k, Value cond, llvm::function_ref<void()> body) {
  auto ifOp = scf::IfOp::create(k.b, k.loc, cond, false);
  OpBuilder::InsertionGuard guard(k.b);
  k.b.setInsertionPointToStart(ifOp.thenBlock());
  body();
}

Value elected(GradKernelParts &k, const WgCta &c) {
  return k.cmpi(arith::CmpIPredicate::eq, c.wtid, k.cst(0));
}

/// dQ[bi, h, m0 .. m0 + 64, :] += scale · dQ_w (rows below Sq): the
/// warpgroup's tile (D/64 accumulators) into its f32 [64 x D] buffer, then
/// one cp.reduce.async.bulk .add.f32 of the rows (contiguous in dQ) issued
/// by the warpgroup's first thread. The buffer is rewritten only after the
/// previous step's reduction has read it (wait_group.read 0).
void reduceDq(GradKernelParts &k, const WgCta &c,
              ArrayRef<SmallVector<Value>> dq, double scale, Value h,
              Value m0) {
  const int64_t D = c.D, tileBytes = kRows * D * 4;
  ifThen(k, elected(k, c), [&] {
    NVVM::CpAsyncBulkWaitGroupOp::create(k.b, k.loc, 0, k.b.getUnitAttr());
  });
  warpgroupBarrier(k, c);
  Value at = k.add(k.mul(c.wg, tileBytes), c.dqAt);
  Value view = sharedView(k, c, at, kRows, D, k.f32);
  Value f = k.fcst(scale);
  VectorType pair = VectorType::get({2}, k.f32);
  for (auto [cb, acc] : llvm::enumerate(dq))
    for (size_t i = 0; i < acc.size(); i += 2) {
      Value x0 = arith::MulFOp::create(k.b, k.loc, acc[i], f);
      Value x1 = arith::MulFOp::create(k.b, k.loc, acc[i + 1], f);
      vector::StoreOp::create(
          k.b, k.loc,
          vector::FromElementsOp::create(k.b, k.loc, pair, ValueRange{x0, x1}),
          view, ValueRange{accRow(k, c, i), k.add(accCol(k, i), cb * 64)});
    }
  wgmma::fenceProxyAsync(k.b, k.loc);
  warpgroupBarrier(k, c);
  ifThen(k, elected(k, c), [&] {
    Value rows = k.minsi(k.sub(c.Sq, m0), k.cst(kRows));
    Value bytes = arith::IndexCastUIOp::create(k.b, k.loc, k.b.getI32Type(),
                                               k.mul(rows, D * 4));
    Value base = i64(k, memref::ExtractAlignedPointerAsIndexOp::create(
                            k.b, k.loc, c.dq));
    Value off = k.mul(k.add(k.mul(k.add(k.mul(c.bi, c.H), h), c.Sq), m0),
                      D * 4);
    Value dst = arith::AddIOp::create(k.b, k.loc, base, i64(k, off));
    Value src = arith::TruncIOp::create(
        k.b, k.loc, k.b.getI32Type(),
        arith::AddIOp::create(k.b, k.loc, c.base, i64(k, at)));
    wgmma::inlinePtx(k.b, k.loc,
                     "cp.reduce.async.bulk.global.shared::cta.bulk_group."
                     "add.f32 [$0], [$1], $2;",
                     "l,r,r", ValueRange{dst, src, bytes}, 0);
    NVVM::CpAsyncBulkCommitGroupOp::create(k.b, k.loc);
  });
}

/// One query tile (rows m0.. of head h, staged in stage s): this
/// warpgroup's dK, dV accumulators (D/64 blocks of 32 each) in and out.
SmallVector<Value> step(GradKernelParts &k, const WgCta &c,
                        const AttentionGradKernelProblem &p, Value s, Value h,
                        Value m0, ValueRange acc) {
  const int64_t D = c.D, DB = D / 64, n = D / 2;
  Stage st = stageAt(k, c, s);
  Value at = k.add(k.mul(s, c.stageBytes), c.stagesAt);
  Value qAt = k.add(at, st.qAt), doAt = k.add(at, st.doAt);
  Value keyRows = k.mul(c.wg, 64 * 128); // this warpgroup's 64 rows
  // Sᵀ = K_w·Qᵀ and dPᵀ = V_w·dOᵀ: K-major A and B, k16 steps along D.
  wgmma::WgmmaStatement first(k.b, k.loc, k.elt);
  int64_t sId = first.accumulator(kRows), dpId = first.accumulator(kRows);
  for (int64_t t = 0; t < D / 16; ++t) {
    int64_t cb = t / 4, o = (t % 4) * 32;
    first.sharedA(sId, desc(k, c, k.add(keyRows, c.kAt + cb * kKeys * 128), o),
                  desc(k, c, qAt, cb * kRows * 128 + o), false, false);
    first.sharedA(dpId,
                  desc(k, c, k.add(keyRows, c.vAt + cb * kKeys * 128), o),
                  desc(k, c, doAt, cb * kRows * 128 + o), false, false);
  }
  SmallVector<SmallVector<Value>> sdp = first.emit();
  SmallVector<Value> pT = sdp[0];
  auto stats = [&](int64_t nt, int64_t e) -> std::pair<Value, Value> {
    Value col = accCol(k, 4 * nt + e);
    return {memref::LoadOp::create(k.b, k.loc, st.lseView, ValueRange{col}),
            memref::LoadOp::create(k.b, k.loc, st.deltaView, ValueRange{col})};
  };
  // Causal: key n0 + 64w + row is visible to query m0 + col iff it is at
  // most on the query's diagonal (aligned bottom-right).
  auto visible = [&](int64_t nt, int64_t e) {
    Value key = k.add(k.add(c.n0, k.mul(c.wg, 64)), accRow(k, c, 4 * nt + e));
    return k.cmpi(arith::CmpIPredicate::sle, key,
                  k.add(k.add(m0, accCol(k, 4 * nt + e)), c.shift));
  };
  SmallVector<Value> dsT = k.probabilitiesAndDs(
      pT, sdp[1], p.scale, stats,
      p.causal ? llvm::function_ref<Value(int64_t, int64_t)>(visible)
               : nullptr);
  SmallVector<Value> pRegs = packFragments(k, pT);
  SmallVector<Value> dsRegs = packFragments(k, dsT);
  storeDsT(k, c, dsT);
  // dV_w += Pᵀ·dO, dK_w += dSᵀ·Q: A in registers, B MN-major.
  wgmma::WgmmaStatement second(k.b, k.loc, k.elt);
  SmallVector<Value> accs(acc.begin(), acc.end());
  ArrayRef<Value> accList(accs);
  SmallVector<int64_t> dk, dv;
  for (int64_t cb = 0; cb < DB; ++cb)
    dk.push_back(second.accumulator(64, accList.slice(cb * 32, 32)));
  for (int64_t cb = 0; cb < DB; ++cb)
    dv.push_back(second.accumulator(64, accList.slice(n + cb * 32, 32)));
  for (int64_t t = 0; t < kRows / 16; ++t)
    for (int64_t cb = 0; cb < DB; ++cb) {
      int64_t o = cb * kRows * 128 + t * 16 * 128;
      second.registerA(dv[cb], ArrayRef<Value>(pRegs).slice(4 * t, 4),
                       desc(k, c, doAt, o), true);
      second.registerA(dk[cb], ArrayRef<Value>(dsRegs).slice(4 * t, 4),
                       desc(k, c, qAt, o), true);
    }
  SmallVector<SmallVector<Value>> dkdv = second.emit();
  // dQ_w = dS_w·K_w: A = this warpgroup's dSᵀ rows (MN-major), B = K_w
  // (MN-major), k16 steps along the warpgroup's 64 keys.
  wgmma::fenceProxyAsync(k.b, k.loc);
  warpgroupBarrier(k, c);
  wgmma::WgmmaStatement third(k.b, k.loc, k.elt);
  SmallVector<int64_t> dq;
  for (int64_t cb = 0; cb < DB; ++cb)
    dq.push_back(third.accumulator(64));
  for (int64_t t = 0; t < 4; ++t)
    for (int64_t cb = 0; cb < DB; ++cb)
      third.sharedA(
          dq[cb], desc(k, c, k.add(keyRows, c.dsAt), t * 16 * 128),
          desc(k, c, k.add(keyRows, c.kAt + cb * kKeys * 128), t * 16 * 128),
          true, true);
  SmallVector<SmallVector<Value>> dqAcc = third.emit();
  reduceDq(k, c, dqAcc, p.scale, h, m0);
  SmallVector<Value> out;
  for (int64_t cb = 0; cb < DB; ++cb)
    out.append(dkdv[cb]);
  for (int64_t cb = 0; cb < DB; ++cb)
    out.append(dkdv[DB + cb]);
  return out;
}

/// The CTA's loop (GradKernelParts::queryTileLoop) with this kernel's
/// stages and step.
SmallVector<Value> loop(GradKernelParts &k, const WgCta &c,
                        const AttentionGradKernelProblem &p, Value G) {
  return k.queryTileLoop(
      {c.n0, c.shift, c.Sq, c.kh, G, kRows, p.causal, /*fenceAsync=*/true},
      [&] { return SmallVector<Value>(c.D, k.fcst(0.0)); },
      [&](Value stage, Value h, Value m0) {
        issueQueryTile(k, c, stage, h, m0);
      },
      [&](Value stage, Value h, Value m0, ValueRange acc) {
        return step(k, c, p, stage, h, m0, acc);
      });
}

/// acc (D/64 blocks of 32) · factor into out[bi, kh, n0 + 64w + row, :]
/// for rows below Sk.
void storeKeyRows(GradKernelParts &k, const WgCta &c, ArrayRef<Value> acc,
                  double factor, Value out, Value Sk) {
  Value f = k.fcst(factor);
  VectorType pair = VectorType::get({2}, k.f32);
  for (int64_t half = 0; half < 2; ++half) {
    Value row = k.add(k.add(c.n0, k.mul(c.wg, 64)), accRow(k, c, 2 * half));
    auto ifOp = scf::IfOp::create(
        k.b, k.loc, k.cmpi(arith::CmpIPredicate::slt, row, Sk), false);
    OpBuilder::InsertionGuard guard(k.b);
    k.b.setInsertionPointToStart(ifOp.thenBlock());
    for (size_t i = 2 * half; i < acc.size(); i += 4) {
      int64_t cb = i / 32, j = i % 32;
      Value x0 = acc[i], x1 = acc[i + 1];
      if (factor != 1.0) {
        x0 = arith::MulFOp::create(k.b, k.loc, x0, f);
        x1 = arith::MulFOp::create(k.b, k.loc, x1, f);
      }
      Value v = vector::FromElementsOp::create(k.b, k.loc, pair,
                                               ValueRange{x0, x1});
      vector::StoreOp::create(
          k.b, k.loc, v, out,
          ValueRange{c.bi, c.kh, row, k.add(accCol(k, j), cb * 64)});
    }
  }
}

} // namespace

SmallVector<Value> mlir::tx::buildAttentionGradWgmmaKernel(
    OpBuilder &b, Location loc, const AttentionGradKernelProblem &p,
    RankedTensorType dkType, RankedTensorType dvType,
    RankedTensorType dqType) {
  auto qTy = cast<RankedTensorType>(p.query.getType());
  GradKernelParts k(b, loc, qTy.getElementType(), qTy.getDimSize(3));
  const int64_t D = k.D;
  WgCta c = layout(D);
  c.q = k.toBuffer(p.query);
  Value key = k.toBuffer(p.key), value = k.toBuffer(p.value);
  c.dO = k.toBuffer(p.gradOutput);
  c.lse = k.toBuffer(p.lse);
  c.delta = k.toBuffer(p.delta);
  Value B = k.dim(c.q, 0), Hkv = k.dim(key, 1);
  c.H = k.dim(c.q, 1);
  c.Sq = k.dim(c.q, 2);
  Value Sk = k.dim(key, 2);
  Value G = arith::DivUIOp::create(b, loc, c.H, Hkv);
  Value dK = k.allocResult(dkType, {B, Hkv, Sk, k.cst(D)});
  Value dV = k.allocResult(dvType, {B, Hkv, Sk, k.cst(D)});
  c.dq = k.allocResult(dqType, {B, c.H, c.Sq, k.cst(D)});
  // dQ is accumulated by reductions: zero it first (when not empty).
  auto ifRows = scf::IfOp::create(
      b, loc,
      k.cmpi(arith::CmpIPredicate::sgt, k.mul(k.mul(B, c.H), c.Sq), k.cst(0)),
      false);
  {
    OpBuilder::InsertionGuard guard(b);
    b.setInsertionPointToStart(ifRows.thenBlock());
    auto tokTy = gpu::AsyncTokenType::get(b.getContext());
    Value t0 =
        gpu::WaitOp::create(b, loc, tokTy, ValueRange{}).getAsyncToken();
    Value t1 = gpu::MemsetOp::create(b, loc, tokTy, ValueRange{t0}, c.dq,
                                     k.fcst(0.0))
                   .getAsyncToken();
    gpu::WaitOp::create(b, loc, Type(), ValueRange{t1});
  }
  Value nKT = k.ceilDiv(Sk, kKeys);
  Value blocks = k.mul(k.mul(nKT, Hkv), B);
  auto ifOp = scf::IfOp::create(
      b, loc, k.cmpi(arith::CmpIPredicate::sgt, blocks, k.cst(0)), false);
  {
    OpBuilder::InsertionGuard guard(b);
    b.setInsertionPointToStart(ifOp.thenBlock());
    Value bid = k.enterLaunch(blocks, kThreads / 32, c.end + 1024, "sm_90a");
    Value bkh = arith::DivUIOp::create(b, loc, bid, nKT);
    c.n0 = k.mul(arith::RemUIOp::create(b, loc, bid, nKT), kKeys);
    c.kh = arith::RemUIOp::create(b, loc, bkh, Hkv);
    c.bi = arith::DivUIOp::create(b, loc, bkh, Hkv);
    c.shift = k.sub(Sk, c.Sq);
    c.wg = k.divui(k.tid, 128);
    c.wtid = k.remui(k.tid, 128);
    c.wi = k.divui(c.wtid, 32);
    // The swizzled tiles need 1 KiB alignment.
    Value addr = memref::ExtractAlignedPointerAsIndexOp::create(b, loc, k.smem);
    c.pad = k.remui(k.sub(k.cst(1024), k.remui(addr, 1024)), 1024);
    c.base = i64(k, k.add(addr, c.pad));
    copySwizzled(k, c, key, c.bi, c.kh, c.n0, Sk, kKeys, k.cst(c.kAt));
    copySwizzled(k, c, value, c.bi, c.kh, c.n0, Sk, kKeys, k.cst(c.vAt));
    SmallVector<Value> acc = loop(k, c, p, G);
    // The last reductions complete before the CTA's shared memory goes.
    ifThen(k, elected(k, c), [&] {
      NVVM::CpAsyncBulkWaitGroupOp::create(b, loc, 0, UnitAttr());
    });
    storeKeyRows(k, c, ArrayRef<Value>(acc).take_front(D / 2), p.scale, dK,
                 Sk);
    storeKeyRows(k, c, ArrayRef<Value>(acc).drop_front(D / 2), 1.0, dV, Sk);
  }
  return {k.toTensor(dK, dkType), k.toTensor(dV, dvType),
          k.toTensor(c.dq, dqType)};
}
