//===- AttentionKernels.cpp - the attention kernels: entry point, sizes, helpers ---===//
//
// buildAttentionKernel (AttentionKernel.h): the output buffers, the sizes
// and shape checks, the constants of the problem (scale in the exp2 domain,
// softcap, the key band), and the helpers every kernel family uses. The
// families are in SimtKernel.cpp, DecodeKernel.cpp, MmaKernel.cpp and
// WgmmaKernel.cpp; the algorithm is described in FlashKernelBuilder.h.
//
//===----------------------------------------------------------------------===//
#include "GPU/Kernels/Attention/FlashKernelBuilder.h"

using namespace mlir;
using namespace mlir::tx;

/// log2(e): scores are scaled by it so that exponents run on ex2.
static constexpr double kLog2e = 1.4426950408889634;

SmallVector<Value> FlashKernelBuilder::build() {
  auto toBuf = [&](Value t) -> Value {
    auto ty = cast<RankedTensorType>(t.getType());
    return bufferization::ToBufferOp::create(
        b, loc, MemRefType::get(ty.getShape(), ty.getElementType()), t,
        /*read_only=*/true);
  };
  q = toBuf(prob.query);
  // A paged cache read in place: the pools, read through the table by
  // tiles of the family's keys per step.
  k = toBuf(prob.pageTable ? prob.keyPages : prob.key);
  v = toBuf(prob.pageTable ? prob.valuePages : prob.value);
  if (prob.pageTable)
    pages = kernel::PagedKvRows::build(
        b, loc, k, v, prob.pageTable,
        cfg.decode ? cfg.decodeTileKeys : cfg.kvTile);
  if (prob.mask) {
    mask = toBuf(prob.mask);
    auto mTy = cast<MemRefType>(mask.getType());
    keepMask = mTy.getElementType().isInteger(1);
    maskBatchBcast = mTy.getDimSize(0) == 1;
    maskHeadBcast = mTy.getDimSize(1) == 1;
  }
  mods = kernel::ScoreMods::build(b, loc, prob.scoreMod, prob.scoreCaptures,
                                  prob.maskMod, prob.maskCaptures,
                                  /*fastMath=*/!elt.isF32());
  if (prob.kvLengths)
    kvLens = toBuf(prob.kvLengths);
  if (prob.qLengths)
    qLens = toBuf(prob.qLengths);
  AttentionSizes sz = emitAttentionSizesAndChecks(
      b, loc, prob.query, prob.key, prob.value, prob.mask, checks,
      prob.kvLengths, prob.qLengths);
  auto val = [&](OpFoldResult f) {
    return getValueOrCreateConstantIndexOp(b, loc, f);
  };
  B = val(sz.B);
  H = val(sz.H);
  Sq = val(sz.Sq);
  Sk = val(sz.Sk);
  skAll = Sk;
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
  double s = prob.scale;
  scale = fcst(s * kLog2e);
  scaleNat = fcst(s);
  scaleD = s;
  maskScale = fcst(kLog2e);
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
    restoreSk();
  } else {
    emitPrefill();
  }
  return results();
}

void FlashKernelBuilder::restoreSk() {
  Sk = skAll;
  batchRows = Value();
}

