//===- FlashKernelBuilder.h - the attention kernels' builder ----*- C++ -*-===//
//
// The attention kernels' builder: FlashAttention-2 (Dao 2023) on CUDA
// cores (SimtKernel.cpp, whose header comment gives the algorithm and the
// choices shared by every family), on mma.sync m16n8k16 (sm_80+) and on
// wgmma.mma_async (sm_90a), and the split-KV decode kernel.
//
// One class, its methods in one file per family: AttentionKernels.cpp,
// SimtKernel.cpp, Decode{Kernel,Tiles,Warps}.cpp, SplitKv.cpp, MmaKernel.cpp
// (helpers wgmma shares), MmaLaunch.cpp, WgmmaKernel.cpp, WgmmaLaunch.cpp;
// values between pieces: KernelState.h. Private.
//
//===----------------------------------------------------------------------===//
#ifndef TRANSFORMER_GPU_FLASHKERNELBUILDER_H
#define TRANSFORMER_GPU_FLASHKERNELBUILDER_H

#include "GPU/AttentionKernel.h"
#include "GPU/Kernels/Attention/KernelState.h"
#include "GPU/Kernels/Common/KeyTileLists.h"
#include "GPU/Kernels/Common/ModRegions.h"
#include "GPU/Kernels/Common/PagedKvRows.h"
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

namespace mlir {
namespace tx {

/// Emits the flash kernel for one attention problem at the builder's
/// insertion point (host code, before bufferization: operands become
/// read-only buffers).
class FlashKernelBuilder {
public:
  FlashKernelBuilder(OpBuilder &b, const AttentionProblem &p,
                     FlashConfig cfg, bool checks)
      : b(b), prob(p), loc(p.loc), cfg(cfg), f32(b.getF32Type()),
        elt(p.elementType()), checks(checks) {}

