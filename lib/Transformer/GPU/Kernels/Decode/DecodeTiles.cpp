//===- DecodeTiles.cpp - the decode kernel's K/V tiles ---------------------===//
//
// The split-KV decode kernel's (DecodeKernel.cpp) key tiles: their layout
// in each warp's shared-memory stages, and the cp.async copies that fill
// them from the contiguous cache [B, Hkv, Sk, D] or from a paged cache's
// pools through the page table (PagedKvRows.h).
//
//===----------------------------------------------------------------------===//
#include "GPU/Kernels/Attention/FlashKernelBuilder.h"

using namespace mlir;
using namespace mlir::tx;

Value FlashKernelBuilder::decodeView(DecodeCall &d, Value off,
                                     ArrayRef<int64_t> shape, Type et) {
  auto wg = gpu::AddressSpaceAttr::get(b.getContext(),
                                       gpu::AddressSpace::Workgroup);
  auto ty = MemRefType::get(shape, et, MemRefLayoutAttrInterface(), wg);
  return memref::ViewOp::create(b, loc, ty, d.base, off, ValueRange{});
}

Value FlashKernelBuilder::decodeStageOff(DecodeCall &d, Value s) {
  return add(add(d.warpBase, cfg.decodePBytes()),
             mul(s, cfg.decodeKBytes() + cfg.decodeVBytes()));
}

// K and V tiles in shared memory (decodeSwizzle): rows of whole 128-byte
// lines (or 64 bytes) as the tile's global bytes (TK whole rows,
// contiguous) with the 16-byte chunks of each line permuted by an XOR with
// the row. A warp's cp.async of 512 contiguous bytes then fills four
// aligned 128-byte lines: with rows padded by 16 bytes instead, lines
// straddled the padding and the copies asked L2 for 1.5x the sectors (H200
// ncu, bench/RESULTS.md session 13); ldmatrix and the CUDA-core K loads
// read 8 rows' same chunk from 8 distinct bank groups. Other row widths
// (e.g. 80, 96 f16) stay padded by 16 bytes, where the permutation would
// cost bank conflicts. The CUDA-core form's V rows (read along the row)
// stay in order (swizzled only with cfg.decodeTC).
Value FlashKernelBuilder::decodeKView(DecodeCall &d, Value s) {
  return decodeView(d, decodeStageOff(d, s),
                    {cfg.decodeTileKeys * cfg.decodeTileStride(cfg.D)}, elt);
}

Value FlashKernelBuilder::decodeVView(DecodeCall &d, Value s) {
  const int64_t TK = cfg.decodeTileKeys, Dv = cfg.Dv;
  Value off = add(decodeStageOff(d, s), cfg.decodeKBytes());
  return cfg.decodeTC
             ? decodeView(d, off, {TK * cfg.decodeTileStride(Dv)}, elt)
             : decodeView(d, off, {TK, Dv}, elt);
}

Value FlashKernelBuilder::decodeTileStart(DecodeCall &d, Value u) {
  return add(d.kBegin,
             mul(add(d.warp, mul(u, cfg.warps)), cfg.decodeTileKeys));
}

kernel::DecodeStepTile
FlashKernelBuilder::decodeStepBegin(DecodeCall &d, Value u) {
  const int64_t S = cfg.decodeStages;
  decodeSyncWarp(d);
  asyncWait(decodeIssue(d, add(u, S - 1)), S - 1); // tile u has landed
  decodeSyncWarp(d);
  Value s = arith::RemUIOp::create(b, loc, u, cst(S));
  Value ks = decodeKView(d, s), vs = decodeVView(d, s);
  return {ks, vs, decodeTileStart(d, u)};
}

Value FlashKernelBuilder::decodeIssue(DecodeCall &d, Value u, Value page) {
  const int64_t TK = cfg.decodeTileKeys, S = cfg.decodeStages;
  const int64_t nv = 16 / cfg.eltBytes; // elements per 16-byte load
  auto tokTy = nvgpu::DeviceAsyncTokenType::get(b.getContext());
  ifThen(cmpi(arith::CmpIPredicate::ult, u, d.nLocal), [&] {
    Value j0 = decodeTileStart(d, u);
    Value s = arith::RemUIOp::create(b, loc, u, cst(S));
    // A paged cache: the tile's page, when the tile lies in one.
    if (pages && !page)
      page = pages->tilePage(b, loc, d.bi, j0);
    struct Source {
      Value r, col, gRow, ok;
      SmallVector<Value> from;
    };
    auto copyRows = [&](Value buf, Value dst, int64_t width, bool sw) {
      int64_t cpr = width / nv; // 16-byte chunks per row
      auto source = [&](Value c) {
        Source s;
        s.r = arith::DivUIOp::create(b, loc, c, cst(cpr));
        s.col = mul(arith::RemUIOp::create(b, loc, c, cst(cpr)), nv);
        s.gRow = add(j0, s.r);
        s.ok = cmpi(arith::CmpIPredicate::ult, s.gRow, d.kEnd);
        if (pages)
          s.from = pages->index(b, loc, d.bi, d.kh, page, j0,
                                minsi(s.gRow, d.skLast), s.col, s.ok);
        return s;
      };
      auto issue = [&](Source s) {
        Value n = select(s.ok, cst(nv), d.zero);
        SmallVector<Value> at{s.r, s.col};
        if (sw)
          at = {decodeSwizzle(s.r, s.col, width)};
        if (!pages)
          s.from = {d.bi, d.kh, minsi(s.gRow, d.skLast), s.col};
        nvgpu::DeviceAsyncCopyOp::create(b, loc, tokTy, dst, at, buf, s.from,
                                         b.getIndexAttr(nv), n,
                                         b.getUnitAttr());
      };
      // Paged rows: every table read first, then the copies (the reads in
      // flight together, not one latency per copy).
      SmallVector<Source> pending;
      for (int64_t c0 = 0; c0 < TK * cpr; c0 += 32) {
        Value c = add(d.lane, c0);
        if (c0 + 32 > TK * cpr)
          ifThen(cmpi(arith::CmpIPredicate::ult, c, cst(TK * cpr)),
                 [&] { issue(source(c)); });
        else if (pages)
          pending.push_back(source(c));
        else
          issue(source(c));
      }
      for (Source &s : pending)
        issue(s);
    };
    copyRows(k, decodeKView(d, s), cfg.D, true);
    copyRows(v, decodeVView(d, s), cfg.Dv, cfg.decodeTC);
  });
  return asyncCommit();
}

void FlashKernelBuilder::decodeSyncWarp(DecodeCall &d) {
  NVVM::SyncWarpOp::create(b, loc, d.allLanes);
}