void FlashKernelBuilder::emitPrefill() {
  Value nQT = arith::CeilDivUIOp::create(b, loc, Sq, cst(cfg.qTile));
  Value blocks = mul(mul(B, H), nQT);
  auto launch = [&](Value ctas) {
    auto ifAny = scf::IfOp::create(
        b, loc,
        arith::CmpIOp::create(b, loc, arith::CmpIPredicate::ugt, ctas,
                              cst(0)),
        false);
    OpBuilder::InsertionGuard g(b);
    b.setInsertionPointToStart(ifAny.thenBlock());
    emitLaunch(ctas, nQT);
    restoreSk();
  };
  if (cfg.blockSparse) // the visible key tiles, listed first
    keyTiles = kernel::KeyTileLists::build(b, loc, mods, B, H, Sq, Sk,
                                           cfg.qTile, cfg.kvTile);
  if (!cfg.mma || cfg.prefillSplits == 1)
    return launch(blocks);
  // Split-KV (prefill tensor-core kernels): count CTAs per query tile,
  // then the merge kernel. Decided at run time (prefillSplits = 0): the
  // kernel without splits where one chunk is chosen (no workspace).
  auto launchSplit = [&](Value count) {
    emitPrefillSplits(count);
    Value ctas = mul(blocks, split.count);
    launch(ctas);
    emitMergeKernel(split.count, ctas, split.rows, split.oPart, split.mlPart);
    split = PrefillSplit();
  };
  if (cfg.prefillSplits > 1)
    return launchSplit(cst(cfg.prefillSplits));
  Value count = prefillSplitsAtRunTime(blocks);
  auto ifSplit = scf::IfOp::create(
      b, loc, cmpi(arith::CmpIPredicate::ugt, count, cst(1)), true);
  OpBuilder::InsertionGuard g(b);
  b.setInsertionPointToStart(ifSplit.thenBlock());
  const Value tid0 = tid;
  launchSplit(count);
  tid = tid0;
  b.setInsertionPointToStart(ifSplit.elseBlock());
  launch(blocks);
}

Value FlashKernelBuilder::emitBatchLengths(Value bi) {
  auto length = [&](Value lens, Value bound) -> Value {
    Value l = memref::LoadOp::create(b, loc, lens, ValueRange{bi});
    l = arith::IndexCastOp::create(b, loc, b.getIndexType(), l);
    return minsi(maxsi(l, cst(0)), bound);
  };
  if (kvLens)
    Sk = length(kvLens, skAll);
  if (qLens)
    batchRows = length(qLens, Sq);
  return sub(Sk, batchRows ? batchRows : Sq);
}

Value FlashKernelBuilder::deadRow(Value i) {
  if (!batchRows)
    return Value();
  return cmpi(arith::CmpIPredicate::sge, i, batchRows);
}

Value FlashKernelBuilder::fcst(double v) {
  return arith::ConstantOp::create(b, loc, b.getF32FloatAttr(v));
}

Value FlashKernelBuilder::cmpi(arith::CmpIPredicate p, Value x, Value y) {
  return arith::CmpIOp::create(b, loc, p, x, y);
}