  /// The output tensor, and the log-sum-exp tensor when the op has one.
  SmallVector<Value> build();

private:
  // ---- small builders -------------------------------------------------
  Value cst(int64_t v) { return arith::ConstantIndexOp::create(b, loc, v); }
  Value fcst(double v);
  Value add(Value x, Value y) { return arith::AddIOp::create(b, loc, x, y); }
  Value sub(Value x, Value y) { return arith::SubIOp::create(b, loc, x, y); }
  Value mul(Value x, Value y) { return arith::MulIOp::create(b, loc, x, y); }
  Value add(Value x, int64_t y) { return y == 0 ? x : add(x, cst(y)); }
  Value mul(Value x, int64_t y) { return y == 1 ? x : mul(x, cst(y)); }
  Value cmpi(arith::CmpIPredicate p, Value x, Value y);
  Value minsi(Value x, Value y) { return arith::MinSIOp::create(b, loc, x, y); }
  Value maxsi(Value x, Value y) { return arith::MaxSIOp::create(b, loc, x, y); }
  Value minui(Value x, Value y) { return arith::MinUIOp::create(b, loc, x, y); }
  /// i1: some key of [k0, k0 + n) lies outside the band (causal, window)
  /// of some query row in [iLo, iHi], i.e. the tile needs the per-key
  /// predicate (inBand). Null when the band hides nothing. (Sides are at
  /// most 2^40 here, so `i + shift + right` cannot overflow.)
  Value bandCrosses(Value k0, int64_t n, Value iLo, Value iHi, Value shift);
  /// `ok` and key j inside query row i's band (causal, window):
  /// i + shift - left <= j <= i + shift + right. A window tests the key's
  /// distance from the diagonal, d = j - (i + shift), against both sides
  /// (one value per key: fewer registers than two bounds per row); causal
  /// alone compares j with i + shift + right.
  Value inBand(Value ok, Value j, Value i, Value shift);
  Value select(Value c, Value x, Value y);
  Value fma(Value x, Value y, Value acc);
  Value toF32(Value x);
  VectorType vec(int64_t n, Type t) { return VectorType::get({n}, t); }
  /// A 1-D f32 view of `floats` elements at byte offset `offset` of the
  /// dynamic shared memory.
  Value smemView(Value base, int64_t offsetBytes, int64_t floats);
  /// Loads `n` elements of a row-major [B?,H?,S,D] global buffer at
  /// (i0, i1, row, col) as f32 (a 16-byte vector load when n > 1).
  Value loadGlobal(Value buf, ValueRange idx, int64_t n);
  /// Stores f32 value(s) `x` (scalar or vector of n) at `off` of a shared
  /// view, in pieces of at most 4 floats (16 bytes).
  void storeShared(Value x, Value view, Value off);
  /// Loads n floats (n = 1 or 4) from a shared view at `off`.
  Value loadShared(Value view, Value off, int64_t n);
  Value lanePart(Value x, int64_t e);
  /// Whether an mma.sync/wgmma tile copy reads row `gRow` (tile row `r`):
  /// < rowLimit, >= rowStart (if set), visible by the flags (if set).
  Value copyRowOk(Value gRow, Value r, Value rowLimit, Value rowStart,
                  Value flagBuf);
  /// The mask entry at (mb, mh, i, j) (clamped) applied to score `x`: a
  /// false i1 or an additive -inf selects `negInf` (a NaN/Inf score of a
  /// hidden key stays hidden); another entry gives addEntry(x, mf).
  Value applyMaskEntry(Value x, Value mb, Value mh, Value i, Value j,
                       Value negInf,
                       llvm::function_ref<Value(Value, Value)> addEntry);
  /// Logit soft-capping of a score in natural units: c * tanh(s / c) with
  /// libdevice's tanhf (tanh.approx's 2^-11 relative error would show in
  /// f32 results); the score itself without softcap.
  Value capScore(Value s);
  /// The tensor-core kernels' soft-capping: t = tanh(s * scale / c) for a
  /// raw score s, one multiply and PTX `tanh.approx.f32` (one MUFU op, as
  /// FlashAttention's `apply_softcap`). Documented bound 2^-11 relative;
  /// on the H200 as close to float64 as the exact form (rel 2.3e-4 both,
  /// f16 D = 128, cap 50; bench/RESULTS.md session 16). Saturates exactly
  /// (tanh.approx(+-inf) = +-1); NaN stays NaN.
  Value capTanh(Value s);
  /// The capped score in the exp2 domain, x = c * log2(e) * capTanh(s)
  /// (each product rounded), for kernels that form x before the row max
  /// (the tensor-core kernels with an additive mask and softcap).
  Value capLog2(Value s);
  /// Tensor-core kernels (mmaSoftmaxStep): softcap without an additive
  /// mask keeps t = capTanh(s) as the score, takes the row max over t, and
  /// forms each exponent as one FFMA, 2^(t * C - a) with C = c log2(e) and
  /// a = round(max t * C): |t| <= 1 bounds the FFMA's rounding error
  /// (the unbounded raw scores of the uncapped kernels need the two
  /// rounded products instead, see mmaSoftmaxStep).
  bool capFolded() const {
    return softcap && !(mask && !keepMask) && !mods.score;
  }
  /// Whether mmaSoftmaxStep forms the exponent-domain score x before the
  /// row max (mma.sync uncapped, and softcap with an additive mask), else
  /// the max is over raw scores (wgmma uncapped: s, capFolded: t) and the
  /// anchor is a = round(max * rawScale()).
  bool scoresScaledFirst() const {
    return !capFolded() && (!cfg.wgmma || softcap || mods.score);
  }
  /// Score (`score`) or mask function on the tensor-core kernels' scores
  /// `s` of the key tile at `k0` (mmaSoftmaxStep's layout): a raw score
  /// scaled (and capped) in natural units, through the function, then to
  /// the exp2 domain (scoresScaledFirst); a hidden key's score to -inf.
  void mmaMods(const kernel::MmaCtx &cx, SmallVector<Value> &s, Value k0,
               bool score);
  /// The factor from a raw score's maximum to the exponent anchor: the
  /// scale * log2(e) of the uncapped kernels, c * log2(e) with capFolded.
  Value rawScale();

  /// exp(x) as exp2(x * log2(e)).
  Value exp2Of(Value x);

  Value warpAllReduce(Value x, bool isMax);

  /// Element width (in elements) of the staging loads of rows of `width`
  /// elements of type `et`: 16 bytes when the row allows it, else 1.
  int64_t stagingWidth(int64_t width, Type et);

