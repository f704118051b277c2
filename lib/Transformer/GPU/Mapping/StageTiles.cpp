//===- StageTiles.cpp - staging and pipelining of the tiled IR ------------===//
//
// Steps of the GPU path on the tiled IR, between tiling and GPU mapping
// (docs/Design.md):
//
//   tx-stage-attention     the Q tile (once per CTA) and the K and V tiles
//                          (once per key step) become copies into tensors
//                          in #gpu.address_space<workgroup>: upstream's
//                          transform.structured.promote_tensor form,
//                          bufferization.alloc_tensor + materialize_in_destination
//   tx-pipeline-attention  the key loop gets tx.pipeline_stages, the K/V
//                          tiles resident in shared memory at once
//   tx-stage-softmax       the row tile of a softmax whose strategy keeps
//                          rows in shared memory, the same way
//
// tx-map-attention-to-gpu and tx-map-softmax-to-gpu read them (stagedTile,
// pipelineStagesOf).
//
//===----------------------------------------------------------------------===//
#include "GPU/AttentionKernel.h"
#include "Transformer/Passes.h"
#include "Transformer/TxOps.h"

#include "mlir/Dialect/Bufferization/IR/Bufferization.h"
#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"

namespace mlir {
namespace tx {
#define GEN_PASS_DEF_TXSTAGEATTENTION
#define GEN_PASS_DEF_TXPIPELINEATTENTION
#define GEN_PASS_DEF_TXSTAGESOFTMAX
#include "Transformer/Passes.h.inc"
} // namespace tx
} // namespace mlir

using namespace mlir;
using namespace mlir::tx;

std::optional<StagedTile> mlir::tx::stagedTile(Value v) {
  auto m = v.getDefiningOp<bufferization::MaterializeInDestinationOp>();
  if (!m || m->getNumResults() != 1)
    return std::nullopt;
  auto alloc = m.getDest().getDefiningOp<bufferization::AllocTensorOp>();
  if (!alloc || alloc.getCopy())
    return std::nullopt;
  return StagedTile{m.getSource(), alloc.getMemorySpaceAttr()};
}

bool mlir::tx::isWorkgroupMemory(Attribute space) {
  auto a = dyn_cast_or_null<gpu::AddressSpaceAttr>(space);
  return a && a.getValue() == gpu::AddressSpace::Workgroup;
}

std::string mlir::tx::memorySpaceText(Attribute space) {
  if (!space)
    return "no memory space";
  std::string text;
  llvm::raw_string_ostream os(text);
  os << space;
  return text;
}

SmallVector<StagedTile> mlir::tx::stagingsInside(Value v, Operation *region) {
  SmallVector<StagedTile> out;
  while (v && region->isAncestor(v.getParentRegion()->getParentOp())) {
    if (std::optional<StagedTile> st = stagedTile(v)) {
      out.push_back(*st);
      v = st->source;
      continue;
    }
    auto s = v.getDefiningOp<tensor::ExtractSliceOp>();
    v = s ? s.getSource() : Value();
  }
  return out;
}

int64_t mlir::tx::pipelineStagesOf(const FlashConfig &cfg) {
  if (cfg.decode)
    return cfg.decodeStages;
  if (cfg.wgmma)
    return cfg.stages;
  return 1; // mma.sync, CUDA cores: one K and one V buffer
}

Value mlir::tx::stageInWorkgroupMemory(OpBuilder &b, Location loc, Value v) {
  auto type = cast<RankedTensorType>(v.getType());
  SmallVector<Value> dyn;
  for (int64_t d = 0; d < type.getRank(); ++d)
    if (type.isDynamicDim(d))
      dyn.push_back(b.createOrFold<tensor::DimOp>(loc, v, d));
  auto buf = bufferization::AllocTensorOp::create(
      b, loc, type, dyn, /*copy=*/Value(), /*size_hint=*/Value(),
      gpu::AddressSpaceAttr::get(b.getContext(), gpu::AddressSpace::Workgroup));
  return bufferization::MaterializeInDestinationOp::create(b, loc, v, buf)
      .getResult();
}

