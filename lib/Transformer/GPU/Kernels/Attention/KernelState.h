//===- KernelState.h - the attention kernels' per-CTA values ---*- C++ -*-===//
//
// The values FlashKernelBuilder's pieces pass each other while they build
// one kernel: the CTA's ids and key range (Cta), and per family the
// shared-memory layout, fragments and loop state that one piece sets and
// the next reads (SimtCta, MmaCta, WgmmaCta, DecodeCall). Plain values,
// no behaviour; private to lib/Transformer.
//
//===----------------------------------------------------------------------===//
#ifndef TRANSFORMER_GPU_KERNELSTATE_H
#define TRANSFORMER_GPU_KERNELSTATE_H

#include "mlir/IR/BuiltinTypes.h"
#include "mlir/IR/Value.h"
#include "llvm/ADT/SmallVector.h"

namespace mlir {
namespace tx {
namespace kernel {

/// What both kernels compute first, inside the launch: the CTA's (batch,
/// head, K/V head, first query row), the lane and warp, the dynamic shared
/// memory base, the causal shift Sk - Sq, the number of K/V tiles the CTA
/// visits (causal CTAs stop after the last visible one) and the mask's
/// broadcast indices.
struct Cta {
  Value lane, warp, h, bi, kh, q0, smem, shift, nKT, mb, mh;
  Value kvEnd; // keys >= kvEnd are hidden from every row of the CTA
  // Keys < kvStart are hidden from every row of the CTA (window); the CTA
  // visits key tiles kt0 .. kt0 + nKT - 1, tile t of its loops holding
  // keys from kvBase + t * kv-tile (kvBase = kt0 * kv-tile).
  Value kvStart, kvBase;
  Value tileRow; // block sparsity: the CTA's row of the key-tile lists
};

/// What the two tensor-core kernels (mma.sync and wgmma) share: both keep
/// S and O in the accumulator layout of an m16n8 C fragment per warp and
/// 8 columns (thread: rows g and g + 8, columns 2 * (lane % 4) + {0, 1}).
struct MmaCtx {
  int64_t MT, NT, DT;     // m16 tiles per warp, 8-key and 8-column blocks
  Value col2, rowBase, shift, mb, mh, negInf, fzero;
  SmallVector<Value> rowG; // the thread's rows: rowG[mt * 2 + hh]
  Value bi, h;              // the CTA's batch and query head
  Value tileRow; // block sparsity: the CTA's row of the key-tile lists
};

struct MmaStep {
  SmallVector<Value> next; // m[2 MT], l[2 MT]
  SmallVector<Value> o;    // O * alpha, o[mt * DT + dt] (vector<2x2xf32>)
  SmallVector<Value> p;    // P (f32), p[(mt * NT + nt) * 4 + e]
};

/// Split-KV of the prefill tensor-core kernels (FlashConfig::
/// prefillSplits, SplitKv.cpp): the chunk count and the keys per chunk (a
/// multiple of kv-tile), the query rows B * H * Sq, the parts' workspace,
/// and inside the kernel the CTA's chunk. All null without splits.
struct PrefillSplit {
  Value count, keys, rows, oPart, mlPart, index;
};

/// The CUDA-core kernel's CTA values: the CTA, its shared Q, K, V and P
/// (f32), the warp's first row and query index.
struct SimtCta {
  Cta c;
  Value zero, one, negInf, fzero;
  Value qs, ks, vs, ps;
  Value rowW, iW;
};

/// One mma.sync CTA's values, set by mmaSetup: the CTA, the shared
/// tiles, the ldmatrix lane offsets, Q's fragments (when kept in
/// registers), the softmax's rows and the loop's initial state.
struct MmaCta {
  Cta c;
  Value zero, one;
  Value qs, ks, vs;  // shared Q, K and V tiles
  Value kvLow;       // window: keys below every row's, or null
  Value lane16, laneHi8, warpRow, kRow8, kCol8, kCol8x4, accZero;
  bool qInRegisters = false;
  SmallVector<Value> qa; // Q's A fragments (qInRegisters)
  MmaCtx mx;
  SmallVector<Value> init; // m[2 MT], l[2 MT], O[MT * DT]
};

/// One wgmma CTA's values, set step by step by emitWgmmaLaunch's pieces:
/// the CTA, the shared-memory layout (Q, K and V stages from the first
/// 1 KiB boundary, then the mbarriers and key flags), who copies, and the
/// consumers' loop state.
struct WgmmaCta {
  Cta c;
  Value zero, one, g, t4;
  Value addr, pad;           // shared base address, its 1 KiB padding
  Value qs, ks, vs;          // [rows x 64] views of Q, K and V
  Value qAddr, kAddr, vAddr; // their shared addresses (i64)
  int64_t off = 0;           // bytes laid out after pad
  bool ws = false;           // a producer warpgroup (warp specialization)
  int64_t consumers = 0, producers = 0; // threads
  Value barAddr;             // the mbarriers (ws)
  Value kvLow;               // window: keys below every row's, or null
  Value copyTid;             // the copying thread (null: tid)
  int64_t copyThreads = 0;   // the copying threads (0: the consumers)
  Value groupTok;            // a cp.async group token (the waits count)
  Value wgIdx, odd, steps, fzero;
  SmallVector<Value> qDesc;  // the warpgroup's Q descriptors
  MmaCtx mx;                 // the softmax's rows (mmaSoftmaxStep)
  SmallVector<Value> init;   // m[2], l[2], O[DT]
};

/// One step of a consumer loop: its stage, first key, whether it computes
/// S(t) and P(t-1) V(t-1), the descriptors, the carried state and the
/// role's pending values (P or S).
struct WgmmaStep {
  Value stage, kt, k0, hasS, hasPV;
  SmallVector<Value> kDesc, vDesc, state, x;
};

/// One decode call's values (DecodeKernel.cpp): on the host, the split
/// geometry and the workspace; inside the kernel, the CTA's ids, its
/// shared-memory layout and its chunk of keys. Built step by step by
/// emitDecodeCall's pieces, which read what the earlier ones set.
struct DecodeCall {
  // The form: the cluster merge's most splits (0: the workspace merge), the
  // dynamic shared memory per CTA, and the cluster part's byte offset.
  int64_t cluster = 0, smemBytes = 0, partOffset = 0;
  // Host (created before the launch; the kernel reads them as captures).
  Value zero, one, negInf, fzero;
  Value Hkv, bh, nSplit, keysPerSplit, nRows, blocks;
  Value oPart, mlPart, counters; // the workspace merge's (else null)
  bool mergeKernel = false;      // the merge in a second kernel
  // The CTA (b, K/V head kh, split sp) and the thread's lane and warp.
  Value lane, warp, sp, bhk, kh, bi;
  Value shift;           // causal diagonal offset (Sk - Sq or Lk - Lq)
  Value base, qs, ps;    // dynamic shared memory, Q, the warp's P buffer
  Value warpBase;        // byte offset of the warp's region
  Value kBegin, kEnd;    // the split's keys
  Value nLocal;          // the warp's key tiles: warp, warp + W, ...
  Value skLast, mb;      // the last key; the mask's batch index
  Value allLanes;        // i32 -1, the warp barriers' mask
};

/// Tile u of a decode step (decodeStepBegin): its stage's K and V views
/// and its first key.
struct DecodeStepTile {
  Value ks, vs, j0;
};

/// The tensor-core form's per-thread values: Q's A fragments, the
/// ldmatrix lane offsets, the accumulator type, and the thread's packed
/// rows g and g + 8 (their query rows, and whether they are live).
struct DecodeTc {
  SmallVector<Value> qa;
  Value lane16, laneHi8, t4, col2, kRow8, kCol8x4, accZero;
  VectorType accTy;
  Value rowOf[2], qRow[2], rowLive[2];
};

} // namespace kernel
} // namespace tx
} // namespace mlir

#endif // TRANSFORMER_GPU_KERNELSTATE_H