  /// Cooperative copy of `rows` rows of `width` elements (a tile of a global
  /// [B,H,S,width] buffer starting at row `row0`, rows >= `rowLimit` and
  /// columns >= `validCols` read as zero) into the shared view at
  /// `stride` floats per row, pre-multiplied by `factor` when given.
  void stageTile(Value buf, Value i0, Value i1, Value row0, Value rowLimit,
                 int64_t rows, int64_t width, int64_t validCols, Value view,
                 int64_t stride, Value factor);

  // ---- the kernels ------------------------------------------------------
  using Cta = kernel::Cta;
  Cta emitCta(Value blocks, Value nQT);
  /// The first key of the CTA's key tile `t`: kvBase + t * kv-tile, or
  /// with block sparsity the t-th tile of its list (keyTiles).
  Value keyTile0(const Cta &c, Value t);

  /// Inside a kernel, for batch `bi`: replaces `Sk` by the batch's key
  /// count min(max(kv_lengths[bi], 0), Sk) and sets `batchRows` to its
  /// query count (q_lengths, clamped into [0, Sq]); no-op without lengths.
  /// Returns the diagonal's offset Lk - Lq (Sk - Sq without lengths).
  Value emitBatchLengths(Value bi);
  /// i1: query row `i` lies past the batch's q_lengths (null without).
  Value deadRow(Value i);

  /// The family's CTA: wgmma, mma.sync, or the CUDA-core kernel below.
  void emitLaunch(Value blocks, Value nQT);
  using SimtCta = kernel::SimtCta;
  /// One key tile: staged K and V, scores, online softmax, O.
  SmallVector<Value> emitSimtStep(SimtCta &s, Value kt, ValueRange carried);
  /// S = Q K^T of the lane's keys (soft cap and mask applied).
  SmallVector<Value> simtScores(SimtCta &s, Value k0);
  /// Keys past Sk and outside the band (causal, window) to -inf.
  void simtHideKeys(SimtCta &s, Value k0, SmallVector<Value> &sc);
  /// O * alpha + P V of the tile.
  SmallVector<Value> simtPV(SimtCta &s, ValueRange carried,
                            ArrayRef<Value> alpha);
  /// O / l (and the LSE) of the warp's rows.
  void storeSimtOutput(SimtCta &s, ValueRange results);

  // ---- split-KV decode kernels --------------------------------------------
  //
  // FlashDecoding (Dao et al. 2023) with grouped-query packing; see the
  // pass description in Passes.td. Kernel 1: CTA (b, kv head, split) of 4
  // warps, every warp its own part; kernel 2: one warp per query row merges
  // the parts.

  Value ceilDiv(Value x, Value y);
  Value fmax(Value x, Value y);
  Value fadd(Value x, Value y) { return arith::AddFOp::create(b, loc, x, y); }
  Value fsub(Value x, Value y) { return arith::SubFOp::create(b, loc, x, y); }
  Value fmul(Value x, Value y) { return arith::MulFOp::create(b, loc, x, y); }
  Value feq(Value x, Value y);
  /// A 1-D launch of `blocks` CTAs of `threads` threads with `smemBytes`
  /// bytes of dynamic shared memory; the builder is left inside its body.
  /// Returns (thread id, block id).
  /// With `cluster`, the launch groups `cluster` consecutive CTAs into a
  /// thread-block cluster (sm_90+; `blocks` a multiple of it).
  std::pair<Value, Value> emitPlainLaunch(Value blocks, int64_t threads,
                                          int64_t smemBytes,
                                          Value cluster = Value());

  /// The split-KV decode call: the kernel with the merge the strategy chose
  /// (both forms, picked at run time from B, Hkv and Sk, for
  /// decodeClusterShortOnly).
  void emitDecode();
  /// One form: `cluster` > 0 the cluster merge of at most that many
  /// splits, 0 the workspace merge (cfg stays as the strategy made it).
  void emitDecodeCall(int64_t cluster);
  /// The decode kernel's shared K/V tiles: the element offset of (row, col)
  /// in a tile of `width`-element rows. Rows of whole 128-byte lines (or 64
  /// bytes; FlashConfig::decodeSwizzled) are stored as the rows' contiguous
  /// bytes with the 16-byte chunks of every line XOR-permuted (by row % 8,
  /// or by line % 8 for 64-byte rows): copies of 8 consecutive chunks (one
  /// aligned global line) fill one aligned shared line, and 8 rows' same
  /// chunk fall in 8 distinct bank groups (ldmatrix, per-row loads). Other
  /// widths are rows padded by 16 bytes. col is a multiple of 16 bytes.
  Value decodeSwizzle(Value row, Value col, int64_t width);

