//===- AttentionToGPU.cpp - tx.attention -> a tiled flash-attention kernel -===//
//
// FlashAttention-2 (Dao 2023, "FlashAttention-2: Faster Attention with Better
// Parallelism and Work Partitioning"), Algorithm 1, mapped onto CUDA cores:
//
//   grid   one CTA per (batch b, head h, query tile of q-tile rows)
//   CTA    `warps` warps; warp w owns rows [w*R, (w+1)*R) of the tile
//          (R = q-tile / warps), the running max m, sum l and the output
//          accumulator O of those rows in registers
//   step   the CTA walks the K/V tiles of kv-tile keys; each tile is staged
//          once in shared memory (converted to f32) and read by every warp:
//            S = Q·Kᵀ   lane j computes the scores of keys j, j+32, ...
//            m_new = max(m, rowmax S)  (one shuffle all-reduce per row)
//            P = exp(S - m_new), l = l*exp(m - m_new) + rowsum P
//            O = O*exp(m - m_new) + P·V   lane owns columns lane+32t of O
//   end    O / l (a row that saw no key gives zeros), cast once to Q's type
//
// Q is staged in shared memory once, pre-scaled by scale; exp(x - m) is
// computed as exp2((x - m) * log2(e)) after the max is subtracted (f32
// inputs need the subtraction in natural units to stay within 1e-5 for large
// scores). The tensor-core kernel (f16) folds log2(e) into the scale. The
// maximum starts at -inf and is guarded (`m_new == -inf` rescales by 0),
// never at NaN. Causal attention (aligned
// bottom-right: key j visible to query i iff j <= i + Sk - Sq) stops each
// CTA's K/V loop after the last tile its rows can see and evaluates the
// causal predicate only in tiles that cross the diagonal; key-length tails
// use the same predicated path. Masks (i1 or additive) are read per tile
// from global memory. GQA reads K/V head h / (H / Hkv) in place.
//
// f16 has two tensor-core kernels with the same skeleton, in their sections
// below: mma.sync m16n8k16 (sm_80+) and wgmma.mma_async (sm_90a).
//
// No Sq x Sk buffer exists: shared memory holds q-tile x D, kv-tile x D,
// kv-tile x Dv and q-tile x kv-tile floats (dynamic shared memory; the tx
// runtime opts the kernel into more than 48 KiB when needed).
//
//===----------------------------------------------------------------------===//
#include "GPU/AttentionKernel.h"
#include "Transformer/AttentionShapes.h"
#include "Transformer/Passes.h"
#include "Transformer/TxOps.h"

#include "mlir/Dialect/Arith/Utils/Utils.h"
#include "mlir/Dialect/Bufferization/IR/Bufferization.h"
#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/Dialect/LLVMIR/NVVMDialect.h"
#include "mlir/Dialect/NVGPU/IR/NVGPUDialect.h"
#include "mlir/Dialect/Vector/IR/VectorOps.h"
#include <limits>

using namespace mlir;
using namespace mlir::tx;

namespace {


/// Emits the flash kernel for one tx.attention at the builder's insertion
/// point (host code, before bufferization: operands become read-only buffers).
class FlashKernelBuilder {
public:
  FlashKernelBuilder(OpBuilder &b, const AttentionProblem &p,
                     FlashConfig cfg, bool checks)
      : b(b), prob(p), loc(p.loc), cfg(cfg), f32(b.getF32Type()),
        elt(p.elementType()), checks(checks) {}

  /// The output tensor, and the log-sum-exp tensor when the op has one.
  SmallVector<Value> build() {
    auto toBuf = [&](Value t) -> Value {
      auto ty = cast<RankedTensorType>(t.getType());
      return bufferization::ToBufferOp::create(
          b, loc, MemRefType::get(ty.getShape(), ty.getElementType()), t,
          /*read_only=*/true);
    };
    q = toBuf(prob.query);
    k = toBuf(prob.key);
    v = toBuf(prob.value);
    if (prob.mask) {
      mask = toBuf(prob.mask);
      auto mTy = cast<MemRefType>(mask.getType());
      keepMask = mTy.getElementType().isInteger(1);
      maskBatchBcast = mTy.getDimSize(0) == 1;
      maskHeadBcast = mTy.getDimSize(1) == 1;
    }
    AttentionSizes sz = emitAttentionSizesAndChecks(b, loc, prob.query, prob.key,
                                                    prob.value, prob.mask, checks);
    auto val = [&](OpFoldResult f) {
      return getValueOrCreateConstantIndexOp(b, loc, f);
    };
    B = val(sz.B);
    H = val(sz.H);
    Sq = val(sz.Sq);
    Sk = val(sz.Sk);
    G = val(sz.G);

    RankedTensorType oTy = prob.outType;
    SmallVector<Value> dynSizes;
    Value oDims[4] = {B, H, Sq, cst(cfg.Dv)};
    for (int64_t i = 0; i < 4; ++i)
      if (oTy.isDynamicDim(i))
        dynSizes.push_back(oDims[i]);
    out = memref::AllocOp::create(b, loc, MemRefType::get(oTy.getShape(), elt),
                                  dynSizes);
    RankedTensorType lTy;
    if (prob.lseType) {
      lTy = prob.lseType;
      SmallVector<Value> lDyn;
      for (int64_t i = 0; i < 3; ++i)
        if (lTy.isDynamicDim(i))
          lDyn.push_back(oDims[i]);
      lseOut = memref::AllocOp::create(
          b, loc, MemRefType::get(lTy.getShape(), f32), lDyn);
    }

    // Scale folded with log2(e): scores live in the exp2 domain.
    const double log2e = 1.4426950408889634;
    double s = prob.scale;
    scale = fcst(s * log2e);
    scaleNat = fcst(s);
    scaleD = s;
    maskScale = fcst(log2e);
    if (FloatAttr c = prob.softcap) {
      softcapD = c.getValueAsDouble();
      softcap = fcst(softcapD);
    }
    band = keyBand(prob.causal, prob.window);
    constexpr int64_t kUnboundedSide = int64_t(1) << 40;
    if (band.left && *band.left > kUnboundedSide)
      band.left.reset();
    if (band.right && *band.right > kUnboundedSide)
      band.right.reset();

    // The output (and log-sum-exp) buffers as the op's result tensors.
    auto results = [&] {
      SmallVector<Value> r = {bufferization::ToTensorOp::create(
          b, loc, oTy, out, /*restrict=*/true, /*writable=*/true)};
      if (lseOut)
        r.push_back(bufferization::ToTensorOp::create(
            b, loc, lTy, lseOut, /*restrict=*/true, /*writable=*/true));
      return r;
    };
    if (cfg.decode) {
      emitDecode();
      return results();
    }

    Value nQT = arith::CeilDivUIOp::create(b, loc, Sq, cst(cfg.qTile));
    Value blocks = mul(mul(B, H), nQT);
    auto ifAny = scf::IfOp::create(
        b, loc, arith::CmpIOp::create(b, loc, arith::CmpIPredicate::ugt, blocks,
                                      cst(0)),
        false);
    {
      OpBuilder::InsertionGuard g(b);
      b.setInsertionPointToStart(ifAny.thenBlock());
      emitLaunch(blocks, nQT);
    }
    return results();
  }

private:
  // ---- small builders -------------------------------------------------
  Value cst(int64_t v) { return arith::ConstantIndexOp::create(b, loc, v); }
  Value fcst(double v) {
    return arith::ConstantOp::create(b, loc, b.getF32FloatAttr(v));
  }
  Value add(Value x, Value y) { return arith::AddIOp::create(b, loc, x, y); }
  Value sub(Value x, Value y) { return arith::SubIOp::create(b, loc, x, y); }
  Value mul(Value x, Value y) { return arith::MulIOp::create(b, loc, x, y); }
  Value add(Value x, int64_t y) { return y == 0 ? x : add(x, cst(y)); }
  Value mul(Value x, int64_t y) { return y == 1 ? x : mul(x, cst(y)); }
  Value cmpi(arith::CmpIPredicate p, Value x, Value y) {
    return arith::CmpIOp::create(b, loc, p, x, y);
  }
  Value minsi(Value x, Value y) { return arith::MinSIOp::create(b, loc, x, y); }
  Value maxsi(Value x, Value y) { return arith::MaxSIOp::create(b, loc, x, y); }
  Value minui(Value x, Value y) { return arith::MinUIOp::create(b, loc, x, y); }
  /// i1: some key of [k0, k0 + n) lies outside the band (causal, window)
  /// of some query row in [iLo, iHi], i.e. the tile needs the per-key
  /// predicate (inBand). Null when the band hides nothing. (Sides are at
  /// most 2^40 here, so `i + shift + right` cannot overflow.)
  Value bandCrosses(Value k0, int64_t n, Value iLo, Value iHi, Value shift) {
    Value need;
    auto orIn = [&](Value c) {
      need = need ? arith::OrIOp::create(b, loc, need, c).getResult() : c;
    };
    if (band.right) // the tile's last key past the first row's last one
      orIn(cmpi(arith::CmpIPredicate::sgt, add(k0, n - 1),
                add(add(iLo, shift), *band.right)));
    if (band.left) // the tile's first key before the last row's first one
      orIn(cmpi(arith::CmpIPredicate::slt, k0,
                add(add(iHi, shift), -*band.left)));
    return need;
  }
  /// `ok` and key j inside query row i's band (causal, window):
  /// i + shift - left <= j <= i + shift + right. A window tests the key's
  /// distance from the diagonal, d = j - (i + shift), against both sides
  /// (one value per key: fewer registers than two bounds per row); a
  /// right side alone (causal) compares j with i + shift + right.
  Value inBand(Value ok, Value j, Value i, Value shift) {
    if (band.left) {
      Value d = sub(j, add(i, shift));
      if (band.right)
        ok = arith::AndIOp::create(
            b, loc, ok,
            cmpi(arith::CmpIPredicate::sle, d, cst(*band.right)));
      return arith::AndIOp::create(
          b, loc, ok, cmpi(arith::CmpIPredicate::sge, d, cst(-*band.left)));
    }
    if (band.right)
      ok = arith::AndIOp::create(
          b, loc, ok,
          cmpi(arith::CmpIPredicate::sle, j,
               add(add(i, shift), *band.right)));
    return ok;
  }
  Value select(Value c, Value x, Value y) {
    return arith::SelectOp::create(b, loc, c, x, y);
  }
  Value fma(Value x, Value y, Value acc) {
    return math::FmaOp::create(b, loc, x, y, acc);
  }
  Value toF32(Value x) {
    Type t = x.getType();
    Type et = getElementTypeOrSelf(t);
    if (et == f32)
      return x;
    Type target = f32;
    if (auto vt = dyn_cast<VectorType>(t))
      target = VectorType::get(vt.getShape(), f32);
    return arith::ExtFOp::create(b, loc, target, x);
  }
  VectorType vec(int64_t n, Type t) { return VectorType::get({n}, t); }

  /// A 1-D f32 view of `floats` elements at byte offset `offset` of the
  /// dynamic shared memory.
  Value smemView(Value base, int64_t offsetBytes, int64_t floats) {
    auto wg = gpu::AddressSpaceAttr::get(b.getContext(),
                                         gpu::AddressSpace::Workgroup);
    auto ty = MemRefType::get({floats}, f32, MemRefLayoutAttrInterface(), wg);
    return memref::ViewOp::create(b, loc, ty, base, cst(offsetBytes),
                                  ValueRange{});
  }

  /// Loads `n` elements of a row-major [B?,H?,S,D] global buffer at
  /// (i0, i1, row, col) as f32 (a 16-byte vector load when n > 1).
  Value loadGlobal(Value buf, ValueRange idx, int64_t n) {
    if (n == 1)
      return toF32(memref::LoadOp::create(b, loc, buf, idx));
    Type et = cast<MemRefType>(buf.getType()).getElementType();
    int64_t bytes = n * et.getIntOrFloatBitWidth() / 8;
    return toF32(vector::LoadOp::create(b, loc, vec(n, et), buf, idx,
                                        /*nontemporal=*/false,
                                        llvm::MaybeAlign(bytes)));
  }

  /// Stores f32 value(s) `x` (scalar or vector of n) at `off` of a shared
  /// view, in pieces of at most 4 floats (16 bytes).
  void storeShared(Value x, Value view, Value off) {
    auto vt = dyn_cast<VectorType>(x.getType());
    if (!vt) {
      memref::StoreOp::create(b, loc, x, view, off);
      return;
    }
    int64_t n = vt.getNumElements();
    for (int64_t p = 0; p < n; p += 4) {
      Value piece = n == 4 ? x
                           : vector::ShuffleOp::create(
                                 b, loc, x, x,
                                 ArrayRef<int64_t>{p, p + 1, p + 2, p + 3})
                                 .getResult();
      vector::StoreOp::create(b, loc, piece, view, ValueRange{add(off, p)},
                              /*nontemporal=*/false, llvm::MaybeAlign(16));
    }
  }

  /// Loads n floats (n = 1 or 4) from a shared view at `off`.
  Value loadShared(Value view, Value off, int64_t n) {
    if (n == 1)
      return memref::LoadOp::create(b, loc, view, off);
    return vector::LoadOp::create(b, loc, vec(n, f32), view, off,
                                  /*nontemporal=*/false, llvm::MaybeAlign(16));
  }
  Value lanePart(Value x, int64_t e) {
    if (!isa<VectorType>(x.getType()))
      return x;
    return vector::ExtractOp::create(b, loc, x, ArrayRef<int64_t>{e});
  }

  /// Logit soft-capping of a score in natural units (the CUDA-core and
  /// decode kernels' Q is pre-scaled): c * tanh(s / c) with libdevice's
  /// tanhf (tanh.approx's 2^-11 relative error would show in f32 results);
  /// the score itself without softcap.
  Value capScore(Value s) {
    if (!softcap)
      return s;
    Value t = math::TanhOp::create(
        b, loc, arith::DivFOp::create(b, loc, s, softcap));
    return fmul(softcap, t);
  }

  /// The tensor-core kernels' capped score in the exp2 domain,
  /// x = c * tanh(s * scale / c) * log2(e) for a raw score s, with
  /// tanh(y) = 1 - 2 / (2^(2 y log2 e) + 1): one multiply, ex2.approx and
  /// rcp.approx (two MUFU instructions) and one FFMA,
  ///   x = c log2e - 2 c log2e * rcp(ex2(s * 2 scale log2e / c) + 1),
  /// instead of a division and libdevice's tanhf (tens of instructions per
  /// score: the kernel took 3x its uncapped time; now 1.25-1.6x, H200,
  /// bench/RESULTS.md session 9). Saturates exactly (ex2 -> inf gives c,
  /// -> 0 gives -c); the absolute error of x is about c * 2^-21, far below
  /// the f16/bf16 rounding of the output. (PTX tanh.approx.f32, one MUFU
  /// instead of two, measured 1.1-1.3x faster still, but its 2^-11
  /// relative error is an error of up to c * 2^-11 in the capped score.)
  Value capLog2(Value s) {
    const double log2e = 1.4426950408889634;
    double c = softcapD;
    Value e = fastExp2(mulRn(s, fcst(2.0 * scaleD * log2e / c)));
    Value r = LLVM::CallIntrinsicOp::create(
                  b, loc, f32, b.getStringAttr("llvm.nvvm.rcp.approx.ftz.f"),
                  ValueRange{arith::AddFOp::create(b, loc, e, fcst(1.0))})
                  .getResult(0);
    return fma(fcst(-2.0 * c * log2e), r, fcst(c * log2e));
  }

  /// exp(x) as exp2(x * log2(e)).
  Value exp2Of(Value x) {
    return math::Exp2Op::create(b, loc,
                                arith::MulFOp::create(b, loc, x, maskScale));
  }

  Value warpAllReduce(Value x, bool isMax) {
    for (int64_t off = 16; off >= 1; off /= 2) {
      Value o = gpu::ShuffleOp::create(b, loc, x, off, 32, gpu::ShuffleMode::XOR)
                    .getShuffleResult();
      x = isMax ? arith::MaximumFOp::create(b, loc, x, o).getResult()
                : arith::AddFOp::create(b, loc, x, o).getResult();
    }
    return x;
  }

  /// Element width (in elements) of the staging loads of rows of `width`
  /// elements of type `et`: 16 bytes when the row allows it, else 1.
  int64_t stagingWidth(int64_t width, Type et) {
    int64_t n = 128 / et.getIntOrFloatBitWidth();
    return width % n == 0 ? n : 1;
  }

