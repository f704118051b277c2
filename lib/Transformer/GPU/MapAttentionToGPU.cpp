//===- MapAttentionToGPU.cpp - tx.attention's GPU path: strategy, mapping --===//
//
//   tx-attention-strategy    each tx.attention gets its kernel family and
//                            tiles (chooseAttentionKernel) as tx.gpu_strategy
//   tx-map-attention-to-gpu  the tiled IR of tx-tile-attention (or of a
//                            user's transform script) becomes a gpu.launch:
//                            forall -> grid, key loop + tx.online_attention
//                            + epilogue -> the family's kernel body
//   tx-attention-to-gpu      the two with tx-tile-attention in between
//
//===----------------------------------------------------------------------===//
#include "GPU/AttentionKernel.h"
#include "Transformer/GPUTarget.h"
#include "Transformer/AttentionShapes.h"
#include "Transformer/Passes.h"
#include "Transformer/TilingUtils.h"
#include "Transformer/TxOps.h"

#include "mlir/Dialect/Affine/IR/AffineOps.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/IR/Matchers.h"
#include "mlir/Pass/PassManager.h"
#include <cmath>
#include <limits>

namespace mlir {
namespace tx {
#define GEN_PASS_DEF_TXATTENTIONSTRATEGY
#define GEN_PASS_DEF_TXMAPATTENTIONTOGPU
#define GEN_PASS_DEF_TXATTENTIONTOGPU
#include "Transformer/Passes.h.inc"
} // namespace tx
} // namespace mlir

using namespace mlir;
using namespace mlir::tx;