  using DecodeCall = kernel::DecodeCall;
  using DecodeStepTile = kernel::DecodeStepTile;
  /// The split count (kv-splits, or one wave of CTAs over B * Hkv) and the
  /// keys per split (a multiple of 32): d.nSplit, d.keysPerSplit.
  void chooseDecodeSplits(DecodeCall &d);
  /// The workspace merge's parts (oPart, mlPart) and, for the last CTA's
  /// merge, its zeroed arrival counters.
  void allocDecodeWorkspace(DecodeCall &d);
  /// Inside the kernel: the CTA's ids, shared-memory views and chunk, and
  /// the first S - 1 key tiles of the warp's cp.async pipeline in flight.
  void emitDecodeCtaSetup(DecodeCall &d, Value bid);
  /// A view of the dynamic shared memory at byte offset `off`.
  Value decodeView(DecodeCall &d, Value off, ArrayRef<int64_t> shape,
                   Type et);
  /// Byte offset of the warp's pipeline stage `s` (K, then V).
  Value decodeStageOff(DecodeCall &d, Value s);
  Value decodeKView(DecodeCall &d, Value s);
  Value decodeVView(DecodeCall &d, Value s);
  /// The first key of the warp's local tile `u`.
  Value decodeTileStart(DecodeCall &d, Value u);
  /// Decode step u's start: issue tile u + S - 1, wait for tile u.
  DecodeStepTile decodeStepBegin(DecodeCall &d, Value u);
  /// cp.async of the warp's local tile `u` (when it exists) into stage
  /// u % S; rows past the chunk zero-filled; `page`: its page, read ahead
  /// (a paged cache whose pages hold whole tiles). Always one group.
  Value decodeIssue(DecodeCall &d, Value u, Value page = Value());
  void decodeSyncWarp(DecodeCall &d);
  /// The warps' key loop on tensor cores (cfg.decodeTC; DecodeWarps.cpp),
  /// ending with each warp's (m, l, O) in its shared region.
  void emitDecodeTcWarps(DecodeCall &d);
  using DecodeTc = kernel::DecodeTc;
  /// Q (16 rows, zero past P) to shared memory and its A fragments.
  DecodeTc loadDecodeTcQ(DecodeCall &d);
  /// One key tile of the tensor-core loop: the carried (m[2], l[2], O) of
  /// the thread's two rows, updated.
  SmallVector<Value> emitDecodeTcStep(DecodeCall &d, DecodeTc &t, Value u,
                                      ValueRange carried);
  /// The loop's final (m, l, O) to the warp's shared region.
  void storeDecodeTcState(DecodeCall &d, DecodeTc &t, ValueRange state);
  /// The same on CUDA cores.
  void emitDecodeSimtWarps(DecodeCall &d);
  /// One key tile on CUDA cores: (m[P], l[P], O[P * Cv]) updated.
  SmallVector<Value> emitDecodeSimtStep(DecodeCall &d, Value u,
                                        ValueRange carried);
  /// The scores (exp2 domain, hidden keys -inf) of the lane's key j (tile
  /// row kk, column part `part`) for every packed row.
  SmallVector<Value> decodeSimtScores(DecodeCall &d, Value ks, Value kk,
                                      Value part, Value j);
  /// O += P V over the tile (P from the warp's buffer); `sel`: hidden keys
  /// (P == 0) are skipped, whatever V holds.
  SmallVector<Value> decodeSimtPV(DecodeCall &d, Value vs,
                                  ArrayRef<Value> oIn, bool sel);
  /// The CTA's part of each packed row (the warps' states merged): the
  /// output row for one split, else the part, in the workspace or (cluster
  /// merge) in shared memory.
  void emitDecodeCtaPart(DecodeCall &d);
  /// The cluster merge: the CTAs' parts read through distributed shared
  /// memory.
  void emitDecodeClusterMerge(DecodeCall &d);
  /// The workspace merge by the CTA that arrives last at its counter.
  void emitDecodeLastCtaMerge(DecodeCall &d);