  /// Cooperative copy of `rows` rows of `width` elements (a tile of a global
  /// [B,H,S,width] buffer starting at row `row0`, rows >= `rowLimit` and
  /// columns >= `validCols` read as zero) into the shared view at
  /// `stride` floats per row, pre-multiplied by `factor` when given.
  void stageTile(Value buf, Value i0, Value i1, Value row0, Value rowLimit,
                 int64_t rows, int64_t width, int64_t validCols, Value view,
                 int64_t stride, Value factor) {
    Type et = cast<MemRefType>(buf.getType()).getElementType();
    int64_t n = stagingWidth(validCols, et);
    if (width % n != 0)
      n = 1;
    int64_t chunksPerRow = width / n;
    int64_t total = rows * chunksPerRow;
    int64_t threads = cfg.warps * 32;
    scf::ForOp::create(
        b, loc, tid, cst(total), cst(threads), ValueRange{},
        [&](OpBuilder &, Location, Value c, ValueRange) {
          Value r = arith::DivUIOp::create(b, loc, c, cst(chunksPerRow));
          Value col =
              mul(arith::RemUIOp::create(b, loc, c, cst(chunksPerRow)), n);
          Value gRow = add(row0, r);
          Value ok = cmpi(arith::CmpIPredicate::ult, gRow, rowLimit);
          if (validCols < width)
            ok = arith::AndIOp::create(
                b, loc, ok, cmpi(arith::CmpIPredicate::ult, col, cst(validCols)));
          Type ty = n == 1 ? Type(f32) : Type(vec(n, f32));
          auto ifOk = scf::IfOp::create(b, loc, TypeRange{ty}, ok, true);
          {
            OpBuilder::InsertionGuard g(b);
            b.setInsertionPointToStart(ifOk.thenBlock());
            Value x = loadGlobal(buf, ValueRange{i0, i1, gRow, col}, n);
            if (factor) {
              Value f = n == 1 ? factor
                               : vector::BroadcastOp::create(b, loc, ty, factor)
                                     .getResult();
              x = arith::MulFOp::create(b, loc, x, f);
            }
            scf::YieldOp::create(b, loc, x);
            b.setInsertionPointToStart(ifOk.elseBlock());
            Value z = n == 1 ? fcst(0.0)
                             : arith::ConstantOp::create(
                                   b, loc, ty,
                                   DenseElementsAttr::get(cast<ShapedType>(ty),
                                                          0.0f))
                                   .getResult();
            scf::YieldOp::create(b, loc, z);
          }
          storeShared(ifOk.getResult(0), view, add(mul(r, stride), col));
          scf::YieldOp::create(b, loc);
        });
  }

  // ---- the kernels ------------------------------------------------------
  /// What both kernels compute first, inside the launch: the CTA's (batch,
  /// head, K/V head, first query row), the lane and warp, the dynamic shared
  /// memory base, the causal shift Sk - Sq, the number of K/V tiles the CTA
  /// visits (causal CTAs stop after the last visible one) and the mask's
  /// broadcast indices.
  struct Cta {
    Value lane, warp, h, bi, kh, q0, smem, shift, nKT, mb, mh;
    Value kvEnd; // keys >= kvEnd are hidden from every row of the CTA
    // Keys < kvStart are hidden from every row of the CTA (window); the CTA
    // visits key tiles kt0 .. kt0 + nKT - 1, tile t of its loops holding
    // keys from kvBase + t * kv-tile (kvBase = kt0 * kv-tile).
    Value kvStart, kvBase;
  };
  Cta emitCta(Value blocks, Value nQT) {
    Value one = cst(1), zero = cst(0);
    Value smemBytes = arith::ConstantIntOp::create(b, loc, b.getI32Type(),
                                                   cfg.smemBytes());
    auto launch = gpu::LaunchOp::create(b, loc, blocks, one, one,
                                        cst(cfg.warps * 32), one, one,
                                        smemBytes);
    // The oldest chip the kernel's instructions exist on (mma.sync and
    // cp.async: sm_80; wgmma: only sm_90a). tx-check-gpu-target rejects a
    // pipeline whose chip is older, instead of LLVM's "Cannot select" abort
    // (issue #14, found by the fuzzer).
    if (cfg.wgmma || cfg.mma)
      launch->setAttr(kRequiredChipAttr,
                      b.getStringAttr(cfg.wgmma ? "sm_90a" : "sm_80"));
    b.setInsertionPointToStart(&launch.getBody().front());
    gpu::TerminatorOp::create(b, loc);
    b.setInsertionPointToStart(&launch.getBody().front());

    Cta c;
    tid = launch.getThreadIds().x;
    Value bid = launch.getBlockIds().x;
    c.lane = arith::RemUIOp::create(b, loc, tid, cst(32));
    c.warp = arith::DivUIOp::create(b, loc, tid, cst(32));
    // Query tiles of a head in reverse order: with a causal mask the last
    // tiles have the most keys, and launching them first leaves the short
    // ones to fill the tail of the grid.
    Value qt = arith::SubIOp::create(
        b, loc, arith::SubIOp::create(b, loc, nQT, cst(1)),
        arith::RemUIOp::create(b, loc, bid, nQT));
    Value bh = arith::DivUIOp::create(b, loc, bid, nQT);
    c.h = arith::RemUIOp::create(b, loc, bh, H);
    c.bi = arith::DivUIOp::create(b, loc, bh, H);
    c.kh = arith::DivUIOp::create(b, loc, c.h, G);
    c.q0 = mul(qt, cfg.qTile);
    auto wg = gpu::AddressSpaceAttr::get(b.getContext(),
                                         gpu::AddressSpace::Workgroup);
    c.smem = gpu::DynamicSharedMemoryOp::create(
        b, loc,
        MemRefType::get({ShapedType::kDynamic}, b.getI8Type(),
                        MemRefLayoutAttrInterface(), wg));
    c.shift = sub(Sk, Sq); // key j is on row i's diagonal iff j == i + shift
    Value kvEnd = Sk;
    if (band.right) {
      // The last key the CTA's last row sees.
      Value lastRow = sub(minsi(add(c.q0, cfg.qTile), Sq), one);
      kvEnd = minsi(
          maxsi(add(add(lastRow, c.shift), cst(*band.right + 1)), zero), Sk);
    }
    c.kvEnd = kvEnd;
    Value nEnd = arith::CeilDivUIOp::create(b, loc, kvEnd, cst(cfg.kvTile));
    c.kvStart = zero;
    c.kvBase = zero;
    c.nKT = nEnd;
    if (band.left) {
      // The first key the CTA's first row sees; the loop starts at its
      // tile (tiles stay aligned to kv-tile).
      c.kvStart =
          minsi(maxsi(sub(add(c.q0, c.shift), cst(*band.left)), zero), kvEnd);
      Value kt0 = arith::DivUIOp::create(b, loc, c.kvStart, cst(cfg.kvTile));
      c.kvBase = mul(kt0, cfg.kvTile);
      c.nKT = sub(nEnd, minui(kt0, nEnd));
    }
    ctaKvBase = c.kvBase;
    if (mask) {
      c.mb = maskBatchBcast ? zero : c.bi;
      c.mh = maskHeadBcast ? zero : c.h;
    }
    return c;
  }

  void emitLaunch(Value blocks, Value nQT) {
    if (cfg.wgmma)
      return emitWgmmaLaunch(blocks, nQT);
    if (cfg.mma)
      return emitMmaLaunch(blocks, nQT);
    const int64_t R = cfg.rowsPerWarp(), KPL = cfg.keysPerLane(),
                  T = cfg.outPerLane(), N = cfg.kvTile;
    Value one = cst(1);
    Cta c = emitCta(blocks, nQT);
    Value lane = c.lane, warp = c.warp, h = c.h, bi = c.bi, kh = c.kh,
          q0 = c.q0, base = c.smem, shift = c.shift, nKT = c.nKT, mb = c.mb,
          mh = c.mh;

    // Shared memory: Q | K | V | P, each 16-byte aligned.
    int64_t off = 0;
    Value qs = smemView(base, off, cfg.qFloats());
    off += 4 * FlashConfig::align4(cfg.qFloats());
    Value ks = smemView(base, off, cfg.kFloats());
    off += 4 * FlashConfig::align4(cfg.kFloats());
    Value vs = smemView(base, off, cfg.vFloats());
    off += 4 * FlashConfig::align4(cfg.vFloats());
    Value ps = smemView(base, off, cfg.pFloats());

    // Q tile, pre-scaled; rows past Sq are zeros (never stored).
    stageTile(q, bi, h, q0, Sq, cfg.qTile, cfg.D, cfg.D, qs, cfg.D, scaleNat);

    Value zero = cst(0);
    Value rowW = mul(warp, R);     // first row of this warp in the tile
    Value iW = add(q0, rowW);      // its query index

    Value negInf = fcst(-std::numeric_limits<double>::infinity());
    Value fzero = fcst(0.0);
    SmallVector<Value> init;
    for (int64_t r = 0; r < R; ++r)
      init.push_back(negInf); // m
    for (int64_t r = 0; r < R; ++r)
      init.push_back(fzero); // l (this lane's partial sum)
    for (int64_t x = 0; x < R * T; ++x)
      init.push_back(fzero); // O

    auto kvLoop = scf::ForOp::create(
        b, loc, zero, nKT, one, init,
        [&](OpBuilder &, Location, Value kt, ValueRange carried) {
          Value k0 = add(c.kvBase, mul(kt, N));
          // Stage K (padded rows) and V (zero-padded to 32*T columns).
          gpu::BarrierOp::create(b, loc);
          stageTile(k, bi, kh, k0, Sk, N, cfg.D, cfg.D, ks, cfg.kStride(),
                    Value());
          stageTile(v, bi, kh, k0, Sk, N, cfg.vWidth(), cfg.Dv, vs,
                    cfg.vWidth(), Value());
          gpu::BarrierOp::create(b, loc);

          // S = Q·Kᵀ: lane owns keys lane + 32*kk.
          int64_t ds = cfg.dStep();
          SmallVector<Value> sInit(R * KPL, fzero);
          SmallVector<Value> keyRow;
          for (int64_t kk = 0; kk < KPL; ++kk)
            keyRow.push_back(mul(add(lane, 32 * kk), cfg.kStride()));
          auto dLoop = scf::ForOp::create(
              b, loc, zero, cst(cfg.D), cst(ds), sInit,
              [&](OpBuilder &, Location, Value d, ValueRange sAcc) {
                SmallVector<Value> kvv, qv, next(sAcc.begin(), sAcc.end());
                for (int64_t kk = 0; kk < KPL; ++kk)
                  kvv.push_back(loadShared(ks, add(keyRow[kk], d), ds));
                for (int64_t r = 0; r < R; ++r)
                  qv.push_back(
                      loadShared(qs, add(mul(add(rowW, r), cfg.D), d), ds));
                for (int64_t e = 0; e < ds; ++e)
                  for (int64_t r = 0; r < R; ++r)
                    for (int64_t kk = 0; kk < KPL; ++kk)
                      next[r * KPL + kk] = fma(lanePart(qv[r], e),
                                               lanePart(kvv[kk], e),
                                               next[r * KPL + kk]);
                scf::YieldOp::create(b, loc, next);
              });
          SmallVector<Value> s(dLoop.getResults().begin(),
                               dLoop.getResults().end());
          for (Value &x : s)
            x = capScore(x);

          // Mask operand: applied to every tile.
          if (mask) {
            Value sqLast = sub(Sq, one), skLast = sub(Sk, one);
            for (int64_t r = 0; r < R; ++r) {
              Value i = minsi(add(iW, r), sqLast);
              for (int64_t kk = 0; kk < KPL; ++kk) {
                Value j = minsi(add(k0, add(lane, 32 * kk)), skLast);
                Value mv =
                    memref::LoadOp::create(b, loc, mask, ValueRange{mb, mh, i, j});
                Value &x = s[r * KPL + kk];
                if (keepMask) {
                  x = select(mv, x, negInf);
                } else {
                  // An additive -inf hides the key (select, not add).
                  Value mf = toF32(mv);
                  Value hidden = arith::CmpFOp::create(
                      b, loc, arith::CmpFPredicate::OEQ, mf, negInf);
                  x = select(hidden, negInf, arith::AddFOp::create(b, loc, x, mf));
                }
              }
            }
          }

          // Key tail and the band (causal, window): only tiles that need it.
          Value tail = cmpi(arith::CmpIPredicate::ugt, add(k0, N), Sk);
          Value need = tail;
          if (Value crosses = bandCrosses(k0, N, iW, add(iW, R - 1), shift))
            need = arith::OrIOp::create(b, loc, tail, crosses);
          {
            SmallVector<Type> types(R * KPL, f32);
            auto ifNeed = scf::IfOp::create(b, loc, types, need, true);
            OpBuilder::InsertionGuard g(b);
            b.setInsertionPointToStart(ifNeed.thenBlock());
            SmallVector<Value> masked;
            for (int64_t r = 0; r < R; ++r)
              for (int64_t kk = 0; kk < KPL; ++kk) {
                Value j = add(k0, add(lane, 32 * kk));
                Value ok = inBand(cmpi(arith::CmpIPredicate::ult, j, Sk), j,
                                  add(iW, r), shift);
                masked.push_back(select(ok, s[r * KPL + kk], negInf));
              }
            scf::YieldOp::create(b, loc, masked);
            b.setInsertionPointToStart(ifNeed.elseBlock());
            scf::YieldOp::create(b, loc, s);
            b.setInsertionPointAfter(ifNeed);
            for (int64_t x = 0; x < R * KPL; ++x)
              s[x] = ifNeed.getResult(x);
          }

          // Online softmax per row; P to shared memory for the P·V product.
          SmallVector<Value> next(R * (2 + T));
          SmallVector<Value> alpha(R);
          for (int64_t r = 0; r < R; ++r) {
            Value m = carried[r], l = carried[R + r];
            Value mt = s[r * KPL];
            for (int64_t kk = 1; kk < KPL; ++kk)
              mt = arith::MaximumFOp::create(b, loc, mt, s[r * KPL + kk]);
            mt = warpAllReduce(mt, /*isMax=*/true);
            Value mNew = arith::MaximumFOp::create(b, loc, m, mt);
            Value dead = arith::CmpFOp::create(b, loc, arith::CmpFPredicate::OEQ,
                                               mNew, negInf);
            Value mSafe = select(dead, fzero, mNew);
            // Natural units until after the max is subtracted, so that
            // s - m is exact for large scores (CASES S2: 1000 vs 1001 in f32).
            alpha[r] = exp2Of(arith::SubFOp::create(b, loc, m, mSafe));
            Value lNew = arith::MulFOp::create(b, loc, l, alpha[r]);
            for (int64_t kk = 0; kk < KPL; ++kk) {
              Value p =
                  exp2Of(arith::SubFOp::create(b, loc, s[r * KPL + kk], mSafe));
              lNew = arith::AddFOp::create(b, loc, lNew, p);
              Value pOff = add(mul(add(rowW, r), N), add(lane, 32 * kk));
              memref::StoreOp::create(b, loc, p, ps, pOff);
            }
            next[r] = mNew;
            next[R + r] = lNew;
          }
          gpu::BarrierOp::create(b, loc);

          // O = O * alpha + P·V; lane owns columns lane + 32*t.
          SmallVector<Value> oInit;
          for (int64_t r = 0; r < R; ++r)
            for (int64_t t = 0; t < T; ++t)
              oInit.push_back(arith::MulFOp::create(
                  b, loc, carried[2 * R + r * T + t], alpha[r]));
          // Keys hidden by the mask, the causal diagonal or the window may
          // hold anything (a KV cache's padding): P == 0 must not multiply V.
          const bool mayHide = mask || band.bounded();
          auto jLoop = scf::ForOp::create(
              b, loc, zero, cst(N), cst(4), oInit,
              [&](OpBuilder &, Location, Value j, ValueRange oAcc) {
                SmallVector<Value> pv, o(oAcc.begin(), oAcc.end());
                for (int64_t r = 0; r < R; ++r)
                  pv.push_back(loadShared(ps, add(mul(add(rowW, r), N), j), 4));
                for (int64_t e = 0; e < 4; ++e)
                  for (int64_t t = 0; t < T; ++t) {
                    Value vv = loadShared(
                        vs, add(mul(add(j, e), cfg.vWidth()), add(lane, 32 * t)),
                        1);
                    for (int64_t r = 0; r < R; ++r) {
                      Value pe = lanePart(pv[r], e);
                      Value acc = fma(pe, vv, o[r * T + t]);
                      // A key hidden from this row (P == 0) contributes
                      // nothing, whatever V holds (0 * NaN is NaN).
                      if (mayHide)
                        acc = select(arith::CmpFOp::create(
                                         b, loc, arith::CmpFPredicate::OEQ, pe,
                                         fzero),
                                     o[r * T + t], acc);
                      o[r * T + t] = acc;
                    }
                  }
                scf::YieldOp::create(b, loc, o);
              });
          for (int64_t x = 0; x < R * T; ++x)
            next[2 * R + x] = jLoop.getResult(x);
          scf::YieldOp::create(b, loc, next);
        });

    // O / l, stored once in Q's element type.
    Value fone = fcst(1.0);
    for (int64_t r = 0; r < R; ++r) {
      Value l = warpAllReduce(kvLoop.getResult(R + r), /*isMax=*/false);
      Value none =
          arith::CmpFOp::create(b, loc, arith::CmpFPredicate::OEQ, l, fzero);
      Value inv = select(none, fzero, arith::DivFOp::create(b, loc, fone, l));
      Value i = add(iW, r);
      auto ifRow =
          scf::IfOp::create(b, loc, cmpi(arith::CmpIPredicate::ult, i, Sq), false);
      OpBuilder::InsertionGuard g(b);
      b.setInsertionPointToStart(ifRow.thenBlock());
      if (lseOut) // m in natural units (Q was pre-scaled by the scale)
        ifThen(cmpi(arith::CmpIPredicate::eq, lane, cst(0)), [&] {
          storeLse(kvLoop.getResult(r), l, bi, h, i);
        });
      for (int64_t t = 0; t < T; ++t) {
        Value y =
            arith::MulFOp::create(b, loc, kvLoop.getResult(2 * R + r * T + t), inv);
        if (elt != f32)
          y = arith::TruncFOp::create(b, loc, elt, y);
        Value c = add(lane, 32 * t);
        if (32 * (t + 1) > cfg.Dv) {
          auto ifCol = scf::IfOp::create(
              b, loc, cmpi(arith::CmpIPredicate::ult, c, cst(cfg.Dv)), false);
          OpBuilder::InsertionGuard g2(b);
          b.setInsertionPointToStart(ifCol.thenBlock());
          memref::StoreOp::create(b, loc, y, out, ValueRange{bi, h, i, c});
        } else {
          memref::StoreOp::create(b, loc, y, out, ValueRange{bi, h, i, c});
        }
      }
    }
  }

