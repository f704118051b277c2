//===- MatchTiledAttention.cpp - the tiled attention IR, matched ----------===//
//
// matchTiledAttention (TiledAttention.h): the structure tx-tile-attention,
// tx-stage-attention and tx-pipeline-attention build (or a user's transform
// script), checked piece by piece, and the AttentionProblem it computes.
//
//===----------------------------------------------------------------------===//
#include "GPU/TiledAttention.h"
#include "Transformer/AttentionShapes.h"
#include "Transformer/TilingUtils.h"
#include "Transformer/TxOps.h"

#include "mlir/Dialect/Affine/IR/AffineOps.h"
#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/IR/Matchers.h"
#include <cmath>
#include <limits>

using namespace mlir;
using namespace mlir::tx;

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
static LogicalResult
checkStaging(scf::ForallOp forall, OnlineAttentionOp tile,
             llvm::function_ref<LogicalResult(const Twine &)> fail) {
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
      return fail("the " + what +
                  " tile is not staged in shared memory; "
                  "every kernel family reads K and V tiles from shared "
                  "memory" +
                  Twine(fix));
    if (!direct || kv->size() > 1)
      return fail("the " + what + " tile is staged " +
                  (!direct ? Twine("outside the key loop (all of its keys "
                                   "at once)")
                           : Twine(kv->size()) + " times") +
                  "; the kernels stage one key tile per step, once: "
                  "stage only the tx.online_attention's " +
                  what + " operand");
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

namespace {
/// The checks of matchTiledAttention, in the order the IR is read; each
/// fills its part of `m`.
struct Matcher {
  TiledAttention &m;
  scf::ForallOp forall;
  OnlineAttentionOp tile;
  StringRef pass; // the pass that names itself in the errors

  LogicalResult fail(const Twine &msg) {
    forall.emitError(pass) << ": " << msg;
    return failure();
  }

  /// The forall's rank, bounds and steps and the Q slice: the tiles.
  LogicalResult matchGrid() {
    SmallVector<OpFoldResult> &qOffs = m.qOffsets;
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
    qOffs = qSlice.getMixedOffsets();
    SmallVector<OpFoldResult> qSizes = qSlice.getMixedSizes();
    auto isIv = [&](OpFoldResult o, int i) {
      return llvm::dyn_cast_if_present<Value>(o) == forall.getInductionVar(i);
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
    m.headTile = hT;
    m.qTile = qT;
    return success();
  }

  /// The key loop (optional): one scf.for directly in the forall.
  LogicalResult matchKeyLoop() {
    Operation *parent = tile->getParentOp();
    scf::ForOp keyLoop = dyn_cast<scf::ForOp>(parent);
    m.keyLoop = keyLoop;
    if (keyLoop) {
      std::optional<int64_t> st = getConstantIntValue(keyLoop.getStep());
      if (!st)
        return fail("the key loop must have a constant step");
      // It must step over keys: the K tile starts at the loop's variable.
      auto kIn =
          unstaged(tile.getKey()).getDefiningOp<tensor::ExtractSliceOp>();
      if (!kIn ||
          llvm::dyn_cast_if_present<Value>(kIn.getMixedOffsets()[2]) !=
              keyLoop.getInductionVar() ||
          !isConstantIntValue(kIn.getMixedOffsets()[3], 0))
        return fail("the scf.for around the tx.online_attention must step "
                    "over key tiles (the K tile at the loop's variable)");
      m.kvTile = *st;
      parent = keyLoop->getParentOp();
    }
    if (parent != forall.getOperation())
      return fail("the tx.online_attention must sit in the forall or in one "
                  "scf.for over key tiles directly inside it");
    return success();
  }

  /// The problem: the whole tensors the tiles come from.
  LogicalResult matchOperands() {
    AttentionProblem &p = m.problem;
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
                           {"K", p.key},
                           {"V", p.value},
                           {"mask", p.mask}})
      if (t && stagedTile(t))
        return fail("the whole " + what +
                    " is staged in shared memory (a "
                    "copy outside the forall, on the host); stage its tile "
                    "inside the forall instead");
    if (!p.query || !p.key || !p.value)
      return fail("the Q, K and V tiles must be slices of tensors defined "
                  "outside the forall (a run-time scale of a dynamic head "
                  "dim has no GPU kernel)");
    return success();
  }

  LogicalResult matchKVTiles() {
    AttentionProblem &p = m.problem;
    const SmallVector<OpFoldResult> &qOffs = m.qOffsets;
    scf::ForOp keyLoop = m.keyLoop;
    // K and V tiles: batch b and the K/V head of the query heads (h when
    // H == Hkv, else h / (H / Hkv)), all keys from 0.
    for (Value kv : {tile.getKey(), tile.getValue()}) {
      tensor::ExtractSliceOp outer;
      for (auto sl = unstaged(kv).getDefiningOp<tensor::ExtractSliceOp>(); sl;
           sl =
               unstaged(sl.getSource()).getDefiningOp<tensor::ExtractSliceOp>())
        if (!forall->isAncestor(
                sl.getSource().getParentRegion()->getParentOp()))
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
    return success();
  }

  /// The row limit (q_lengths) and the tile op's attributes.
  LogicalResult matchAttributes() {
    AttentionProblem &p = m.problem;
    // Score and mask functions: the kernels compute the whole op's
    // indices themselves (the tile's mod_offsets are the grid's and the
    // key loop's offsets); the captured operands must be defined outside
    // the grid, which the kernel's launch replaces.
    for (Value c : llvm::concat<Value>(tile.getScoreCaptures(),
                                       tile.getMaskCaptures()))
      if (forall->isAncestor(c.getParentRegion()->getParentOp()))
        return fail("the operands captured by score_mod and mask_mod must "
                    "be defined outside the scf.forall (the kernel's "
                    "launch replaces it)");
    p.readMods(tile);
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
    return success();
  }

  LogicalResult checkInitialState() {
    scf::ForOp keyLoop = m.keyLoop;
    // The state the loop ends with (acc, max, sum): the loop's results, or
    // the tile op's when there is no key loop; it must start at the initial
    // state (0, -inf, 0).
    ValueRange initState = keyLoop ? ValueRange(keyLoop.getInitArgs())
                                   : ValueRange(tile.getDpsInits());
    const double negInf = -std::numeric_limits<double>::infinity();
    const double wants[3] = {0.0, negInf, 0.0};
    for (int k = 0; k < 3; ++k) {
      Value v = initState[k];
      double want = wants[k];
      auto fill = v.getDefiningOp<linalg::FillOp>();
      APFloat c(0.0);
      if (!fill || !matchPattern(fill.getInputs()[0], m_ConstantFloat(&c)) ||
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
    return success();
  }

  /// The forall's results: the epilogues of O and (optionally) the LSE.
  LogicalResult matchEpilogues() {
    AttentionProblem &p = m.problem;
    const SmallVector<OpFoldResult> &qOffs = m.qOffsets;
    scf::ForOp keyLoop = m.keyLoop;
    ValueRange finalState = keyLoop ? ValueRange(keyLoop.getResults())
                                    : ValueRange(tile->getResults());
    int &resO = m.outputResult, &resL = m.lseResult;
    for (auto [i, op] :
         llvm::enumerate(forall.getTerminator().getYieldingOps())) {
      auto ins = dyn_cast<tensor::ParallelInsertSliceOp>(op);
      if (!ins)
        return fail("expected tensor.parallel_insert_slice in the forall's "
                    "terminator");
      // The result tile sits at the tile's (batch, head, first row).
      for (int d = 0; d < 3; ++d)
        if (ins.getMixedOffsets()[d] != qOffs[d])
          return fail("result " + Twine(i) +
                      " of the forall is not written "
                      "at the tile's (batch, head, row)");
      Value src = ins.getSource();
      while (auto c = src.getDefiningOp<tensor::CastOp>())
        src = c.getSource();
      auto g = src.getDefiningOp<linalg::GenericOp>();
      StringRef kind = epilogueKind(ins.getSource());
      // The epilogue's inputs: (acc, sum) for O, (max, sum) for the LSE.
      bool okIns = g && g.getNumDpsInputs() == 2 &&
                   g.getDpsInputs()[1] == finalState[2] &&
                   g.getDpsInputs()[0] == finalState[kind == "lse" ? 1 : 0];
      // ... and computes what emitAttentionEpilogue emits (constants aside).
      if (okIns) {
        SmallVector<StringRef> names;
        for (Operation &o : g.getRegion().front())
          if (!isa<arith::ConstantOp>(o))
            names.push_back(o.getName().getStringRef());
        SmallVector<StringRef> want =
            kind == "lse"
                ? SmallVector<StringRef>{"arith.cmpf", "math.log", "arith.addf",
                                         "arith.select", "linalg.yield"}
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
        return fail("result " + Twine(i) +
                    " of the forall is not an "
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
    return success();
  }

  LogicalResult checkCoverage() {
    AttentionProblem &p = m.problem;
    int64_t hT = m.headTile, qT = m.qTile;
    // The forall covers all of (B, H, Sq) (normalized form: ceil-div).
    {
      SmallVector<OpFoldResult> ubs = forall.getMixedUpperBound();
      SmallVector<OpFoldResult> steps2 = forall.getMixedStep();
      int64_t tiles[3] = {1, hT, qT};
      for (int d = 0; d < 3; ++d) {
        std::optional<int64_t> ub = getConstantIntValue(ubs[d]);
        int64_t whole = cast<RankedTensorType>(p.query.getType()).getDimSize(d);
        bool normalized = isConstantIntValue(steps2[d], 1) && tiles[d] > 1;
        bool ok =
            ShapedType::isDynamic(whole)
                ? (!normalized && isSizeOf(ubs[d], p.query, d))
                : (ub && *ub == (normalized ? (whole + tiles[d] - 1) / tiles[d]
                                            : whole));
        if (!ok)
          return fail("the forall must cover all of (B, H, Sq) of Q (upper "
                      "bound " +
                      Twine(d) + ")");
      }
    }
    return success();
  }

  /// The key loop's software pipeline (tx-pipeline-attention, or a user's
  /// annotation): 0 = the strategy's.
  LogicalResult readPipelineStages() {
    scf::ForOp keyLoop = m.keyLoop;
    int64_t &pipeStages = m.pipelineStages;
    auto failLoop = [&](const Twine &msg) {
      keyLoop.emitError(pass) << ": " << msg;
      return failure();
    };
    if (keyLoop)
      if (Attribute a = keyLoop->getAttr(kPipelineStagesAttr)) {
        auto ia = dyn_cast<IntegerAttr>(a);
        if (!ia || ia.getValue().getSignificantBits() > 64 || ia.getInt() < 1 ||
            ia.getInt() > 4) {
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
    return success();
  }
};
} // namespace

FailureOr<TiledAttention>
mlir::tx::matchTiledAttention(scf::ForallOp forall, OnlineAttentionOp tile,
                              StringRef pass, bool staged) {
  TiledAttention m(tile.getLoc());
  m.forall = forall;
  m.tile = tile;
  Matcher x{m, forall, tile, pass};
  auto staging = [&](const Twine &msg) { return x.fail(msg); };
  if (failed(x.matchGrid()) || failed(x.matchKeyLoop()) ||
      failed(x.matchOperands()) || failed(x.matchKVTiles()) ||
      failed(x.matchAttributes()) || failed(x.checkInitialState()) ||
      failed(x.matchEpilogues()) || failed(x.checkCoverage()) ||
      (staged && failed(checkStaging(forall, tile, staging))) ||
      failed(x.readPipelineStages()))
    return failure();
  return m;
}