  /// The prefill kernels' launches (not decode): the kernel of the
  /// family over B * H * query tiles, or with split-KV
  /// (FlashConfig::prefillSplits) over key chunks too, then the merge
  /// kernel; both forms, picked on the host, for a count chosen at run
  /// time.
  void emitPrefill();
  /// After a kernel body: `Sk` and `batchRows` back to the call's.
  void restoreSk();

  using PrefillSplit = kernel::PrefillSplit;
  PrefillSplit split;
  /// Before the launch, prefillSplits = 0: the chunk count of
  /// prefillSplitCount's rule for a grid of `ctas` CTAs (B * H * query
  /// tiles), before its rounding.
  Value prefillSplitsAtRunTime(Value ctas);
  /// Before the launch: `split` for `n` chunks of the keys of every query
  /// tile (rounded to whole kv-tile steps, none empty) and the workspace
  /// (empty when that leaves one chunk).
  void emitPrefillSplits(Value n);
  /// Inside the kernel, after the CTA's key range is known: the range cut
  /// to chunk split.index (keys [index * keys, (index + 1) * keys)).
  void clipToSplit(Cta &c);
  /// A query row's part in the workspace (several chunks): its max in
  /// natural units (-inf when the part saw no key, l = 0), l, and the two
  /// unnormalized O columns col, col + 1 of every 8-column block
  /// (oPairs[dt], f32x2), from the lanes that hold them (storeMmaOutput).
  void storeMmaPart(Value row, Value mNat, Value l, Value col2,
                    ArrayRef<Value> oPairs);

  /// Kernel 2 of a split-KV call (SplitKv.cpp), when nSplit > 1 and the
  /// first kernel had CTAs (`blocks` > 0): one warp per query row of the
  /// nRows = B * H * Sq, four rows per CTA, mergeDecodeRow's rule, launched
  /// as a programmatic dependent of the first (PDL, sm_90+: its CTAs are
  /// scheduled while the first kernel's last CTAs finish, then wait in
  /// griddepcontrol.wait for its stores).
  void emitMergeKernel(Value nSplit, Value blocks, Value nRows, Value oPart,
                       Value mlPart);
  /// Merges the nParts parts of query row `row` = (bi, h, i) (one warp;
  /// lane owns Dv / 32 output columns) with the log-sum-exp rule and writes
  /// the output row (storeDecodeRow): M = max m_p, L = sum l_p exp(m_p - M),
  /// O = sum O_p exp(m_p - M) / L; a part whose keys are all hidden has
  /// m_p = -inf and weight 0, never NaN.
  void mergeDecodeRow(Value row, Value bi, Value h, Value i, Value lane,
                      Value nParts, Value nRows, Value oPart, Value mlPart);
  /// The log-sum-exp merge of loaded parts: lane p holds part p's (m, l)
  /// (`in` false past the last part), ov[x] part x's O columns of the lane
  /// (parts past the last re-read it; their weight 0 drops them).
  void mergeLoadedParts(Value in, Value m, Value l, ArrayRef<Value> ov,
                        Value lane, Value bi, Value h, Value i);
  /// barrier.cluster.arrive (release) + wait (acquire), every thread.
  void clusterBarrier();
  /// The shared::cluster address of shared address `addr` (i32) in CTA
  /// `rank` (i32) of the cluster (PTX mapa).
  Value mapaCluster(Value addr, Value rank);
  /// `n` f32 (1, 2 or 4) at a shared::cluster address: an f32 or a vector.
  Value loadCluster(Value addr, int64_t n);
  /// mergeDecodeRow's form for more than 32 parts: the parts in groups of
  /// 32 (max, then weights and O).
  void mergeManyParts(Value row, Value bi, Value h, Value i, Value lane,
                      Value nParts, Value nRows, Value oPart, Value mlPart);

  /// The decode kernels' last step for query row (bi, h, i): the lane's Cv
  /// output columns O / L in Q's type (zeros for a row that saw no key,
  /// L = 0), and the row's log-sum-exp M + log L (lane 0) when requested.
  void storeDecodeRow(ArrayRef<Value> o, Value M, Value L, Value lane,
                      Value bi, Value h, Value i);

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