  // ---- split-KV decode kernels --------------------------------------------
  //
  // FlashDecoding (Dao et al. 2023) with grouped-query packing; see the
  // pass description in Passes.td. Kernel 1: CTA (b, kv head, split) of 4
  // warps, every warp its own part; kernel 2: one warp per query row merges
  // the parts.

  Value ceilDiv(Value x, Value y) {
    return arith::CeilDivUIOp::create(b, loc, x, y);
  }
  Value fmax(Value x, Value y) {
    return arith::MaximumFOp::create(b, loc, x, y);
  }
  Value fadd(Value x, Value y) { return arith::AddFOp::create(b, loc, x, y); }
  Value fsub(Value x, Value y) { return arith::SubFOp::create(b, loc, x, y); }
  Value fmul(Value x, Value y) { return arith::MulFOp::create(b, loc, x, y); }
  Value feq(Value x, Value y) {
    return arith::CmpFOp::create(b, loc, arith::CmpFPredicate::OEQ, x, y);
  }
  /// A 1-D launch of `blocks` CTAs of `threads` threads with `smemBytes`
  /// bytes of dynamic shared memory; the builder is left inside its body.
  /// Returns (thread id, block id).
  std::pair<Value, Value> emitPlainLaunch(Value blocks, int64_t threads,
                                          int64_t smemBytes) {
    Value one = cst(1);
    Value smem =
        arith::ConstantIntOp::create(b, loc, b.getI32Type(), smemBytes);
    auto launch = gpu::LaunchOp::create(b, loc, blocks, one, one,
                                        cst(threads), one, one, smem);
    b.setInsertionPointToStart(&launch.getBody().front());
    gpu::TerminatorOp::create(b, loc);
    b.setInsertionPointToStart(&launch.getBody().front());
    return {launch.getThreadIds().x, launch.getBlockIds().x};
  }

  void emitDecode() {
    const int64_t W = cfg.warps, Gs = cfg.decodeG, SqS = cfg.decodeSq;
    const int64_t P = Gs * SqS, D = cfg.D, Dv = cfg.Dv;
    const int64_t nv = 16 / cfg.eltBytes; // elements per 16-byte K load
    const int64_t Cv = Dv / 32;           // output columns per lane
    Value zero = cst(0), one = cst(1);
    Value negInf = fcst(-std::numeric_limits<double>::infinity());
    Value fzero = fcst(0.0);
    Value Hkv = arith::DivUIOp::create(b, loc, H, G);
    Value bh = mul(B, Hkv);

    // Splits: one wave of CTAs (as many as fit on num-sms SMs at once, from
    // the shared memory per CTA) over B * Hkv * splits, at least 2 tiles
    // per warp per split, a multiple of 32 keys each. Fewer, longer CTAs
    // keep each warp's pipeline full; B * Hkv beyond one wave takes 1 split.
    Value nSplit;
    if (cfg.kvSplits > 0) {
      nSplit = cst(cfg.kvSplits);
    } else {
      int64_t perSm = std::clamp<int64_t>(
          kSmemPerSm / (cfg.decodeSmemBytes() + 1024), 1, 64 / W);
      Value want = arith::DivUIOp::create(b, loc, cst(perSm * cfg.numSms),
                                          maxsi(bh, one));
      Value most = ceilDiv(Sk, cst(2 * cfg.decodeTileKeys * W));
      nSplit = maxsi(minsi(want, most), one);
    }
    Value keysPerSplit =
        maxsi(mul(ceilDiv(ceilDiv(Sk, nSplit), cst(32)), 32), cst(32));
    nSplit = maxsi(ceilDiv(Sk, keysPerSplit), one);
    Value nRows = mul(mul(B, H), Sq);
    auto buf1d = MemRefType::get({ShapedType::kDynamic}, f32);
    Value oPart = memref::AllocOp::create(
        b, loc, buf1d, ValueRange{maxsi(mul(mul(nSplit, nRows), Dv), one)});
    Value mlPart = memref::AllocOp::create(
        b, loc, buf1d, ValueRange{maxsi(mul(mul(nSplit, nRows), 2), one)});
    // Part p of row `row`: m at mlPart[p * nRows + row], l at
    // mlPart[(nSplit + p) * nRows + row], O at oPart[(p * nRows + row) * Dv].
    // Arrival counters, one per (batch, K/V head), zeroed before the launch:
    // the last CTA of each to finish merges its parts.
    Value counters = memref::AllocOp::create(
        b, loc, MemRefType::get({ShapedType::kDynamic}, b.getI32Type()),
        ValueRange{maxsi(bh, one)});
    ifThen(cmpi(arith::CmpIPredicate::ugt, nSplit, one), [&] {
      auto tokTy = gpu::AsyncTokenType::get(b.getContext());
      Value t0 =
          gpu::WaitOp::create(b, loc, tokTy, ValueRange{}).getAsyncToken();
      Value t1 = gpu::MemsetOp::create(
                     b, loc, tokTy, ValueRange{t0}, counters,
                     arith::ConstantIntOp::create(b, loc, b.getI32Type(), 0))
                     .getAsyncToken();
      gpu::WaitOp::create(b, loc, Type(), ValueRange{t1});
    });

    // ---- kernel 1: split-KV partial states ----
    // Shared memory: Q (P x D f32, pre-scaled), then per warp its P buffer
    // (P x 32 f32) and S stages of one 32-key tile each: K rows padded by 16
    // bytes (lane j reads row j: 8 consecutive lanes hit distinct banks)
    // and V rows. Each warp runs its own cp.async pipeline, S - 1 tiles
    // ahead, synchronized by warp barriers only.
    const int64_t S = cfg.decodeStages;
    const int64_t TK = cfg.decodeTileKeys; // keys per warp step
    const int64_t LPK = 32 / TK;           // lanes per key
    const int64_t DL = D / LPK;            // K columns per lane
    const int64_t kStr = cfg.decodeKStride();
    const int64_t qBytes = cfg.decodeQBytes(), pBytes = cfg.decodePBytes();
    const int64_t kBytes = cfg.decodeKBytes(), vBytes = cfg.decodeVBytes();
    const int64_t warpBytes = cfg.decodeWarpBytes();
    Value blocks = mul(bh, nSplit);
    ifThen(cmpi(arith::CmpIPredicate::ugt, blocks, zero), [&] {
      OpBuilder::InsertionGuard g(b);
      auto [tidV, bid] = emitPlainLaunch(blocks, 32 * W, cfg.decodeSmemBytes());
      b.getBlock()->getParentOp()->setAttr(kRequiredChipAttr,
                                           b.getStringAttr("sm_80"));
      tid = tidV;
      Value lane = arith::RemUIOp::create(b, loc, tid, cst(32));
      Value warp = arith::DivUIOp::create(b, loc, tid, cst(32));
      Value sp = arith::RemUIOp::create(b, loc, bid, nSplit);
      Value bhk = arith::DivUIOp::create(b, loc, bid, nSplit);
      Value kh = arith::RemUIOp::create(b, loc, bhk, Hkv);
      Value bi = arith::DivUIOp::create(b, loc, bhk, Hkv);
      auto wg = gpu::AddressSpaceAttr::get(b.getContext(),
                                           gpu::AddressSpace::Workgroup);
      Value base = gpu::DynamicSharedMemoryOp::create(
          b, loc,
          MemRefType::get({ShapedType::kDynamic}, b.getI8Type(),
                          MemRefLayoutAttrInterface(), wg));
      auto view = [&](Value off, ArrayRef<int64_t> shape, Type et) -> Value {
        auto ty = MemRefType::get(shape, et, MemRefLayoutAttrInterface(), wg);
        return memref::ViewOp::create(b, loc, ty, base, off, ValueRange{});
      };
      Value qs = smemView(base, 0, P * D);
      Value warpBase = add(cst(qBytes), mul(warp, warpBytes));
      Value ps = view(warpBase, {P * TK}, f32);
      // Stage s of this warp: K at kView(s), V at vView(s).
      auto stageOff = [&](Value s) {
        return add(add(warpBase, pBytes), mul(s, kBytes + vBytes));
      };
      auto kView = [&](Value s) { return view(stageOff(s), {TK, kStr}, elt); };
      auto vView = [&](Value s) {
        return view(add(stageOff(s), kBytes), {TK, Dv}, elt);
      };
      // Packed row r: head kh * G + r / Sq, query row r % Sq.
      auto headOf = [&](int64_t r) { return add(mul(kh, Gs), r / SqS); };

      Value kBegin = mul(sp, keysPerSplit);
      Value kEnd = minsi(Sk, add(kBegin, keysPerSplit));
      Value nT = ceilDiv(maxsi(sub(kEnd, kBegin), zero), cst(TK));
      // This warp's tiles: warp, warp + W, ... (nLocal of them).
      Value nLocal = ceilDiv(maxsi(sub(nT, warp), zero), cst(W));
      Value skLast = sub(Sk, one);
      Value shift = sub(Sk, Sq); // causal: key j visible iff j <= i + shift
      Value mb = mask && !maskBatchBcast ? bi : zero;
      auto tileStart = [&](Value u) {
        return add(kBegin, mul(add(warp, mul(u, W)), TK));
      };

      // cp.async of local tile u (when it exists) into stage u % S; rows
      // past the chunk are zero-filled, never read. Always one group.
      auto tokTy = nvgpu::DeviceAsyncTokenType::get(b.getContext());
      auto issue = [&](Value u) -> Value {
        ifThen(cmpi(arith::CmpIPredicate::ult, u, nLocal), [&] {
          Value j0 = tileStart(u);
          Value s = arith::RemUIOp::create(b, loc, u, cst(S));
          auto copyRows = [&](Value buf, Value dst, int64_t width) {
            int64_t cpr = width / nv; // 16-byte chunks per row
            for (int64_t c0 = 0; c0 < TK * cpr; c0 += 32) {
              Value c = add(lane, c0);
              auto copy = [&] {
                Value r = arith::DivUIOp::create(b, loc, c, cst(cpr));
                Value col =
                    mul(arith::RemUIOp::create(b, loc, c, cst(cpr)), nv);
                Value gRow = add(j0, r);
                Value ok = cmpi(arith::CmpIPredicate::ult, gRow, kEnd);
                Value n = select(ok, cst(nv), zero);
                nvgpu::DeviceAsyncCopyOp::create(
                    b, loc, tokTy, dst, ValueRange{r, col}, buf,
                    ValueRange{bi, kh, minsi(gRow, skLast), col},
                    b.getIndexAttr(nv), n, b.getUnitAttr());
              };
              if (c0 + 32 <= TK * cpr)
                copy();
              else
                ifThen(cmpi(arith::CmpIPredicate::ult, c, cst(TK * cpr)),
                       copy);
            }
          };
          copyRows(k, kView(s), D);
          copyRows(v, vView(s), Dv);
        });
        return asyncCommit();
      };
      Value allLanes = arith::ConstantIntOp::create(b, loc, b.getI32Type(), -1);
      auto syncWarp = [&] { NVVM::SyncWarpOp::create(b, loc, allLanes); };
      // The first S - 1 tiles are in flight while Q is loaded.
      for (int64_t s = 0; s + 1 < S; ++s)
        issue(cst(s));
      // Q rows, pre-scaled, f32.
      scf::ForOp::create(
          b, loc, tid, cst(P * D), cst(32 * W), ValueRange{},
          [&](OpBuilder &, Location, Value idx, ValueRange) {
            Value r = arith::DivUIOp::create(b, loc, idx, cst(D));
            Value d = arith::RemUIOp::create(b, loc, idx, cst(D));
            Value gq = arith::DivUIOp::create(b, loc, r, cst(SqS));
            Value i = arith::RemUIOp::create(b, loc, r, cst(SqS));
            Value h = add(mul(kh, Gs), gq);
            Value x = toF32(
                memref::LoadOp::create(b, loc, q, ValueRange{bi, h, i, d}));
            memref::StoreOp::create(b, loc, fmul(x, scaleNat), qs, idx);
            scf::YieldOp::create(b, loc);
          });
      gpu::BarrierOp::create(b, loc); // Q is in shared memory

      SmallVector<Value> init;
      for (int64_t r = 0; r < P; ++r)
        init.push_back(negInf); // m
      for (int64_t r = 0; r < P; ++r)
        init.push_back(fzero); // l (this lane's keys)
      for (int64_t x = 0; x < P * Cv; ++x)
        init.push_back(fzero); // O (columns lane * Cv + c)

      auto tLoop = scf::ForOp::create(
          b, loc, zero, nLocal, one, init,
          [&](OpBuilder &, Location, Value u, ValueRange carried) {
            // Every lane is done with stage (u - 1) % S (and the P buffer)
            // before tile u + S - 1 is copied over it.
            syncWarp();
            asyncWait(issue(add(u, S - 1)), S - 1); // tile u has landed
            syncWarp();
            Value s = arith::RemUIOp::create(b, loc, u, cst(S));
            Value ks = kView(s), vs = vView(s);
            Value j0 = tileStart(u);
            // Lane: key kk of the tile, columns [part * DL, part * DL + DL).
            Value kk = arith::RemUIOp::create(b, loc, lane, cst(TK));
            Value part = arith::DivUIOp::create(b, loc, lane, cst(TK));
            Value j = add(j0, kk);
            Value valid = cmpi(arith::CmpIPredicate::ult, j, kEnd);
            Value jc = minsi(j, skLast);
            // S = Q K^T for the lane's key and every packed row.
            SmallVector<Value> sc(P, fzero);
            Value col0 = mul(part, DL);
            for (int64_t c = 0; c < DL; c += nv) {
              Value kv = toF32(vector::LoadOp::create(
                  b, loc, vec(nv, elt), ks, ValueRange{kk, add(col0, c)},
                  /*nontemporal=*/false, llvm::MaybeAlign(16)));
              for (int64_t e = 0; e < nv; e += 4)
                for (int64_t r = 0; r < P; ++r) {
                  Value qv = loadShared(qs, add(col0, r * D + c + e), 4);
                  for (int64_t x = 0; x < 4; ++x)
                    sc[r] = fma(lanePart(qv, x), lanePart(kv, e + x), sc[r]);
                }
            }
            // The LPK lanes of a key add their column shares.
            for (int64_t r = 0; r < P; ++r)
              for (int64_t off = TK; off < 32; off *= 2)
                sc[r] = fadd(sc[r], gpu::ShuffleOp::create(
                                        b, loc, sc[r], off, 32,
                                        gpu::ShuffleMode::XOR)
                                        .getShuffleResult());
            // Hidden keys: past the chunk, the causal diagonal, the mask.
            for (int64_t r = 0; r < P; ++r) {
              int64_t i = r % SqS;
              Value x = capScore(sc[r]);
              if (mask) {
                Value mh = maskHeadBcast ? zero : headOf(r);
                Value mv = memref::LoadOp::create(
                    b, loc, mask, ValueRange{mb, mh, cst(i), jc});
                if (keepMask) {
                  x = select(mv, x, negInf);
                } else {
                  Value mf = toF32(mv);
                  x = select(feq(mf, negInf), negInf, fadd(x, mf));
                }
              }
              Value ok = valid;
              if (prob.causal)
                ok = arith::AndIOp::create(
                    b, loc, ok,
                    cmpi(arith::CmpIPredicate::sle, j, add(shift, cst(i))));
              sc[r] = select(ok, x, negInf);
            }
            // Online softmax per row; P to the warp's P buffer (written by
            // the first lane of each key; l counts each key LPK times).
            SmallVector<Value> next(P * (2 + Cv));
            SmallVector<Value> pr(P);
            for (int64_t r = 0; r < P; ++r) {
              Value m = carried[r], l = carried[P + r];
              Value mNew = fmax(m, warpAllReduce(sc[r], /*isMax=*/true));
              Value mSafe = select(feq(mNew, negInf), fzero, mNew);
              Value alpha = exp2Of(fsub(m, mSafe));
              Value p = pr[r] = exp2Of(fsub(sc[r], mSafe));
              next[r] = mNew;
              next[P + r] = fadd(fmul(l, alpha), p);
              for (int64_t c = 0; c < Cv; ++c)
                next[2 * P + r * Cv + c] =
                    fmul(carried[2 * P + r * Cv + c], alpha);
            }
            ifThen(cmpi(arith::CmpIPredicate::eq, part, zero), [&] {
              for (int64_t r = 0; r < P; ++r)
                memref::StoreOp::create(b, loc, pr[r], ps,
                                        ValueRange{add(kk, r * TK)});
            });
            syncWarp();
            // O += P V: each V row read once from shared memory, P of 4
            // keys per broadcast load.
            auto emitPV = [&](bool sel) -> SmallVector<Value> {
              SmallVector<Value> o(next.begin() + 2 * P, next.end());
              Value col = mul(lane, Cv);
              for (int64_t k4 = 0; k4 < TK; k4 += 4) {
                SmallVector<Value> p4(P);
                for (int64_t r = 0; r < P; ++r)
                  p4[r] = loadShared(ps, cst(r * TK + k4), 4);
                for (int64_t kk = k4; kk < k4 + 4; ++kk) {
                  Value vv = toF32(
                      Cv == 1 ? memref::LoadOp::create(b, loc, vs,
                                                       ValueRange{cst(kk), col})
                                    .getResult()
                              : vector::LoadOp::create(
                                    b, loc, vec(Cv, elt), vs,
                                    ValueRange{cst(kk), col},
                                    /*nontemporal=*/false,
                                    llvm::MaybeAlign(std::min<int64_t>(
                                        16, Cv * cfg.eltBytes)))
                                    .getResult());
                  for (int64_t r = 0; r < P; ++r) {
                    Value pk = lanePart(p4[r], kk - k4);
                    Value hidden = sel ? feq(pk, fzero) : Value();
                    for (int64_t c = 0; c < Cv; ++c) {
                      Value acc = fma(pk, lanePart(vv, c), o[r * Cv + c]);
                      // A hidden key (P == 0) contributes nothing, whatever
                      // V holds (0 * NaN is NaN).
                      o[r * Cv + c] =
                          sel ? select(hidden, o[r * Cv + c], acc) : acc;
                    }
                  }
                }
              }
              return o;
            };
            SmallVector<Value> o;
            if (mask) {
              o = emitPV(true);
            } else {
              // Only the chunk's last tile, and causal tiles that reach past
              // the first row's diagonal, can hold hidden keys (rows past
              // the chunk are zero-filled, but a causal key inside it may
              // hold anything).
              Value need = cmpi(arith::CmpIPredicate::sgt, add(j0, TK), kEnd);
              if (prob.causal)
                need = arith::OrIOp::create(
                    b, loc, need,
                    cmpi(arith::CmpIPredicate::sgt, add(j0, TK - 1), shift));
              SmallVector<Type> types(P * Cv, f32);
              auto ifNeed = scf::IfOp::create(b, loc, types, need, true);
              OpBuilder::InsertionGuard gd(b);
              b.setInsertionPointToStart(ifNeed.thenBlock());
              scf::YieldOp::create(b, loc, emitPV(true));
              b.setInsertionPointToStart(ifNeed.elseBlock());
              scf::YieldOp::create(b, loc, emitPV(false));
              o.assign(ifNeed.getResults().begin(), ifNeed.getResults().end());
            }
            for (int64_t x = 0; x < P * Cv; ++x)
              next[2 * P + x] = o[x];
            scf::YieldOp::create(b, loc, next);
          });
      asyncWaitAll(); // no cp.async left in flight
      gpu::BarrierOp::create(b, loc); // every warp is done with its stages

      // Each warp's state to shared memory (over its stages): m, l (summed
      // over lanes), O.
      Value st = view(warpBase, {P * (Dv + 2)}, f32);
      for (int64_t r = 0; r < P; ++r) {
        Value l = warpAllReduce(tLoop.getResult(P + r), /*isMax=*/false);
        if (LPK > 1)
          l = fmul(l, fcst(1.0 / LPK));
        ifThen(cmpi(arith::CmpIPredicate::eq, lane, zero), [&] {
          memref::StoreOp::create(b, loc, tLoop.getResult(r), st, cst(r));
          memref::StoreOp::create(b, loc, l, st, cst(P + r));
        });
        for (int64_t c = 0; c < Cv; ++c)
          memref::StoreOp::create(
              b, loc, tLoop.getResult(2 * P + r * Cv + c), st,
              add(mul(lane, Cv), 2 * P + r * Dv + c));
      }
      gpu::BarrierOp::create(b, loc);
      // The CTA's part (split sp) of each row: warp w combines rows w,
      // w + W, ... with the log-sum-exp rule (as the merge kernel does).
      auto stOf = [&](int64_t w) {
        return view(cst(qBytes + w * warpBytes), {P * (Dv + 2)}, f32);
      };
      scf::ForOp::create(
          b, loc, warp, cst(P), cst(W), ValueRange{},
          [&](OpBuilder &, Location, Value r, ValueRange) {
            Value M = negInf;
            for (int64_t w = 0; w < W; ++w)
              M = fmax(M, memref::LoadOp::create(b, loc, stOf(w), r));
            Value mSafe = select(feq(M, negInf), fzero, M);
            Value L = fzero;
            SmallVector<Value> o(Cv, fzero);
            for (int64_t w = 0; w < W; ++w) {
              Value sw = stOf(w);
              Value wt = exp2Of(fsub(memref::LoadOp::create(b, loc, sw, r),
                                     mSafe)); // 0 for an empty warp
              Value dead = feq(wt, fzero);
              Value lw = memref::LoadOp::create(b, loc, sw, add(r, P));
              L = fadd(L, select(dead, fzero, fmul(wt, lw)));
              Value oBase = add(mul(r, Dv), add(mul(lane, Cv), 2 * P));
              for (int64_t c = 0; c < Cv; ++c) {
                Value ov = memref::LoadOp::create(b, loc, sw, add(oBase, c));
                o[c] = select(dead, o[c], fma(wt, ov, o[c]));
              }
            }
            // Packed row r: head kh * G + r / Sq, query row r % Sq.
            Value h = add(mul(kh, Gs), arith::DivUIOp::create(b, loc, r,
                                                              cst(SqS)));
            Value i = arith::RemUIOp::create(b, loc, r, cst(SqS));
            Value row = add(mul(add(mul(bi, H), h), Sq), i);
            auto ifOne = scf::IfOp::create(
                b, loc, cmpi(arith::CmpIPredicate::eq, nSplit, one), true);
            OpBuilder::InsertionGuard gd(b);
            // One split: the CTA's state is the row's; no merge kernel.
            b.setInsertionPointToStart(ifOne.thenBlock());
            storeDecodeRow(o, M, L, lane, bi, h, i);
            // Else the CTA's part, for the merge kernel.
            b.setInsertionPointToStart(ifOne.elseBlock());
            Value pr = add(mul(sp, nRows), row);
            ifThen(cmpi(arith::CmpIPredicate::eq, lane, zero), [&] {
              memref::StoreOp::create(b, loc, M, mlPart, pr);
              memref::StoreOp::create(b, loc, L, mlPart,
                                      add(mul(add(nSplit, sp), nRows), row));
            });
            Value oBase = add(mul(pr, Dv), mul(lane, Cv));
            for (int64_t c = 0; c < Cv; ++c)
              memref::StoreOp::create(b, loc, o[c], oPart, add(oBase, c));
            b.setInsertionPointAfter(ifOne);
            scf::YieldOp::create(b, loc);
          });

      // Several splits: the CTA that arrives last at its (batch, K/V head)
      // counter merges the parts (the threadFenceReduction pattern of the
      // CUDA samples: every thread fences its part's stores at GPU scope,
      // thread 0 takes a ticket after the CTA barrier).
      ifThen(cmpi(arith::CmpIPredicate::ugt, nSplit, one), [&] {
        auto gpuScope = NVVM::MemScopeKind::GPU;
        NVVM::MembarOp::create(b, loc, gpuScope);
        gpu::BarrierOp::create(b, loc);
        Value flag = view(zero, {1}, b.getI32Type());
        Value i32one = arith::ConstantIntOp::create(b, loc, b.getI32Type(), 1);
        ifThen(cmpi(arith::CmpIPredicate::eq, tid, zero), [&] {
          Value ticket =
              memref::AtomicRMWOp::create(b, loc, arith::AtomicRMWKind::addi,
                                          i32one, counters, ValueRange{bhk});
          Value last = arith::CmpIOp::create(
              b, loc, arith::CmpIPredicate::eq,
              arith::IndexCastUIOp::create(b, loc, b.getIndexType(), ticket),
              sub(nSplit, one));
          memref::StoreOp::create(
              b, loc, arith::ExtUIOp::create(b, loc, b.getI32Type(), last),
              flag, zero);
        });
        gpu::BarrierOp::create(b, loc);
        Value isLast = cmpi(arith::CmpIPredicate::ne,
                            arith::IndexCastUIOp::create(
                                b, loc, b.getIndexType(),
                                memref::LoadOp::create(b, loc, flag, zero)),
                            zero);
        ifThen(isLast, [&] {
          NVVM::MembarOp::create(b, loc, gpuScope);
          scf::ForOp::create(
              b, loc, warp, cst(P), cst(W), ValueRange{},
              [&](OpBuilder &, Location, Value r, ValueRange) {
                Value h = add(mul(kh, Gs),
                              arith::DivUIOp::create(b, loc, r, cst(SqS)));
                Value i = arith::RemUIOp::create(b, loc, r, cst(SqS));
                Value row = add(mul(add(mul(bi, H), h), Sq), i);
                mergeDecodeRow(row, bi, h, i, lane, nSplit, nRows, oPart,
                               mlPart);
                scf::YieldOp::create(b, loc);
              });
        });
      });
    });
  }

