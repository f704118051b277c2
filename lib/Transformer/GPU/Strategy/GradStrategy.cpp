//===- GradStrategy.cpp - tx-attention-grad-strategy ----------------------===//
//
// Marks the tx.attention_grad ops the backward's kernels (GPU/Kernels/Grad)
// take with their tiles (kGradTilesAttr) and, for sm_90a's one-pass wgmma
// kernel, with kGradDqReduceAttr. The choice is
// made here and nowhere else: tx-tile-attention-grad from-strategy=true
// tiles with it, tx-map-attention-grad-to-gpu reads the tiles back from
// the foralls.
//
//===----------------------------------------------------------------------===//
#include "Transformer/Passes.h"
#include "Transformer/TxOps.h"

#include "mlir/IR/BuiltinTypes.h"

namespace mlir {
namespace tx {
#define GEN_PASS_DEF_TXATTENTIONGRADSTRATEGY
#include "Transformer/Passes.h.inc"
} // namespace tx
} // namespace mlir

using namespace mlir;
using namespace mlir::tx;

namespace {

/// The kernels' tiles (q_tile, kv_tile) for `op` on compute capability
/// `sm`, or nothing when the reference lowering keeps it.
std::optional<std::pair<int64_t, int64_t>> gradKernelTiles(AttentionGradOp op,
                                                           int64_t sm,
                                                           bool reduceDq) {
  if (sm < 80)
    return std::nullopt; // mma.sync, cp.async
  if (op.getMask() || op.getSoftcapAttr() || op.getWindowAttr() ||
      op.getKvLengths() || op.getQLengths() || op.hasMods())
    return std::nullopt;
  auto qTy = cast<RankedTensorType>(op.getQuery().getType());
  Type elt = qTy.getElementType();
  if (!elt.isF16() && !elt.isBF16())
    return std::nullopt;
  for (Value v : {op.getKey(), op.getValue(), op.getGradOutput()})
    if (cast<RankedTensorType>(v.getType()).getElementType() != elt)
      return std::nullopt;
  int64_t D = qTy.getDimSize(3);
  int64_t Dv = cast<RankedTensorType>(op.getValue().getType()).getDimSize(3);
  if (D != Dv || (D != 64 && D != 128))
    return std::nullopt;
  // sm_90a's one-pass kernel: two warpgroups of 64 keys, 64-row steps.
  if (reduceDq)
    return std::make_pair(int64_t(64), int64_t(128));
  // D = 64: 4-warp CTAs both ways; D = 128: 16 query rows fewer per dK/dV
  // step and per dQ CTA keep the f32 accumulators (D/2 registers per
  // thread for each of dK, dV, dQ) and the step's Sᵀ/dPᵀ in registers.
  return D == 64 ? std::make_pair(int64_t(64), int64_t(64))
                 : std::make_pair(int64_t(32), int64_t(64));
}

struct TxAttentionGradStrategyPass
    : public tx::impl::TxAttentionGradStrategyBase<
          TxAttentionGradStrategyPass> {
  using Base::Base;
  void runOnOperation() override {
    getOperation().walk([&](AttentionGradOp op) {
      if (op->hasAttr(kGradTilesAttr))
        return; // a user's or tuner's tiles
      const bool reduceDq = wgmma && !deterministic;
      std::optional<std::pair<int64_t, int64_t>> t =
          gradKernelTiles(op, sm, reduceDq);
      if (!t)
        return;
      op->setAttr(kGradTilesAttr,
                  DenseI64ArrayAttr::get(&getContext(), {t->first, t->second}));
      if (reduceDq)
        op->setAttr(kGradDqReduceAttr, UnitAttr::get(&getContext()));
    });
  }
};

} // namespace