  VectorType vec2(int64_t r, int64_t c, Type t);

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
  void setupKeyFlags(Value smemBase, Value byteOffset);
  /// Scans the mask of K/V tile `kt` (keys [kt * kv-tile, +kv-tile)) for the
  /// CTA's query rows and writes, into flag buffer `flagBuf`, whether each
  /// key is visible to at least one row (mask entry true / not -inf, causal
  /// diagonal, rows < Sq, keys < Sk). Thread c scans key c % kv-tile for the
  /// rows r = c / kv-tile + k * G (G = flagGroups()) and stops at the first
  /// row that sees it. The caller orders the writes before the reads with a
  /// CTA barrier.
  void emitKeyVisibility(Value kt, Value flagBuf, Value q0, Value shift,
                         Value mb, Value mh);
  /// Whether key `r` of the tile in flag buffer `flagBuf` is visible to some
  /// query row of the CTA.
  Value keyVisible(Value flagBuf, Value r);

  /// cp.async of a [rows x width] tile of a global [B,H,S,width] buffer (rows
  /// from row0; rows >= rowLimit are zero-filled) into a 2-D shared view.
  /// With `flagBuf`, rows whose key is hidden from every query row of the
  /// CTA (keyVisible) are zero-filled too: never read from memory.
  void asyncTile(Value buf, Value i0, Value i1, Value row0, Value rowLimit,
                 int64_t rows, int64_t width, Value view,
                 Value flagBuf = Value(), Value rowStart = Value());
  /// Emits `body` under `scf.if cond`.
  void ifThen(Value cond, llvm::function_ref<void()> body);
  /// Closes the current cp.async group (cp.async.commit_group).
  Value asyncCommit();
  /// Waits until at most `pending` cp.async groups are in flight.
  void asyncWait(Value tok, int64_t pending);
  void asyncWaitAll() { asyncWait(asyncCommit(), 0); }
  Value ldmatrix(Value view, Value row, Value col, bool trans, int64_t tiles);
  /// The same at any indices of `view` (the decode kernel's 1-D tiles).
  Value ldmatrix(Value view, ValueRange idx, bool trans, int64_t tiles);
  /// 2^x with PTX ex2.approx.ftz.f32 (one MUFU.EX2; the libdevice exp2f
  /// behind math.exp2 adds denormal handling around it). Flushing results
  /// below 2^-126 to 0 is harmless for softmax weights.
  Value fastExp2(Value x);
  /// x * y and x - y rounded on their own (PTX mul.rn / sub.rn): ptxas
  /// contracts a plain mul.f32 followed by sub.f32 into one FFMA, which
  /// would bring back the rounding error of the exact product that the
  /// exp2-domain scores exist to avoid.
  Value mulRn(Value x, Value y);
  Value subRn(Value x, Value y);
  /// The two B fragments (rows 0-1 and 2-3) of an ldmatrix x4 result.
  std::pair<Value, Value> splitX4(Value x4);
  Value mmaSync(Value a, Value bb, Value c);
  Value quadAllReduce(Value x, bool isMax);
  /// vector<rows x 2 x t> from 2*rows scalars (row-major).
  Value pack(ArrayRef<Value> xs, Type t);

  using MmaCtx = kernel::MmaCtx;
  using MmaStep = kernel::MmaStep;
  /// One K/V tile's softmax on raw scores `s` (keys from k0): the mask
  /// operand, the key tail and the causal diagonal, then the online softmax
  /// of the thread's 2 MT rows (max and sum over the 4 threads of a quad),
  /// and O rescaled by exp(m_old - m_new).
  MmaStep mmaSoftmaxStep(const MmaCtx &cx, SmallVector<Value> s, Value k0,
                         ValueRange carried);

  /// lse[bi, h, i] = m + log(l) with m in natural units, -inf when l == 0
  /// (the row saw no key).
  void storeLse(Value mNat, Value l, Value bi, Value h, Value i);

  /// O / l of the thread's rows (a row that saw no key gives zeros), two
  /// elements per store, in Q's type; rows past Sq are not stored.
  void storeMmaOutput(const MmaCtx &cx, ValueRange results, Value bi,
                      Value h);