  /// Merges the nParts parts of query row `row` = (bi, h, i) (one warp;
  /// lane owns Dv / 32 output columns) with the log-sum-exp rule and writes
  /// the output row (storeDecodeRow): M = max m_p, L = sum l_p exp(m_p - M),
  /// O = sum O_p exp(m_p - M) / L; a part whose keys are all hidden has
  /// m_p = -inf and weight 0, never NaN.
  void mergeDecodeRow(Value row, Value bi, Value h, Value i, Value lane,
                      Value nParts, Value nRows, Value oPart, Value mlPart) {
    const int64_t Dv = cfg.Dv, Cv = Dv / 32;
    Value zero = cst(0), one = cst(1);
    Value negInf = fcst(-std::numeric_limits<double>::infinity());
    Value fzero = fcst(0.0);

    // M = max over parts.
    auto mLoop =
        scf::ForOp::create(
            b, loc, lane, nParts, cst(32), ValueRange{negInf},
            [&](OpBuilder &, Location, Value pp, ValueRange acc) {
              Value m = memref::LoadOp::create(
                  b, loc, mlPart, ValueRange{add(mul(pp, nRows), row)});
              scf::YieldOp::create(b, loc, ValueRange{fmax(acc[0], m)});
            });
    Value M = warpAllReduce(mLoop.getResult(0), /*isMax=*/true);
    Value mSafe = select(feq(M, negInf), fzero, M);
    // Parts in groups of 32: lane x loads part g + x's (m, l) and
    // weight; O rows of the group are then read with all 32 loads in
    // flight (the weights come by shuffles).
    SmallVector<Value> init(1 + Cv, fzero);
    Value lastPart = sub(nParts, one);
    auto pLoop =
        scf::ForOp::create(
            b, loc, zero, nParts, cst(32), init,
            [&](OpBuilder &, Location, Value g0, ValueRange acc) {
              Value pp = add(g0, lane);
              Value in = cmpi(arith::CmpIPredicate::ult, pp, nParts);
              Value pc = minsi(pp, lastPart);
              Value pr = add(mul(pc, nRows), row);
              Value m = memref::LoadOp::create(b, loc, mlPart, ValueRange{pr});
              Value l = memref::LoadOp::create(
                  b, loc, mlPart,
                  ValueRange{add(mul(add(nParts, pc), nRows), row)});
              // 0 for an empty part and for lanes past the last part.
              Value w = select(in, exp2Of(fsub(m, mSafe)), fzero);
              Value dead = feq(w, fzero);
              SmallVector<Value> nx;
              nx.push_back(fadd(acc[0], select(dead, fzero, fmul(w, l))));
              SmallVector<Value> o(acc.begin() + 1, acc.end());
              for (int64_t x = 0; x < 32; ++x) {
                Value wx = gpu::ShuffleOp::create(b, loc, w, x, 32,
                                                  gpu::ShuffleMode::IDX)
                               .getShuffleResult();
                Value deadX = feq(wx, fzero);
                Value px = minsi(add(g0, x), lastPart);
                Value oBase = add(mul(add(mul(px, nRows), row), Dv),
                                  mul(lane, Cv));
                Value ov = loadGlobal(oPart, ValueRange{oBase}, Cv);
                for (int64_t c = 0; c < Cv; ++c)
                  o[c] = select(deadX, o[c], fma(wx, lanePart(ov, c), o[c]));
              }
              nx.append(o.begin(), o.end());
              scf::YieldOp::create(b, loc, nx);
            });
    Value L = warpAllReduce(pLoop.getResult(0), /*isMax=*/false);
    storeDecodeRow(SmallVector<Value>(pLoop.getResults().begin() + 1,
                                      pLoop.getResults().end()),
                   M, L, lane, bi, h, i);
  }

  /// The decode kernels' last step for query row (bi, h, i): the lane's Cv
  /// output columns O / L in Q's type (zeros for a row that saw no key,
  /// L = 0), and the row's log-sum-exp M + log L (lane 0) when requested.
  void storeDecodeRow(ArrayRef<Value> o, Value M, Value L, Value lane,
                      Value bi, Value h, Value i) {
    const int64_t Cv = cfg.Dv / 32;
    Value fzero = fcst(0.0);
    Value inv = select(feq(L, fzero), fzero,
                       arith::DivFOp::create(b, loc, fcst(1.0), L));
    for (int64_t c = 0; c < Cv; ++c) {
      Value y = fmul(o[c], inv);
      if (elt != f32)
        y = arith::TruncFOp::create(b, loc, elt, y);
      memref::StoreOp::create(b, loc, y, out,
                              ValueRange{bi, h, i, add(mul(lane, Cv), c)});
    }
    if (lseOut)
      ifThen(cmpi(arith::CmpIPredicate::eq, lane, cst(0)),
             [&] { storeLse(M, L, bi, h, i); });
  }

