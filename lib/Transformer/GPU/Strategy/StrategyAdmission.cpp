//===- StrategyAdmission.cpp - which problems a strategy's kernel takes ---===//
//
// checkStrategyAdmits: the rules, family by family, that say whether the
// kernel of a strategy (a tx.gpu_strategy read by strategyFromAttr) can be
// built for a problem on a chip. tx-map-attention-to-gpu applies them to
// the strategy it finds on a forall (written by tx-attention-strategy, by a
// tuner or by hand); tx-attention-strategy applies them to every strategy
// it chooses, so that the table (AttentionStrategy.cpp) and these rules
// cannot drift apart unnoticed.
//
// The rules are the table's conditions for taking a family
// (Chooser::mmaConfig, Chooser::decodeConfig, checkDecodeConfig,
// fitSharedMemory) on choices that are already made; the ranges of each
// parameter are the attribute's verifier's (TxAttrs.cpp).
//
//===----------------------------------------------------------------------===//
#include "GPU/AttentionKernel.h"

using namespace mlir;
using namespace mlir::tx;

namespace {
/// One check: the rule's message, or success.
struct Admission {
  const FlashConfig &c;
  const AttentionProblem &p;
  const AttentionTarget &t;
  llvm::function_ref<void(const Twine &)> fail;

  LogicalResult bad(const Twine &msg) {
    fail(msg);
    return failure();
  }

  std::string eltName() const {
    std::string s;
    llvm::raw_string_ostream os(s);
    os << p.elementType();
    return s;
  }

  /// The split-KV decode family: few query rows per K/V head, no window.
  LogicalResult decode() {
    int64_t D = c.D, Dv = c.Dv;
    if (p.window)
      return bad("the decode family takes no sliding window (the flash "
                 "kernels skip the key tiles outside it)");
    auto qTy = cast<RankedTensorType>(p.query.getType());
    int64_t H = qTy.getDimSize(1), Sq = qTy.getDimSize(2);
    int64_t Hkv = cast<RankedTensorType>(p.key.getType()).getDimSize(1);
    if (H % Hkv != 0 || Sq < 1)
      return bad("the decode family needs H a multiple of Hkv and Sq >= 1, "
                 "got H = " + Twine(H) + ", Hkv = " + Twine(Hkv) +
                 ", Sq = " + Twine(Sq));
    int64_t G = H / Hkv;
    // (G and Sq each checked first: their product can overflow int64.)
    if (G > 32 || Sq > 32 || G * Sq > 32)
      return bad("the decode family packs G * Sq <= 32 query rows of a K/V "
                 "head, got G = H / Hkv = " + Twine(G) + ", Sq = " +
                 Twine(Sq));
    Type elt = p.elementType();
    if (!(elt.isF16() || elt.isBF16() || elt.isF32()))
      return bad("the decode family takes f16, bf16 or f32, got " +
                 Twine(eltName()));
    int64_t perLoad = 16 / c.eltBytes;
    if (D % perLoad != 0 || D > 256 ||
        !(Dv == 32 || Dv == 64 || Dv == 128 || Dv == 256))
      return bad("the decode family needs D a multiple of " +
                 Twine(perLoad) + " (whole 16-byte loads) up to 256 and Dv "
                 "in {32, 64, 128, 256}, got D = " + Twine(D) + ", Dv = " +
                 Twine(Dv));
    if (c.decodeTileKeys == 16 && D % (2 * perLoad) != 0)
      return bad("'tile_keys' = 16 splits D over two lanes and needs D to "
                 "be a multiple of " + Twine(2 * perLoad) + ", got D = " +
                 Twine(D));
    if (c.decodeSmemBytes() > t.maxSharedMemory)
      return bad("the decode kernel needs " + Twine(c.decodeSmemBytes()) +
                 " bytes of shared memory (warps " + Twine(c.warps) +
                 ", stages " + Twine(c.decodeStages) + ", tile_keys = " +
                 Twine(c.decodeTileKeys) + ", G * Sq " +
                 Twine(c.decodeRows()) + ", D " + Twine(D) + ", Dv " +
                 Twine(Dv) + "), more than max-shared-memory = " +
                 Twine(t.maxSharedMemory));
    return success();
  }

  /// The tensor-core prefill families: mma.sync, and wgmma on sm_90a.
  LogicalResult tensorCores() {
    int64_t D = c.D, Dv = c.Dv;
    Type elt = p.elementType();
    StringRef family = c.wgmma ? "wgmma" : "mma";
    if (!(elt.isF16() || elt.isBF16()))
      return bad("the " + family + " family takes f16 or bf16, got " +
                 Twine(eltName()));
    if (D % 16 != 0 || Dv % 16 != 0 || D > 128 || Dv > 128)
      return bad("the " + family + " family needs D and Dv multiples of 16 "
                 "up to 128, got D = " + Twine(D) + ", Dv = " + Twine(Dv));
    if (!c.wgmma) {
      if (c.warps > 16)
        return bad("the mma family takes at most 16 warps, got 'warps' = " +
                   Twine(c.warps));
      return success();
    }
    if (!t.wgmma || t.sm != 90)
      return bad("the wgmma family needs an sm_90a chip (sm = 90 with "
                 "wgmma), got sm = " + Twine(t.sm) +
                 (t.wgmma ? Twine("") : Twine(" without wgmma")));
    if (!(D == 64 || D == 128) || !(Dv == 64 || Dv == 128))
      return bad("the wgmma family needs D and Dv in {64, 128}, got D = " +
                 Twine(D) + ", Dv = " + Twine(Dv));
    if (c.qTile != 64 && c.qTile != 128)
      return bad("the wgmma family takes one or two consumer warpgroups "
                 "('q_tile' 64 or 128), got 'q_tile' = " + Twine(c.qTile));
    return success();
  }

  /// The prefill families' tiles in shared memory.
  LogicalResult sharedMemory() {
    if (c.smemBytes() <= t.maxSharedMemory)
      return success();
    return bad("the tiles need " + Twine(c.smemBytes()) +
               " bytes of shared memory (q_tile = " + Twine(c.qTile) +
               ", kv_tile = " + Twine(c.kvTile) + ", D " + Twine(c.D) +
               ", Dv " + Twine(c.Dv) +
               (c.wgmma ? ", stages = " + Twine(c.stages) : Twine("")) +
               "), more than max-shared-memory = " +
               Twine(t.maxSharedMemory));
  }
};
} // namespace

LogicalResult
mlir::tx::checkStrategyAdmits(const FlashConfig &c, const AttentionProblem &p,
                              const AttentionTarget &t,
                              llvm::function_ref<void(const Twine &)> fail) {
  Admission a{c, p, t, fail};
  int64_t D = p.D(), Dv = p.Dv();
  if (ShapedType::isDynamic(D) || ShapedType::isDynamic(Dv) || D < 1 ||
      Dv < 1 || D > 256 || Dv > 256) {
    auto dim = [](int64_t d) {
      return ShapedType::isDynamic(d) ? std::string("?") : std::to_string(d);
    };
    return a.bad("the GPU kernels need static head dims D and Dv in [1, "
                 "256], got D = " + Twine(dim(D)) + ", Dv = " + Twine(dim(Dv)));
  }
  if (c.decode)
    return a.decode();
  if (c.mma && failed(a.tensorCores()))
    return failure();
  return a.sharedMemory();
}