  /// The mma.sync kernel's CTA (MmaLaunch.cpp): entry point.
  void emitMmaLaunch(Value blocks, Value nQT);
  using MmaCta = kernel::MmaCta;
  void mmaSetup(MmaCta &m);
  /// Key tile t's flag buffer (cfg.keyFlags), else null.
  Value mmaFlagBuf(Value t);
  /// Key tile t's visibility flags (cfg.keyFlags), when t < nKT.
  void mmaVisibility(MmaCta &m, Value t);
  /// Q's A fragments from shared memory.
  SmallVector<Value> mmaLoadQ(MmaCta &m);
  /// One key tile: copies, S, online softmax, O += P V; returns the state.
  SmallVector<Value> emitMmaStep(MmaCta &m, Value kt, ValueRange carried);
  /// S = Q K^T (raw scores) of the tile in shared memory.
  SmallVector<Value> mmaScores(MmaCta &m, ArrayRef<Value> qa);
  /// o += P V of the tile in shared memory.
  void mmaPV(MmaCta &m, ArrayRef<Value> p, SmallVector<Value> &o);


  // ---- sm_90a warpgroup kernel (WgmmaKernel.cpp's header comment) ------

  Value i64c(int64_t v);
  Value toI64(Value x);
  Value divui(Value x, int64_t y);
  Value remui(Value x, int64_t y);

  /// cp.async of a [rows x width] tile of a global [B,H,S,width] buffer (rows
  /// from row0; rows >= rowLimit zero-filled) into the swizzled layout: the
  /// 64-column block cb of the tile occupies rows [cb * rows, (cb + 1) * rows)
  /// of the [R x 64] shared view, from view row `viewRow0`. The copies are
  /// shared by `copyThreads` threads, this one being `copyTid` (default:
  /// every thread of the CTA's compute warps, `tid`; the producer warpgroup
  /// of the warp-specialized kernel passes its own).
  void asyncTileSwizzled(Value buf, Value i0, Value i1, Value row0,
                         Value rowLimit, int64_t rows, int64_t width,
                         Value view, Value viewRow0, Value flagBuf = Value(),
                         Value rowStart = Value(), Value copyTid = Value(),
                         int64_t copyThreads = 0);

  /// The wgmma shared-memory matrix descriptor (PTX ISA, "Matrix Descriptor
  /// Format") of a 128B-swizzled operand at shared address `addr` (i64):
  /// address >> 4 in bits 0-13; leading byte offset 16 (not used by swizzled
  /// layouts whose K or N step fits one atom) in bits 16-29; stride byte
  /// offset 1024 (from one 8-row atom to the next) in bits 32-45; swizzle
  /// mode 1 (128 bytes) in bits 62-63. Offsets inside an atom (the k16 steps)
  /// are added to the address field, as CUTLASS does.
  Value wgmmaDesc(Value addr);
  Value descPlus(Value desc, int64_t bytes);

  /// `count` 16-byte cp.async.cg copies, `stepRows` rows apart: copy i
  /// reads buf[i0, i1, row + i * stepRows, col ..] (innermost dimension
  /// contiguous, every row readable) into the shared byte address
  /// s0 + i * sStepBytes. Constant and loop-invariant offsets, so each copy
  /// is one instruction.
  void stridedCopies(Value buf, Value i0, Value i1, Value row, Value col,
                     int64_t stepRows, Value s0, int64_t sStepBytes,
                     int64_t count);
  /// Inline PTX with side effects and `nOut` f32 results (wgmma and its
  /// fences/commit/wait, which must share one statement).
  SmallVector<Value> inlinePtx(StringRef text, StringRef constraints,
                               ValueRange operands, int64_t nOut);
  static std::string regList(int64_t first, int64_t n);
  /// One asm statement of a warpgroup's tensor-core work for a K/V step,
  /// S = Q K^T and/or O += P V (WgmmaKernel.cpp says how). Returns S, O.
  SmallVector<Value> wgmmaBlock(int64_t n, ArrayRef<Value> qDesc,
                                ArrayRef<Value> kDesc, ArrayRef<Value> oAcc,
                                ArrayRef<Value> pRegs, ArrayRef<Value> vDesc);
  /// barrier.sync 0 (PTX ISA: the non-.aligned CTA barrier; every thread
  /// of the CTA arrives, possibly at different barrier instructions).
  void ctaBarrierNonAligned();
  /// Two f32 as one f16x2 register (i32), x0 in the low half.
  Value packF16x2(Value x0, Value x1);
  /// `then` and `otherwise` under scf.if, both yielding `types`.
  SmallVector<Value> ifElse(Value cond, TypeRange types,
                            llvm::function_ref<SmallVector<Value>()> then,
                            llvm::function_ref<SmallVector<Value>()> otherwise);