  // ---- tensor-core kernel -------------------------------------------------
  //
  // FlashAttention-2's register layout on mma.sync m16n8k16 (sm_80+): warp w
  // owns query rows [16w, 16w + 16) of the CTA's tile. Per K/V tile:
  //   S (16 x kv-tile, f32) = Q (A fragments, kept in registers for the
  //   whole kernel) x K^T (B fragments: ldmatrix of K rows);
  //   each thread holds S at rows g, g+8 (g = lane / 4) and columns
  //   2*(lane % 4) + {0, 1} of every 8-key block: the row max and sum are
  //   reduced over the 4 threads of a quad (shuffle xor 1, 2);
  //   P (f32 -> Q's type in registers; two 8-key C fragments form one k16 A
  //   fragment) x V (B fragments: ldmatrix.trans of V rows) accumulates into
  //   O (Dv/8 C fragments in registers).
  // K/V tiles are copied global -> shared with cp.async (16 bytes, zero-fill
  // past Sk); shared rows are padded by 16 bytes against bank conflicts.

  VectorType vec2(int64_t r, int64_t c, Type t) {
    return VectorType::get({r, c}, t);
  }

  // ---- hidden keys (tensor-core kernels) ----------------------------------
  // A key hidden from a query contributes nothing to it, whatever its K and
  // V hold (a KV cache's padding slots may hold NaN or Inf). Scores of
  // hidden keys are selected to -inf, so K never matters; but the tensor
  // cores multiply P = 0 by V, and 0 * NaN is NaN. So keys hidden from
  // every query row of the CTA are never read: their K and V rows are
  // zero-filled by cp.async (src-size 0). Keys past the CTA's last visible
  // one (causal, Sk) use the copies' row limit; keys hidden by the mask use
  // visibility flags, computed per K/V tile from the mask before the tile is
  // copied (emitKeyVisibility) and read by the copies (keyVisible).

  /// The flag buffers at `byteOffset` of the dynamic shared memory: written
  /// as bytes, read as one integer of flagGroups() bytes per key.
  void setupKeyFlags(Value smemBase, Value byteOffset) {
    auto wg = gpu::AddressSpaceAttr::get(b.getContext(),
                                         gpu::AddressSpace::Workgroup);
    int64_t G = cfg.flagGroups(), n = cfg.flagBuffers() * cfg.kvTile;
    flagsW = memref::ViewOp::create(
        b, loc,
        MemRefType::get({n * G}, b.getI8Type(), MemRefLayoutAttrInterface(),
                        wg),
        smemBase, byteOffset, ValueRange{});
    flagsR = memref::ViewOp::create(
        b, loc,
        MemRefType::get({n}, b.getIntegerType(8 * G),
                        MemRefLayoutAttrInterface(), wg),
        smemBase, byteOffset, ValueRange{});
  }
  /// Scans the mask of K/V tile `kt` (keys [kt * kv-tile, +kv-tile)) for the
  /// CTA's query rows and writes, into flag buffer `flagBuf`, whether each
  /// key is visible to at least one row (mask entry true / not -inf, causal
  /// diagonal, rows < Sq, keys < Sk). Thread c scans key c % kv-tile for the
  /// rows r = c / kv-tile + k * G (G = flagGroups()) and stops at the first
  /// row that sees it. The caller orders the writes before the reads with a
  /// CTA barrier.
  void emitKeyVisibility(Value kt, Value flagBuf, Value q0, Value shift,
                         Value mb, Value mh) {
    const int64_t N = cfg.kvTile, G = cfg.flagGroups(),
                  T = cfg.warps * 32, QT = cfg.qTile;
    Type i1 = b.getI1Type();
    Value k0 = add(ctaKvBase, mul(kt, N)), base = mul(flagBuf, N);
    Value sqLast = sub(Sq, cst(1)), skLast = sub(Sk, cst(1));
    Value negInf = fcst(-std::numeric_limits<double>::infinity());
    scf::ForOp::create(
        b, loc, tid, cst(G * N), cst(T), ValueRange{},
        [&](OpBuilder &, Location, Value c, ValueRange) {
          Value jj = arith::RemUIOp::create(b, loc, c, cst(N));
          Value g = arith::DivUIOp::create(b, loc, c, cst(N));
          Value j = add(k0, jj);
          Value keyOk = cmpi(arith::CmpIPredicate::ult, j, Sk);
          Value jc = minsi(j, skLast);
          Value no = arith::ConstantIntOp::create(b, loc, i1, 0);
          auto rows = scf::ForOp::create(
              b, loc, g, cst(QT), cst(G), ValueRange{no},
              [&](OpBuilder &, Location, Value r, ValueRange it) {
                auto ifSeen = scf::IfOp::create(b, loc, TypeRange{i1}, it[0],
                                                true);
                OpBuilder::InsertionGuard gd(b);
                b.setInsertionPointToStart(ifSeen.thenBlock());
                scf::YieldOp::create(b, loc, it[0]);
                b.setInsertionPointToStart(ifSeen.elseBlock());
                Value i = add(q0, r);
                Value ok = inBand(
                    arith::AndIOp::create(
                        b, loc, keyOk, cmpi(arith::CmpIPredicate::ult, i, Sq)),
                    j, i, shift);
                Value mv = memref::LoadOp::create(
                    b, loc, mask, ValueRange{mb, mh, minsi(i, sqLast), jc});
                Value open =
                    keepMask ? mv
                             : arith::CmpFOp::create(
                                   b, loc, arith::CmpFPredicate::UNE, toF32(mv),
                                   negInf)
                                   .getResult();
                scf::YieldOp::create(b, loc,
                                     ValueRange{arith::AndIOp::create(
                                         b, loc, ok, open)});
                b.setInsertionPointAfter(ifSeen);
                scf::YieldOp::create(b, loc, ifSeen.getResults());
              });
          Value byte = arith::ExtUIOp::create(b, loc, b.getI8Type(),
                                              rows.getResult(0));
          memref::StoreOp::create(b, loc, byte, flagsW,
                                  ValueRange{add(mul(add(base, jj), G), g)});
          scf::YieldOp::create(b, loc);
        });
  }
  /// Whether key `r` of the tile in flag buffer `flagBuf` is visible to some
  /// query row of the CTA.
  Value keyVisible(Value flagBuf, Value r) {
    Value w = memref::LoadOp::create(
        b, loc, flagsR, ValueRange{add(mul(flagBuf, cfg.kvTile), r)});
    Value zero = arith::ConstantIntOp::create(b, loc, w.getType(), 0);
    return cmpi(arith::CmpIPredicate::ne, w, zero);
  }

  /// cp.async of a [rows x width] tile of a global [B,H,S,width] buffer (rows
  /// from row0; rows >= rowLimit are zero-filled) into a 2-D shared view.
  /// With `flagBuf`, rows whose key is hidden from every query row of the
  /// CTA (keyVisible) are zero-filled too: never read from memory.
  void asyncTile(Value buf, Value i0, Value i1, Value row0, Value rowLimit,
                 int64_t rows, int64_t width, Value view,
                 Value flagBuf = Value(), Value rowStart = Value()) {
    int64_t perCopy = 16 / cfg.eltBytes;
    int64_t chunksPerRow = width / perCopy;
    int64_t total = rows * chunksPerRow;
    auto tokTy = nvgpu::DeviceAsyncTokenType::get(b.getContext());
    Value lastRow = sub(rowLimit, cst(1));
    scf::ForOp::create(
        b, loc, tid, cst(total), cst(cfg.warps * 32), ValueRange{},
        [&](OpBuilder &, Location, Value c, ValueRange) {
          Value r = arith::DivUIOp::create(b, loc, c, cst(chunksPerRow));
          Value col = mul(arith::RemUIOp::create(b, loc, c, cst(chunksPerRow)),
                          perCopy);
          Value gRow = add(row0, r);
          Value ok = cmpi(arith::CmpIPredicate::ult, gRow, rowLimit);
          if (rowStart) // keys below the window of every row: not read
            ok = arith::AndIOp::create(
                b, loc, ok, cmpi(arith::CmpIPredicate::uge, gRow, rowStart));
          if (flagBuf)
            ok = arith::AndIOp::create(b, loc, ok, keyVisible(flagBuf, r));
          Value srcRow = minsi(gRow, lastRow);
          Value n = select(ok, cst(perCopy), cst(0));
          nvgpu::DeviceAsyncCopyOp::create(
              b, loc, tokTy, view, ValueRange{r, col}, buf,
              ValueRange{i0, i1, srcRow, col}, b.getIndexAttr(perCopy), n,
              b.getUnitAttr());
          scf::YieldOp::create(b, loc);
        });
  }
  /// Emits `body` under `scf.if cond`.
  void ifThen(Value cond, llvm::function_ref<void()> body) {
    auto ifOp = scf::IfOp::create(b, loc, cond, false);
    OpBuilder::InsertionGuard gd(b);
    b.setInsertionPointToStart(ifOp.thenBlock());
    body();
  }
  /// Closes the current cp.async group (cp.async.commit_group).
  Value asyncCommit() {
    auto tokTy = nvgpu::DeviceAsyncTokenType::get(b.getContext());
    return nvgpu::DeviceAsyncCreateGroupOp::create(b, loc, tokTy, ValueRange{});
  }
  /// Waits until at most `pending` cp.async groups are in flight.
  void asyncWait(Value tok, int64_t pending) {
    nvgpu::DeviceAsyncWaitOp::create(b, loc, tok, b.getI32IntegerAttr(pending));
  }
  void asyncWaitAll() { asyncWait(asyncCommit(), 0); }
  Value ldmatrix(Value view, Value row, Value col, bool trans, int64_t tiles) {
    VectorType ty = vec2(tiles, 2, elt);
    return nvgpu::LdMatrixOp::create(b, loc, ty, view, ValueRange{row, col},
                                     b.getBoolAttr(trans),
                                     b.getI32IntegerAttr(tiles));
  }
  /// 2^x with PTX ex2.approx.ftz.f32 (one MUFU.EX2; the libdevice exp2f
  /// behind math.exp2 adds denormal handling around it). Flushing results
  /// below 2^-126 to 0 is harmless for softmax weights.
  Value fastExp2(Value x) {
    return LLVM::CallIntrinsicOp::create(
               b, loc, f32, b.getStringAttr("llvm.nvvm.ex2.approx.ftz.f32"),
               ValueRange{x})
        .getResult(0);
  }
  /// x * y and x - y rounded on their own (PTX mul.rn / sub.rn): ptxas
  /// contracts a plain mul.f32 followed by sub.f32 into one FFMA, which
  /// would bring back the rounding error of the exact product that the
  /// exp2-domain scores exist to avoid.
  Value mulRn(Value x, Value y) {
    return LLVM::CallIntrinsicOp::create(
               b, loc, f32, b.getStringAttr("llvm.nvvm.mul.rn.f"),
               ValueRange{x, y})
        .getResult(0);
  }
  Value subRn(Value x, Value y) {
    Value negY = arith::NegFOp::create(b, loc, y);
    return LLVM::CallIntrinsicOp::create(
               b, loc, f32, b.getStringAttr("llvm.nvvm.add.rn.f"),
               ValueRange{x, negY})
        .getResult(0);
  }
  /// The two B fragments (rows 0-1 and 2-3) of an ldmatrix x4 result.
  std::pair<Value, Value> splitX4(Value x4) {
    Value halves[2];
    for (int64_t hf = 0; hf < 2; ++hf) {
      VectorType ty = vec2(2, 2, elt);
      Value v = arith::ConstantOp::create(
          b, loc, ty, DenseElementsAttr::get(ty, b.getZeroAttr(elt)));
      for (int64_t r = 0; r < 2; ++r)
        v = vector::InsertOp::create(
            b, loc,
            vector::ExtractOp::create(b, loc, x4, ArrayRef<int64_t>{2 * hf + r}),
            v, ArrayRef<int64_t>{r});
      halves[hf] = v;
    }
    return {halves[0], halves[1]};
  }
  Value mmaSync(Value a, Value bb, Value c) {
    return nvgpu::MmaSyncOp::create(b, loc, a, bb, c,
                                    ArrayRef<int64_t>{16, 8, 16});
  }
  Value quadAllReduce(Value x, bool isMax) {
    for (int64_t off : {1, 2}) {
      Value o = gpu::ShuffleOp::create(b, loc, x, off, 32, gpu::ShuffleMode::XOR)
                    .getShuffleResult();
      x = isMax ? arith::MaximumFOp::create(b, loc, x, o).getResult()
                : arith::AddFOp::create(b, loc, x, o).getResult();
    }
    return x;
  }
  /// vector<rows x 2 x t> from 2*rows scalars (row-major).
  Value pack(ArrayRef<Value> xs, Type t) {
    int64_t rows = xs.size() / 2;
    VectorType ty = vec2(rows, 2, t);
    Value v = arith::ConstantOp::create(
        b, loc, ty, DenseElementsAttr::get(ty, b.getZeroAttr(t)));
    for (int64_t r = 0; r < rows; ++r) {
      Value row = vector::FromElementsOp::create(b, loc, vec(2, f32),
                                                 ValueRange{xs[2 * r], xs[2 * r + 1]});
      if (t != f32)
        row = arith::TruncFOp::create(b, loc, vec(2, t), row);
      v = vector::InsertOp::create(b, loc, row, v, ArrayRef<int64_t>{r});
    }
    return v;
  }