namespace {

struct TxStageAttentionPass
    : public tx::impl::TxStageAttentionBase<TxStageAttentionPass> {
  void runOnOperation() override {
    SmallVector<OnlineAttentionOp> tiles;
    getOperation().walk([&](OnlineAttentionOp t) { tiles.push_back(t); });
    for (OnlineAttentionOp tile : tiles) {
      auto forall = tile->getParentOfType<scf::ForallOp>();
      if (!forall)
        continue;
      Location loc = tile.getLoc();
      // Q: the outermost slice inside the forall (before the key loop), so
      // that it is staged once per CTA.
      if (stagingsInside(tile.getQuery(), forall).empty()) {
        Value q = tile.getQuery();
        tensor::ExtractSliceOp outer;
        for (auto s = q.getDefiningOp<tensor::ExtractSliceOp>(); s;
             s = s.getSource().getDefiningOp<tensor::ExtractSliceOp>()) {
          if (!forall->isAncestor(s))
            break;
          outer = s;
        }
        // The one use on Q's chain to the tile op (not every use of the
        // slice: after CSE the mask may read the same slice).
        OpOperand *use = &tile.getQueryMutable();
        for (Value v = q; v != (outer ? outer.getResult() : q);) {
          auto s = v.getDefiningOp<tensor::ExtractSliceOp>();
          use = &s.getSourceMutable();
          v = s.getSource();
        }
        OpBuilder b(tile);
        if (outer)
          b.setInsertionPointAfter(outer);
        use->set(stageInWorkgroupMemory(b, loc, use->get()));
      }
      // K and V: the tile op's operands, per key step.
      for (OpOperand *operand :
           {&tile.getKeyMutable(), &tile.getValueMutable()}) {
        if (stagedTile(operand->get()))
          continue;
        OpBuilder b(tile);
        operand->set(stageInWorkgroupMemory(b, loc, operand->get()));
      }
    }
  }
};

struct TxPipelineAttentionPass
    : public tx::impl::TxPipelineAttentionBase<TxPipelineAttentionPass> {
  void runOnOperation() override {
    getOperation().walk([&](OnlineAttentionOp tile) {
      auto loop = dyn_cast<scf::ForOp>(tile->getParentOp());
      auto forall = tile->getParentOfType<scf::ForallOp>();
      if (!loop || !forall || loop->hasAttr(kPipelineStagesAttr))
        return;
      // A forall without a strategy (a user's tiling before
      // tx-attention-strategy, which reads a depth the user set) is left
      // alone; a strategy of another op is reported by the mapping.
      Attribute attr = forall->getAttr(kGpuStrategyAttr);
      int64_t n;
      if (auto w = dyn_cast_or_null<WgmmaStrategyAttr>(attr))
        n = w.getStages();
      else if (auto d = dyn_cast_or_null<DecodeStrategyAttr>(attr))
        n = d.getStages();
      else if (isa_and_nonnull<MmaStrategyAttr, SimtStrategyAttr>(attr))
        n = 1;
      else
        return;
      loop->setAttr(kPipelineStagesAttr,
                    IntegerAttr::get(IntegerType::get(&getContext(), 64), n));
    });
  }
};

struct TxStageSoftmaxPass
    : public tx::impl::TxStageSoftmaxBase<TxStageSoftmaxPass> {
  void runOnOperation() override {
    getOperation().walk([&](SoftmaxOp tile) {
      auto forall = tile->getParentOfType<scf::ForallOp>();
      auto attr = forall ? forall->getAttrOfType<SoftmaxStrategyAttr>(
                               kGpuStrategyAttr)
                         : SoftmaxStrategyAttr();
      SoftmaxKernelAttr vec = attr ? attr.getVector() : SoftmaxKernelAttr();
      if (!vec || vec.getSmemRowBytes() <= 0 || stagedTile(tile.getInput()))
        return;
      OpBuilder b(tile);
      tile.getInputMutable().set(
          stageInWorkgroupMemory(b, tile.getLoc(), tile.getInput()));
    });
  }
};

} // namespace
