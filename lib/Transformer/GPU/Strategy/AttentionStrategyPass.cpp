//===- AttentionStrategyPass.cpp - tx-attention-strategy -----------------===//
//
// The strategy step of tx.attention's GPU path: every tx.attention, and
// every tiled one that has no strategy yet (a user's transform script),
// gets its kernel family and tiles (chooseAttentionKernel) as a typed
// tx.gpu_strategy. tx-tile-attention tiles with it and
// tx-map-attention-to-gpu builds the kernel from it without choosing again.
//
//===----------------------------------------------------------------------===//
#include "GPU/AttentionKernel.h"
#include "GPU/Strategy/AttentionKnobs.h"
#include "GPU/TiledAttention.h"
#include "Transformer/Passes.h"
#include "Transformer/TxOps.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "llvm/ADT/MapVector.h"

namespace mlir {
namespace tx {
#define GEN_PASS_DEF_TXATTENTIONSTRATEGY
#include "Transformer/Passes.h.inc"
} // namespace tx
} // namespace mlir

using namespace mlir;
using namespace mlir::tx;

namespace {

constexpr llvm::StringLiteral kPass = "tx-attention-strategy";

struct TxAttentionStrategyPass
    : public tx::impl::TxAttentionStrategyBase<TxAttentionStrategyPass> {
  using Base::Base;

  void runOnOperation() override {
    AttentionTarget t;
    AttentionChoices c;
#define TX_TARGET(knob, Knob) t.knob = knob;
#define TX_CHOICE(knob, Knob) c.knob = knob;
    TX_ATTENTION_TARGET_KNOBS(TX_TARGET)
    TX_ATTENTION_CHOICE_KNOBS(TX_CHOICE)
#undef TX_TARGET
#undef TX_CHOICE
    auto fail = [&](const Twine &msg) {
      mlir::emitError(getOperation().getLoc(), "tx-attention-to-gpu: ") << msg;
    };
    if (failed(checkAttentionChoices(t, c, fail)))
      return signalPassFailure();
    SmallVector<AttentionOp> ops;
    getOperation().walk([&](AttentionOp op) { ops.push_back(op); });
    for (AttentionOp op : ops) {
      if (op.isPaged()) {
        op.emitError("tx-attention-strategy: a paged tx.attention "
                     "(page_table) gets its strategy once tx-gather-kv-pages "
                     "has rewritten it onto contiguous K/V; run that pass "
                     "first");
        return signalPassFailure();
      }
      // A strategy already on the op (written by hand or by a tuner, or by
      // an earlier run of this pass) is kept, not replaced by the table's
      // choice: it is checked here against the op, and
      // tx-map-attention-to-gpu checks it against the chip.
      if (Attribute a = op->getAttr(kGpuStrategyAttr)) {
        if (failed(checkKeptStrategy(op, a)))
          return signalPassFailure();
        continue;
      }
      AttentionProblem p = AttentionProblem::fromOp(op);
      FailureOr<std::optional<FlashConfig>> cfg =
          chooseAttentionKernel(op, p, t, c);
      if (failed(cfg))
        return signalPassFailure();
      if (*cfg && failed(setStrategy(op, op, **cfg, p, t)))
        return signalPassFailure();
    }
    if (failed(strategiesOfTilings(t)))
      signalPassFailure();
  }

  /// Stores the strategy `cfg` of `p` on `on`, after checking that the
  /// mapping takes it on this target (checkStrategyAdmits): the table's
  /// choice with the options is a kernel the mapping builds.
  LogicalResult setStrategy(Operation *on, Operation *diagAt,
                            const FlashConfig &cfg, const AttentionProblem &p,
                            const AttentionTarget &t) {
    auto attr = cast<AttentionTilingAttr>(strategyToAttr(&getContext(), cfg));
    bool bad = false;
    auto diag = [&](const Twine &msg) {
      diagAt->emitError(kPass)
          << ": the strategy the options give, " << attr
          << ", has no kernel for this op: " << msg;
      bad = true;
    };
    FailureOr<FlashConfig> back = strategyFromAttr(attr, p, diag);
    if (bad || failed(back) || failed(checkStrategyAdmits(*back, p, t, diag)))
      return failure();
    on->setAttr(kGpuStrategyAttr, attr);
    return success();
  }

  /// Tiled tx.attention without a strategy (a user's transform script: one
  /// tx.online_attention in an scf.forall of query tiles): the strategy of
  /// its tiles on the forall, with kCheckShapesAttr (its shapes were not
  /// checked by tx-tile-attention). Split-KV tilings (nested foralls) and
  /// foralls of several tile ops are left to tx-map-attention-to-gpu's
  /// errors.
  LogicalResult strategiesOfTilings(const AttentionTarget &t) {
    llvm::MapVector<Operation *, SmallVector<OnlineAttentionOp>> byForall;
    getOperation().walk([&](OnlineAttentionOp tile) {
      auto forall = tile->getParentOfType<scf::ForallOp>();
      if (forall && !forall->getParentOfType<scf::ForallOp>() &&
          !forall->hasAttr(kGpuStrategyAttr))
        byForall[forall].push_back(tile);
    });
    for (auto &[op, tiles] : byForall) {
      if (tiles.size() != 1)
        continue;
      auto forall = cast<scf::ForallOp>(op);
      FailureOr<TiledAttention> m =
          matchTiledAttention(forall, tiles[0], kPass, /*staged=*/false);
      if (failed(m))
        return failure();
      FailureOr<FlashConfig> cfg = strategyForTiling(*m, t, kPass);
      if (failed(cfg) || failed(setStrategy(forall, forall, *cfg,
                                            m->problem, t)))
        return failure();
      forall->setAttr(kCheckShapesAttr, UnitAttr::get(&getContext()));
    }
    return success();
  }

  /// A kept strategy must be an attention strategy that strategyFromAttr
  /// accepts for this op, on an op whose head dims the GPU kernels take.
  static LogicalResult checkKeptStrategy(AttentionOp op, Attribute a) {
    constexpr llvm::StringLiteral kept =
        " (a strategy already on the op is kept, not replaced)";
    auto strategy = dyn_cast<AttentionTilingAttr>(a);
    if (!strategy)
      return op.emitError("tx-attention-strategy: ")
             << kGpuStrategyAttr << " must be an attention strategy, got "
             << a << kept;
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
    (void)strategyFromAttr(strategy, p, [&](const Twine &msg) {
      op.emitError("tx-attention-strategy: ") << msg << kept;
      bad = true;
    });
    return failure(bad);
  }
};

} // namespace