  /// What the two tensor-core kernels (mma.sync and wgmma) share: both keep
  /// S and O in the accumulator layout of an m16n8 C fragment per warp and
  /// 8 columns (thread: rows g and g + 8, columns 2 * (lane % 4) + {0, 1}).
  struct MmaCtx {
    int64_t MT, NT, DT;     // m16 tiles per warp, 8-key and 8-column blocks
    Value col2, rowBase, shift, mb, mh, negInf, fzero;
    SmallVector<Value> rowG; // the thread's rows: rowG[mt * 2 + hh]
  };
  struct MmaStep {
    SmallVector<Value> next; // m[2 MT], l[2 MT]
    SmallVector<Value> o;    // O * alpha, o[mt * DT + dt] (vector<2x2xf32>)
    SmallVector<Value> p;    // P (f32), p[(mt * NT + nt) * 4 + e]
  };
  /// One K/V tile's softmax on raw scores `s` (keys from k0): the mask
  /// operand, the key tail and the causal diagonal, then the online softmax
  /// of the thread's 2 MT rows (max and sum over the 4 threads of a quad),
  /// and O rescaled by exp(m_old - m_new).
  MmaStep mmaSoftmaxStep(const MmaCtx &cx, SmallVector<Value> s, Value k0,
                         ValueRange carried) {
    const int64_t MT = cx.MT, NT = cx.NT, DT = cx.DT, N = 8 * NT;
    Value one = cst(1), col2 = cx.col2, rowBase = cx.rowBase, shift = cx.shift,
          mb = cx.mb, mh = cx.mh, negInf = cx.negInf,
          fzero = cx.fzero;
    ArrayRef<Value> rowG = cx.rowG;

    auto colOf = [&](int64_t nt, int64_t e) {
      return add(add(k0, col2), nt * 8 + e % 2);
    };
    // The exponent (below) is 2^(x - a) with x = s * c and a = m * c, c =
    // scale * log2(e), each product rounded on its own. Where x is formed
    // is a scheduling choice measured on the H200 (bench/RESULTS.md,
    // session 6): the mma.sync kernel forms every x first and takes the max
    // over them (scaleFirst); the wgmma kernel keeps raw scores (max over
    // s, then a = round(m * c), the same value by monotonic rounding) and
    // forms each x right before its exponent. An additive mask joins raw
    // scores as mask / scale, scaled ones as mask * log2(e).
    // Softcap: x = cap(s * scale) * log2(e), formed first in both kernels
    // (the cap is not linear, so the wgmma kernel's raw-score max would not
    // give a by one rounded product).
    const bool scaleFirst = !cfg.wgmma || softcap;
    if (scaleFirst)
      for (Value &x : s)
        x = softcap ? capLog2(x) : mulRn(x, scale);
    Value invScale = scaleFirst
                         ? maskScale
                         : arith::DivFOp::create(b, loc, maskScale, scale)
                               .getResult();
    if (mask) {
      Value sqLast = sub(Sq, one), skLast = sub(Sk, one);
      for (int64_t mt = 0; mt < MT; ++mt)
      for (int64_t nt = 0; nt < NT; ++nt)
        for (int64_t e = 0; e < 4; ++e) {
          Value i = minsi(rowG[mt * 2 + e / 2], sqLast);
          Value j = minsi(colOf(nt, e), skLast);
          Value mv = memref::LoadOp::create(b, loc, mask,
                                            ValueRange{mb, mh, i, j});
          Value &x = s[(mt * NT + nt) * 4 + e];
          if (keepMask) {
            x = select(mv, x, negInf);
          } else {
            // An additive -inf hides the key like a false i1 entry: select,
            // not add (a NaN/Inf score of a hidden key stays hidden).
            Value mf = toF32(mv);
            Value hidden = arith::CmpFOp::create(
                b, loc, arith::CmpFPredicate::OEQ, mf, negInf);
            x = select(hidden, negInf, fma(mf, invScale, x));
          }
        }
    }
    Value need = cmpi(arith::CmpIPredicate::ugt, add(k0, N), Sk);
    if (Value crosses =
            bandCrosses(k0, N, rowBase, add(rowBase, 16 * MT - 1), shift))
      need = arith::OrIOp::create(b, loc, need, crosses);
    {
      SmallVector<Type> types(MT * NT * 4, f32);
      auto ifNeed = scf::IfOp::create(b, loc, types, need, true);
      OpBuilder::InsertionGuard gd(b);
      b.setInsertionPointToStart(ifNeed.thenBlock());
      SmallVector<Value> masked;
      for (int64_t mt = 0; mt < MT; ++mt)
      for (int64_t nt = 0; nt < NT; ++nt)
        for (int64_t e = 0; e < 4; ++e) {
          Value j = colOf(nt, e);
          Value ok = inBand(cmpi(arith::CmpIPredicate::ult, j, Sk), j,
                            rowG[mt * 2 + e / 2], shift);
          masked.push_back(select(ok, s[(mt * NT + nt) * 4 + e], negInf));
        }
      scf::YieldOp::create(b, loc, masked);
      b.setInsertionPointToStart(ifNeed.elseBlock());
      scf::YieldOp::create(b, loc, s);
      b.setInsertionPointAfter(ifNeed);
      for (int64_t x = 0; x < MT * NT * 4; ++x)
        s[x] = ifNeed.getResult(x);
    }

    // Online softmax for the thread's rows (g and g + 8 of each m16
    // tile); r = mt * 2 + hh indexes them.
    SmallVector<Value> mNew(2 * MT), lNew(2 * MT), alpha(2 * MT);
    SmallVector<Value> p(MT * NT * 4);
    for (int64_t mt = 0; mt < MT; ++mt)
      for (int64_t hh = 0; hh < 2; ++hh) {
        int64_t r = mt * 2 + hh;
        Value mx = negInf;
        for (int64_t nt = 0; nt < NT; ++nt)
          for (int64_t e = 2 * hh; e < 2 * hh + 2; ++e)
            mx = arith::MaximumFOp::create(b, loc, mx,
                                           s[(mt * NT + nt) * 4 + e]);
        mx = quadAllReduce(mx, /*isMax=*/true);
        mNew[r] = arith::MaximumFOp::create(b, loc, carried[r], mx);
        Value dead = arith::CmpFOp::create(
            b, loc, arith::CmpFPredicate::OEQ, mNew[r], negInf);
        Value mSafe = select(dead, fzero, mNew[r]);
        // exp(scale * (s - m)) = 2^(x - a) with x = s * c and a = m * c,
        // c = scale * log2(e), each product rounded on its own: rounding is
        // monotonic, so a = max x exactly, x - a <= 0 and is exactly 0 at
        // the maximum, for any magnitude. (FlashAttention-2's single FFMA
        // s * c - a keeps the rounding error of the exact product s * c:
        // with a huge finite maximum, e.g. a K/V tile hidden by a -1e30
        // additive mask or logits of 1e10, that error exceeds 128 and exp2
        // gives inf, then inf * 0 = NaN, or 0; CASES.md H2/H3.) The rescale
        // uses the same rounded anchors: alpha = 2^(a_old - a_new).
        Value a = scaleFirst ? mSafe : mulRn(mSafe, scale);
        Value aOld = scaleFirst ? carried[r] : mulRn(carried[r], scale);
        alpha[r] = fastExp2(subRn(aOld, a));
        lNew[r] =
            arith::MulFOp::create(b, loc, carried[2 * MT + r], alpha[r]);
        for (int64_t nt = 0; nt < NT; ++nt)
          for (int64_t e = 2 * hh; e < 2 * hh + 2; ++e) {
            int64_t x = (mt * NT + nt) * 4 + e;
            p[x] = fastExp2(
                subRn(scaleFirst ? s[x] : mulRn(s[x], scale), a));
            lNew[r] = arith::AddFOp::create(b, loc, lNew[r], p[x]);
          }
      }
    SmallVector<Value> next(mNew.begin(), mNew.end());
    next.append(lNew.begin(), lNew.end());
    SmallVector<Value> o; // o[mt * DT + dt]
    for (int64_t mt = 0; mt < MT; ++mt) {
      Value alphaVec = pack({alpha[mt * 2], alpha[mt * 2],
                             alpha[mt * 2 + 1], alpha[mt * 2 + 1]},
                            f32);
      for (int64_t dt = 0; dt < DT; ++dt)
        o.push_back(arith::MulFOp::create(
            b, loc, carried[4 * MT + mt * DT + dt], alphaVec));
    }
    return {std::move(next), std::move(o), std::move(p)};
  }

  /// lse[bi, h, i] = m + log(l) with m in natural units, -inf when l == 0
  /// (the row saw no key).
  void storeLse(Value mNat, Value l, Value bi, Value h, Value i) {
    Value none = arith::CmpFOp::create(b, loc, arith::CmpFPredicate::OEQ, l,
                                       fcst(0.0));
    Value v = arith::AddFOp::create(b, loc, mNat,
                                    math::LogOp::create(b, loc, l));
    v = select(none, fcst(-std::numeric_limits<double>::infinity()), v);
    memref::StoreOp::create(b, loc, v, lseOut, ValueRange{bi, h, i});
  }

  /// O / l of the thread's rows (a row that saw no key gives zeros), two
  /// elements per store, in Q's type; rows past Sq are not stored.
  void storeMmaOutput(const MmaCtx &cx, ValueRange results, Value bi,
                      Value h) {
    const int64_t MT = cx.MT, DT = cx.DT;
    Value col2 = cx.col2, fzero = cx.fzero;
    ArrayRef<Value> rowG = cx.rowG;
    // O / l, two elements per store.
    Value fone = fcst(1.0);
    for (int64_t r = 0; r < 2 * MT; ++r) {
      int64_t mt = r / 2, hh = r % 2;
      Value l = quadAllReduce(results[2 * MT + r], /*isMax=*/false);
      Value none =
          arith::CmpFOp::create(b, loc, arith::CmpFPredicate::OEQ, l, fzero);
      Value inv = select(none, fzero, arith::DivFOp::create(b, loc, fone, l));
      Value invVec = vector::BroadcastOp::create(b, loc, vec(2, f32), inv);
      auto ifRow = scf::IfOp::create(
          b, loc, cmpi(arith::CmpIPredicate::ult, rowG[r], Sq), false);
      OpBuilder::InsertionGuard gd(b);
      b.setInsertionPointToStart(ifRow.thenBlock());
      if (lseOut) {
        // The anchor a of the exponents 2^(x - a) (mmaSoftmaxStep): the
        // carried max in exp2 units (mma.sync) or raw (wgmma), times ln 2.
        Value m = results[r];
        Value a = cfg.wgmma && !softcap ? mulRn(m, scale) : m;
        Value mNat = arith::MulFOp::create(b, loc, a,
                                           fcst(0.69314718055994531));
        ifThen(cmpi(arith::CmpIPredicate::eq, col2, cst(0)),
               [&] { storeLse(mNat, l, bi, h, rowG[r]); });
      }
      for (int64_t dt = 0; dt < DT; ++dt) {
        Value row = vector::ExtractOp::create(
            b, loc, results[4 * MT + mt * DT + dt],
            ArrayRef<int64_t>{hh});
        Value y = arith::MulFOp::create(b, loc, row, invVec);
        y = arith::TruncFOp::create(b, loc, vec(2, elt), y);
        vector::StoreOp::create(b, loc, y, out,
                                ValueRange{bi, h, rowG[r], add(col2, dt * 8)},
                                /*nontemporal=*/false,
                                llvm::MaybeAlign(2 * cfg.eltBytes));
      }
    }
  }

  void emitMmaLaunch(Value blocks, Value nQT) {
    const int64_t N = cfg.kvTile, D = cfg.D, Dv = cfg.Dv;
    const int64_t NT = N / 8, KD = D / 16, DT = Dv / 8, KC = N / 16;
    const int64_t MT = cfg.mTiles; // m16 tiles per warp (rows 16 * MT)
    Value one = cst(1), zero = cst(0);
    Cta c = emitCta(blocks, nQT);
    Value lane = c.lane, warp = c.warp, h = c.h, bi = c.bi, kh = c.kh,
          q0 = c.q0, base = c.smem, shift = c.shift, nKT = c.nKT, mb = c.mb,
          mh = c.mh;
    Value g = arith::DivUIOp::create(b, loc, lane, cst(4));
    Value t4 = arith::RemUIOp::create(b, loc, lane, cst(4));
    auto wg = gpu::AddressSpaceAttr::get(b.getContext(),
                                         gpu::AddressSpace::Workgroup);
    int64_t off = 0;
    auto view2d = [&](int64_t rows, int64_t cols) -> Value {
      auto ty = MemRefType::get({rows, cols}, elt, MemRefLayoutAttrInterface(), wg);
      Value v = memref::ViewOp::create(b, loc, ty, base, cst(off), ValueRange{});
      off += rows * cols * cfg.eltBytes;
      return v;
    };
    Value qs = view2d(cfg.qTile, cfg.qStrideMma());
    Value ks = view2d(N, cfg.kStrideMma());
    Value vs = view2d(N, cfg.vStrideMma());
    // Keys hidden from every row of the CTA are zero-filled, never read:
    // past kvEnd (causal, window, Sk) by the row limit, below kvStart
    // (window) by kvLow, by the mask through the flags (buffer t % 2 holds
    // tile t's).
    Value kvEnd = c.kvEnd;
    Value kvLow = band.left ? c.kvStart : Value();
    if (cfg.keyFlags)
      setupKeyFlags(base, cst(off));
    auto flagBufOf = [&](Value t) -> Value {
      return cfg.keyFlags ? remui(t, 2) : Value();
    };
    auto visibility = [&](Value t) {
      if (cfg.keyFlags)
        ifThen(cmpi(arith::CmpIPredicate::ult, t, nKT), [&] {
          emitKeyVisibility(t, remui(t, 2), q0, shift, mb, mh);
        });
    };

    // Q tile -> shared -> A fragments in registers for the whole kernel.
    asyncTile(q, bi, h, q0, Sq, cfg.qTile, D, qs);
    visibility(zero); // ordered before K(0)'s copy by the barrier below
    asyncWaitAll();
    gpu::BarrierOp::create(b, loc);
    Value lane16 = arith::RemUIOp::create(b, loc, lane, cst(16));
    Value laneHi8 = mul(arith::DivUIOp::create(b, loc, lane, cst(16)), 8);
    Value warpRow = mul(warp, 16 * MT);
    // Q's A fragments: loaded once and kept in registers for D <= 32; for
    // larger D re-read from shared memory per K/V tile (D/16 ldmatrix x4),
    // which frees 4*D/16 registers for the S and O fragments (without it
    // ptxas spills at D = 64 causal and D = 128).
    auto loadQ = [&]() { // frags[mt * KD + kk]
      SmallVector<Value> frags;
      for (int64_t mt = 0; mt < MT; ++mt)
        for (int64_t kk = 0; kk < KD; ++kk)
          frags.push_back(ldmatrix(qs, add(add(warpRow, lane16), 16 * mt),
                                   add(laneHi8, kk * 16), /*trans=*/false, 4));
      return frags;
    };
    // Q's A fragments (MT * KD * 4 registers) stay in registers when they
    // are few: D <= 32, or D <= 64 with 32-key tiles (the S tile is then
    // half as large); otherwise they are re-read from shared memory per
    // K/V tile, which keeps the kernel within 255 registers.
    const bool qInRegisters = D <= 32 || (D <= 64 && cfg.kvTile <= 32);
    SmallVector<Value> qa;
    if (qInRegisters)
      qa = loadQ();

    Value rowBase = add(q0, warpRow); // query index of the warp's row 0
    // The thread's rows: rowG[mt * 2 + hh] = rowBase + 16 mt + g + 8 hh.
    SmallVector<Value> rowG;
    for (int64_t mt = 0; mt < MT; ++mt)
      for (int64_t hh = 0; hh < 2; ++hh)
        rowG.push_back(add(add(rowBase, g), 16 * mt + 8 * hh));
    Value negInf = fcst(-std::numeric_limits<double>::infinity());
    Value fzero = fcst(0.0);
    VectorType accTy = vec2(2, 2, f32);
    Value accZero = arith::ConstantOp::create(
        b, loc, accTy, DenseElementsAttr::get(accTy, 0.0f));
    // Carried: m[2 MT], l[2 MT], O[MT * DT] (O[mt * DT + dt]).
    SmallVector<Value> init(2 * MT, negInf);
    init.append(2 * MT, fzero);
    init.append(MT * DT, accZero);
    Value col2 = mul(t4, 2);
    Value kRow8 = arith::RemUIOp::create(b, loc, lane, cst(8));
    Value kCol8 = mul(arith::RemUIOp::create(
                          b, loc, arith::DivUIOp::create(b, loc, lane, cst(8)),
                          cst(2)),
                      8);
    Value kCol8x4 = mul(arith::DivUIOp::create(b, loc, lane, cst(8)), 8);
    MmaCtx mx{MT, NT, DT, col2, rowBase, shift, mb, mh, negInf, fzero, rowG};

    // Software pipeline (FlashAttention-2's): K and V tiles are separate
    // cp.async groups; K(t+1) is copied while the softmax and P V of tile t
    // run, V(t+1) while S of tile t+1 runs. Invariant at the top of
    // iteration t: groups K(t), V(t) in flight, in that order.
    {
      auto ifAny = scf::IfOp::create(
          b, loc, cmpi(arith::CmpIPredicate::ugt, nKT, zero), false);
      OpBuilder::InsertionGuard gd(b);
      b.setInsertionPointToStart(ifAny.thenBlock());
      asyncTile(k, bi, kh, c.kvBase, kvEnd, N, D, ks, flagBufOf(zero),
                kvLow);
      asyncCommit();
      asyncTile(v, bi, kh, c.kvBase, kvEnd, N, Dv, vs, flagBufOf(zero),
                kvLow);
      asyncCommit();
    }
    auto kvLoop = scf::ForOp::create(
        b, loc, zero, nKT, one, init,
        [&](OpBuilder &, Location, Value kt, ValueRange carried) {
          Value k0 = add(c.kvBase, mul(kt, N));
          Value kNext = add(k0, N);
          // Tile t+1's key visibility, read by its copies below (after the
          // barriers of this step).
          visibility(add(kt, one));
          asyncWait(asyncCommit(), 2); // an empty group: K(t) is complete
          // when at most V(t) and the empty group are in flight.
          gpu::BarrierOp::create(b, loc);

          // S = Q K^T on tensor cores; s[nt*4 + e] in the exp2 domain.
          if (!qInRegisters)
            qa = loadQ();
          // Raw scores (the scale is applied inside the exponent below);
          // K's B fragments two k16 chunks per ldmatrix x4.
          // s[(mt * NT + nt) * 4 + e]; each K fragment feeds MT mma.
          SmallVector<Value> s(MT * NT * 4);
          for (int64_t nt = 0; nt < NT; ++nt) {
            SmallVector<Value> acc(MT, accZero);
            for (int64_t kk = 0; kk < KD; kk += 2) {
              if (kk + 1 < KD) {
                auto [b0, b1] = splitX4(ldmatrix(ks, add(kRow8, nt * 8),
                                                 add(kCol8x4, kk * 16),
                                                 /*trans=*/false, 4));
                for (int64_t mt = 0; mt < MT; ++mt) {
                  acc[mt] = mmaSync(qa[mt * KD + kk], b0, acc[mt]);
                  acc[mt] = mmaSync(qa[mt * KD + kk + 1], b1, acc[mt]);
                }
              } else {
                Value b0 = ldmatrix(ks, add(kRow8, nt * 8), add(kCol8, kk * 16),
                                    /*trans=*/false, 2);
                for (int64_t mt = 0; mt < MT; ++mt)
                  acc[mt] = mmaSync(qa[mt * KD + kk], b0, acc[mt]);
              }
            }
            for (int64_t mt = 0; mt < MT; ++mt)
              for (int64_t e = 0; e < 4; ++e)
                s[(mt * NT + nt) * 4 + e] = vector::ExtractOp::create(
                    b, loc, acc[mt], ArrayRef<int64_t>{e / 2, e % 2});
          }
          // Every warp is done with K(t): start copying K(t+1).
          gpu::BarrierOp::create(b, loc);
          Value more = cmpi(arith::CmpIPredicate::ult, add(kt, one), nKT);
          ifThen(more, [&] {
            asyncTile(k, bi, kh, kNext, kvEnd, N, D, ks,
                      flagBufOf(add(kt, one)), kvLow);
          });
          asyncCommit(); // possibly empty: the group count stays uniform
          MmaStep st = mmaSoftmaxStep(mx, s, k0, carried);
          SmallVector<Value> next = st.next, o = st.o, p = st.p;
          // O += P V on tensor cores, once V(t) has landed; each V fragment
          // feeds MT mma.
          asyncWait(asyncCommit(), 2);
          gpu::BarrierOp::create(b, loc);
          for (int64_t kc = 0; kc < KC; ++kc) {
            SmallVector<Value> pa;
            for (int64_t mt = 0; mt < MT; ++mt) {
              auto P = [&](int64_t nt, int64_t e) {
                return p[(mt * NT + nt) * 4 + e];
              };
              pa.push_back(pack({P(2 * kc, 0), P(2 * kc, 1), P(2 * kc, 2),
                                 P(2 * kc, 3), P(2 * kc + 1, 0),
                                 P(2 * kc + 1, 1), P(2 * kc + 1, 2),
                                 P(2 * kc + 1, 3)},
                                elt));
            }
            for (int64_t dt = 0; dt < DT; dt += 2) {
              if (dt + 1 < DT) {
                auto [b0, b1] =
                    splitX4(ldmatrix(vs, add(lane16, kc * 16),
                                     add(laneHi8, dt * 8), /*trans=*/true, 4));
                for (int64_t mt = 0; mt < MT; ++mt) {
                  o[mt * DT + dt] = mmaSync(pa[mt], b0, o[mt * DT + dt]);
                  o[mt * DT + dt + 1] = mmaSync(pa[mt], b1, o[mt * DT + dt + 1]);
                }
              } else {
                Value b0 = ldmatrix(vs, add(lane16, kc * 16), cst(dt * 8),
                                    /*trans=*/true, 2);
                for (int64_t mt = 0; mt < MT; ++mt)
                  o[mt * DT + dt] = mmaSync(pa[mt], b0, o[mt * DT + dt]);
              }
            }
          }
          next.append(o.begin(), o.end());
          // Every warp is done with V(t): start copying V(t+1).
          gpu::BarrierOp::create(b, loc);
          ifThen(more, [&] {
            asyncTile(v, bi, kh, kNext, kvEnd, N, Dv, vs,
                      flagBufOf(add(kt, one)), kvLow);
          });
          asyncCommit();
          scf::YieldOp::create(b, loc, next);
        });
    asyncWaitAll(); // no copy outlives the kernel

    storeMmaOutput(mx, kvLoop.getResults(), bi, h);

  }