  /// The wgmma kernel's CTA (WgmmaLaunch.cpp): entry point.
  void emitWgmmaLaunch(Value blocks, Value nQT);
  using WgmmaCta = kernel::WgmmaCta;
  using WgmmaStep = kernel::WgmmaStep;
  void wgmmaSmemLayout(WgmmaCta &w);
  /// A [rows x 64] region at w.off: its view and shared address.
  Value wgmmaRegion(WgmmaCta &w, int64_t rows, Value &view);
  Value i32cst(int64_t x);
  Value wgmmaBarPtr(WgmmaCta &w, Value i);
  void wgmmaWaitBar(WgmmaCta &w, Value i, Value parity);
  void wgmmaArriveBar(WgmmaCta &w, Value i);
  /// fence.proxy.async.shared::cta: cp.async writes visible to wgmma.
  void fenceProxyAsync();
  /// Key tile u's flag buffer (cfg.keyFlags), else null.
  Value wgmmaFlagBuf(Value u);
  /// Key tile u's visibility flags (cfg.keyFlags), when u < nKT.
  void wgmmaVisibility(WgmmaCta &w, Value u);
  /// Slot j's copies into stage `stageIdx`: K(j) and V(j - 1).
  void wgmmaCopySlot(WgmmaCta &w, Value j, Value stageIdx);
  void wgmmaPrologue(WgmmaCta &w);
  void wgmmaConsumerState(WgmmaCta &w);
  void emitWgmmaConsume(WgmmaCta &w);
  void emitWgmmaProducer(WgmmaCta &w);
  /// A consumer warpgroup's loop in its role; returns m, l, O.
  SmallVector<Value> emitWgmmaLoop(WgmmaCta &w, bool oddRole);
  WgmmaStep wgmmaStepBegin(WgmmaCta &w, Value kt, ValueRange carried);
  SmallVector<Value> wgmmaGemms(WgmmaCta &w, WgmmaStep &st,
                                ArrayRef<Value> pRegs,
                                ArrayRef<Value> sDummy);
  SmallVector<Value> wgmmaSoftmax(WgmmaCta &w, WgmmaStep &st,
                                  ArrayRef<Value> s, Value key0);
  /// The types of st.state and the role's N / 4 P registers.
  SmallVector<Type> wgmmaStepTypes(WgmmaStep &st);
  SmallVector<Value> wgmmaOddStep(WgmmaCta &w, WgmmaStep &st);
  SmallVector<Value> wgmmaEvenStep(WgmmaCta &w, WgmmaStep &st);

  OpBuilder &b;
  const AttentionProblem &prob;
  Location loc;
  FlashConfig cfg;
  Type f32, elt;
  bool checks; // emit the shape checks of AttentionShapes.h
  Value q, k, v, mask, out, scale, scaleNat, maskScale;
  std::optional<kernel::PagedKvRows> pages; // k, v are pools (paged cache)
  kernel::ScoreMods mods; // score and mask functions (score_mod, mask_mod)
  kernel::KeyTileLists keyTiles; // cfg.blockSparse: the visible key tiles
  Value softcap; // f32 cap c of logit soft-capping, when the op has one
  double softcapD = 0.0, scaleD = 1.0; // the cap and the scale (host values)
  // The keys each query sees (causal and window; keyBand), sides wider
  // than 2^40 keys dropped: no GPU tensor is that long.
  KeyBand band;
  Value ctaKvBase; // the CTA's kvBase (Cta), for the helpers that need it
  Value lseOut; // log-sum-exp result [B, H, Sq] (f32), when requested
  Value flagsW, flagsR; // key visibility flags (cfg.keyFlags)
  Value B, H, Sq, Sk, G, tid;
  // Per-sequence lengths (kv_lengths / q_lengths): the i32 [B] buffers, the
  // host's Sk while a kernel body replaces `Sk` by its batch's key count Lk,
  // and its query count Lq (null without q_lengths; rows >= Lq see no key).
  Value kvLens, qLens, skAll, batchRows;
  bool keepMask = false, maskBatchBcast = false, maskHeadBcast = false;
};

} // namespace tx
} // namespace mlir

#endif // TRANSFORMER_GPU_FLASHKERNELBUILDER_H
