//===- MapAttentionGradToGPU.cpp - tx-map-attention-grad-to-gpu -----------===//
//
// The backward's tiled IR (tx-tile-attention-grad from-strategy=true
// decompose=false), matched forall by forall and replaced by the mma.sync
// kernels of GPU/Kernels/Grad: the grid is the forall's iteration space,
// the CTA's loop its scf.for, the tiles its tx.grad_tiles.
//
//===----------------------------------------------------------------------===//
#include "GPU/Kernels/Grad/GradKernels.h"
#include "Transformer/Passes.h"
#include "Transformer/TxOps.h"

#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/Dialect/Utils/StaticValueUtils.h"

namespace mlir {
namespace tx {
#define GEN_PASS_DEF_TXMAPATTENTIONGRADTOGPU
#include "Transformer/Passes.h.inc"
} // namespace tx
} // namespace mlir

using namespace mlir;
using namespace mlir::tx;

namespace {

/// The whole tensor a block operand was sliced from (extract_slice and
/// tensor.cast followed out of `forall`); null when computed inside it.
Value outside(Value v, scf::ForallOp forall) {
  while (v && forall->isAncestor(v.getParentRegion()->getParentOp())) {
    Operation *def = v.getDefiningOp();
    if (auto s = dyn_cast_or_null<tensor::ExtractSliceOp>(def))
      v = s.getSource();
    else if (auto c = dyn_cast_or_null<tensor::CastOp>(def))
      v = c.getSource();
    else
      return Value();
  }
  return v;
}

/// Why the kernels do not take `block` (with the tiles), or "" when they do.
template <typename BlockOp>
std::string refusal(BlockOp block, ArrayRef<int64_t> tiles) {
  if (block.getMask() || block.getRowLimit() || block.getKeyLimit())
    return "a mask or per-sequence lengths";
  if (block.getSoftcapAttr() || block.getWindowAttr())
    return "a soft cap or a sliding window";
  auto qTy = cast<RankedTensorType>(block.getQuery().getType());
  Type elt = qTy.getElementType();
  if (!elt.isF16() && !elt.isBF16())
    return "element type other than f16 and bf16";
  for (Value v : {block.getKey(), block.getValue(), block.getGradOutput()})
    if (cast<RankedTensorType>(v.getType()).getElementType() != elt)
      return "Q, K, V and dO of different element types";
  int64_t D = qTy.getDimSize(3);
  if (ShapedType::isDynamic(D) || D % 32 || D > 128 ||
      cast<RankedTensorType>(block.getValue().getType()).getDimSize(3) != D)
    return "a head dim that is dynamic, not a multiple of 32, above 128, "
           "or Dv != D";
  for (int64_t t : tiles)
    if (t < 16 || t % 16)
      return "tiles that are not multiples of 16";
  if (tiles[0] > 2 * tiles[1])
    return "q_tile above 2 x kv_tile (the dK/dV kernel stages a query "
           "tile's LSE and Δ with one of its kv_tile * 2 threads per row)";
  return "";
}

struct TxMapAttentionGradToGPUPass
    : public tx::impl::TxMapAttentionGradToGPUBase<
          TxMapAttentionGradToGPUPass> {
  using Base::Base;

  LogicalResult fail(scf::ForallOp forall, const Twine &msg) {
    return forall.emitError("tx-map-attention-grad-to-gpu: ") << msg;
  }

  /// The kernel problem of `block` (its operands' whole tensors, its
  /// attributes and the forall's tiles); `loopTile` is the step its
  /// scf.for must have.
  template <typename BlockOp>
  FailureOr<AttentionGradKernelProblem>
  match(scf::ForallOp forall, BlockOp block, ArrayRef<int64_t> tiles,
        int64_t loopTile) {
    std::string why = refusal(block, tiles);
    if (!why.empty())
      return fail(forall, "the backward's kernels take no " + why);
    auto loop = block->template getParentOfType<scf::ForOp>();
    std::optional<int64_t> step =
        loop ? getConstantIntValue(loop.getStep()) : std::nullopt;
    if (!loop || loop->getParentOp() != forall.getOperation() || !step ||
        *step != loopTile)
      return fail(forall, "its block op is not in an scf.for of step " +
                              Twine(loopTile) +
                              " directly inside the forall "
                              "(tx-tile-attention-grad's structure)");
    AttentionGradKernelProblem p;
    Value *whole[] = {&p.query, &p.key,  &p.value,
                      &p.gradOutput, &p.lse, &p.delta};
    Value parts[] = {block.getQuery(), block.getKey(),  block.getValue(),
                     block.getGradOutput(), block.getLse(), block.getDelta()};
    for (auto [w, v] : llvm::zip(whole, parts))
      if (!(*w = outside(v, forall)))
        return fail(forall, "an operand of its block op is computed inside "
                            "the forall, not sliced from a whole tensor");
    p.scale = block.getScale().convertToDouble();
    p.causal = block.getCausal();
    p.qTile = tiles[0];
    p.kvTile = tiles[1];
    return p;
  }

  /// The forall's tiles and its one block op (dkdv or dq).
  FailureOr<std::pair<DenseI64ArrayAttr, Operation *>>
  tilesAndBlock(scf::ForallOp forall) {
    auto tiles = forall->getAttrOfType<DenseI64ArrayAttr>(kGradTilesAttr);
    if (!tiles || tiles.size() != 2)
      return fail(forall, Twine(kGradTilesAttr) +
                              " must be array<i64: q_tile, kv_tile>");
    SmallVector<Operation *> blocks;
    forall.walk([&](Operation *op) {
      if (isa<AttentionDkDvOp, AttentionDqOp>(op))
        blocks.push_back(op);
    });
    if (blocks.size() != 1)
      return fail(forall, "expected one tx.attention_dkdv or tx.attention_dq "
                          "in the forall (tile with tx-tile-attention-grad "
                          "from-strategy=true decompose=false), found " +
                              Twine(blocks.size()));
    return std::make_pair(tiles, blocks[0]);
  }

  /// The forall's tx.attention_dkdv or tx.attention_dq, or null.
  static Operation *tilesAndBlockOp(scf::ForallOp forall) {
    Operation *found = nullptr;
    forall.walk([&](Operation *op) {
      if (isa<AttentionDkDvOp, AttentionDqOp>(op))
        found = op;
    });
    return found;
  }

  /// Replaces `forall` by `results` (its number of results).
  LogicalResult replace(scf::ForallOp forall, ArrayRef<Value> results) {
    if (results.size() != forall.getNumResults())
      return fail(forall, "expected " + Twine(results.size()) +
                              " results of the forall");
    forall->replaceAllUsesWith(results);
    forall.erase();
    return success();
  }

  static RankedTensorType resultType(scf::ForallOp forall, int i) {
    return cast<RankedTensorType>(forall.getResult(i).getType());
  }

  LogicalResult mapForall(scf::ForallOp forall) {
    auto tb = tilesAndBlock(forall);
    if (failed(tb))
      return failure();
    auto [tiles, block] = *tb;
    OpBuilder b(forall);
    Location loc = forall.getLoc();
    if (auto dkdv = dyn_cast<AttentionDkDvOp>(block)) {
      FailureOr<AttentionGradKernelProblem> p =
          match(forall, dkdv, tiles.asArrayRef(), tiles[0]);
      if (failed(p))
        return failure();
      return replace(forall,
                     buildAttentionDkDvKernel(b, loc, *p, resultType(forall, 0),
                                              resultType(forall, 1)));
    }
    auto dq = cast<AttentionDqOp>(block);
    if (dq.getGradScoresInit())
      return fail(forall, "the backward's kernels write no dS (a mask's "
                          "gradient takes the reference lowering)");
    FailureOr<AttentionGradKernelProblem> p =
        match(forall, dq, tiles.asArrayRef(), tiles[1]);
    if (failed(p))
      return failure();
    return replace(forall,
                   {buildAttentionDqKernel(b, loc, *p, resultType(forall, 0))});
  }

  /// The dK/dV forall `forall` (kGradDqReduceAttr) and the dQ forall of the
  /// same operands, together one launch of the one-pass wgmma kernel.
  LogicalResult mapReducing(scf::ForallOp forall,
                            SmallVectorImpl<scf::ForallOp> &dqForalls) {
    auto tb = tilesAndBlock(forall);
    if (failed(tb))
      return failure();
    auto [tiles, block] = *tb;
    auto dkdv = cast<AttentionDkDvOp>(block);
    if (tiles[0] != 64 || tiles[1] != 128)
      return fail(forall, Twine(kGradDqReduceAttr) +
                              " needs tx.grad_tiles = array<i64: 64, 128> "
                              "(the one-pass kernel's tiles)");
    FailureOr<AttentionGradKernelProblem> p =
        match(forall, dkdv, tiles.asArrayRef(), tiles[0]);
    if (failed(p))
      return failure();
    // Its dQ forall: the one whose block op reads the same whole tensors.
    scf::ForallOp partner;
    for (scf::ForallOp &f : dqForalls) {
      if (!f)
        continue;
      auto ftb = tilesAndBlock(f);
      if (failed(ftb))
        return failure();
      auto dq = dyn_cast<AttentionDqOp>(ftb->second);
      if (!dq || dq.getGradScoresInit())
        continue;
      FailureOr<AttentionGradKernelProblem> q =
          match(f, dq, ftb->first.asArrayRef(), ftb->first[1]);
      if (failed(q))
        return failure();
      if (q->query == p->query && q->key == p->key && q->value == p->value &&
          q->gradOutput == p->gradOutput && q->lse == p->lse &&
          q->delta == p->delta && q->scale == p->scale &&
          q->causal == p->causal && f->getBlock() == forall->getBlock()) {
        partner = f;
        f = nullptr;
        break;
      }
    }
    if (!partner)
      return fail(forall, Twine(kGradDqReduceAttr) +
                              ": no dQ forall of the same operands (with the "
                              "attribute) in the block");
    // The launch goes where both foralls' operands are defined: before the
    // earlier of the two.
    scf::ForallOp first =
        partner->isBeforeInBlock(forall) ? partner : forall;
    OpBuilder b(first);
    SmallVector<Value> r = buildAttentionGradWgmmaKernel(
        b, forall.getLoc(), *p, resultType(forall, 0), resultType(forall, 1),
        resultType(partner, 0));
    if (failed(replace(forall, {r[0], r[1]})))
      return failure();
    return replace(partner, {r[2]});
  }

  void runOnOperation() override {
    SmallVector<scf::ForallOp> plain, reducing;
    getOperation().walk([&](scf::ForallOp f) {
      if (f->hasAttr(kGradTilesAttr))
        (f->hasAttr(kGradDqReduceAttr) ? reducing : plain).push_back(f);
    });
    for (scf::ForallOp f : plain)
      if (failed(mapForall(f)))
        return signalPassFailure();
    // Each dK/dV forall takes its dQ forall (set to null in `open`); a dQ
    // forall left over has no partner.
    SmallVector<scf::ForallOp> open(reducing);
    for (size_t i = 0; i < open.size(); ++i) {
      scf::ForallOp f = open[i];
      if (!f || !isa<AttentionDkDvOp>(tilesAndBlockOp(f)))
        continue;
      open[i] = nullptr;
      if (failed(mapReducing(f, open)))
        return signalPassFailure();
    }
    for (scf::ForallOp f : open)
      if (f) {
        (void)fail(f, Twine(kGradDqReduceAttr) +
                          ": no dK/dV forall of the same operands (with the "
                          "attribute) in the block");
        return signalPassFailure();
      }
  }
};

} // namespace