  // ---- sm_90a warpgroup kernel ---------------------------------------------
  //
  // FlashAttention-2's loop on Hopper's warpgroup MMA (wgmma.mma_async, PTX
  // ISA 8.0, sm_90a), issued as FlashAttention-3 (Shah et al. 2024) issues
  // it, without its warp specialization: warpgroup w (warps 4w..4w+3) owns
  // query rows [64w, 64w + 64) of the CTA's tile. Per K/V tile:
  //   S (64 x kv-tile, f32) = Q x K^T, both from shared memory (descriptors);
  //   the accumulators are laid out as mma.sync's C fragments (warp w of the
  //   group: rows 16w + g, 16w + g + 8), so the mask and online softmax are
  //   the mma.sync kernel's (mmaSoftmaxStep);
  //   P (f16 in registers: two 8-key blocks of S form one k16 A fragment)
  //   O (64 x Dv, f32 registers) += P x V (V from shared memory, N-major).
  // Q, K and V tiles live in shared memory in wgmma's 128-byte swizzled
  // canonical layout: rows of 64 elements (128 bytes), the 16-byte chunk c of
  // row r stored at chunk c ^ (r % 8), 8-row atoms of 1 KiB aligned to 1 KiB;
  // a head dim of 128 is two such 64-column blocks. K/V tiles are
  // double-buffered: cp.async copies tile t+1 while tile t is computed, and
  // fence.proxy.async makes the copies visible to wgmma's async proxy.
  // wgmma and its fences are inline PTX (llvm.inline_asm), the form upstream's
  // NVVM dialect lowers nvvm.wgmma.mma_async to; the register-A form needed
  // for P x V has no NVVM op, and nvgpu.warpgroup.mma's accumulator cannot be
  // read element-wise for the softmax.

  Value i64c(int64_t v) {
    return arith::ConstantIntOp::create(b, loc, b.getI64Type(), v);
  }
  Value toI64(Value x) {
    return arith::IndexCastUIOp::create(b, loc, b.getI64Type(), x);
  }
  Value divui(Value x, int64_t y) {
    return arith::DivUIOp::create(b, loc, x, cst(y));
  }
  Value remui(Value x, int64_t y) {
    return arith::RemUIOp::create(b, loc, x, cst(y));
  }

  /// cp.async of a [rows x width] tile of a global [B,H,S,width] buffer (rows
  /// from row0; rows >= rowLimit zero-filled) into the swizzled layout: the
  /// 64-column block cb of the tile occupies rows [cb * rows, (cb + 1) * rows)
  /// of the [R x 64] shared view, from view row `viewRow0`.
  void asyncTileSwizzled(Value buf, Value i0, Value i1, Value row0,
                         Value rowLimit, int64_t rows, int64_t width,
                         Value view, Value viewRow0, Value flagBuf = Value(),
                         Value rowStart = Value()) {
    const int64_t cpr = width / 8; // 16-byte chunks per row
    const int64_t threads = cfg.warps * 32, total = rows * cpr;
    auto tokTy = nvgpu::DeviceAsyncTokenType::get(b.getContext());
    Value lastRow = sub(rowLimit, cst(1));
    auto copy = [&](Value r, Value ch) {
      Value gRow = add(row0, r);
      Value ok = cmpi(arith::CmpIPredicate::ult, gRow, rowLimit);
      if (rowStart) // keys below the window of every row: not read
        ok = arith::AndIOp::create(
            b, loc, ok, cmpi(arith::CmpIPredicate::uge, gRow, rowStart));
      if (flagBuf)
        ok = arith::AndIOp::create(b, loc, ok, keyVisible(flagBuf, r));
      Value n = select(ok, cst(8), cst(0));
      Value dRow = add(add(viewRow0, mul(divui(ch, 8), rows)), r);
      Value dCol = mul(arith::XOrIOp::create(b, loc, remui(ch, 8), remui(r, 8)),
                       8);
      nvgpu::DeviceAsyncCopyOp::create(
          b, loc, tokTy, view, ValueRange{dRow, dCol}, buf,
          ValueRange{i0, i1, minsi(gRow, lastRow), mul(ch, 8)},
          b.getIndexAttr(8), n, b.getUnitAttr());
    };
    if (total % threads == 0 && threads % cpr == 0) {
      // Unrolled: every thread copies the same chunk column of rows
      // tid / cpr + i * (threads / cpr).
      Value r0 = divui(tid, cpr), ch = remui(tid, cpr);
      for (int64_t i = 0; i < total / threads; ++i)
        copy(add(r0, i * (threads / cpr)), ch);
      return;
    }
    scf::ForOp::create(b, loc, tid, cst(total), cst(threads), ValueRange{},
                       [&](OpBuilder &, Location, Value c, ValueRange) {
                         copy(divui(c, cpr), remui(c, cpr));
                         scf::YieldOp::create(b, loc);
                       });
  }

  /// The wgmma shared-memory matrix descriptor (PTX ISA, "Matrix Descriptor
  /// Format") of a 128B-swizzled operand at shared address `addr` (i64):
  /// address >> 4 in bits 0-13; leading byte offset 16 (not used by swizzled
  /// layouts whose K or N step fits one atom) in bits 16-29; stride byte
  /// offset 1024 (from one 8-row atom to the next) in bits 32-45; swizzle
  /// mode 1 (128 bytes) in bits 62-63. Offsets inside an atom (the k16 steps)
  /// are added to the address field, as CUTLASS does.
  Value wgmmaDesc(Value addr) {
    int64_t hi = (int64_t(1) << 62) | (int64_t(1024 >> 4) << 32) |
                 (int64_t(16 >> 4) << 16);
    Value a = arith::AndIOp::create(
        b, loc, arith::ShRUIOp::create(b, loc, addr, i64c(4)), i64c(0x3FFF));
    return arith::OrIOp::create(b, loc, a, i64c(hi));
  }
  Value descPlus(Value desc, int64_t bytes) {
    return bytes == 0 ? desc
                      : arith::AddIOp::create(b, loc, desc, i64c(bytes >> 4))
                            .getResult();
  }

  /// Inline PTX with side effects and `nOut` f32 results (wgmma and its
  /// fences/commit/wait, which must share one statement).
  SmallVector<Value> inlinePtx(StringRef text, StringRef constraints,
                               ValueRange operands, int64_t nOut) {
    MLIRContext *ctx = b.getContext();
    Type resTy = nOut ? LLVM::LLVMStructType::getLiteral(
                            ctx, SmallVector<Type>(nOut, f32))
                      : Type();
    auto asmOp = LLVM::InlineAsmOp::create(
        b, loc, resTy, operands, text, constraints, /*has_side_effects=*/true,
        /*is_align_stack=*/false, LLVM::tailcallkind::TailCallKind::None,
        LLVM::AsmDialectAttr::get(ctx, LLVM::AsmDialect::AD_ATT), ArrayAttr());
    SmallVector<Value> res;
    for (int64_t i = 0; i < nOut; ++i)
      res.push_back(
          LLVM::ExtractValueOp::create(b, loc, asmOp.getRes(), i).getResult());
    return res;
  }
  static std::string regList(int64_t first, int64_t n) {
    std::string r = "{";
    for (int64_t i = 0; i < n; ++i)
      r += (i ? ", $" : "$") + std::to_string(first + i);
    return r + "}";
  }
  /// One asm statement of a warpgroup's tensor-core work for a K/V step:
  ///  - S (64 x n, f32; n / 2 per thread) = sum over t of Q_t x K_t^T,
  ///    wgmma.mma_async m64nNk16 f16 with both operands from shared memory
  ///    (K-major descriptors qDesc[t], kDesc[t]); the first product
  ///    overwrites S (scale-d false). Skipped when qDesc is empty.
  ///  - O (64 x 64 * blocks, f32; tied in/out) += sum over t of P_t x V_t
  ///    with P_t in registers (pRegs[4t..4t+3], f16x2: the k16 A fragment)
  ///    and V from shared memory, N-major (vDesc[t * blocks + cb] for the
  ///    64-column block cb): wgmma.mma_async m64n64k16, imm-trans-b = 1.
  ///    Skipped when oAcc is empty.
  /// wgmma.fence, commit and wait 0 are in the same statement, so no
  /// accumulator register is touched while a product is in flight. Returns
  /// S then O.
  SmallVector<Value> wgmmaBlock(int64_t n, ArrayRef<Value> qDesc,
                                ArrayRef<Value> kDesc, ArrayRef<Value> oAcc,
                                ArrayRef<Value> pRegs, ArrayRef<Value> vDesc) {
    const int64_t nS = qDesc.empty() ? 0 : n / 2, sSteps = qDesc.size();
    const int64_t nO = oAcc.size(), blocks = nO / 32, pSteps = pRegs.size() / 4;
    // Operands: outputs S, O; inputs O (tied), Q/K descriptors, P, V
    // descriptors, the constant 0.
    const int64_t oIn = nS + nO, qkArg = oIn + nO, pArg = qkArg + 2 * sSteps,
                  vArg = pArg + 4 * pSteps, zeroArg = vArg + vDesc.size();
    std::string z = std::to_string(zeroArg);
    // Operand types: f16 or bf16 (Q/K/V's type; P is converted to it).
    const std::string ab = elt.isBF16() ? "bf16.bf16" : "f16.f16";
    std::string text = "{\n.reg .pred p, q;\nsetp.ne.b32 p, $" + z +
                       ", 0;\nsetp.eq.b32 q, $" + z +
                       ", 0;\nwgmma.fence.sync.aligned;\n";
    for (int64_t t = 0; t < sSteps; ++t)
      text += "wgmma.mma_async.sync.aligned.m64n" + std::to_string(n) +
              "k16.f32." + ab + " " + regList(0, nS) + ", $" +
              std::to_string(qkArg + 2 * t) + ", $" +
              std::to_string(qkArg + 2 * t + 1) + (t == 0 ? ", p" : ", q") +
              ", 1, 1, 0, 0;\n";
    for (int64_t t = 0; t < pSteps; ++t)
      for (int64_t cb = 0; cb < blocks; ++cb)
        text += "wgmma.mma_async.sync.aligned.m64n64k16.f32." + ab + " " +
                regList(nS + 32 * cb, 32) + ", " + regList(pArg + 4 * t, 4) +
                ", $" + std::to_string(vArg + t * blocks + cb) +
                ", q, 1, 1, 1;\n";
    text += "wgmma.commit_group.sync.aligned;\n"
            "wgmma.wait_group.sync.aligned 0;\n}";
    std::string cons;
    for (int64_t i = 0; i < nS + nO; ++i)
      cons += "=f,";
    for (int64_t i = 0; i < nO; ++i)
      cons += std::to_string(nS + i) + ",";
    for (int64_t i = 0; i < 2 * sSteps; ++i)
      cons += "l,";
    for (int64_t i = 0; i < 4 * pSteps; ++i)
      cons += "r,";
    for (size_t i = 0; i < vDesc.size(); ++i)
      cons += "l,";
    cons += "r";
    SmallVector<Value> ops(oAcc.begin(), oAcc.end());
    for (int64_t t = 0; t < sSteps; ++t) {
      ops.push_back(qDesc[t]);
      ops.push_back(kDesc[t]);
    }
    ops.append(pRegs.begin(), pRegs.end());
    ops.append(vDesc.begin(), vDesc.end());
    ops.push_back(arith::ConstantIntOp::create(b, loc, b.getI32Type(), 0));
    return inlinePtx(text, cons, ops, nS + nO);
  }
  /// barrier.sync 0 (PTX ISA: the non-.aligned CTA barrier; every thread
  /// of the CTA arrives, possibly at different barrier instructions).
  void ctaBarrierNonAligned() {
    LLVM::CallIntrinsicOp::create(
        b, loc, b.getStringAttr("llvm.nvvm.barrier.cta.sync.all"),
        ValueRange{arith::ConstantIntOp::create(b, loc, b.getI32Type(), 0)});
  }
  /// Two f32 as one f16x2 register (i32), x0 in the low half.
  Value packF16x2(Value x0, Value x1) {
    Value v = vector::FromElementsOp::create(b, loc, vec(2, f32),
                                             ValueRange{x0, x1});
    v = arith::TruncFOp::create(b, loc, vec(2, elt), v);
    v = vector::BitCastOp::create(b, loc, vec(1, b.getI32Type()), v);
    return vector::ExtractOp::create(b, loc, v, ArrayRef<int64_t>{0});
  }
  /// `then` and `otherwise` under scf.if, both yielding `types`.
  SmallVector<Value> ifElse(Value cond, TypeRange types,
                            llvm::function_ref<SmallVector<Value>()> then,
                            llvm::function_ref<SmallVector<Value>()> otherwise) {
    auto ifOp = scf::IfOp::create(b, loc, types, cond, true);
    OpBuilder::InsertionGuard gd(b);
    b.setInsertionPointToStart(ifOp.thenBlock());
    scf::YieldOp::create(b, loc, then());
    b.setInsertionPointToStart(ifOp.elseBlock());
    scf::YieldOp::create(b, loc, otherwise());
    return SmallVector<Value>(ifOp.getResults().begin(),
                              ifOp.getResults().end());
  }