namespace {

//===----------------------------------------------------------------------===//
// tx-attention-strategy
//===----------------------------------------------------------------------===//

struct TxAttentionStrategyPass
    : public tx::impl::TxAttentionStrategyBase<TxAttentionStrategyPass> {
  using Base::Base;
  void runOnOperation() override {
    AttentionTarget target;
    target.sm = sm;
    target.wgmma = wgmma;
    target.maxSharedMemory = maxSharedMemory;
    target.numSms = numSms;
    AttentionChoices c;
    c.warps = warps;
    c.qTile = qTile;
    c.kvTile = kvTile;
    c.stages = stages;
    c.producerWarps = producerWarps;
    c.mmaRowTiles = mmaRowTiles;
    c.tensorCores = tensorCores;
    c.decode = decode;
    c.decodeMaxRows = decodeMaxRows;
    c.kvSplits = kvSplits;
    c.decodeTileKeys = decodeTileKeys;
    c.decodeCluster = decodeCluster;
    c.decodeMergeKernel = decodeMergeKernel;
    auto fail = [&](const Twine &msg) {
      mlir::emitError(getOperation().getLoc(), "tx-attention-to-gpu: ") << msg;
    };
    if (failed(checkAttentionChoices(target, c, fail)))
      return signalPassFailure();
    SmallVector<AttentionOp> ops;
    getOperation().walk([&](AttentionOp op) { ops.push_back(op); });
    for (AttentionOp op : ops) {
      // A strategy already on the op (written by hand or by a tuner, or by
      // an earlier run of this pass) is kept, not replaced by the table's
      // choice: it is checked here against the op, and
      // tx-map-attention-to-gpu checks it against the chip.
      if (Attribute a = op->getAttr(kGpuStrategyAttr)) {
        if (failed(checkKeptStrategy(op, a)))
          return signalPassFailure();
        continue;
      }
      FailureOr<std::optional<FlashConfig>> cfg = chooseAttentionKernel(
          op, AttentionProblem::fromOp(op), target, c);
      if (failed(cfg))
        return signalPassFailure();
      if (*cfg)
        op->setAttr(kGpuStrategyAttr, strategyToAttr(&getContext(), **cfg));
    }
  }

  /// A kept strategy must be a dictionary that strategyFromAttr accepts for
  /// this op, on an op whose head dims the GPU kernels take.
  static LogicalResult checkKeptStrategy(AttentionOp op, Attribute a) {
    constexpr llvm::StringLiteral kept =
        " (a strategy already on the op is kept, not replaced)";
    auto dict = dyn_cast<DictionaryAttr>(a);
    if (!dict)
      return op.emitError("tx-attention-strategy: ")
             << kGpuStrategyAttr << " must be a dictionary" << kept;
    AttentionProblem p = AttentionProblem::fromOp(op);
    int64_t D = p.D(), Dv = p.Dv();
    if (ShapedType::isDynamic(D) || ShapedType::isDynamic(Dv) || D < 1 ||
        Dv < 1 || D > 256 || Dv > 256) {
      auto dim = [](int64_t d) {
        return ShapedType::isDynamic(d) ? std::string("?")
                                        : std::to_string(d);
      };
      return op.emitError("tx-attention-strategy: ")
             << kGpuStrategyAttr
             << " needs static head dims D and Dv in [1, 256], got D = "
             << dim(D) << ", Dv = " << dim(Dv)
             << "; without it the op takes the reference lowering" << kept;
    }
    bool bad = false;
    (void)strategyFromAttr(dict, p, [&](const Twine &msg) {
      op.emitError("tx-attention-strategy: ") << msg << kept;
      bad = true;
    });
    return failure(bad);
  }
};

//===----------------------------------------------------------------------===//
// tx-map-attention-to-gpu
//===----------------------------------------------------------------------===//

struct TxMapAttentionToGPUPass
    : public tx::impl::TxMapAttentionToGPUBase<TxMapAttentionToGPUPass> {
  using Base::Base;

  /// The tensor a tile was sliced from: extract_slice sources followed out
  /// of `forall`. Null when the tile is computed inside the forall.
  static Value wholeTensor(Value v, scf::ForallOp forall) {
    while (v) {
      Operation *def = v.getDefiningOp();
      Region *r = v.getParentRegion();
      if (!forall->isAncestor(r->getParentOp()))
        return v; // defined outside: the whole tensor
      if (std::optional<StagedTile> st = stagedTile(v)) {
        v = st->source;
        continue;
      }
      auto s = dyn_cast_or_null<tensor::ExtractSliceOp>(def);
      if (!s)
        return Value();
      v = s.getSource();
    }
    return v;
  }

  /// The staged tile's source (tx-stage-attention; through every staging
  /// when staged more than once), else `v`.
  static Value unstaged(Value v) {
    while (std::optional<StagedTile> st = stagedTile(v))
      v = st->source;
    return v;
  }

  /// Checks the staging of the tile's operands (tx-stage-attention): Q
  /// staged once on its slice chain inside the forall, K and V staged as
  /// the tile op's operands (one key tile per step), all in workgroup
  /// memory; the mask not staged.
  LogicalResult checkStaging(scf::ForallOp forall, OnlineAttentionOp tile,
                             llvm::function_ref<LogicalResult(const Twine &)>
                                 fail) {
    const char *fix = " (run tx-stage-attention, or "
                      "transform.structured.promote_tensor to "
                      "#gpu.address_space<workgroup> on it)";
    // Each operand's stagings on its chain inside the forall, in workgroup
    // memory.
    auto stagings = [&](StringRef what,
                        Value v) -> FailureOr<SmallVector<StagedTile>> {
      SmallVector<StagedTile> st = stagingsInside(v, forall);
      for (const StagedTile &t : st)
        if (!isWorkgroupMemory(t.memorySpace))
          return fail("the " + what + " tile is staged in " +
                      memorySpaceText(t.memorySpace) +
                      "; the kernels stage tiles in shared memory "
                      "(#gpu.address_space<workgroup>)");
      return st;
    };
    FailureOr<SmallVector<StagedTile>> q = stagings("Q", tile.getQuery());
    if (failed(q))
      return failure();
    if (q->empty())
      return fail(Twine("the Q tile is not staged in shared memory; every "
                        "kernel family reads Q from shared memory") +
                  fix);
    if (q->size() > 1)
      return fail("the Q tile is staged " + Twine(q->size()) +
                  " times; the kernels stage it once per CTA");
    for (auto [what, v] : {std::pair<StringRef, Value>{"K", tile.getKey()},
                           {"V", tile.getValue()}}) {
      // Exactly one staging, the tile op's operand itself.
      FailureOr<SmallVector<StagedTile>> kv = stagings(what, v);
      if (failed(kv))
        return failure();
      bool direct = stagedTile(v).has_value();
      if (kv->empty())
        return fail("the " + what + " tile is not staged in shared memory; "
                    "every kernel family reads K and V tiles from shared "
                    "memory" + Twine(fix));
      if (!direct || kv->size() > 1)
        return fail("the " + what + " tile is staged " +
                    (!direct ? Twine("outside the key loop (all of its keys "
                                     "at once)")
                             : Twine(kv->size()) + " times") +
                    "; the kernels stage one key tile per step, once: "
                    "stage only the tx.online_attention's " + what +
                    " operand");
    }
    if (Value m = tile.getMask())
      if (!stagingsInside(m, forall).empty())
        return fail("the mask tile is staged; the kernels read the mask "
                    "from global memory, one key tile at a time (stage Q, "
                    "K and V only)");
    return success();
  }

  /// The per-batch lengths tensor of a length the tiling read:
  /// `minsi(maxsi(index_cast(tensor.extract %lens[%b]), 0), bound)` with %b
  /// the forall's batch variable and %lens defined outside it
  /// (tx.attention's tiling, OnlineAttention.cpp). Null otherwise.
  static Value clampedLength(Value v, scf::ForallOp forall) {
    auto mn = v.getDefiningOp<arith::MinSIOp>();
    if (!mn)
      return Value();
    for (Value x : mn->getOperands()) {
      auto mx = x.getDefiningOp<arith::MaxSIOp>();
      if (!mx)
        continue;
      for (Value y : mx->getOperands()) {
        auto cast = y.getDefiningOp<arith::IndexCastOp>();
        auto ex = cast ? cast.getIn().getDefiningOp<tensor::ExtractOp>()
                       : tensor::ExtractOp();
        if (!ex || ex.getIndices().size() != 1 ||
            ex.getIndices()[0] != forall.getInductionVar(0))
          continue;
        Value t = ex.getTensor();
        if (!forall->isAncestor(t.getParentRegion()->getParentOp()))
          return t;
      }
    }
    return Value();
  }

  /// The epilogue op ("output" or "lse") that produces `v`, through casts.
  static StringRef epilogueKind(Value v) {
    while (auto c = v.getDefiningOp<tensor::CastOp>())
      v = c.getSource();
    auto g = v.getDefiningOp<linalg::GenericOp>();
    if (!g)
      return "";
    auto a = g->getAttrOfType<StringAttr>(kAttentionEpilogueAttr);
    return a ? a.getValue() : "";
  }

  LogicalResult mapForall(scf::ForallOp forall, OnlineAttentionOp tile) {
    auto fail = [&](const Twine &msg) {
      forall.emitError("tx-map-attention-to-gpu: ") << msg;
      return failure();
    };
    // The forall: (B, H, Sq) from 0, one batch and head per iteration and
    // q_tile query rows: steps (1, 1, q_tile) with the Q slice at the
    // induction variables (tx-tile-attention), or the normalized form of
    // transform.structured.tile_using_forall (steps 1, rows at iv * q_tile).
    if (forall.getRank() != 3)
      return fail("expected an scf.forall over (B, H, Sq) of a tiled "
                  "tx.attention, got " +
                  Twine(forall.getRank()) + " induction variables");
    for (OpFoldResult lb : forall.getMixedLowerBound())
      if (!isConstantIntValue(lb, 0))
        return fail("the forall must start at (0, 0, 0)");
    SmallVector<OpFoldResult> steps = forall.getMixedStep();
    tensor::ExtractSliceOp qSlice;
    Value qRoot = unstaged(tile.getQuery());
    for (auto s = qRoot.getDefiningOp<tensor::ExtractSliceOp>(); s;
         s = qRoot.getDefiningOp<tensor::ExtractSliceOp>()) {
      qSlice = s;
      qRoot = unstaged(s.getSource());
    }
    if (!qSlice || forall->isAncestor(qRoot.getParentRegion()->getParentOp()))
      return fail("the tile's Q must be a slice of a Q defined outside the "
                  "forall (a Q scaled inside the tile, as for a dynamic head "
                  "dim without a scale, has no GPU kernel)");
    SmallVector<OpFoldResult> qOffs = qSlice.getMixedOffsets();
    SmallVector<OpFoldResult> qSizes = qSlice.getMixedSizes();
    auto isIv = [&](OpFoldResult o, int i) {
      return llvm::dyn_cast_if_present<Value>(o) ==
             forall.getInductionVar(i);
    };
    // The tile size of dimension i: the step when the slice starts at the
    // induction variable, else c for a normalized forall (step 1, offset
    // affine.apply (d0 * c)(iv)); 0 when neither.
    auto tileOf = [&](int i) -> int64_t {
      std::optional<int64_t> st = getConstantIntValue(steps[i]);
      if (!st || *st < 1)
        return 0;
      if (isIv(qOffs[i], i)) {
        if (*st == 1 && !isConstantIntValue(qSizes[i], 1))
          return 0;
        return *st;
      }
      auto v = llvm::dyn_cast_if_present<Value>(qOffs[i]);
      auto ap = v ? v.getDefiningOp<affine::AffineApplyOp>()
                  : affine::AffineApplyOp();
      if (*st != 1 || !ap || ap.getMapOperands().size() != 1 ||
          ap.getMapOperands()[0] != forall.getInductionVar(i))
        return 0;
      auto bin = dyn_cast<AffineBinaryOpExpr>(ap.getAffineMap().getResult(0));
      if (!bin || bin.getKind() != AffineExprKind::Mul ||
          !isa<AffineDimExpr>(bin.getLHS()))
        return 0;
      auto c = dyn_cast<AffineConstantExpr>(bin.getRHS());
      return c ? c.getValue() : 0;
    };
    int64_t hT = tileOf(1), qT = tileOf(2);
    if (tileOf(0) != 1 || hT < 1)
      return fail("the kernels take one batch and one head (or, for the "
                  "split-KV decode kernel, the H / Hkv heads of one K/V "
                  "head) per CTA: tile sizes [1, 1, q_tile] or "
                  "[1, H / Hkv, Sq]");
    if (qT < 1)
      return fail("the query tile must be a constant number of rows: "
                  "the forall's third step, or the third tile size of "
                  "tile_using_forall");
    // The key loop (optional): one scf.for directly in the forall.
    int64_t kvT = 0;
    Operation *parent = tile->getParentOp();
    scf::ForOp keyLoop = dyn_cast<scf::ForOp>(parent);
    if (keyLoop) {
      std::optional<int64_t> st = getConstantIntValue(keyLoop.getStep());
      if (!st)
        return fail("the key loop must have a constant step");
      // It must step over keys: the K tile starts at the loop's variable.
      auto kIn = unstaged(tile.getKey()).getDefiningOp<tensor::ExtractSliceOp>();
      if (!kIn || llvm::dyn_cast_if_present<Value>(kIn.getMixedOffsets()[2]) !=
                      keyLoop.getInductionVar() ||
          !isConstantIntValue(kIn.getMixedOffsets()[3], 0))
        return fail("the scf.for around the tx.online_attention must step "
                    "over key tiles (the K tile at the loop's variable)");
      kvT = *st;
      parent = keyLoop->getParentOp();
    }
    if (parent != forall.getOperation())
      return fail("the tx.online_attention must sit in the forall or in one "
                  "scf.for over key tiles directly inside it");

    // The problem: the whole tensors the tiles come from, the tile op's
    // attributes, the forall's results.
    AttentionProblem p{tile.getLoc()};
    p.query = wholeTensor(tile.getQuery(), forall);
    p.key = wholeTensor(tile.getKey(), forall);
    p.value = wholeTensor(tile.getValue(), forall);
    if (tile.getMask()) {
      p.mask = wholeTensor(tile.getMask(), forall);
      if (!p.mask)
        return fail("the mask tile must be a slice of a tensor defined "
                    "outside the forall");
    }
    for (auto [what, t] : {std::pair<StringRef, Value>{"Q", p.query},
                           {"K", p.key}, {"V", p.value}, {"mask", p.mask}})
      if (t && stagedTile(t))
        return fail("the whole " + what + " is staged in shared memory (a "
                    "copy outside the forall, on the host); stage its tile "
                    "inside the forall instead");
    if (!p.query || !p.key || !p.value)
      return fail("the Q, K and V tiles must be slices of tensors defined "
                  "outside the forall (a run-time scale of a dynamic head "
                  "dim has no GPU kernel)");
    // K and V tiles: batch b and the K/V head of the query heads (h when
    // H == Hkv, else h / (H / Hkv)), all keys from 0.
    for (Value kv : {tile.getKey(), tile.getValue()}) {
      tensor::ExtractSliceOp outer;
      for (auto sl = unstaged(kv).getDefiningOp<tensor::ExtractSliceOp>(); sl;
           sl = unstaged(sl.getSource()).getDefiningOp<tensor::ExtractSliceOp>())
        if (!forall->isAncestor(sl.getSource().getParentRegion()->getParentOp()))
          outer = sl;
      if (!outer)
        return fail("the K and V tiles must be slices of K and V");
      SmallVector<OpFoldResult> o = outer.getMixedOffsets();
      bool okHead = false;
      auto hv = llvm::dyn_cast_if_present<Value>(qOffs[1]);
      auto kh = llvm::dyn_cast_if_present<Value>(o[1]);
      int64_t H = cast<RankedTensorType>(p.query.getType()).getDimSize(1);
      int64_t Hkv = cast<RankedTensorType>(p.key.getType()).getDimSize(1);
      if (!ShapedType::isDynamic(H) && H == Hkv)
        okHead = o[1] == qOffs[1];
      else if (kh && hv)
        if (Operation *d = kh.getDefiningOp())
          okHead = isa<affine::AffineApplyOp, arith::DivUIOp>(d) &&
                   d->getOperand(0) == hv;
      if (o[0] != qOffs[0] || !okHead ||
          (keyLoop ? false : !isConstantIntValue(o[2], 0)))
        return fail("the K and V tiles must be the tile's batch and K/V "
                    "head (h / (H / Hkv))");
      // All keys, or the batch's kv_lengths[b] keys (per-sequence lengths).
      OpFoldResult keys = outer.getMixedSizes()[2];
      if (!isSizeOf(keys, p.key, 2) && !isSizeOf(keys, p.value, 2)) {
        auto kv = llvm::dyn_cast_if_present<Value>(keys);
        Value lens = kv ? clampedLength(kv, forall) : Value();
        if (!lens || (p.kvLengths && p.kvLengths != lens))
          return fail("the K and V tiles must hold all Sk keys, or the "
                      "first kv_lengths[b] of them (clamped into [0, Sk]) "
                      "as tx.attention's tiling reads them");
        p.kvLengths = lens;
      }
    }
    if (Value r = tile.getRowLimit()) {
      // rows past q_lengths[b]: row_limit = Lq - m0, Lq as clampedLength.
      Value lens;
      if (auto ap = r.getDefiningOp<affine::AffineApplyOp>())
        for (Value x : ap.getMapOperands())
          if (Value l = clampedLength(x, forall))
            lens = l;
      if (!lens)
        if (Value l = clampedLength(r, forall))
          lens = l;
      if (!lens)
        return fail("the tile's row_limit must be q_lengths[b] (clamped "
                    "into [0, Sq]) less the tile's first row, as "
                    "tx.attention's tiling makes it");
      p.qLengths = lens;
    }
    p.causal = tile.getCausal();
    p.window = tile.getWindowAttr();
    p.softcap = tile.getSoftcapAttr();
    int64_t D = p.D();
    if (ShapedType::isDynamic(D) || ShapedType::isDynamic(p.Dv()))
      return fail("the kernels need static head dims D and Dv");
    // The tile's scale is an f32 attribute; the default 1/sqrt(D) is kept
    // in double, as the untiled op's.
    p.scale = tile.getScale().convertToDouble();
    double dflt = 1.0 / std::sqrt(static_cast<double>(D));
    if (static_cast<float>(dflt) == static_cast<float>(p.scale))
      p.scale = dflt;
    // The state the loop ends with (acc, max, sum): the loop's results, or
    // the tile op's when there is no key loop; it must start at the initial
    // state (0, -inf, 0).
    ValueRange finalState = keyLoop ? ValueRange(keyLoop.getResults())
                                    : ValueRange(tile->getResults());
    ValueRange initState = keyLoop ? ValueRange(keyLoop.getInitArgs())
                                   : ValueRange(tile.getDpsInits());
    const double negInf = -std::numeric_limits<double>::infinity();
    const double wants[3] = {0.0, negInf, 0.0};
    for (int k = 0; k < 3; ++k) {
      Value v = initState[k];
      double want = wants[k];
      auto fill = v.getDefiningOp<linalg::FillOp>();
      APFloat c(0.0);
      if (!fill ||
          !matchPattern(fill.getInputs()[0], m_ConstantFloat(&c)) ||
          c.convertToDouble() != want)
        return fail("the tile's state must start at acc = 0, max = -inf, "
                    "sum = 0 (linalg.fill); a tile that continues another "
                    "state has no GPU kernel");
    }
    if (keyLoop) {
      // The loop carries exactly the tile op's state.
      auto yield = cast<scf::YieldOp>(keyLoop.getBody()->getTerminator());
      if (keyLoop.getNumResults() != 3 ||
          keyLoop.getRegionIterArgs().size() != 3)
        return fail("the key loop must carry the (acc, max, sum) state only");
      (void)yield;
    }
    int resO = -1, resL = -1;
    for (auto [i, op] : llvm::enumerate(forall.getTerminator().getYieldingOps())) {
      auto ins = dyn_cast<tensor::ParallelInsertSliceOp>(op);
      if (!ins)
        return fail("expected tensor.parallel_insert_slice in the forall's "
                    "terminator");
      // The result tile sits at the tile's (batch, head, first row).
      for (int d = 0; d < 3; ++d)
        if (ins.getMixedOffsets()[d] != qOffs[d])
          return fail("result " + Twine(i) + " of the forall is not written "
                      "at the tile's (batch, head, row)");
      Value src = ins.getSource();
      while (auto c = src.getDefiningOp<tensor::CastOp>())
        src = c.getSource();
      auto g = src.getDefiningOp<linalg::GenericOp>();
      StringRef kind = epilogueKind(ins.getSource());
      // The epilogue's inputs: (acc, sum) for O, (max, sum) for the LSE.
      bool okIns = g && g.getNumDpsInputs() == 2 &&
                   g.getDpsInputs()[1] == finalState[2] &&
                   g.getDpsInputs()[0] ==
                       finalState[kind == "lse" ? 1 : 0];
      // ... and computes what emitAttentionEpilogue emits (constants aside).
      if (okIns) {
        SmallVector<StringRef> names;
        for (Operation &o : g.getRegion().front())
          if (!isa<arith::ConstantOp>(o))
            names.push_back(o.getName().getStringRef());
        SmallVector<StringRef> want =
            kind == "lse"
                ? SmallVector<StringRef>{"arith.cmpf", "math.log",
                                         "arith.addf", "arith.select",
                                         "linalg.yield"}
                : SmallVector<StringRef>{"arith.divf", "arith.cmpf",
                                         "arith.select"};
        if (kind == "output") {
          if (!p.elementType().isF32())
            want.push_back("arith.truncf");
          want.push_back("linalg.yield");
        }
        okIns = names == want;
      }
      if ((kind != "output" && kind != "lse") || !okIns)
        return fail("result " + Twine(i) + " of the forall is not an "
                    "attention epilogue (a linalg.generic tagged "
                    "tx.attention_epilogue of the tile's final state)");
      int &slot = kind == "output" ? resO : resL;
      if (slot >= 0)
        return fail("results " + Twine(slot) + " and " + Twine(i) +
                    " of the forall are both the attention " + kind);
      slot = i;
    }
    if (resO < 0)
      return fail("the forall does not produce the attention output");
    // The forall covers all of (B, H, Sq) (normalized form: ceil-div).
    {
      SmallVector<OpFoldResult> ubs = forall.getMixedUpperBound();
      SmallVector<OpFoldResult> steps2 = forall.getMixedStep();
      int64_t tiles[3] = {1, hT, qT};
      for (int d = 0; d < 3; ++d) {
        std::optional<int64_t> ub = getConstantIntValue(ubs[d]);
        int64_t whole = cast<RankedTensorType>(p.query.getType()).getDimSize(d);
        bool normalized = isConstantIntValue(steps2[d], 1) && tiles[d] > 1;
        bool ok = ShapedType::isDynamic(whole)
                      ? (!normalized && isSizeOf(ubs[d], p.query, d))
                      : (ub && *ub == (normalized
                                            ? (whole + tiles[d] - 1) / tiles[d]
                                            : whole));
        if (!ok)
          return fail("the forall must cover all of (B, H, Sq) of Q (upper "
                      "bound " +
                      Twine(d) + ")");
      }
    }
    if (failed(checkStaging(forall, tile, fail)))
      return failure();
    // The key loop's software pipeline (tx-pipeline-attention, or a
    // user's annotation): 0 = the strategy's.
    int64_t pipeStages = 0;
    auto failLoop = [&](const Twine &msg) {
      keyLoop.emitError("tx-map-attention-to-gpu: ") << msg;
      return failure();
    };
    if (keyLoop)
      if (Attribute a = keyLoop->getAttr(kPipelineStagesAttr)) {
        auto ia = dyn_cast<IntegerAttr>(a);
        if (!ia || ia.getValue().getSignificantBits() > 64 ||
            ia.getInt() < 1 || ia.getInt() > 4) {
          std::string got;
          llvm::raw_string_ostream os(got);
          os << a;
          return failLoop(Twine(kPipelineStagesAttr) +
                          " must be an integer in [1, 4] (K/V tiles "
                          "resident in shared memory), got " +
                          got);
        }
        pipeStages = ia.getInt();
      }
    auto familyName = [](const FlashConfig &c) -> StringRef {
      return c.decode ? "decode" : c.wgmma ? "wgmma" : c.mma ? "mma" : "simt";
    };
    // Whether the family of `c` can keep `pipeStages` K/V tiles.
    auto checkDepth = [&](const FlashConfig &c) -> LogicalResult {
      if (!pipeStages)
        return success();
      if (!c.wgmma && !c.decode && pipeStages != 1)
        return failLoop("the " + familyName(c) + " family keeps one K and "
                        "one V tile in shared memory: " +
                        Twine(kPipelineStagesAttr) + " must be 1, got " +
                        Twine(pipeStages));
      if ((c.wgmma || c.decode) && pipeStages < 2)
        return failLoop("the " + familyName(c) + " family pipelines 2 to 4 "
                        "K/V tiles: " + Twine(kPipelineStagesAttr) +
                        " must be in [2, 4], got " + Twine(pipeStages));
      return success();
    };
    // Whether `c` with the loop's depth fits in shared memory.
    auto checkDepthFits = [&](FlashConfig c) -> LogicalResult {
      if (!pipeStages || pipeStages == pipelineStagesOf(c))
        return success();
      (c.decode ? c.decodeStages : c.stages) = pipeStages;
      if (c.smemBytes() <= maxSharedMemory)
        return success();
      return failLoop(Twine(kPipelineStagesAttr) + " = " + Twine(pipeStages) +
                      " needs " + Twine(c.smemBytes()) +
                      " bytes of shared memory for the " + familyName(c) +
                      " family's tiles, more than max-shared-memory = " +
                      Twine(int64_t(maxSharedMemory)));
    };
    p.outType = cast<RankedTensorType>(forall.getResult(resO).getType());
    if (resL >= 0)
      p.lseType = cast<RankedTensorType>(forall.getResult(resL).getType());

    // The strategy: the forall's, or one for this tile (a user's tiling).
    FlashConfig cfg;
    auto diag = [&](const Twine &msg) { (void)fail(msg); };
    bool fromTiling = false;
    if (auto attr = forall->getAttrOfType<DictionaryAttr>(kGpuStrategyAttr)) {
      FailureOr<FlashConfig> c = strategyFromAttr(attr, p, diag);
      if (failed(c))
        return failure();
      cfg = *c;
      fromTiling = true;
      if (failed(checkDepth(cfg)) || failed(checkDepthFits(cfg)))
        return failure();
      if (pipeStages && cfg.decode)
        cfg.decodeStages = pipeStages;
      else if (pipeStages && cfg.wgmma)
        cfg.stages = pipeStages;
      // The strategy must be one the table makes for this problem on this
      // chip (with its choices forced): a hand-written or stale strategy
      // (another chip, another element type or head dim) is refused here,
      // not miscompiled or left to LLVM's instruction selection.
      AttentionTarget target;
      target.sm = sm;
      target.wgmma = wgmma && cfg.wgmma;
      target.maxSharedMemory = maxSharedMemory;
      target.numSms = cfg.decode ? cfg.numSms : GPUTarget::fromSm(sm).defaultNumSms;
      if (cfg.wgmma && !wgmma)
        return fail("its tx.gpu_strategy asks for the wgmma family, which "
                    "needs an sm_90a chip (wgmma=true; this mapping targets "
                    "sm = " +
                    Twine(int64_t(sm)) + " without wgmma)");
      if ((cfg.mma || cfg.decode) && sm < 80)
        return fail("its tx.gpu_strategy asks for the " +
                    Twine(cfg.decode ? "decode" : "mma") +
                    " family, which needs sm_80 or newer (this mapping "
                    "targets sm = " +
                    Twine(int64_t(sm)) + ")");
      if (cfg.decode && cfg.decodeCluster > 0 && sm < 90)
        return fail("its tx.gpu_strategy asks for the cluster merge of the "
                    "decode family ('cluster' = " +
                    Twine(cfg.decodeCluster) +
                    "), which needs sm_90 or newer (this mapping targets "
                    "sm = " +
                    Twine(int64_t(sm)) + ")");
      if (cfg.decode && cfg.decodeMergeKernel && sm < 90)
        return fail("its tx.gpu_strategy asks for the merge kernel of the "
                    "decode family ('merge_kernel'), which needs sm_90 or "
                    "newer (this mapping targets sm = " +
                    Twine(int64_t(sm)) + ")");
      AttentionChoices ch;
      ch.fromStrategyAttr = true;
      ch.warps = cfg.warps;
      if (cfg.decode) {
        ch.stages = cfg.decodeStages;
        ch.kvSplits = cfg.kvSplits;
        ch.decodeTileKeys = cfg.decodeTileKeys;
        ch.decodeCluster = cfg.decodeCluster;
        ch.decodeClusterShortOnly = cfg.decodeClusterShortOnly;
        ch.decodeMergeKernel = cfg.decodeMergeKernel;
        ch.decodeMaxRows = 32;
        // The form the strategy took (its shared-memory size differs).
        ch.tensorCores = cfg.decodeTC;
      } else {
        ch.decode = false;
        ch.tensorCores = cfg.mma;
        ch.kvTile = cfg.kvTile;
        ch.exactQTile = cfg.qTile;
        if (cfg.wgmma) {
          ch.stages = cfg.stages;
          ch.producerWarps = cfg.producerWarps;
        }
        else if (cfg.mma)
          ch.mmaRowTiles = cfg.mTiles;
      }
      if (failed(checkAttentionChoices(target, ch, diag)))
        return failure();
      FailureOr<std::optional<FlashConfig>> again =
          chooseAttentionKernel(tile, p, target, ch);
      if (failed(again))
        return failure();
      const FlashConfig *a = *again ? &**again : nullptr;
      bool same = a && a->decode == cfg.decode && a->wgmma == cfg.wgmma &&
                  a->mma == cfg.mma && a->warps == cfg.warps;
      if (same && cfg.decode)
        same = a->decodeStages == cfg.decodeStages &&
               a->decodeTileKeys == cfg.decodeTileKeys &&
               a->kvSplits == cfg.kvSplits && a->decodeTC == cfg.decodeTC &&
               a->decodeCluster == cfg.decodeCluster &&
               a->decodeClusterShortOnly == cfg.decodeClusterShortOnly &&
               a->decodeMergeKernel == cfg.decodeMergeKernel;
      else if (same)
        same = a->qTile == cfg.qTile && a->kvTile == cfg.kvTile &&
               (!cfg.mma || cfg.wgmma || a->mTiles == cfg.mTiles) &&
               (!cfg.wgmma || (a->stages == cfg.stages &&
                               a->producerWarps == cfg.producerWarps));
      if (!same)
        return fail(Twine("its tx.gpu_strategy is not a kernel of this "
                          "problem (element type, head dims, mask, window) "
                          "on this chip; the strategy ") +
                    (a ? "makes family " +
                             Twine(a->decode  ? "decode"
                                   : a->wgmma ? "wgmma"
                                   : a->mma   ? "mma"
                                              : "simt") +
                             " with these choices"
                       : Twine("has no kernel for it")) +
                    " (remove the tx.gpu_strategy, or change it to what "
                    "tx-attention-strategy writes for this chip on an op "
                    "without one)");
      if (cfg.decode
              ? (hT != cfg.decodeG || qT != cfg.decodeSq ||
                 (kvT && kvT != cfg.decodeTileKeys))
              : (hT != 1 || cfg.qTile != qT || (kvT && cfg.kvTile != kvT)))
        return fail("the forall's tiles (heads " + Twine(hT) + ", q " +
                    Twine(qT) + ", kv " + Twine(kvT) +
                    ") differ from its tx.gpu_strategy");
    } else if (hT > 1) {
      // A tile of several heads: only the split-KV decode kernel (the G
      // heads of one K/V head and all Sq rows).
      AttentionTarget target;
      target.sm = sm;
      target.maxSharedMemory = maxSharedMemory;
      AttentionChoices c;
      c.decodeTileKeys = kvT;
      c.stages = pipeStages > 1 ? pipeStages : 0;
      if (kvT != 0 && kvT != 16 && kvT != 32)
        return fail("the key loop's step " + Twine(kvT) +
                    " has no decode kernel: it takes 16 or 32 keys per "
                    "warp step");
      FailureOr<std::optional<FlashConfig>> chosen =
          chooseAttentionKernel(tile, p, target, c);
      if (failed(chosen))
        return failure();
      if (!*chosen || !(*chosen)->decode || (*chosen)->decodeG != hT ||
          (*chosen)->decodeSq != qT)
        return fail("a tile of " + Twine(hT) + " heads needs the split-KV "
                    "decode kernel: the H / Hkv heads of one K/V head and "
                    "all Sq rows, with static H, Hkv and Sq and "
                    "G * Sq <= 16");
      cfg = **chosen;
      if (failed(checkDepth(cfg)))
        return failure();
    } else {
      if (kvT && (kvT < 32 || kvT % 32 != 0 || kvT > 256))
        return fail("the key loop's step " + Twine(kvT) +
                    " has no kernel: the kernels take a multiple of 32 in "
                    "[32, 256] keys per step");
      AttentionTarget target;
      target.sm = sm;
      target.wgmma = wgmma;
      target.maxSharedMemory = maxSharedMemory;
      AttentionChoices c;
      c.exactQTile = qT;
      c.kvTile = kvT;
      FailureOr<std::optional<FlashConfig>> chosen =
          chooseAttentionKernel(tile, p, target, c);
      if (failed(chosen))
        return failure();
      if (!*chosen)
        return fail("no GPU kernel takes this tiled attention");
      cfg = **chosen;
      if (failed(checkDepth(cfg)))
        return failure();
      if (failed(checkDepthFits(cfg)))
        return failure();
      if (pipeStages && pipeStages != pipelineStagesOf(cfg)) {
        // The family with the loop's pipeline depth.
        c.stages = pipeStages;
        FailureOr<std::optional<FlashConfig>> again =
            chooseAttentionKernel(tile, p, target, c);
        if (failed(again))
          return failure();
        if (!*again || familyName(**again) != familyName(cfg))
          return failLoop("no " + familyName(cfg) + " kernel takes " +
                          Twine(kPipelineStagesAttr) + " = " +
                          Twine(pipeStages));
        cfg = **again;
      }
    }
    // The pipeline the kernel builds is the loop's.
    if (pipeStages && pipelineStagesOf(cfg) != pipeStages)
      return failLoop("no " + familyName(cfg) + " kernel takes " +
                      Twine(kPipelineStagesAttr) + " = " + Twine(pipeStages));

    // The chip's shared memory per SM (the decode kernel's CTAs per SM).
    cfg.smemPerSm = GPUTarget::fromSm(sm, wgmma).sharedMemoryPerSm;
    OpBuilder b(forall);
    // Shape checks: already emitted by tx-tile-attention; a user's tiling
    // gets them here.
    SmallVector<Value> res = buildAttentionKernel(b, p, cfg, !fromTiling);
    forall.getResult(resO).replaceAllUsesWith(res[0]);
    if (resL >= 0)
      forall.getResult(resL).replaceAllUsesWith(res[1]);
    forall.erase();
    return success();
  }

  void runOnOperation() override {
    if (sm < 50 || sm > 130 || maxSharedMemory < 1) {
      mlir::emitError(getOperation().getLoc(), "tx-map-attention-to-gpu: ")
          << "sm must be a compute capability in [50, 130] and "
             "max-shared-memory positive, got sm = "
          << int64_t(sm) << ", max-shared-memory = "
          << int64_t(maxSharedMemory);
      return signalPassFailure();
    }
    // Tiled attention: every scf.forall that holds a tx.online_attention.
    SmallVector<std::pair<scf::ForallOp, OnlineAttentionOp>> tiles;
    bool bad = false;
    llvm::SmallPtrSet<Operation *, 4> splitReported; // one error per forall
    getOperation().walk([&](OnlineAttentionOp tile) {
      auto forall = tile->getParentOfType<scf::ForallOp>();
      if (forall && forall.getRank() == 1 &&
          forall->getParentOfType<scf::ForallOp>()) {
        bad = true;
        if (!splitReported.insert(forall).second)
          return;
        forall.emitError("tx-map-attention-to-gpu: a tx.online_attention "
                         "in nested scf.foralls (split-KV tiling, "
                         "tx-tile-attention kv-splits > 1, or a second "
                         "tiling of the tile) has no GPU kernel; the decode "
                         "family splits the keys itself");
        return;
      }
      if (!forall) {
        tile.emitError("tx-map-attention-to-gpu: a tx.online_attention "
                       "outside an scf.forall of query tiles has no GPU "
                       "kernel (tile tx.attention with tx-tile-attention)");
        bad = true;
        return;
      }
      for (auto &[f, t] : tiles)
        if (f == forall) {
          forall.emitError("tx-map-attention-to-gpu: one forall holds "
                           "several tx.online_attention ops (split-KV tiling "
                           "has no GPU kernel; the decode kernel takes the "
                           "untiled tx.attention)");
          bad = true;
          return;
        }
      tiles.push_back({forall, tile});
    });
    if (bad)
      return signalPassFailure();
    // A forall that carries a strategy but no tile op (decomposed by
    // tx-tile-attention decompose=true), or a strategy that is not a
    // dictionary.
    WalkResult strat = getOperation().walk([&](scf::ForallOp f) {
      Attribute a = f->getAttr(kGpuStrategyAttr);
      if (!a)
        return WalkResult::advance();
      if (!isa<DictionaryAttr>(a)) {
        f.emitError("tx-map-attention-to-gpu: ")
            << kGpuStrategyAttr << " must be a dictionary";
        return WalkResult::interrupt();
      }
      auto fam = cast<DictionaryAttr>(a).getAs<StringAttr>("family");
      if (fam && fam.getValue() == "softmax")
        return WalkResult::advance();
      bool hasTile = false;
      for (auto &[g, t] : tiles)
        hasTile |= g == f;
      if (!hasTile) {
        f.emitError("tx-map-attention-to-gpu: this scf.forall carries a ")
            << kGpuStrategyAttr
            << " but holds no tx.online_attention (decomposed? tile with "
               "tx-tile-attention decompose=false for the GPU)";
        return WalkResult::interrupt();
      }
      return WalkResult::advance();
    });
    if (strat.wasInterrupted())
      return signalPassFailure();
    for (auto [forall, tile] : tiles)
      if (failed(mapForall(forall, tile)))
        return signalPassFailure();

    // Untiled ops with a strategy: the tiling step is missing.
    WalkResult r = getOperation().walk([&](AttentionOp op) {
      if (!op->hasAttr(kGpuStrategyAttr))
        return WalkResult::advance(); // the reference lowering
      op.emitError("tx-map-attention-to-gpu: this tx.attention has a ")
          << kGpuStrategyAttr
          << " but is not tiled; run tx-tile-attention from-strategy=true "
             "first (tx-attention-to-gpu runs the whole path)";
      return WalkResult::interrupt();
    });
    if (r.wasInterrupted())
      signalPassFailure();
  }
};

//===----------------------------------------------------------------------===//
// tx-attention-to-gpu
//===----------------------------------------------------------------------===//

struct TxAttentionToGPUPass
    : public tx::impl::TxAttentionToGPUBase<TxAttentionToGPUPass> {
  using Base::Base;
  void runOnOperation() override {
    OpPassManager pm(func::FuncOp::getOperationName());
    TxAttentionStrategyOptions s;
    s.warps = warps;
    s.qTile = qTile;
    s.kvTile = kvTile;
    s.tensorCores = tensorCores;
    s.sm = sm;
    s.wgmma = wgmma;
    s.stages = stages;
    s.producerWarps = producerWarps;
    s.mmaRowTiles = mmaRowTiles;
    s.maxSharedMemory = maxSharedMemory;
    s.decode = decode;
    s.decodeMaxRows = decodeMaxRows;
    s.kvSplits = kvSplits;
    s.decodeTileKeys = decodeTileKeys;
    s.decodeCluster = decodeCluster;
    s.decodeMergeKernel = decodeMergeKernel;
    s.numSms = numSms;
    pm.addPass(createTxAttentionStrategy(s));
    TxTileAttentionOptions t;
    t.fromStrategy = true;
    t.decompose = false;
    pm.addPass(createTxTileAttention(t));
    pm.addPass(createTxStageAttention());
    pm.addPass(createTxPipelineAttention());
    TxMapAttentionToGPUOptions m;
    m.sm = sm;
    m.wgmma = wgmma;
    m.maxSharedMemory = maxSharedMemory;
    pm.addPass(createTxMapAttentionToGPU(m));
    if (failed(runPipeline(pm, getOperation())))
      signalPassFailure();
  }
};

} // namespace