Value FlashKernelBuilder::bandCrosses(Value k0, int64_t n, Value iLo, Value iHi, Value shift) {
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

Value FlashKernelBuilder::inBand(Value ok, Value j, Value i, Value shift) {
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

Value FlashKernelBuilder::select(Value c, Value x, Value y) {
  return arith::SelectOp::create(b, loc, c, x, y);
}

Value FlashKernelBuilder::fma(Value x, Value y, Value acc) {
  return math::FmaOp::create(b, loc, x, y, acc);
}

Value FlashKernelBuilder::toF32(Value x) {
  Type t = x.getType();
  Type et = getElementTypeOrSelf(t);
  if (et == f32)
    return x;
  Type target = f32;
  if (auto vt = dyn_cast<VectorType>(t))
    target = VectorType::get(vt.getShape(), f32);
  return arith::ExtFOp::create(b, loc, target, x);
}

Value FlashKernelBuilder::smemView(Value base, int64_t offsetBytes, int64_t floats) {
  auto wg = gpu::AddressSpaceAttr::get(b.getContext(),
                                       gpu::AddressSpace::Workgroup);
  auto ty = MemRefType::get({floats}, f32, MemRefLayoutAttrInterface(), wg);
  return memref::ViewOp::create(b, loc, ty, base, cst(offsetBytes),
                                ValueRange{});
}

Value FlashKernelBuilder::loadGlobal(Value buf, ValueRange idx, int64_t n) {
  if (n == 1)
    return toF32(memref::LoadOp::create(b, loc, buf, idx));
  Type et = cast<MemRefType>(buf.getType()).getElementType();
  int64_t bytes = n * et.getIntOrFloatBitWidth() / 8;
  return toF32(vector::LoadOp::create(b, loc, vec(n, et), buf, idx,
                                      /*nontemporal=*/false,
                                      llvm::MaybeAlign(bytes)));
}

void FlashKernelBuilder::storeShared(Value x, Value view, Value off) {
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

Value FlashKernelBuilder::loadShared(Value view, Value off, int64_t n) {
  if (n == 1)
    return memref::LoadOp::create(b, loc, view, off);
  return vector::LoadOp::create(b, loc, vec(n, f32), view, off,
                                /*nontemporal=*/false, llvm::MaybeAlign(16));
}

Value FlashKernelBuilder::lanePart(Value x, int64_t e) {
  if (!isa<VectorType>(x.getType()))
    return x;
  return vector::ExtractOp::create(b, loc, x, ArrayRef<int64_t>{e});
}

Value FlashKernelBuilder::copyRowOk(Value gRow, Value r, Value rowLimit,
                                    Value rowStart, Value flagBuf) {
  Value ok = cmpi(arith::CmpIPredicate::ult, gRow, rowLimit);
  if (rowStart) // keys below the window of every row: not read
    ok = arith::AndIOp::create(
        b, loc, ok, cmpi(arith::CmpIPredicate::uge, gRow, rowStart));
  if (flagBuf)
    ok = arith::AndIOp::create(b, loc, ok, keyVisible(flagBuf, r));
  return ok;
}

Value FlashKernelBuilder::applyMaskEntry(
    Value x, Value mb, Value mh, Value i, Value j, Value negInf,
    llvm::function_ref<Value(Value, Value)> addEntry) {
  Value mv = memref::LoadOp::create(b, loc, mask, ValueRange{mb, mh, i, j});
  if (keepMask)
    return select(mv, x, negInf);
  Value mf = toF32(mv);
  Value hidden =
      arith::CmpFOp::create(b, loc, arith::CmpFPredicate::OEQ, mf, negInf);
  return select(hidden, negInf, addEntry(x, mf));
}

Value FlashKernelBuilder::capScore(Value s) {
  if (!softcap)
    return s;
  Value t = math::TanhOp::create(
      b, loc, arith::DivFOp::create(b, loc, s, softcap));
  return fmul(softcap, t);
}

Value FlashKernelBuilder::capTanh(Value s) {
  Value y = mulRn(s, fcst(scaleD / softcapD));
  auto asmOp = LLVM::InlineAsmOp::create(
      b, loc, f32, ValueRange{y}, "tanh.approx.f32 $0, $1;", "=f,f",
      /*has_side_effects=*/false, /*is_align_stack=*/false,
      LLVM::tailcallkind::TailCallKind::None,
      LLVM::AsmDialectAttr::get(b.getContext(), LLVM::AsmDialect::AD_ATT),
      ArrayAttr());
  return asmOp.getRes();
}

Value FlashKernelBuilder::capLog2(Value s) {
  return mulRn(capTanh(s), fcst(softcapD * kLog2e));
}

Value FlashKernelBuilder::rawScale() {
  return capFolded() ? fcst(softcapD * kLog2e) : scale;
}

Value FlashKernelBuilder::exp2Of(Value x) {
  return math::Exp2Op::create(b, loc,
                              arith::MulFOp::create(b, loc, x, maskScale));
}

Value FlashKernelBuilder::warpAllReduce(Value x, bool isMax) {
  for (int64_t off = 16; off >= 1; off /= 2) {
    Value o = gpu::ShuffleOp::create(b, loc, x, off, 32, gpu::ShuffleMode::XOR)
                  .getShuffleResult();
    x = isMax ? arith::MaximumFOp::create(b, loc, x, o).getResult()
              : arith::AddFOp::create(b, loc, x, o).getResult();
  }
  return x;
}

int64_t FlashKernelBuilder::stagingWidth(int64_t width, Type et) {
  int64_t n = 128 / et.getIntOrFloatBitWidth();
  return width % n == 0 ? n : 1;
}

void FlashKernelBuilder::stageTile(Value buf, Value i0, Value i1, Value row0, Value rowLimit,
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

SmallVector<Value> mlir::tx::buildAttentionKernel(OpBuilder &b,
                                                  const AttentionProblem &p,
                                                  const FlashConfig &cfg,
                                                  bool checks) {
  return FlashKernelBuilder(b, p, cfg, checks).build();
}