  void emitWgmmaLaunch(Value blocks, Value nQT) {
    const int64_t N = cfg.kvTile, D = cfg.D, Dv = cfg.Dv, QT = cfg.qTile;
    const int64_t NT = N / 8, KD = D / 16, DT = Dv / 8, KC = N / 16;
    const int64_t DB = D / 64, VB = Dv / 64; // 64-column blocks
    Value one = cst(1), zero = cst(0);
    Cta c = emitCta(blocks, nQT);
    Value lane = c.lane, warp = c.warp, h = c.h, bi = c.bi, kh = c.kh,
          q0 = c.q0, base = c.smem, nKT = c.nKT;
    Value g = divui(lane, 4), t4 = remui(lane, 4);

    // Shared memory from the first 1 KiB boundary: Q [QT * DB rows x 64],
    // K [S stages x N * DB rows x 64], V [S stages x N * VB rows x 64].
    Value addr = memref::ExtractAlignedPointerAsIndexOp::create(b, loc, base);
    Value pad = remui(sub(cst(1024), remui(addr, 1024)), 1024);
    auto wgs = gpu::AddressSpaceAttr::get(b.getContext(),
                                          gpu::AddressSpace::Workgroup);
    int64_t off = 0;
    auto region = [&](int64_t rows, Value &view) -> Value {
      auto ty = MemRefType::get({rows, 64}, elt, MemRefLayoutAttrInterface(),
                                wgs);
      view = memref::ViewOp::create(b, loc, ty, base, add(pad, off),
                                    ValueRange{});
      Value a = toI64(add(add(addr, pad), off));
      off += rows * 64 * cfg.eltBytes;
      return a;
    };
    Value qs, ks, vs;
    Value qAddr = region(QT * DB, qs);
    const int64_t S = cfg.stages;
    Value kAddr = region(S * N * DB, ks);
    Value vAddr = region(S * N * VB, vs);
    const int64_t kStage = N * DB * 128, vStage = N * VB * 128; // bytes
    // Keys hidden from every row of the CTA are zero-filled, never read:
    // past kvEnd (causal, Sk) by the row limit, by the mask through the
    // flags (buffer u % 4 holds tile u's; tile u's are written in step
    // u - S, read by the copies of steps u - S + 1 (K) and u - S + 2 (V)).
    Value kvEnd = c.kvEnd;
    Value kvLow = band.left ? c.kvStart : Value(); // window: below every row's
    if (cfg.keyFlags)
      setupKeyFlags(base, add(pad, cst(off)));
    auto flagBufOf = [&](Value u) -> Value {
      return cfg.keyFlags ? remui(u, 4) : Value();
    };
    auto visibility = [&](Value u) {
      if (cfg.keyFlags)
        ifThen(cmpi(arith::CmpIPredicate::ult, u, nKT), [&] {
          emitKeyVisibility(u, remui(u, 4), q0, c.shift, c.mb, c.mh);
        });
    };

    // Slot j (in stage j % S) holds K(j) and V(j - 1): step t computes
    // S(t) and O += P(t - 1) V(t - 1) from slot t. Slot j's copies are one
    // cp.async group, issued S - 1 steps ahead. Prologue: Q with slot 0 (V's
    // half of stage 0 stays unused in step 0), then slots 1 .. S - 2.
    // copySlot(j, stage): K(j) when j < nKT, V(j - 1) when j - 1 < nKT.
    auto copySlot = [&](Value j, Value stageIdx) {
      ifThen(cmpi(arith::CmpIPredicate::ult, j, nKT), [&] {
        asyncTileSwizzled(k, bi, kh, add(c.kvBase, mul(j, N)), kvEnd, N, D,
                          ks, mul(stageIdx, N * DB), flagBufOf(j), kvLow);
      });
      ifThen(arith::AndIOp::create(
                 b, loc, cmpi(arith::CmpIPredicate::ugt, j, zero),
                 cmpi(arith::CmpIPredicate::ule, j, nKT)),
             [&] {
               asyncTileSwizzled(v, bi, kh, add(c.kvBase, mul(sub(j, one), N)),
                                 kvEnd, N, Dv, vs, mul(stageIdx, N * VB),
                                 flagBufOf(sub(j, one)), kvLow);
             });
    };
    asyncTileSwizzled(q, bi, h, q0, Sq, QT, D, qs, zero);
    if (cfg.keyFlags) {
      for (int64_t u = 0; u < S; ++u)
        visibility(cst(u));
      gpu::BarrierOp::create(b, loc);
    }
    copySlot(zero, zero);
    // Exactly one group per slot from here on (no empty groups), so that
    // "slot t has landed" is always wait_group(S - 2). The token only
    // satisfies the op's syntax; the wait is by count.
    Value groupTok = asyncCommit();
    for (int64_t j = 1; j + 1 < S; ++j) {
      copySlot(cst(j), cst(j));
      asyncCommit();
    }

    // The warpgroup's Q descriptors (k16 step t: column block t / 4, 32
    // bytes per step inside it).
    Value wgIdx = divui(warp, 4);
    Value qDesc0 = wgmmaDesc(arith::AddIOp::create(
        b, loc, qAddr, toI64(mul(wgIdx, 64 * 128))));
    SmallVector<Value> qDesc;
    for (int64_t t = 0; t < KD; ++t)
      qDesc.push_back(descPlus(qDesc0, (t / 4) * QT * 128 + (t % 4) * 32));

    Value rowBase = add(q0, mul(warp, 16)); // query index of the warp's row 0
    SmallVector<Value> rowG{add(rowBase, g), add(add(rowBase, g), 8)};
    Value negInf = fcst(-std::numeric_limits<double>::infinity());
    Value fzero = fcst(0.0);
    VectorType accTy = vec2(2, 2, f32);
    Value accZero = arith::ConstantOp::create(
        b, loc, accTy, DenseElementsAttr::get(accTy, 0.0f));
    // Carried: m[2], l[2], O[DT] (vector<2x2xf32>), then X: the pending
    // P(t) of an even warpgroup (N/4 f16x2 registers) or the pending scores
    // S(t) of an odd one (N/2 f32).
    SmallVector<Value> init(2, negInf);
    init.append(2, fzero);
    init.append(DT, accZero);
    MmaCtx mx{1,    NT,     DT,    mul(t4, 2), rowBase, c.shift, c.mb,
              c.mh, negInf, fzero, rowG};
    Value odd = cmpi(arith::CmpIPredicate::eq, remui(wgIdx, 2), one);
    Type i32 = b.getI32Type();

    // Steps t = 0 .. nKT: S(t) for t < nKT, O += P(t-1) V(t-1) for t > 0.
    // Even warpgroups run [S(t), P(t-1) V(t-1)] then softmax(t); odd ones
    // softmax(t-1) then [S(t), P(t-1) V(t-1)], so that in each step one
    // warpgroup's softmax overlaps the other's tensor-core work
    // (FlashAttention-3's ping-pong; here the one barrier per step keeps
    // the two in their phases). The two roles are two loops with the same
    // barriers, each carrying only what it needs.
    // nKT + 1 steps, none when the CTA sees no key (Sk = 0, or causal rows
    // above the diagonal): the last step's P V would otherwise read a V
    // stage that no copy wrote (0 * Inf = NaN).
    Value steps = select(cmpi(arith::CmpIPredicate::ugt, nKT, zero),
                         add(nKT, one), zero);
    auto emitLoop = [&](bool oddRole) -> SmallVector<Value> {
      SmallVector<Value> init2 = init;
      if (oddRole)
        init2.append(N / 2, fzero);
      else
        init2.append(N / 4, arith::ConstantIntOp::create(b, loc, i32, 0));
      auto loop = scf::ForOp::create(
          b, loc, zero, steps, one, init2,
          [&](OpBuilder &, Location, Value kt, ValueRange carried) {
            // Slot kt has landed: at most the S - 2 newer slots are in
            // flight. The barrier also orders every read of stage
            // (kt + S - 1) % S (slot kt - 1, step kt - 1) before the copies
            // into it below.
            asyncWait(groupTok, S - 2);
            NVVM::FenceProxyOp::create(
                b, loc,
                NVVM::ProxyKindAttr::get(b.getContext(),
                                         NVVM::ProxyKind::async_shared),
                NVVM::SharedSpaceAttr::get(b.getContext(),
                                           NVVM::SharedSpace::shared_cta));
            // The two roles run two copies of this loop, so the CTA's
            // warpgroups meet at two different barrier instructions: that
            // needs the non-aligned barrier.sync. (gpu.barrier is bar.sync,
            // i.e. barrier.sync.aligned, which requires every thread of the
            // CTA to execute the same instruction; compute-sanitizer's
            // synccheck reports the aligned form here as a divergent
            // barrier.)
            ctaBarrierNonAligned();
            Value stage = remui(kt, S);
            Value k0 = add(c.kvBase, mul(kt, N));
            Value hasS = cmpi(arith::CmpIPredicate::ult, kt, nKT);
            Value hasPV = cmpi(arith::CmpIPredicate::ugt, kt, zero);
            Value ahead = add(kt, cst(S - 1));
            copySlot(ahead, remui(ahead, S));
            asyncCommit();
            visibility(add(kt, cst(S)));

            Value kDesc0 = wgmmaDesc(arith::AddIOp::create(
                b, loc, kAddr, toI64(mul(stage, kStage))));
            SmallVector<Value> kDesc;
            for (int64_t t = 0; t < KD; ++t)
              kDesc.push_back(
                  descPlus(kDesc0, (t / 4) * N * 128 + (t % 4) * 32));
            Value vDesc0 = wgmmaDesc(arith::AddIOp::create(
                b, loc, vAddr, toI64(mul(stage, vStage))));
            SmallVector<Value> vDesc;
            for (int64_t kc = 0; kc < KC; ++kc)
              for (int64_t cb = 0; cb < VB; ++cb)
                vDesc.push_back(
                    descPlus(vDesc0, cb * N * 128 + kc * 16 * 128));

            // state = (m, l, O vectors).
            SmallVector<Value> state(carried.begin(), carried.begin() + 4 + DT);
            SmallVector<Value> x(carried.begin() + 4 + DT, carried.end());
            auto stateTypes = [&]() {
              SmallVector<Type> t;
              for (Value v : state)
                t.push_back(v.getType());
              return t;
            };
            // The step's tensor-core work: S(t) (when t < nKT) and
            // O += P V (when t > 0). Returns (S or `sDummy`, O scalars).
            auto gemms = [&](ArrayRef<Value> pRegs, ArrayRef<Value> sDummy) {
              SmallVector<Value> o;
              for (int64_t dt = 0; dt < DT; ++dt)
                for (int64_t e = 0; e < 4; ++e)
                  o.push_back(vector::ExtractOp::create(
                      b, loc, state[4 + dt], ArrayRef<int64_t>{e / 2, e % 2}));
              SmallVector<Type> types(N / 2 + DT * 4, f32);
              auto run = [&](bool doS, bool doPV) {
                SmallVector<Value> r = wgmmaBlock(
                    N, doS ? ArrayRef<Value>(qDesc) : ArrayRef<Value>(), kDesc,
                    doPV ? ArrayRef<Value>(o) : ArrayRef<Value>(),
                    doPV ? pRegs : ArrayRef<Value>(), vDesc);
                SmallVector<Value> res;
                if (doS)
                  res.append(r.begin(), r.begin() + N / 2);
                else
                  res.append(sDummy.begin(), sDummy.end());
                if (doPV)
                  res.append(r.end() - DT * 4, r.end());
                else
                  res.append(o.begin(), o.end());
                return res;
              };
              SmallVector<Value> r = ifElse(
                  arith::AndIOp::create(b, loc, hasS, hasPV), types,
                  [&] { return run(true, true); },
                  [&] {
                    return ifElse(
                        hasS, types, [&] { return run(true, false); },
                        [&] { return run(false, true); });
                  });
              for (int64_t dt = 0; dt < DT; ++dt) {
                Value *od = &r[N / 2 + 4 * dt];
                state[4 + dt] = pack({od[0], od[1], od[2], od[3]}, f32);
              }
              return SmallVector<Value>(r.begin(), r.begin() + N / 2);
            };
            // The online softmax of scores s (keys from key0): updates
            // state (m, l, O rescaled) and returns P as f16x2 registers.
            auto softmax = [&](ArrayRef<Value> s, Value key0) {
              MmaStep st = mmaSoftmaxStep(
                  mx, SmallVector<Value>(s.begin(), s.end()), key0, state);
              state = st.next;
              state.append(st.o.begin(), st.o.end());
              auto P = [&](int64_t nt, int64_t e) { return st.p[nt * 4 + e]; };
              SmallVector<Value> p; // k16 step kc: rows g / g+8, keys +0 / +8
              for (int64_t kc = 0; kc < KC; ++kc)
                for (int64_t half = 0; half < 2; ++half)
                  for (int64_t hh = 0; hh < 2; ++hh)
                    p.push_back(packF16x2(P(2 * kc + half, 2 * hh),
                                          P(2 * kc + half, 2 * hh + 1)));
              return p;
            };

            SmallVector<Value> next;
            if (oddRole) {
              // softmax(t - 1) (skipped in step 0), then the tensor cores.
              SmallVector<Type> types = stateTypes();
              types.append(N / 4, i32);
              SmallVector<Value> saved = state;
              SmallVector<Value> sm = ifElse(
                  hasPV, types,
                  [&] {
                    SmallVector<Value> p = softmax(x, sub(k0, cst(N)));
                    SmallVector<Value> r = state;
                    r.append(p.begin(), p.end());
                    return r;
                  },
                  [&] {
                    SmallVector<Value> r = saved;
                    r.append(N / 4, arith::ConstantIntOp::create(b, loc, i32, 0));
                    return r;
                  });
              state.assign(sm.begin(), sm.begin() + 4 + DT);
              SmallVector<Value> p(sm.begin() + 4 + DT, sm.end());
              SmallVector<Value> s = gemms(p, x);
              next = state;
              next.append(s.begin(), s.end());
            } else {
              // The tensor cores, then softmax(t) (skipped in step nKT).
              SmallVector<Value> s = gemms(x, SmallVector<Value>(N / 2, fzero));
              SmallVector<Type> types = stateTypes();
              types.append(N / 4, i32);
              SmallVector<Value> saved = state;
              next = ifElse(
                  hasS, types,
                  [&] {
                    SmallVector<Value> p = softmax(s, k0);
                    SmallVector<Value> r = state;
                    r.append(p.begin(), p.end());
                    return r;
                  },
                  [&] {
                    SmallVector<Value> r = saved;
                    r.append(x.begin(), x.end());
                    return r;
                  });
            }
            scf::YieldOp::create(b, loc, next);
          });
      return SmallVector<Value>(loop.getResults().begin(),
                                loop.getResults().begin() + 4 + DT);
    };
    SmallVector<Type> resTypes;
    for (Value v : init)
      resTypes.push_back(v.getType());
    SmallVector<Value> res = ifElse(
        odd, resTypes, [&] { return emitLoop(true); },
        [&] { return emitLoop(false); });
    asyncWaitAll(); // no copy outlives the kernel
    storeMmaOutput(mx, res, bi, h);
  }

  OpBuilder &b;
  const AttentionProblem &prob;
  Location loc;
  FlashConfig cfg;
  Type f32, elt;
  bool checks; // emit the shape checks of AttentionShapes.h
  Value q, k, v, mask, out, scale, scaleNat, maskScale;
  Value softcap; // f32 cap c of logit soft-capping, when the op has one
  double softcapD = 0.0, scaleD = 1.0; // the cap and the scale (host values)
  // The keys each query sees (causal and window; keyBand), sides wider
  // than 2^40 keys dropped: no GPU tensor is that long.
  KeyBand band;
  // The CTA's kvBase (Cta), for the helpers that need it.
  Value ctaKvBase;
  Value lseOut; // log-sum-exp result [B, H, Sq] (f32), when requested
  Value flagsW, flagsR; // key visibility flags (cfg.keyFlags)
  Value B, H, Sq, Sk, G, tid;
  bool keepMask = false, maskBatchBcast = false, maskHeadBcast = false;
};
} // namespace

SmallVector<Value> mlir::tx::buildAttentionKernel(OpBuilder &b,
                                                  const AttentionProblem &p,
                                                  const FlashConfig &cfg,
                                                  bool checks) {
  return FlashKernelBuilder(b, p, cfg, checks).build();
}
