//===- Passes.td - tx passes -------------------------------*- tablegen -*-===//

#ifndef TRANSFORMER_PASSES_TD
#define TRANSFORMER_PASSES_TD

include "mlir/Pass/PassBase.td"

def ConvertTxToLinalg : Pass<"convert-tx-to-linalg"> {
  let summary = "Lower tx ops to linalg/arith/math/tensor ops on tensors";
  let description = [{
    Rewrites every `tx` op into value-semantic `linalg` ops:

    - `tx.softmax` becomes upstream `linalg.softmax` (on `f32`; `f16`/`bf16`
      inputs are extended to `f32` first and the result truncated once), which
      `tx-decompose-softmax` or upstream `linalg` transforms decompose further.
    - `tx.attention` becomes `S = scale * Q·Kᵀ` (f32 accumulation), the mask
      (additive, or `-inf` where an `i1` mask is false or the causal rule hides
      the key), a row max, `P = exp(S - max)` with a guard that makes a fully
      masked row all zeros, the row sum, `O = P·V`, and `O / sum`. Query heads
      are grouped by a `tensor.expand_shape` of Q into `[B, Hkv, H/Hkv, Sq, D]`
      so that K/V heads are read in place (no copies for GQA).
    - `tx.online_attention` (left by `tx-tile-attention{decompose=false}`)
      becomes its decomposition into `linalg.generic` ops (one online-softmax
      step); it needs a static `H / Hkv`.
    - `tx.softmax_grad` becomes `r = sum(Y * dY)` along the dim and
      `dX = Y * (dY - r)` (f32, rounded once).
    - `tx.attention_grad` becomes the formulas of its description per query
      head (`S`, `P = exp(S - LSE)`, `dP = dO·Vᵀ`, `Δ = rowsum(dO ∘ O)`,
      `dS = P (dP - Δ)`, `dQ = scale dS·K`, `dK`, `dV` per query head, then
      summed over the heads of each K/V head), each a `linalg.generic` in
      f32, K/V read in place with `tensor.extract`; dynamic sizes of O, dO
      and the LSE are checked at run time.
    - A paged `tx.attention` (`page_table`) is first rewritten as
      `tx-gather-kv-pages` does (gathers of its K/V pools, then the unpaged
      op, lowered as above).
    - `tx.merge_attention_states` becomes two `linalg.generic` ops: the
      merged log-sum-exp, then the output weighted by `exp(lse_x - lse)`
      (f32, rounded once).

    Dynamic shapes lower to `tensor.dim`-based sizes. The pass fails with a
    diagnostic on the op if it meets a case it cannot lower.
  }];
  let dependentDialects = [
    "::mlir::linalg::LinalgDialect", "::mlir::arith::ArithDialect",
    "::mlir::math::MathDialect", "::mlir::tensor::TensorDialect",
    "::mlir::cf::ControlFlowDialect", "::mlir::scf::SCFDialect"
  ];
}

def TxSoftmaxToGPU : Pass<"tx-softmax-to-gpu", "::mlir::func::FuncOp"> {
  let summary = "Map tx.softmax over the innermost dim onto GPU CTAs and warps (tx-softmax-strategy, tx-tile-softmax, tx-stage-softmax, tx-map-softmax-to-gpu)";
  let description = [{
    tx's fast softmax, as the four steps of its GPU path with these options:
    `tx-softmax-strategy` (the kernel configuration below, stored on the op
    as `tx.gpu_strategy`), `tx-tile-softmax from-strategy=true` (the rows of
    the input viewed as `[R, N]` tiled by the kernel's rows per CTA into an
    `scf.forall`), `tx-stage-softmax` (row tiles kept in shared memory) and
    `tx-map-softmax-to-gpu` (the forall onto the grid).
    `tx-gpu-pipeline` runs the four as separate passes. Every
    `tx.softmax` along the innermost dimension becomes (on tensors, before
    bufferization) a `gpu.launch` over the rows of the input viewed as
    `[R, N]`:

    - rows map to warps (`threads-per-row` = 32, several rows per CTA) when a
      row is at most 256 vectors long, otherwise to a whole CTA;
    - each thread reads `vector-width` elements at a time (16 bytes:
      8 x f16/bf16 or 4 x f32; `vector.load` with 16-byte alignment) when N
      is a multiple of it and both buffers are 16-byte aligned (checked at run
      time), element by element otherwise;
    - when N is static and a thread's share of the row fits in at most
      `max-cached-vectors` vectors, the row is read once into registers: row
      max, `exp(x - max)`, row sum, scale, store (one read, one write);
    - otherwise two passes: an online max/sum (Milakov & Gimelshein 2018,
      "Online normalizer calculation for softmax"), guarded so that a
      leading `-inf` cannot poison the running sum, then a normalizing pass;
    - reductions: `gpu.shuffle xor` within a warp and shared memory
      (`#gpu.address_space<workgroup>`) across the warps of a CTA;
    - f16/bf16 are computed in f32 and rounded once; an all `-inf` row gives
      NaN, as the reference path.

    - `grid-ctas` = N > 0 makes kernels with rows on warps or lane groups
      persistent (at most N CTAs looping over row groups); with `prefetch`
      the loads of the next row group are issued before the current one is
      reduced. On an H200 this was no faster than one CTA per row group for
      any benchmark shape (bench/RESULTS.md), so it is off by default.
    - rows too long for registers (vocabulary-size rows) are streamed twice
      by a CTA: the first pass keeps the row in dynamic shared memory when
      it fits (`smem-rows`, `max-shared-memory`; 50257 f32 are 201 KB of
      the H200's 227 KB), so the second pass reads it from there, not from
      global memory; each thread issues `stream-unroll`
      16-byte loads before it reduces them, so that a CTA keeps enough
      bytes in flight to stream at memory bandwidth.
    - with `sm` >= 90 (`tx-gpu-pipeline` sets it from the chip) and
      `bulk-rows`, rows of 16-byte vectors kept in shared memory of which
      at most two fit per SM are copied in by `cp.async.bulk` (the Hopper
      copy engine) in `bulk-chunk-bytes` chunks (default 32 x the CTA
      size), each counted on an mbarrier, by a
      persistent grid of `num-sms` x `bulk-ctas-per-sm` CTAs that loads the
      next row while it normalizes and writes the current one (docs/Design.md;
      H200, 1024x50257: 0.84-0.85 of device copy in f32, 0.77-0.79 in f16).

    Softmax along another dimension is left to the reference lowering
    (`convert-tx-to-linalg`), which is correct but slower. Options of 0 mean
    "choose from the shape" unless said otherwise.
  }];
  let options = [
    Option<"blockSize", "block-size", "int64_t", /*default=*/"0",
           "Threads per CTA (0 = from the shape; else a power of two in [32, 1024])">,
    Option<"threadsPerRow", "threads-per-row", "int64_t", /*default=*/"0",
           "Threads per row: 32 (a warp) or the CTA size (0 = from the shape)">,
    Option<"vectorWidth", "vector-width", "int64_t", /*default=*/"0",
           "Elements per load/store (0 = 16 bytes; 1 = scalar)">,
    Option<"maxCachedVectors", "max-cached-vectors", "int64_t", /*default=*/"16",
           "Largest per-thread share of a row (in vectors) kept in registers">,
    Option<"gridCtas", "grid-ctas", "int64_t", /*default=*/"0",
           "CTAs of a kernel whose rows map to warps or lane groups: 0 = one "
           "CTA per row group; N > 0 = a persistent grid of at most N CTAs, "
           "each looping over row groups with a stride of the grid">,
    Option<"prefetch", "prefetch", "bool", /*default=*/"true",
           "In a persistent kernel with register-resident rows, issue the "
           "loads of the next row group before reducing the current one">,
    Option<"smemRows", "smem-rows", "bool", /*default=*/"true",
           "Rows streamed by a CTA each (too long for registers) keep their "
           "vectors in dynamic shared memory between the two passes when "
           "they fit max-shared-memory: one read of the input">,
    Option<"maxSharedMemory", "max-shared-memory", "int64_t",
           /*default=*/"49152",
           "Largest dynamic shared memory per CTA, in bytes (tx-gpu-pipeline "
           "sets the chip's opt-in limit)">,
    Option<"streamUnroll", "stream-unroll", "int64_t", /*default=*/"0",
           "Rows streamed (not register-resident): vectors each thread loads "
           "before it reduces them, in [1, 16] (0 = 4): more bytes in flight "
           "per thread">,
    Option<"sm", "sm", "int64_t", /*default=*/"0",
           "Compute capability of the target (90 for sm_90/sm_90a; 0 = "
           "unknown): 90 and above allow bulk-rows">,
    Option<"numSms", "num-sms", "int64_t", /*default=*/"132",
           "SMs of the target, for the persistent grid of bulk-copied rows "
           "(132 on the H100/H200 SXM)">,
    Option<"bulkRows", "bulk-rows", "bool", /*default=*/"true",
           "With sm >= 90 and 16-byte vectors: rows kept in shared memory "
           "(smem-rows) of which at most two fit per SM are copied in by "
           "cp.async.bulk in chunks (bulk-chunk-bytes), each counted on an "
           "mbarrier, by a persistent grid (num-sms x CTAs per SM) that "
           "loads the next row while it writes the current one; off when "
           "grid-ctas is set">,
    Option<"bulkChunkBytes", "bulk-chunk-bytes", "int64_t", /*default=*/"0",
           "Bytes per cp.async.bulk chunk of a bulk-copied row, in [0, 1 "
           "MiB], rounded up to a multiple of 16 x the CTA size (0 = 32 x "
           "the CTA size: 16 KiB at 512 threads)">,
    Option<"bulkCtasPerSm", "bulk-ctas-per-sm", "int64_t", /*default=*/"0",
           "Bulk-copied rows: CTAs per SM of the persistent grid (0 = as "
           "many row rings as fit, at most 2; a larger value than fits "
           "queues the extra CTAs); the spare shared memory of each CTA "
           "holds extra chunk slots, up to a second row">,
  ];
  let dependentDialects = [
    "::mlir::gpu::GPUDialect", "::mlir::arith::ArithDialect",
    "::mlir::math::MathDialect", "::mlir::scf::SCFDialect",
    "::mlir::memref::MemRefDialect", "::mlir::vector::VectorDialect",
    "::mlir::bufferization::BufferizationDialect",
    "::mlir::tensor::TensorDialect",
    "::mlir::LLVM::LLVMDialect", "::mlir::NVVM::NVVMDialect", "::mlir::tx::TxDialect"
  ];
}

def TxSoftmaxStrategy : Pass<"tx-softmax-strategy", "::mlir::func::FuncOp"> {
  let summary = "Choose the GPU kernel configuration of each tx.softmax over the innermost dim (the strategy step of the GPU path)";
  let description = [{
    The first step of tx.softmax's GPU path (strategy -> `tx-tile-softmax
    from-strategy=true` -> `tx-map-softmax-to-gpu`): for every `tx.softmax`
    along the innermost dimension, the vector kernel (16-byte loads) and the
    scalar kernel that runs when a buffer is misaligned, each with its
    threads per row, threads per CTA, vectors cached in registers per
    thread, persistent grid, stream unrolling and shared-memory row, stored
    on the op as `tx.gpu_strategy = #tx.softmax_strategy<rows_per_cta = ..,
    scalar = <..>, vector = <..>>` (docs/TxAttrs.md). The choices and the options are those
    documented under `tx-softmax-to-gpu`. Softmax along another dimension
    gets no strategy (the reference lowering takes it).

    A `tx.gpu_strategy` already on an op (written by hand or by a tuner, or
    by an earlier run) is kept, not replaced, and the options do not apply
    to it; it is checked as `tx-map-softmax-to-gpu` checks it, and a
    strategy that is not a softmax strategy, that the kernels do not accept for
    the op's row length and element type, or that sits on a softmax along
    another dimension is an error at the op. `tx-map-softmax-to-gpu` also
    checks it against the chip it maps for (`cp.async.bulk` rows need
    sm_90, shared-memory rows must fit `max-shared-memory`), so a
    strategy kept from a run for another chip is an error there, not a
    kernel that cannot run.
  }];
  let options = [
    Option<"blockSize", "block-size", "int64_t", /*default=*/"0",
           "Threads per CTA (0 = from the shape; else a power of two in [32, 1024])">,
    Option<"threadsPerRow", "threads-per-row", "int64_t", /*default=*/"0",
           "Threads per row (0 = from the shape; a power of two in [2, 32], or block-size)">,
    Option<"vectorWidth", "vector-width", "int64_t", /*default=*/"0",
           "Elements per vector load (0 = 16 bytes)">,
    Option<"maxCachedVectors", "max-cached-vectors", "int64_t", /*default=*/"16",
           "Largest per-thread share of a row (in vectors) kept in registers">,
    Option<"gridCtas", "grid-ctas", "int64_t", /*default=*/"0",
           "Persistent grid of at most this many CTAs for rows on warps (0 = one CTA per row group)">,
    Option<"prefetch", "prefetch", "bool", /*default=*/"true",
           "Persistent grid: load the next row group before reducing the current one">,
    Option<"smemRows", "smem-rows", "bool", /*default=*/"true",
           "Keep a streamed row in dynamic shared memory between its two passes when it fits">,
    Option<"maxSharedMemory", "max-shared-memory", "int64_t", /*default=*/"232448",
           "Largest dynamic shared memory per CTA in bytes">,
    Option<"streamUnroll", "stream-unroll", "int64_t", /*default=*/"0",
           "Streamed rows: vectors each thread loads before it reduces them (0 = 4)">,
    Option<"sm", "sm", "int64_t", /*default=*/"0",
           "Compute capability of the target (0 = unknown): 90 and above allow bulk-rows">,
    Option<"numSms", "num-sms", "int64_t", /*default=*/"132",
           "SMs of the target (persistent grid of bulk-copied rows)">,
    Option<"bulkRows", "bulk-rows", "bool", /*default=*/"true",
           "sm >= 90: copy shared-memory rows in with cp.async.bulk + mbarriers, persistent grid">,
    Option<"bulkChunkBytes", "bulk-chunk-bytes", "int64_t", /*default=*/"0",
           "Bytes per cp.async.bulk chunk, rounded up to a multiple of 16 x the CTA size (0 = 32 x the CTA size)">,
    Option<"bulkCtasPerSm", "bulk-ctas-per-sm", "int64_t", /*default=*/"0",
           "Bulk-copied rows: CTAs per SM (0 = as many row rings as fit, at most 2)">,
  ];
}

def TxStageSoftmax : Pass<"tx-stage-softmax", "::mlir::func::FuncOp"> {
  let summary = "Stage the row tiles of tiled tx.softmax in GPU shared memory where the strategy keeps rows there";
  let description = [{
    The staging step of tx.softmax's GPU path, between `tx-tile-softmax`
    and `tx-map-softmax-to-gpu`. A softmax kernel that runs one row per CTA
    on rows that fit keeps the row in shared memory between its two passes
    (online max and sum, then normalize): the row is read from global memory
    once (by the threads, or on sm_90 by `cp.async.bulk` into a ring of
    chunk slots). In every `scf.forall` whose `tx.gpu_strategy` says so
    (`smem_row_bytes > 0` in its vector kernel) the `tx.softmax`'s row tile
    becomes a copy into a tensor in `#gpu.address_space<workgroup>`, as
    `tx-stage-attention` and upstream's `promote_tensor` make it:

    ```mlir
    %buf = bufferization.alloc_tensor() {memory_space = #gpu.address_space<workgroup>} : tensor<1x50257xf32>
    %row = bufferization.materialize_in_destination %tile in %buf
    %y = tx.softmax %row dim = 1 : tensor<1x50257xf32>
    ```

    `tx-map-softmax-to-gpu` requires the staging to match the strategy
    (staged exactly when it keeps rows in shared memory) and, for a user's
    row tiling, keeps rows in shared memory only when the user staged the
    tile. Rows held in registers or streamed from global memory are left
    alone, as are tiles already staged. (The scalar fallback kernel for
    misaligned buffers always reads global memory.)
  }];
  let dependentDialects = ["::mlir::bufferization::BufferizationDialect",
                           "::mlir::gpu::GPUDialect"];
}

def TxMapSoftmaxToGPU : Pass<"tx-map-softmax-to-gpu", "::mlir::func::FuncOp"> {
  let summary = "Map tiled tx.softmax (scf.forall of row tiles: tx-tile-softmax's or a user's) onto GPU kernels";
  let description = [{
    The GPU mapping of tx.softmax's tiled IR (after `tx-softmax-strategy` and
    `tx-tile-softmax from-strategy=true`):

    ```
    scf.forall (%r) = (0) to (R) step (rows_per_cta) {
      %t = tx.softmax (rows [%r, %r + rows_per_cta) of the [R, N] input)
      parallel_insert_slice %t
    } {tx.gpu_strategy = #tx.softmax_strategy<...>}
    ```

    becomes the strategy's kernels: the forall is the grid (one CTA per row
    tile, or a persistent grid of at most `grid_ctas` CTAs striding over the
    tiles), the tile's softmax the warp or CTA code of the row (see
    `tx-softmax-to-gpu`); the vector kernel runs when both buffers are
    16-byte aligned, the scalar kernel otherwise, nothing when R or N is 0.
    A statically empty `tx.softmax` with a strategy becomes an empty tensor.
    A forall whose row tile differs from the strategy's rows per CTA, a
    strategy whose kernels this chip cannot run (`cp.async.bulk` rows below
    `sm` = 90, dynamic shared memory over `max-shared-memory`), and a
    `tx.softmax` with a strategy that is not tiled, are errors.

    A forall without a strategy is a user's row tiling (e.g.
    `transform.structured.tile_using_forall` on a 2-D `tx.softmax` along
    dim 1 with tile sizes `[k, 0]`, whose normalized form `(%i) in
    (ceil(R / k))` with rows `[%i * k, %i * k + min(k, R - %i * k))` is
    accepted as well as `(0) to (R) step (k)`): it gets the strategy's plan
    for this row length when that runs k rows per CTA, else the same kernel
    with a CTA of k row groups (threads per row unchanged where k of them
    fit in 1024 threads, else other lane counts per row); the options
    below are the strategy's chip facts for it. A tile no kernel runs
    (more than 1024 threads needed, or rows not whole) is an error naming
    the tile.
  }];
  let options = [
    Option<"sm", "sm", "int64_t", /*default=*/"90",
           "Target compute capability (for foralls without a tx.gpu_strategy)">,
    Option<"numSms", "num-sms", "int64_t", /*default=*/"132",
           "SMs of the target GPU, sizing persistent grids (for foralls without a tx.gpu_strategy)">,
    Option<"maxSharedMemory", "max-shared-memory", "int64_t", /*default=*/"232448",
           "Largest dynamic shared memory per CTA in bytes (for foralls without a tx.gpu_strategy)">,
  ];
  let dependentDialects = [
    "::mlir::gpu::GPUDialect", "::mlir::arith::ArithDialect",
    "::mlir::math::MathDialect", "::mlir::scf::SCFDialect",
    "::mlir::memref::MemRefDialect", "::mlir::vector::VectorDialect",
    "::mlir::bufferization::BufferizationDialect",
    "::mlir::tensor::TensorDialect",
    "::mlir::LLVM::LLVMDialect", "::mlir::NVVM::NVVMDialect"
  ];
}

// The knobs of tx.attention's strategy (AttentionChoices and
// AttentionTarget in lib/Transformer/GPU/AttentionKernel.h), declared once:
// the options of tx-attention-strategy and of tx-attention-to-gpu, which
// forwards them (lib/Transformer/GPU/Strategy/AttentionKnobs.h).
defvar TxAttentionKnobs = [
    Option<"warps", "warps", "int64_t", /*default=*/"0",
           "Warps per CTA (0 = 4 for the CUDA-core and decode kernels, 8 for the tensor-core kernel (4 when 8 do not fit in shared memory), for wgmma 4 at head dims <= 64 else 8; else 1..32, a multiple of 4 for ops that take the wgmma kernel, an error at the op otherwise)">,
    Option<"qTile", "q-tile", "int64_t", /*default=*/"0",
           "CUDA-core kernel: query rows per CTA (0 = 8 per warp, 4 above head dim 128; the tensor-core kernels use 16 * mma-row-tiles * warps (mma.sync) or 16 * warps (wgmma)); else a multiple of warps, at most 16 rows per warp)">,
    Option<"kvTile", "kv-tile", "int64_t", /*default=*/"0",
           "Keys per K/V step (0 = 64, or 32 when a head dim exceeds 128 (CUDA cores) or 64 (tensor cores), 128 with wgmma; else a multiple of 32 up to 256)">,
    Option<"tensorCores", "tensor-cores", "bool", /*default=*/"true",
           "Use tensor cores: the mma.sync kernel (f16/bf16, D and Dv multiples of 16 up to 128), or the wgmma kernel where wgmma is set, and the split-KV decode kernel's tensor-core form; false forces the CUDA-core kernels">,
    Option<"sm", "sm", "int64_t", /*default=*/"90",
           "Target compute capability as a number (sm_80 -> 80); the tensor-core kernel needs >= 80">,
    Option<"wgmma", "wgmma", "bool", /*default=*/"false",
           "Use the sm_90a warpgroup-MMA kernel (wgmma.mma_async from shared-memory descriptors, 64 query rows per warpgroup) for f16 and bf16 with D and Dv in {64, 128}; needs sm = 90 and a chip of sm_90a (tx-gpu-pipeline sets it for chip=sm_90a)">,
    Option<"stages", "stages", "int64_t", /*default=*/"0",
           "wgmma and decode kernels: K/V pipeline stages in shared memory (per warp for decode), copied that many steps minus one ahead (0 = 2 for wgmma, 3 for wgmma with a producer warpgroup where they fit, 3 for decode; else 2..4); the mma.sync kernel's pipeline is fixed (K and V as separate cp.async groups, one tile ahead)">,
    Option<"mmaRowTiles", "mma-row-tiles", "int64_t", /*default=*/"0",
           "Tensor-core kernel: m16 row tiles per warp (0 = 2: each K/V fragment feeds 32 rows; 1 or 2)">,
    Option<"producerWarps", "producer-warps", "int64_t", /*default=*/"-1",
           "wgmma kernel: 4 = warp specialization, a producer warpgroup (4 more warps) issues the K/V copies and signals them through mbarriers, the compute warps only compute (setmaxnreg moves registers to them at 8 compute warps); 0 = every warp copies; -1 = the strategy's choice. Not with a mask operand">,
    Option<"maxSharedMemory", "max-shared-memory", "int64_t", /*default=*/"232448",
           "Largest dynamic shared memory per CTA in bytes (227 KiB on sm_90)">,
    Option<"decode", "decode", "bool", /*default=*/"true",
           "Use the split-KV decode kernel when the query rows that share a K/V head are few: G * Sq <= decode-max-rows with H, Hkv and Sq static, D a multiple of 8 (f16/bf16) or 4 (f32) up to 256, Dv one of 32, 64, 128, 256">,
    Option<"decodeMaxRows", "decode-max-rows", "int64_t", /*default=*/"16",
           "Split-KV decode kernel: most packed query rows (G * Sq) per K/V head (1..32)">,
    Option<"kvSplits", "kv-splits", "int64_t", /*default=*/"0",
           "Split-KV decode kernel: chunks the keys are split into (0 = from the SM count: one wave of CTAs over B * Hkv * splits, at least 2 tiles per warp per split)">,
    Option<"decodeTileKeys", "decode-tile-keys", "int64_t", /*default=*/"0",
           "Split-KV decode kernel: keys per warp step (0 = 16 when D is a multiple of 16 f16/bf16 or 8 f32 elements, else 32; 16 puts two lanes on each key, each with half of D)">,
    Option<"decodeCluster", "decode-cluster", "int64_t", /*default=*/"-1",
           "Split-KV decode kernel: merge the splits of each (batch, K/V head) inside a thread-block cluster through distributed shared memory, with at most this many splits, on every call (1..16; sm >= 90); 0 = merge through a global workspace (any number of splits); -1 = the strategy's choice: on sm >= 90 (without per-sequence lengths or a forced kv-splits, Dv <= 128) the cluster merge with at most 8 splits for short calls, B * Hkv * 8 <= num-sms / 2 and Sk <= 2048, decided at run time, the workspace merge for the others; else 0">,
    Option<"decodeMergeKernel", "decode-merge-kernel", "int64_t", /*default=*/"-1",
           "Split-KV decode kernel, workspace merge: 1 = a second kernel merges the splits, launched as a programmatic dependent of the split kernel (PDL: griddepcontrol, sm >= 90; no arrival counters, memset, fence or ticket); 0 = the last CTA of each (batch, K/V head) to take a ticket from its arrival counter merges; -1 = the strategy's choice: 1 on sm >= 90, else 0">,
    Option<"numSms", "num-sms", "int64_t", /*default=*/"132",
           "Split-KV decode kernel: streaming multiprocessors of the target GPU (132 on the H100/H200 SXM), for the automatic split count">,
];

def TxAttentionToGPU : Pass<"tx-attention-to-gpu", "::mlir::func::FuncOp"> {
  let summary = "tx.attention's GPU path in one pass: tx-attention-strategy, tx-tile-attention, tx-stage-attention, tx-pipeline-attention, tx-map-attention-to-gpu";
  let description = [{
    Runs the five steps of tx.attention's GPU path with these options:
    `tx-attention-strategy` (kernel family and tiles), `tx-tile-attention`
    (`from-strategy=true decompose=false`: the FlashAttention-2 tiled IR),
    `tx-stage-attention` (the Q, K and V tiles in shared memory),
    `tx-pipeline-attention` (the key loop's pipeline depth) and
    `tx-map-attention-to-gpu` (the tiled IR onto a `gpu.launch`).
    `tx-gpu-pipeline` runs the five as separate passes; this pass is the
    shorthand for tests and for pipelines that want the kernels only. The
    kernels are described here.

    Every `tx.attention` whose head dims D and Dv are static and at
    most 256 (on tensors, before bufferization) becomes one `gpu.launch`
    running FlashAttention-2 (Dao 2023, Algorithm 1) on CUDA cores:

    - grid: one CTA per (batch, head, query tile of `q-tile` rows), a 1-D grid
      of `B * H * ceil(Sq / q-tile)` CTAs (no dimension on gridDim.y/z);
    - CTA: `warps` warps, warp `w` owning `q-tile / warps` query rows; the
      running max `m`, sum `l` and the output accumulator `O` of its rows are
      kept in registers (`O` spread over the lanes, column `lane + 32 t`);
    - the CTA walks the K/V tiles of `kv-tile` keys, staging each once in
      shared memory (`#gpu.address_space<workgroup>`, converted to f32, rows
      padded against bank conflicts) with 16-byte global loads; lane `j`
      computes the scores of keys `j, j+32, ...`; one shuffle all-reduce per
      row gives the tile maximum; `P = exp(S - m_new)` goes through shared
      memory into `O = O * exp(m_old - m_new) + P V`;
    - Q is staged once, pre-scaled by `scale`; `exp(x - m)` is computed as
      `exp2((x - m) * log2(e))` after the max is subtracted (exact for large
      f32 scores); the max starts at -inf and is guarded, so a row that sees
      no key gives zeros, not NaN;
    - causal (bottom-right aligned): each CTA stops after the last K/V tile
      its rows can see, and the causal predicate is evaluated only in tiles
      that cross the diagonal (and in the key-length tail tile); i1 and
      additive masks are read per tile; GQA reads K/V head `h / (H / Hkv)`
      without copying.

    No `Sq x Sk` buffer exists at any size. The kernel takes
    `4 * (q-tile*D + kv-tile*(D+4) + kv-tile*32*ceil(Dv/32) + q-tile*kv-tile)`
    bytes of dynamic shared memory; the pass fails when that exceeds
    `max-shared-memory`. Defaults (CUDA-core kernel): `warps = 4`,
    `q-tile = 8 * warps` (8 rows
    per warp; 4 when D or Dv exceeds 128, to stay within 255 registers),
    `kv-tile = 64`, or 32 when D or Dv exceeds 128.

    Tensor cores (`tensor-cores=true`, the default): for f16 or bf16 with D and Dv
    multiples of 16 up to 128, the kernel keeps the same structure on
    `nvgpu.mma.sync` m16n8k16 (f32 accumulators), FlashAttention-2's register
    layout: each warp owns 16 or 32 query rows (`mma-row-tiles`); Q,
    K and V tiles stay in f16 in shared memory (rows padded by 16 bytes
    against ldmatrix bank conflicts), copied with `nvgpu.device_async_copy`
    (cp.async, zero-filled past Sq/Sk; a tile whose rows are all in range
    is copied by unpredicated `nvvm.cp.async.shared.global`, one per 16
    bytes at constant offsets); Q's A fragments are loaded once
    (`nvgpu.ldmatrix` x4) and kept in registers; S = Q K^T per 8-key block;
    the row max/sum are reduced over the 4 threads of a quad; P is converted
    to f16 in registers and two 8-key S fragments form the A fragment of
    O += P V, whose B fragments come from `nvgpu.ldmatrix` with transpose.
    Shared memory: `2 * (q-tile*(D+8) + kv-tile*(D+8) + kv-tile*(Dv+8))`
    bytes. K and V are separate cp.async groups in a software pipeline:
    K(t+1) is copied during the softmax and P V of tile t, V(t+1) during
    S of tile t+1. Q's fragments stay in registers for D <= 32 and are
    re-read from shared memory per tile above (no spills at D = 64 and 128).
    Defaults (tensor-core kernel), chosen on the H200 (bench/RESULTS.md):
    `mma-row-tiles = 2` (32 rows per warp: each K/V fragment read from
    shared memory feeds two mma, halving shared-memory traffic per FLOP)
    with `warps = 8` (256 query rows per CTA; 4 when 8 do not fit the
    chip's shared memory); `kv-tile = 64` for head dims <= 64, 32 above
    (64 spills registers at D = 128). Against 1 tile x 8 warps (D = 128)
    this was 1.3-1.4x, against 2 tiles x 4 warps (D = 64) 1.0-1.15x.
    `q-tile` is then `16 * mma-row-tiles * warps`. bf16 takes the same
    kernel through `nvvm.mma.sync` (m16n8k16 .bf16, f32 accumulators):
    upstream's `nvgpu.mma.sync` lowering (LLVM 22) cannot type bf16
    operands. H200, B 4 H 16 S 4096, chip sm_90: 221-326 TFLOP/s, 9-12x the
    CUDA-core kernel bf16 used before (bench/RESULTS.md, session 13).

    Hopper (`wgmma=true`, which `tx-gpu-pipeline` sets for `chip=sm_90a`):
    for f16 and bf16 with D and Dv in {64, 128}, each warpgroup (4 warps) owns 64
    query rows and runs both products on `wgmma.mma_async` (PTX ISA 8.0):
    S = Q K^T as m64nNk16 (N = `kv-tile`) with Q and K read from shared
    memory through matrix descriptors; P is converted to f16 in registers
    (or bf16; the S accumulators have mma.sync's C layout, so two 8-key blocks form
    one k16 A fragment, and the mask and online softmax are the mma.sync
    kernel's); O += P V as m64n64k16 per 64 columns of Dv with P from
    registers and V from shared memory, N-major (imm-trans-b = 1). Q, K and
    V sit in shared memory in wgmma's 128-byte swizzled canonical layout
    (rows of 64 elements; 16-byte chunk c of row r at chunk c ^ (r % 8);
    1 KiB atoms aligned to 1 KiB), copied by cp.async (whole tiles
    unpredicated, at constant offsets; the last tile of a range zero-fills
    past its limit) and published to the
    async proxy with `fence.proxy.async`; K/V tiles are double-buffered
    (tile t+1 is copied while tile t is computed). wgmma, its fences and
    its commit/wait are inline PTX (`llvm.inline_asm`), the form upstream
    lowers `nvvm.wgmma.mma_async` to: the register-A form needed for P V has
    no NVVM op, and `nvgpu.warpgroup.mma`'s accumulator cannot be read
    element by element for the softmax. There is no TMA. Shared memory:
    `1024 + 2 * (q-tile*D + stages*kv-tile*(D + Dv))` bytes (`stages` K/V
    buffers, default 2, each copied `stages - 1` steps ahead), plus 16 bytes
    per stage with a producer warpgroup; `warps` must be a
    multiple of 4 and `q-tile` is `16 * warps`. The loop has one barrier per
    K/V step and software-pipelines P V: step t computes S(t) and
    O += P(t-1) V(t-1) in one asm statement. With two warpgroups per CTA
    they run in opposite phases (FlashAttention-3's ping-pong): the even one
    does its tensor-core work then softmax(t), the odd one softmax(t-1) then
    its tensor-core work, so one warpgroup's exponentials overlap the
    other's products. Defaults, from the H200 sweep in bench/RESULTS.md
    (session 5): `kv-tile = 128`; `warps = 4` (one warpgroup, 64 query rows
    per CTA, 2-3 CTAs per SM) when D and Dv are at most 64, else `warps = 8`
    (two warpgroups in ping-pong, 128 rows per CTA); with a mask operand and
    a head dim above 64, `kv-tile = 64` (128 spills registers); with
    softcap and causal at head dims up to 64, `kv-tile = 64` (four CTAs
    per SM instead of three; session 18).

    Warp specialization (`producer-warps = 4`; FlashAttention-3's producer
    warpgroup, with cp.async instead of TMA): 4 more warps issue the K/V
    copies, slot j into stage j % `stages` once the consumers have released
    the slot `stages` steps back (an "empty" mbarrier per stage, one
    arrival per consumer thread after its wgmma of the step completed), and
    signal the slot on a "full" mbarrier once their copies have landed
    (`cp.async.wait_group`, trailing the newest slot by one) and are fenced
    for wgmma's async proxy (`fence.proxy.async`). The `warps` consumer
    warps only compute; their two warpgroups keep the ping-pong phases with
    a named barrier of their own threads (`barrier.sync 1, 256`), and
    `setmaxnreg` moves registers from the producers (24) to them (240)
    when the CTA has more than 256 threads. Default: on for 8 warps and
    128 keys per step at D = Dv = 128 with static shapes, without window,
    mask or per-sequence lengths, without causal unless the op has a
    softcap (session 18), and for K/V read from a paged cache of a static
    page size at those tiles whatever the lengths, causal or shapes (no
    window; H100, session 34: 0.87-0.90x of the contiguous chunked prefill
    instead of 0.71-0.77x, since the page lookups leave the compute warps;
    a dynamic page size's per-row lookups spill in the producers'
    registers), with `stages = 3` (2
    where 3 do not fit; off where neither fits); ops with a mask never
    take it (the key visibility flags are computed by every warp). H200, same process (bench/RESULTS.md,
    session 15; the causal ranges are one kernel timed twice in the run),
    TFLOP/s:

    | shape (B,H,S,D), f16      | every warp copies, 2 st. | producer WG, 3 st. | SDPA cuDNN |
    |---------------------------|-------------:|-------------:|-----------:|
    | 4,16,4096,128             |        477.1 |    **507.3** |      547.4 |
    | 4,16,4096,128 causal      |  415.3-448.8 |        424.2 |      535.4 |
    | 1,32,16384,128            |        492.3 |    **525.5** |      580.9 |
    | 1,32,16384,128 causal     |  473.3-482.3 |        480.3 |      547.5 |

    (2 stages with the producer: 0.95-0.98x of 3; one consumer warpgroup
    at D = 64: 0.5-0.8x of the kernel without a producer, one CTA per SM.)

    Defaults of the kernel without a producer warpgroup:

    | shape (B,H,S,D), f16      | 2 WG, kv 64 | 2 WG, kv 128 | 1 WG, kv 128 | SDPA flash |
    |---------------------------|------------:|-------------:|-------------:|-----------:|
    | 16,12,1024,64             |       349.7 |        298.8 |    **373.0** |      276.6 |
    | 16,12,1024,64 causal      |       192.7 |        205.2 |    **260.3** |      195.8 |
    | 4,16,4096,64              |   **383.1** |        359.7 |        378.7 |      298.8 |
    | 4,16,4096,64 causal       |       265.4 |        293.0 |    **357.8** |      256.8 |
    | 4,16,4096,128             |       409.3 |    **471.8** |    392.0 (kv 64) |  323.2 |
    | 4,16,4096,128 causal      |       373.2 |    **411.9** |    353.0 (kv 64) |  297.3 |
    | 1,32,16384,128            |       419.1 |    **486.2** |    399.8 (kv 64) |  342.0 |
    | 1,32,16384,128 causal     |       413.4 |    **470.3** |    387.5 (kv 64) |  330.3 |

    (TFLOP/s, median of CUDA-graph replays, same process as PyTorch's SDPA.)

    Decode (`decode=true`, the default, chips of sm_80 and newer): when few
    query rows share a K/V head (`G * Sq <= decode-max-rows`, G = H / Hkv,
    with H, Hkv and Sq static, as in autoregressive decoding and speculative
    decoding with a few tokens), the op becomes one split-KV kernel instead,
    after FlashDecoding (Dao et al. 2023, "Flash-Decoding for long-context
    inference") with grouped-query packing:

    - a grid of `B * Hkv * splits` CTAs of `warps` warps (default 4); CTA
      (b, kv head, split) owns the `G * Sq` query rows of the heads that
      share its K/V head (Q pre-scaled in shared memory, so each K/V
      element is read once per K/V head) and one chunk of the keys, a
      multiple of 32 keys.
    - Each warp walks every `warps`-th tile of `decode-tile-keys` keys
      (default 16) of the chunk on its own cp.async pipeline: `stages`
      tiles (default 3) of K and V rows in shared memory, `stages - 1`
      copied ahead, synchronized by warp barriers only (rows past the
      chunk zero-filled, never read). A K tile whose rows are whole
      128-byte lines (D * element size a multiple of 128 bytes, or 64
      bytes) is the tile's global bytes (whole rows, contiguous) with the
      16-byte chunks of each line XOR-permuted (`c ^ (r % 8)`; by line for
      64-byte rows), so a warp's cp.async of 512 contiguous bytes fills four
      aligned 128-byte lines and 8 rows' same chunk fall in distinct banks
      (16-byte row padding instead split the copies' lines and asked L2 for
      1.5x the sectors: H200 ncu, bench/RESULTS.md session 13). Other row
      widths (80 or 96 f16, ...) keep rows padded by 16 bytes. With 16
      keys per tile, two lanes share a key, each with half of D, and add their halves of `Q K^T` by one shuffle; one
      shuffle reduction per row gives the tile maximum; P goes through
      shared memory and `O += P V` reads each V row once, lane l owning
      output columns `[l * Dv / 32, (l + 1) * Dv / 32)`.
    - Tensor cores (f16 or bf16, 4 to 16 packed rows, D and Dv multiples
      of 32 up to 128, 16-key tiles, no mask operand and no softcap;
      `tensor-cores=false` turns it off): the same
      pipeline, but each warp computes `Q K^T` and `P V` of a tile with
      mma.sync m16n8k16, the packed rows as the M tile (rows past `G * Sq`
      zero): Q's A fragments loaded once (ldmatrix), K's B fragments by
      ldmatrix from the permuted K tile, P kept in registers as the A
      fragment of `P V`, V's B fragments by ldmatrix.trans (V tiles
      permuted like K), the online softmax on the accumulator layout (quad
      shuffles); bf16 through `nvvm.mma.sync` (upstream's nvgpu.mma.sync
      does not type bf16 operands in LLVM 22). Fewer rows (MHA, MQA with
      Sq < 4) keep the CUDA-core form, which is faster there.
    - The warps' states (m, l, O) are combined in shared memory with the
      log-sum-exp rule: `M = max m_w`, `L = sum l_w exp(m_w - M)`,
      `O = sum O_w exp(m_w - M)` (a warp or split whose keys are all
      hidden has `m = -inf` and weight 0, never NaN). With one split the
      CTA writes O / L (and the log-sum-exp `M + log L`) in Q's type; a row
      that sees no key gives zeros and a log-sum-exp of -inf.
    - With several splits each CTA writes its state to a workspace and
      takes a ticket from its (b, kv head) arrival counter (zeroed by a
      memset before the launch; the fence-then-ticket pattern of the CUDA
      samples' threadFenceReduction); the last CTA to arrive merges the
      splits with the same rule, one warp per query row: up to 32 splits in
      one round trip to memory (lane p loads split p's m and l while every
      split's O row is loaded), more in groups of 32 (`decode-cluster=0
      decode-merge-kernel=0`; below sm_90).
    - On sm_90+ (`decode-merge-kernel`, the default there) the same merge
      runs in a second kernel instead, one warp per query row, launched as
      a programmatic dependent of the split kernel (PDL: each CTA of the
      split kernel runs `griddepcontrol.launch_dependents` once its part is
      written, the merge kernel's threads `griddepcontrol.wait` before
      reading the workspace;
      `tx-programmatic-launches` and the tx runtime launch it with
      `cuLaunchKernelEx`'s programmatic stream serialization): no arrival
      counters, no memset before the launch, no fence or ticket (the
      workspace form for calls the cluster merge does not take: with
      per-sequence lengths, Dv above 128, forced kv-splits, or calls that
      are not short).
    - Or the cluster merge (`decode-cluster`; by default on sm_90+ for
      short calls, `B * Hkv * 8 <= num-sms / 2` and `Sk <= 2048`, chosen
      at run time, with at most 8 splits): the CTAs of one (b, kv head)
      are a thread-block cluster. Each CTA keeps its state in its shared
      memory; after a cluster barrier, warp w of CTA s merges rows
      s * warps + w, ... with the same rule, reading every CTA's state
      through distributed shared memory (mapa, ld.shared::cluster); a
      second cluster barrier before the CTAs exit. No workspace, no
      counters, no memset. H200 (bench/RESULTS.md session 19): B = 1,
      32/8, Sk 2048 6.7 us instead of 8.6 (cuDNN 7.1); on longer or wider
      calls the cluster launches ran fewer CTAs per SM and were 5-20 %
      slower, hence the rule.

    `splits` (`kv-splits`, or from `num-sms`: one wave of CTAs, as many as
    fit on the SMs by shared memory, over `B * Hkv * splits`, at least 2
    tiles per warp each, at most 32 where `B * Hkv * 32 >= num-sms` without
    per-sequence lengths and Dv <= 128, so that the merge reads all parts
    of a row in one round trip) is computed at run time from B and Sk, which may
    be dynamic (at most `decode-cluster` with the cluster merge). Keys
    hidden by a mask or the causal diagonal, and keys
    past a chunk, never multiply V. The workspace merge's workspace is a device temporary
    (`4 * splits * B * H * Sq * (Dv + 2)` bytes, plus 4 bytes per
    (b, kv head) for the counters without the merge kernel) freed at the
    end of the call. Defaults that do not fit
    `max-shared-memory` use fewer stages, then fewer warps, then the flash
    kernels; forced `warps`, `stages` or `decode-tile-keys` that do not
    fit are an error.

    Ops whose D or Dv is dynamic or above 256 are left to the reference
    lowering (`convert-tx-to-linalg`) with a remark.
  }];
  let options = TxAttentionKnobs;
  let dependentDialects = [
    "::mlir::gpu::GPUDialect", "::mlir::arith::ArithDialect",
    "::mlir::math::MathDialect", "::mlir::scf::SCFDialect",
    "::mlir::memref::MemRefDialect", "::mlir::cf::ControlFlowDialect",
    "::mlir::vector::VectorDialect", "::mlir::nvgpu::NVGPUDialect",
    "::mlir::LLVM::LLVMDialect", "::mlir::NVVM::NVVMDialect",
    "::mlir::bufferization::BufferizationDialect",
    "::mlir::tensor::TensorDialect", "::mlir::linalg::LinalgDialect",
    "::mlir::affine::AffineDialect", "::mlir::tx::TxDialect"
  ];
}

def TxAttentionStrategy : Pass<"tx-attention-strategy", "::mlir::func::FuncOp"> {
  let summary = "Choose the GPU kernel family and tile sizes of each tx.attention (the strategy step of the GPU path)";
  let description = [{
    The first step of tx.attention's GPU path (strategy -> `tx-tile-attention`
    -> `tx-map-attention-to-gpu`). For every `tx.attention` it picks the
    kernel family for the chip, element type, head dims and mask (CUDA cores,
    `mma.sync`, `wgmma`, or the split-KV decode kernel for few query rows per
    K/V head) and its tiles, warps and stages, and stores them on the op as
    the family's typed strategy attribute (docs/TxAttrs.md), e.g.

    ```mlir
    tx.attention ... {tx.gpu_strategy = #tx.wgmma_strategy<warps = 8, q_tile = 128, kv_tile = 128, stages = 2>}
    ```

    One attribute per family: `#tx.simt_strategy`, `#tx.mma_strategy`,
    `#tx.wgmma_strategy` and `#tx.decode_strategy`; their parameters and
    ranges, checked when the IR is parsed, are documented in
    docs/TxAttrs.md.

    This is the one place where tile choices live (`chooseAttentionKernel`
    in `lib/Transformer/GPU/Strategy/AttentionStrategy.cpp`): the defaults measured
    on the H200 and the overrides are those documented under
    `tx-attention-to-gpu`, whose options this pass shares. Ops with a
    dynamic or too large head dim get a remark and no strategy (the
    reference lowering takes them); a forced choice that cannot work is an
    error.

    A `tx.gpu_strategy` already on an op (written by hand or by a tuner, or
    by an earlier run) is kept, not replaced, and the options do not apply
    to it. It is checked against the op here (an attention strategy whose
    family takes the op, with static head dims in [1, 256]) and
    against the chip and shared memory by `tx-map-attention-to-gpu`; what
    fails either check is an error at the op.

    Every strategy this pass chooses is checked with the rules the mapping
    applies (the family's element types, head dims, rows and shared memory
    on this `sm`/`wgmma`/`max-shared-memory`): options that make the table
    choose a kernel that does not exist (for example `warps=32` on an
    `mma.sync` op) are an error here that gives the strategy and the rule.

    Tiled IR without a strategy (a user's
    `transform.structured.tile_using_forall` of `tx.attention`, with or
    without its key loop, staging and `tx.pipeline_stages`): the `scf.forall`
    that holds one `tx.online_attention` gets the strategy of the family that
    runs exactly its tiles (its query tile, or the `H / Hkv` heads and `Sq`
    rows of the decode family; the key loop's step and pipeline depth),
    plus the unit attribute `tx.check_shapes` (the mapping then emits the
    run-time shape checks that `tx-tile-attention` would have). A tiling no
    family runs is an error naming the tile. Split-KV tilings (nested
    foralls) and foralls of several tile ops are left to
    `tx-map-attention-to-gpu`, which refuses them.
  }];
  let options = TxAttentionKnobs;
}

def TxStageAttention : Pass<"tx-stage-attention", "::mlir::func::FuncOp"> {
  let summary = "Stage the Q, K and V tiles of tiled tx.attention in GPU shared memory (workgroup memory)";
  let description = [{
    The staging step of tx.attention's GPU path, between tiling
    (`tx-tile-attention`, or a user's `tile_using_forall`) and the GPU
    mapping (`tx-map-attention-to-gpu`). Every kernel family reads its Q
    tile once per CTA and its K and V tiles once per key step from shared
    memory (FlashAttention-2, Dao 2023, Algorithm 1: "load K_j, V_j from
    HBM to on-chip SRAM"); this pass writes that into the tiled IR. In
    every `scf.forall` that holds a `tx.online_attention`:

    - the Q tile (the forall-level `tensor.extract_slice` of Q that the
      tile op reads, before the key loop) and
    - the K and V tiles (the tile op's operands, inside the key loop)

    become copies into fresh tensors in `#gpu.address_space<workgroup>`:

    ```mlir
    %buf = bufferization.alloc_tensor(%n) {memory_space = #gpu.address_space<workgroup>}
             : tensor<1x1x?x64xf16>
    %kt_smem = bufferization.materialize_in_destination %kt in %buf
             : (tensor<1x1x?x64xf16>, tensor<1x1x?x64xf16>) -> tensor<1x1x?x64xf16>
    ```

    which is exactly what upstream's
    `transform.structured.promote_tensor to #gpu.address_space<workgroup>`
    makes, so a transform script can stage the tiles itself instead. The
    mask tile is not staged (the kernels read it from global memory, per
    key tile). `tx-map-attention-to-gpu` requires the three tiles staged in
    workgroup memory and lowers each copy with its family's instructions
    (cp.async 16-byte copies, or the producer warpgroup's, into the
    family's swizzled or padded layout). Tiles already staged are left
    alone; foralls without a `tx.online_attention` are untouched. For the
    GPU path only (the CPU pipelines do not run it).
  }];
  let dependentDialects = ["::mlir::bufferization::BufferizationDialect",
                           "::mlir::gpu::GPUDialect"];
}

def TxPipelineAttention : Pass<"tx-pipeline-attention", "::mlir::func::FuncOp"> {
  let summary = "Choose the software pipeline of tiled tx.attention's key loop (tx.pipeline_stages)";
  let description = [{
    The software-pipelining step of tx.attention's GPU path, after
    `tx-stage-attention`: sets `tx.pipeline_stages = N : i64` on the key
    loop (the `scf.for` over key tiles around the `tx.online_attention`) of
    every forall that carries a `tx.gpu_strategy`. N is the number of K/V
    tiles resident in shared memory at once: while the kernel computes
    with tile j, the copies of tiles j + 1 .. j + N - 1 are in flight
    (cp.async groups or TMA-style bulk copies counted on mbarriers).

    | family | N |
    |---|---|
    | `wgmma` | the strategy's `stages` (2 to 4; 3 with a producer warpgroup where they fit) |
    | `decode` | the strategy's `stages` (per warp: 2 to 4) |
    | `mma` | 1 (one K and one V buffer; the next K tile is copied while this tile's V is used) |
    | `simt` | 1 |

    `tx-map-attention-to-gpu` builds the pipeline the attribute asks for,
    and checks it (an N the family cannot run, or whose buffers do not fit
    in `max-shared-memory`, is an error that names the loop). The attribute
    is the loop's own: a transform script can set it with
    `transform.annotate %loop "tx.pipeline_stages" = %n : !transform.any_op,
    !transform.param<i64>`, on the strategy's tiling or a user's, and a loop
    without it gets the strategy's depth. Loops that already carry the
    attribute are left alone.
  }];
}

def TxMapAttentionToGPU : Pass<"tx-map-attention-to-gpu", "::mlir::func::FuncOp"> {
  let summary = "Map tiled tx.attention (scf.forall of query tiles, key loop of tx.online_attention) onto a GPU kernel";
  let description = [{
    The GPU mapping of tx.attention's tiled IR (after `tx-tile-attention`
    or a user's `transform.structured.tile_using_forall`):

    ```
    scf.forall (b, h, q0) = (0, 0, 0) to (B, H, Sq) step (1, 1, q_tile) {
      scf.for k0 = .. step kv_tile iter_args(acc, max, sum) {
        tx.online_attention (Q tile, K/V tile, mask tile) -> (acc, max, sum)
      }
      epilogue (linalg.generic tagged tx.attention_epilogue): O, lse
      parallel_insert_slice O, lse
    }
    ```

    becomes one `gpu.launch`: the forall's iteration space is the grid (a
    1-D grid of `B * H * ceil(Sq / q_tile)` CTAs, one per query tile), the
    key-tile loop is the loop inside the kernel (step `kv_tile`; a forall
    without a key loop gets the family's default), and the loop's
    `tx.online_attention` (scale, causal/window diagonal, softcap, mask) with
    the epilogue is lowered to the warp or warpgroup code of the kernel
    family that the forall's `tx.gpu_strategy` names (CUDA cores, mma.sync,
    wgmma: Q/K/V staging in shared memory, cp.async pipelining, tensor-core
    fragments, online softmax in registers, O and the log-sum-exp written
    once). K and V that are the gathers of `tx-gather-kv-pages` (a paged
    cache) are read in place by the decode, mma.sync and wgmma kernels:
    their copies find each key row through the page table, and the
    gathers are erased. The mapping does not choose: a forall without a strategy (a
    user's tiling) is an error that asks for `tx-attention-strategy`, which
    gives it the strategy of its tiles. A forall whose tiles are the `H / Hkv` query heads of one
    K/V head and all `Sq` rows (tile sizes `(1, H / Hkv, Sq)`, the
    `decode` strategy's tiling: grouped-query packing) becomes the split-KV
    decode kernel: its key loop (step = keys per warp step) is split over
    CTAs and warps and merged with the log-sum-exp rule. The kernels are
    described under `tx-attention-to-gpu`.

    Staging and pipelining are read from the IR (`tx-stage-attention`,
    `tx-pipeline-attention`, or a user's `promote_tensor` / `annotate`):
    the Q tile must be staged in `#gpu.address_space<workgroup>` once on its
    slice chain inside the forall, the K and V tiles as the tile op's
    operands (one key tile per step), the mask not at all; each staging copy
    becomes the family's copies (cp.async, or the producer warpgroup's) into
    its shared-memory layout. The key loop's `tx.pipeline_stages` (K/V tiles
    resident at once) is the pipeline the kernel builds: 2 to 4 for `wgmma`
    and `decode`, 1 for `mma` and `simt`; a loop without it gets the
    strategy's.

    Requirements checked with a diagnostic: tiles of 1 over B, of 1 or
    `H / Hkv` over H, a constant query tile and key step that a kernel
    takes; a forall over all of (B, H, Sq); Q, K, V and mask tiles sliced
    from tensors defined outside the forall at the tile's batch, head (K/V
    head `h / (H / Hkv)`) and rows; Q, K and V staged in workgroup memory
    as above, the mask unstaged; a `tx.pipeline_stages` the family runs and
    whose buffers fit; the state starting at (0, -inf, 0); the
    epilogue computing O (and the LSE) from the final state and written at
    the tile's position; static head dims; a `tx.gpu_strategy` whose family
    the chip has and whose kernel takes this problem on this chip (`sm`,
    `wgmma`, `max-shared-memory`; the rules of each family, element type,
    head dims, the decode family's rows and window, shared memory: a
    strategy for another chip or problem is refused with the rule it
    breaks). The diagonal (`causal_offset`) and the key loop's bounds are
    not read: the kernel recomputes them from `causal`, `window` and
    `Sk - Sq`, which is what tiling `tx.attention` produces. An untiled
    `tx.attention` that carries a strategy, a forall with a strategy but no
    `tx.online_attention` (decomposed), and split-KV tiling are errors.
  }];
  let options = [
    Option<"sm", "sm", "int64_t", /*default=*/"90",
           "Target compute capability (sm_90 -> 90): each forall's tx.gpu_strategy is checked against it">,
    Option<"wgmma", "wgmma", "bool", /*default=*/"false",
           "The target is an sm_90a chip (sm = 90 with wgmma): a wgmma strategy needs it">,
    Option<"maxSharedMemory", "max-shared-memory", "int64_t", /*default=*/"232448",
           "Largest dynamic shared memory per CTA in bytes">,
  ];
  let dependentDialects = [
    "::mlir::gpu::GPUDialect", "::mlir::arith::ArithDialect",
    "::mlir::math::MathDialect", "::mlir::scf::SCFDialect",
    "::mlir::memref::MemRefDialect", "::mlir::cf::ControlFlowDialect",
    "::mlir::vector::VectorDialect", "::mlir::nvgpu::NVGPUDialect",
    "::mlir::LLVM::LLVMDialect", "::mlir::NVVM::NVVMDialect",
    "::mlir::bufferization::BufferizationDialect",
    "::mlir::tensor::TensorDialect"
  ];
}

def TxDecomposeSoftmax : Pass<"tx-decompose-softmax"> {
  let summary = "Decompose linalg.softmax into linalg.generic ops";
  let description = [{
    Applies upstream's `AggregatedOpInterface::decomposeOperation` to every
    `linalg.softmax` (max reduction, `exp(x - max)`, sum reduction, division).
    Upstream's decomposition starts the max at NaN with `maxnumf`, which is
    correct for this one-pass form; never reuse it as an online (rescaled)
    maximum.
  }];
  let dependentDialects = [
    "::mlir::linalg::LinalgDialect", "::mlir::arith::ArithDialect",
    "::mlir::math::MathDialect", "::mlir::tensor::TensorDialect"
  ];
}

def TxMapParallelLoopsToGPU : Pass<"tx-map-parallel-loops-to-gpu", "::mlir::func::FuncOp"> {
  let summary = "Map outermost scf.parallel loops onto gpu.launch, one thread per iteration";
  let description = [{
    The simple, reference GPU mapping. Each outermost `scf.parallel` of a
    function becomes a `gpu.launch` whose threads each run one iteration of the
    linearized iteration space (grid = ceil(N / block-size), guarded by
    `id < N`, the index delinearized with `affine.delinearize_index`).
    Iterations of an `scf.parallel` are independent by construction, so this
    never maps a reduction onto threads; reductions (`scf.for` with
    `iter_args` or through memory) stay sequential inside a thread. A launch is
    skipped when the iteration space is empty (no zero-sized grid).

    Host-side `memref.alloc`/`memref.dealloc` become `gpu.alloc`/`gpu.dealloc`
    so that temporaries live in device memory. The pass fails with a
    diagnostic naming the op when memory is read or written on the host
    outside any parallel loop (such code would dereference device pointers on
    the CPU), or when an `scf.parallel` carries reductions.
  }];
  let options = [
    Option<"blockSize", "block-size", "int64_t", /*default=*/"256",
           "Threads per CTA (1..1024)">,
  ];
  let dependentDialects = [
    "::mlir::gpu::GPUDialect", "::mlir::affine::AffineDialect",
    "::mlir::arith::ArithDialect", "::mlir::scf::SCFDialect",
    "::mlir::memref::MemRefDialect"
  ];
}

def TxEmitCInterface : Pass<"tx-emit-c-interface", "::mlir::ModuleOp"> {
  let summary = "Mark every public function for a C-callable wrapper";
  let description = [{
    Sets `llvm.emit_c_interface` on every public `func.func` that has a body,
    so that `convert-func-to-llvm` emits `_mlir_ciface_<name>` taking pointers
    to memref descriptors (the C ABI of libraries built by
    `scripts/tx-compile.sh`; see docs/ABI.md).
  }];
}

def TxResultsInPlace : Pass<"tx-results-in-place", "::mlir::func::FuncOp"> {
  let summary = "Compute each result of a public function in its out-parameter, with a run-time check of the out-parameter's sizes";
  let description = [{
    Runs after `buffer-results-to-out-params` (tx-gpu-pipeline runs that with
    `hoist-static-allocs` and `add-result-attr`). In a public function, a
    result computed into a buffer the function allocates (`memref.alloc`,
    static or dynamic sizes, possibly behind `memref.cast`) and then copied
    into its out-parameter is computed in the out-parameter itself: the
    `memref.alloc`, the `memref.copy` and any `memref.dealloc` of the buffer
    are removed and the buffer's uses take the out-parameter (cast to the
    buffer's type when they differ).

    In their place, for every dimension that is dynamic on either side, a
    run-time check that the out-parameter's size equals the size the
    computation produces: `cf.assert` carrying the unit attribute
    `tx.message_format`, whose message is a printf format, e.g.
    `f: result #0 has size %lld in dim 1, but the computation produces %lld`;
    `tx-host-checks-to-errors` turns it into `txRuntimeFail` with the two
    values and an early return. The checks are placed as early as their
    operands allow, after the op's own shape checks that precede the
    allocation, so that no kernel runs and no temporary exists when they
    fail.

    The rewrite needs the buffer, its copy and the out-parameter in one
    block, the out-parameter used by that copy only, identity layouts, and
    no use of the buffer after the copy other than reads by further copies
    (a result returned twice keeps one device-to-device copy) and frees.
    Otherwise the copy stays. Results are numbered by the `bufferize.result`
    argument attribute, which the pass then removes; without it an
    out-parameter is named by its argument position. Private functions are
    left alone (their out-parameters come from their callers).

    Static sizes are part of the types and are not read from the caller's
    descriptors.
  }];
  let dependentDialects = [
    "::mlir::arith::ArithDialect", "::mlir::cf::ControlFlowDialect",
    "::mlir::memref::MemRefDialect"
  ];
}

def TxHostChecksToErrors : Pass<"tx-host-checks-to-errors", "::mlir::ModuleOp"> {
  let summary = "Turn run-time checks (cf.assert) of host functions into txRuntimeFail and an early return";
  let description = [{
    Every `cf.assert` in a `func.func` of the module (host code; kernels are
    `gpu.func`s and `gpu.launch` bodies are skipped) becomes a conditional
    branch to a failure block that

    1. calls `txRuntimeFail(const char *message)` (runtime/include/tx/Runtime.h:
       records an error for the current call, never aborts) with
       `<function>: <assert message>`, or, for a check of
       `tx-results-in-place` (`tx.message_format`), the message formatted by
       `snprintf` with the two sizes compared (e.g. `f: result #0 has size 5 in
       dim 1, but the computation produces 7`);
    2. frees every buffer (`gpu.alloc`, `memref.alloc`) that is allocated on
       every path to the check and freed on none, with `gpu.dealloc` in the
       allocation's own (synchronous or async-token) form, or
       `memref.dealloc`;
    3. returns (zero for scalar results).

    Upstream lowers `cf.assert` to `puts` + `abort`, which would end the
    process that called the library. The pass works on CFG form: run it
    after `convert-scf-to-cf`; an assert nested in another op is an error.
  }];
  let dependentDialects = [
    "::mlir::LLVM::LLVMDialect", "::mlir::arith::ArithDialect",
    "::mlir::cf::ControlFlowDialect", "::mlir::gpu::GPUDialect",
    "::mlir::memref::MemRefDialect", "::mlir::func::FuncDialect"
  ];
}

def TxCpuChecksToExit : Pass<"tx-cpu-checks-to-exit", "::mlir::ModuleOp"> {
  let summary = "Turn run-time checks (cf.assert) into a located message on stderr and exit status 1 (tx-cpu-pipeline)";
  let description = [{
    Every `cf.assert` of the module becomes a conditional branch to a block
    that prints

    ```
    <file>:<line>:<col>: error: <function>: <message>
    ```

    to stderr (`dprintf(2, ...)`), with the two values of a check marked
    `tx.message_format` (e.g. `prog.mlir:12:8: error: main: tx.attention:
    kv_lengths has an entry outside [0, Sk]: 9 > Sk = 4`), and calls
    `exit(1)`: the program (`mlir-runner`) ends with status 1, output
    printed before the check flushed, and no crash report. Upstream lowers
    `cf.assert` to `puts` + `abort()`, whose message was lost in a buffered
    stdout and which `mlir-runner` answered with a stack dump.

    Part of `tx-cpu-pipeline`, after `convert-scf-to-cf`: an assert nested in
    another op than its function is an error.
  }];
  let dependentDialects = [
    "::mlir::LLVM::LLVMDialect", "::mlir::cf::ControlFlowDialect"
  ];
}

def TxStreamEntryPoints : Pass<"tx-stream-entry-points", "::mlir::ModuleOp"> {
  let summary = "Add a stream-ordered entry point <f>_on_stream(..., CUstream) -> i32 for every function with a C interface";
  let description = [{
    For every public `func.func` marked `llvm.emit_c_interface` (after
    `buffer-results-to-out-params`: results are out-parameters), adds

    ```mlir
    func.func @f_on_stream(<f's arguments>, %stream: !llvm.ptr) -> i32
        attributes {llvm.emit_c_interface} {
      llvm.call @txRuntimeBeginCall(%stream) : (!llvm.ptr) -> ()
      func.call @f(<arguments>) : (...) -> ()
      %status = llvm.call @txRuntimeEndCall() : () -> i32
      return %status : i32
    }
    ```

    so that the library exports `int32_t _mlir_ciface_f_on_stream(MemRef
    *args..., MemRef *outs..., CUstream stream)`: between the two runtime
    calls every `mgpuStreamCreate` of the thread returns `stream`, stream
    synchronization and destruction are no-ops and device allocation is
    stream-ordered, so the call enqueues its work on `stream` and returns
    without waiting (and can be captured in a CUDA graph); the status is 0
    unless an error (a failed run-time check, a CUDA error) was recorded
    during the call. A function with non-buffer results gets no entry point
    (a warning); a name clash is an error.
  }];
  let options = [
    Option<"suffix", "suffix", "std::string", /*default=*/"\"_on_stream\"",
           "Name of the stream-ordered entry point: <function><suffix>">,
  ];
  let dependentDialects = [
    "::mlir::LLVM::LLVMDialect", "::mlir::func::FuncDialect"
  ];
}

def TxCallStream : Pass<"tx-call-stream", "::mlir::ModuleOp"> {
  let summary = "Put all GPU work of a host function on one stream, synchronized once before it returns";
  let description = [{
    Runs after `gpu-to-llvm`, on the `llvm.func`s of the module. Upstream's
    lowering wraps every `gpu.launch_func`, `gpu.alloc`, `gpu.dealloc` and
    `gpu.memcpy` that has no async token in its own `mgpuStreamCreate` /
    `mgpuStreamSynchronize` / `mgpuStreamDestroy` (a launch without a stream
    is translated so too), so a synchronous call waits after every launch.
    This pass creates one stream per call, replaces every other
    `mgpuStreamCreate` by it, gives it to every `gpu.launch_func` without
    one, removes the per-op synchronizations and destructions, and
    synchronizes and destroys the stream once before each `llvm.return` that
    follows its creation. The stream is created at the start of the latest
    block that dominates all the work and every return reachable from it:
    after the run-time checks, so that a failed check returns without
    touching the GPU. A free (`mgpuMemFree`) is preceded by a
    synchronization of the stream, because outside `txRuntimeBeginCall` a
    runtime may free at once.

    Inside `txRuntimeBeginCall`/`txRuntimeEndCall` (the `_on_stream` entry
    points) `mgpuStreamCreate` returns the caller's stream and the
    synchronizations are no-ops, so nothing changes there. A function that
    calls other stream or event functions of the `mgpu` ABI, or whose
    streams do not come straight from `mgpuStreamCreate`, is left alone.
  }];
  let dependentDialects = ["::mlir::LLVM::LLVMDialect", "::mlir::gpu::GPUDialect"];
}

def TxTensorMapParams : Pass<"tx-tensor-map-params", "::mlir::ModuleOp"> {
  let summary = "Pass the tensor maps (TMA descriptors) that kernels take to them by value, through the tx runtime";
  let description = [{
    Runs after `convert-gpu-to-nvvm` and `gpu-to-llvm`, when kernels are
    `llvm.func` ops of their `gpu.module` and each `gpu.launch_func`
    operand is one kernel parameter. An operand defined by an `llvm.alloca`
    that carries the unit attribute `tx.tensor_map` (a 128-byte, 64-byte
    aligned host buffer that `txRuntimeEncodeTensorMap` fills before the
    launch) is a tensor map passed by value, as CUDA C++'s
    `const __grid_constant__ CUtensorMap` is:

    - the kernel's parameter gets `llvm.byval = !llvm.array<16 x i64>`,
      `llvm.align = 64` and `nvvm.grid_constant`: NVPTX declares it
      `.param .align 64 .b8 name[128]` and reads it in place
      (`cvta.param`), the form `cp.async.bulk.tensor` takes its map in;
    - the launch gets `llvm.call @txRuntimeTensorMapParamsNext(mask)`
      right before it (bit i for parameter i), so that the tx runtime
      passes the 128 bytes the operand points to rather than the pointer
      (`gpu.launch_func` packs each operand as a pointer to a slot holding
      its value). The bytes are copied at launch, so the call can be
      captured into a CUDA graph.

    Each buffer is zeroed (`llvm.intr.memset`) where it is made, so a map
    whose encoding is never reached is all zero, which the runtime refuses
    to launch with.

    `convert-gpu-to-nvvm` drops `llvm.byval` from a `gpu.func` argument
    and the NVVM verifier refuses `nvvm.grid_constant` on one (LLVM 22),
    hence this pass on the lowered kernel. Errors: a `tx.tensor_map` buffer
    that is not one `!llvm.array<16 x i64>` aligned to a multiple of 64
    bytes, a tensor map at parameter 64 or later, a kernel that is not an
    `llvm.func` with one parameter per operand or takes the map as another
    type than `!llvm.ptr`, one kernel launched with tensor maps at
    different parameters (or with another value where another launch
    passes a tensor map), and a `txRuntimeTensorMapParamsNext` symbol that
    is not an `llvm.func` of type `void (i64)`.
  }];
  let dependentDialects = ["::mlir::LLVM::LLVMDialect",
                           "::mlir::NVVM::NVVMDialect"];
}

def TxProgrammaticLaunches : Pass<"tx-programmatic-launches", "::mlir::ModuleOp"> {
  let summary = "Launch the gpu.launch ops marked tx.programmatic_launch as programmatic dependents (PDL) through the tx runtime";
  let description = [{
    Runs before `gpu-kernel-outlining`. A `gpu.launch` that carries the
    unit attribute `tx.programmatic_launch` (the split-KV decode kernel's
    merge kernel, `tx-attention-to-gpu` with `decode-merge-kernel`) gets a
    call

    ```mlir
    func.call @txRuntimeLaunchProgrammaticNext() : () -> ()
    gpu.launch blocks(...) threads(...) { nvvm.griddepcontrol wait ... }
    ```

    right before it, and the attribute is removed (a private declaration of
    the function is added to the module). The tx CUDA runtime then launches
    the next kernel of the calling thread with `cuLaunchKernelEx` and
    `CU_LAUNCH_ATTRIBUTE_PROGRAMMATIC_STREAM_SERIALIZATION` (programmatic
    dependent launch, CUDA programming guide; sm_90+): the kernel may be
    scheduled once every CTA of the kernel before it on the stream has run
    `griddepcontrol.launch_dependents` (or exited), and its threads wait in
    `griddepcontrol.wait` until that kernel has completed and its memory
    operations are visible. LLVM 22's `gpu.launch_func` has no launch
    attribute for it. Without this pass (another runtime, or upstream's
    pipeline) the launch is an ordinary stream-ordered one and
    `griddepcontrol.wait` returns at once: the same results.

    An existing `txRuntimeLaunchProgrammaticNext` symbol that is not a
    `func.func` of type `() -> ()` is an error.
  }];
  let dependentDialects = ["::mlir::func::FuncDialect"];
}

def TxEmitManifest : Pass<"tx-emit-manifest", "::mlir::ModuleOp"> {
  let summary = "Write a JSON manifest of the module's C entry points (signatures and tx ops)";
  let description = [{
    Describes every public `func.func` with a body as a library built by
    `scripts/tx-compile.sh` exports it (docs/ABI.md), so that callers (the
    `python/tx` package) need no hand-written signatures. Run it on the tx
    input, before any lowering; it does not change the IR. Per function:

    - `name` and the C `symbols` (`sync`: `_mlir_ciface_<name>`,
      `on_stream`: `_mlir_ciface_<name>_on_stream`);
    - `arguments` and `results` (results are the out-parameters after the
      arguments): `name` (the argument's `tx.name` attribute, else the SSA
      name in the source when the input file is readable, else from the tx
      operand the argument feeds: `q`, `k`, `v`, `mask`, `x`, `out`; else
      `arg<i>`), `role` (`query`, `key`, `value`, `mask`, `kv_lengths`,
      `q_lengths`, `input`, and for the backward ops `output`,
      `grad_output`, `lse`; or null), MLIR `type`, `element_type` (`f16`, `bf16`, `f32`,
      `i1`, ...), `rank`, `shape` (null for a dynamic size); results also
      get `shape_from`, one entry per dimension: its static size, `{"arg": i,
      "dim": d}` when it equals dimension `d` of argument `i` (the result of
      `tx.softmax` has its input's shape, that of `tx.attention`
      `[B, H, Sq, Dv]`, its LSE `[B, H, Sq]`; the gradients of
      `tx.attention_grad` / `tx.softmax_grad` have the shapes of the
      operands they are the gradients of), or null when it cannot be derived
      from the arguments (the caller then passes the result buffer);
    - `ops`: every `tx.softmax` (`dim`, normalized to `[0, rank)`) and
      `tx.attention` (`causal`, `scale`: null for the default `1/sqrt(D)`,
      `mask`: `none`, `i1` or `additive`) with `operands` (the argument index
      of each operand, null when it is not a function argument), `results`
      (which function results return this op's value) and `loc`; likewise
      `tx.softmax_grad` and `tx.attention_grad` (operands also `output`,
      `grad_output`, `lse`);
    - `gradient`: what `tx-derive-gradients` recorded, null when it did not
      run: `{"forward": "<f>__tx_fwd", "backward": "<f>__tx_bwd",
      "arguments": [i, ...]}` (the differentiable arguments), `{"none":
      "<why>"}`, or `{"derived": "forward" | "backward"}` on the derived
      functions.

    `path` = `-` writes to standard output.
  }];
  let options = [
    Option<"path", "path", "std::string", /*default=*/"\"-\"",
           "Output file of the JSON manifest ('-' = standard output)">,
    Option<"library", "library", "std::string", /*default=*/"\"\"",
           "File name of the library the manifest describes (recorded as is)">,
    Option<"pipeline", "pipeline", "std::string", /*default=*/"\"\"",
           "tx-gpu-pipeline options the library was built with (recorded as is)">,
  ];
}

def TxDeriveGradients : Pass<"tx-derive-gradients", "::mlir::ModuleOp"> {
  let summary = "Add forward-with-LSE and backward entry points to each differentiable function";
  let description = [{
    For each public `func.func` whose results are all computed by
    `tx.attention` (its output) or `tx.softmax` directly from the function's
    arguments, adds two public functions:

    - `@<f>__tx_fwd(args) -> (results..., lses...)`: `@<f>` with each
      returned `tx.attention` also returning its log-sum-exp (`[B, H, Sq]`,
      `f32`), one per attention result, in result order;
    - `@<f>__tx_bwd(args..., output..., lse..., grad_output...) -> grads...`:
      from `@<f>`'s arguments, its results (`output`), the forward's LSEs and
      the gradients of the results (`grad_output`), the gradient of each
      differentiable argument (Q, K, V and an additive mask of a
      `tx.attention`; the input of a `tx.softmax`), in argument order, by one
      `tx.attention_grad` (with the forward's clauses, score and mask
      functions and their captured operands) or `tx.softmax_grad`
      per result. The added arguments carry `tx.name` (`output`, `lse`,
      `grad_output`, suffixed by the result number when `@<f>` has several
      results).

    `@<f>` gets `tx.gradient = {forward = @<f>__tx_fwd, backward =
    @<f>__tx_bwd, arguments = array<i64: ...>}` (the differentiable
    arguments); a function it cannot derive gets `tx.no_gradient = "<why>"`
    instead: a result that is not a `tx.attention` output or `tx.softmax`
    (an LSE result included), an operand that is not a function argument,
    an argument that feeds two differentiated operands, a paged cache, a
    score function with an op tx cannot differentiate (named with its
    location), or a taken name.
    The derived functions carry `tx.derived` (`"forward"` / `"backward"`);
    functions that already carry one of these attributes are left alone, so
    the pass is idempotent. `scripts/tx-compile.sh` runs it before
    `tx-emit-manifest`, which records the result for `python/tx`'s autograd
    (docs/Python.md).
  }];
  let dependentDialects = ["::mlir::func::FuncDialect", "::mlir::tx::TxDialect"];
}

def TxCheckDims : Pass<"tx-check-dims"> {
  let summary = "Reject tensor.dim / memref.dim whose index is provably out of range";
  let description = [{
    Fails with a diagnostic on every `tensor.dim` or `memref.dim` whose index
    is a constant, or an integer range computed by upstream's
    `IntegerRangeAnalysis`, entirely outside `[0, rank)`. Upstream treats such
    an op as valid IR with undefined behaviour, but a program that asks for
    dimension -5 of a rank-4 tensor is wrong, and LLVM 22's `gpu` dialect
    canonicalization (`SimplifyDimOfAllocOp`) reads out of bounds on a
    negative index (tx-opt died with a segmentation fault in the GPU
    pipeline). `tx-gpu-pipeline` and `tx-cpu-pipeline` run it first. An index
    that only becomes a negative constant later (after folding) cannot crash
    either: the tx dialect's canonicalization turns a `memref.dim` with a
    negative constant index into `ub.poison`.
  }];
  let dependentDialects = ["::mlir::tx::TxDialect"];
}

def TxExpandMath : Pass<"tx-expand-math"> {
  let summary = "Rewrite math.isinf and math.clampf into ops every tx pipeline lowers";
  let description = [{
    A score or mask function (`tx.attention`'s regions) may use any
    side-effect-free arith or math op, and each must compile on the CPU and
    on the GPU. LLVM 22 has no CPU lowering of `math.isinf` and no lowering
    at all of `math.clampf`, so this pass rewrites them, exactly:

    ```mlir
    math.isinf %x : f32                      // |x| == +inf (cmpf oeq)
    math.clampf %x to [%lo, %hi] : f32       // maximumf(minimumf(x, hi), lo)
    ```

    `math.clampf` is a clamp, as CUDA and SPIR-V define it and as upstream
    fixed it after LLVM 22 (llvm-project PR 175012); LLVM 22's text and its
    `math-expand-ops` give `maxf(minf(x, lo), hi)`, which is `hi` for every
    `x` when `lo <= hi`.

    `tx-gpu-pipeline` runs it before kernel outlining, `tx-cpu-pipeline`
    before the conversion to LLVM; both also run upstream's
    `convert-math-to-funcs` (`math.ipowi`), and the CPU pipeline
    `convert-math-to-libm` for what has no LLVM intrinsic (`math.erf`,
    `math.erfc`, `math.cbrt`).
  }];
  let dependentDialects = ["::mlir::arith::ArithDialect",
                           "::mlir::math::MathDialect"];
}

def TxGpuLibdeviceCalls : Pass<"tx-gpu-libdevice-calls", "::mlir::gpu::GPUModuleOp"> {
  let summary = "Lower arith.remf in GPU kernels to libdevice's fmod";
  let description = [{
    Runs on each `gpu.module` before the module-wide `convert-arith-to-llvm`
    of `tx-gpu-pipeline` (upstream's `gpu-lower-to-nvvm-pipeline` order).
    That pass turns `arith.remf` into `llvm.frem`, which
    `convert-gpu-to-nvvm` then rejects ("failed to legalize operation
    'llvm.frem' that was explicitly marked illegal"): its own lowering of
    `arith.remf` to libdevice never sees the op. This pass does that
    lowering first:

    ```mlir
    %r = arith.remf %x, %y : f32
    // becomes
    %r = llvm.call @__nv_fmodf(%x, %y) : (f32, f32) -> f32
    ```

    (`__nv_fmod` for f64; f16 and bf16 through f32, exact since fmod of
    the widened values is exactly representable in the narrow type).
    Vector `arith.remf` is left alone.
  }];
  let dependentDialects = ["::mlir::LLVM::LLVMDialect",
                           "::mlir::arith::ArithDialect"];
}

def TxGatherKvPages : Pass<"tx-gather-kv-pages", "::mlir::func::FuncOp"> {
  let summary = "Rewrite a paged tx.attention into gathers and an unpaged one";
  let description = [{
    Each `tx.attention` with a `page_table` (K/V page pools
    `[num_pages, page_size, Hkv, D]`, table `i32 [B, max_pages]`) becomes two
    `linalg.generic` gathers that build the contiguous K/V
    `[B, Hkv, max_pages * page_size, D]` it stands for, and the same
    `tx.attention` on them without the table. Key `j` of batch `b` is row
    `j % page_size` of page `page_table[b, j / page_size]`; a key past
    `kv_lengths[b]` is not read (the gather writes 0 there, and the
    attention hides it), so garbage table entries past a sequence's length
    are harmless; a live key whose id lies outside `[0, num_pages)` reads
    as zeros too (never a read outside the pools;
    `tx-check-attention-lengths` reports it on the CPU, the Python package
    before a GPU call).

    The first step of `tx-cpu-pipeline` and `tx-gpu-pipeline` (after the
    run-time checks), so every later pass (tiling, the strategies, the
    reference lowering) sees ordinary operands. On the GPU the gathers are
    not run: `tx-map-attention-to-gpu` gives the split-KV decode, mma.sync
    and wgmma kernels the pools and the table instead, and they read each
    key row through the table (one read per key tile when a page holds
    whole tiles); only the CUDA-core kernel reads gathered K/V. On the CPU
    the gathers cost one copy of the visible K/V per call. `tx-to-linalg`
    gathers a paged op it meets the same way.
  }];
  let dependentDialects = ["::mlir::linalg::LinalgDialect",
                           "::mlir::tensor::TensorDialect",
                           "::mlir::arith::ArithDialect",
                           "::mlir::scf::SCFDialect"];
}

def TxCheckAttentionLengths : Pass<"tx-check-attention-lengths",
                                   "::mlir::func::FuncOp"> {
  let summary = "Run-time range checks of tx.attention's per-sequence lengths";
  let description = [{
    Before each `tx.attention` with `kv_lengths` or `q_lengths` (i32 `[B]`),
    emits a loop over the batch that reads every length and a `cf.assert`
    that it lies in `[0, Sk]` (`kv_lengths`) or `[0, Sq]` (`q_lengths`), with
    a message that names the operand ("tx.attention: kv_lengths has an entry
    outside [0, Sk]"; with a `page_table`, `Sk = max_pages * page_size`).
    With a `page_table` it also checks a dynamic page size (a power of two
    from 1 to 256) and the table entry of every live key's page (pages
    `[0, ceil(kv_lengths[b] / page_size))` of batch `b`, all `max_pages`
    without `kv_lengths`): "tx.attention: page_table has an entry outside
    [0, num_pages) for a live key". A compiled library returns that message
    as its error
    (`tx-host-checks-to-errors`, docs/ABI.md); under `mlir-runner` it aborts.
    The lowerings themselves clamp each length into range, so a bad length
    never reads outside the tensors even without this pass.

    `tx-cpu-pipeline` runs it first. `tx-gpu-pipeline` does not: there the
    lengths live in device memory, which host code cannot read without a
    synchronizing copy on every call (and none is allowed while a CUDA graph
    is captured); the Python package checks them before a GPU call instead
    (`tx.load`, outside graph capture).
  }];
  let dependentDialects = ["::mlir::cf::ControlFlowDialect",
                           "::mlir::scf::SCFDialect",
                           "::mlir::tensor::TensorDialect",
                           "::mlir::arith::ArithDialect"];
}

def TxCheckLowered : Pass<"tx-check-lowered", "::mlir::ModuleOp"> {
  let summary = "Fail unless the module is fully lowered to the LLVM dialect";
  let description = [{
    The last pass of `tx-gpu-pipeline` and `tx-cpu-pipeline`: fails with a
    diagnostic on the first op of each kind that is not in the LLVM dialect
    (with `gpu=true`, `gpu.binary` and `gpu.launch_func` are allowed too).
    Upstream conversions that cannot convert an op (for example a GPU
    workgroup buffer in tx-cpu-pipeline) print an error and leave the op, and
    LLVM 22.1.8 exits 0; this check makes such a run fail.
  }];
  let options = [
    Option<"gpu", "gpu", "bool", /*default=*/"false",
           "Allow gpu.binary and gpu.launch_func (tx-gpu-pipeline's output)">,
    Option<"pipeline", "pipeline", "std::string", /*default=*/"\"the pipeline\"",
           "Name of the pipeline, for the diagnostic">,
  ];
}

def TxCheckGPUTarget : Pass<"tx-check-gpu-target", "::mlir::ModuleOp"> {
  let summary = "Validate the GPU target options of tx-gpu-pipeline";
  let description = [{
    Fails with one diagnostic when the target cannot be compiled for: an
    unknown chip name, a PTX version (`+ptxNN` feature) older than the chip
    needs or newer than the installed `ptxas` accepts (the message names both
    versions), an unknown output format, or a `bin`/`fatbin` format whose
    toolkit has no `bin/ptxas`, or a kernel that an earlier
    `tx-attention-to-gpu` generated for a newer chip (its `gpu.launch` carries
    `tx.required_chip = "sm_80"` for mma.sync/cp.async or `"sm_90a"` for
    wgmma; LLVM's NVPTX backend would abort on it), or a hand-written NVVM
    op that the chip or the PTX version cannot express (for example
    `nvvm.setmaxregister` or `nvvm.wgmma.*` below sm_90a, `nvvm.cp.async.bulk.*`
    or `nvvm.mbarrier.try_wait.parity` below sm_90, a TMA load with
    `isCTAOnly` below PTX 8.6: upstream's `RequiresSMInterface` plus tx's
    table in `CheckGPUTarget.cpp`); the op's diagnostic names what it needs;
    or a public function that returns one value as two results (each result
    of an entry point is written into its own caller buffer, docs/ABI.md;
    upstream's buffer-results-to-out-params would crash on it).
    `tx-gpu-pipeline` runs it first so that a bad option is reported before
    any lowering.
  }];
  let options = [
    Option<"chip", "chip", "std::string", /*default=*/"\"sm_90\"",
           "Target SM (sm_NN, sm_NNa or sm_NNf)">,
    Option<"features", "features", "std::string", /*default=*/"\"+ptx80\"",
           "PTX features (+ptxNN)">,
    Option<"format", "format", "std::string", /*default=*/"\"fatbin\"",
           "Output format: isa, bin, fatbin or offload">,
    Option<"toolkit", "toolkit", "std::string", /*default=*/"\"/usr/local/cuda\"",
           "CUDA toolkit path">,
    Option<"softmax", "softmax", "std::string", /*default=*/"\"fast\"",
           "Softmax strategy: fast or simple">,
    Option<"attention", "attention", "std::string", /*default=*/"\"flash\"",
           "Attention strategy: simple or flash">,
  ];
}

def TxTileSoftmax : Pass<"tx-tile-softmax", "::mlir::func::FuncOp"> {
  let summary = "Tile tx.softmax into row tiles, and rows into chunks with an online softmax (target-independent)";
  let description = [{
    The target-independent tiled form of tx's softmax, on tensors: the loop
    structure that `tx-softmax-to-gpu` maps onto CTAs and lanes (row tiles;
    within a row, either the whole row at once or an online max/sum over
    chunks followed by a normalizing pass), in IR that runs anywhere
    (`tx-cpu-pipeline softmax=tiled`). Every `tx.softmax` becomes:

    1. an `scf.forall` over row tiles, produced by upstream
       `scf::tileUsingSCF` from tx.softmax's `TilingInterface`: every
       parallel dimension is tiled, the innermost parallel one by
       `rows-per-tile` and the others by 1; the softmax dimension is not
       tiled (a tile holds whole rows);
    2. in each tile, `tx.softmax` on the tile (`cols-per-tile` = 0, or a
       static row no longer than `cols-per-tile`), or else two `scf.for`
       loops over chunks of `cols-per-tile` elements of the softmax
       dimension:
       a. the online normalizer (Milakov & Gimelshein 2018, "Online
          normalizer calculation for softmax"): per chunk, one
          `linalg.generic` updates the running `max` and `sum` of each row
          (f32, in the loop's `iter_args`) element by element,
          `sum' = sum * exp(max - max') + exp(x - max')`, where a running
          max of -inf adds 0 and an unchanged max does not rescale (so a
          leading -inf cannot make NaN);
       b. per chunk, `exp(x - max) / sum` rounded once to the element type
          and inserted into the tile's result.

    Results are those of the reference lowering: an all -inf row gives NaN;
    tensors with a static size of 0 are left untouched (nothing to tile).
    CASES.md S2 (a chunk of 2 along the softmax dimension) gives
    `[.25 .25 .25 .25]`, a NaN row and `[0.268941, 0.731059, 0, 0]`.
  }];
  let options = [
    Option<"rowsPerTile", "rows-per-tile", "int64_t", /*default=*/"8",
           "Rows per tile: the tile size of the innermost parallel dimension (>= 1)">,
    Option<"colsPerTile", "cols-per-tile", "int64_t", /*default=*/"0",
           "Elements of the softmax dimension per online-softmax chunk (0 = whole rows)">,
    Option<"fromStrategy", "from-strategy", "bool", /*default=*/"false",
           "The GPU path: tile only tx.softmax ops with a tx.gpu_strategy (tx-softmax-strategy), as rows of an [R, N] view with the strategy's rows_per_cta per tile, the strategy copied onto the scf.forall (cols-per-tile and rows-per-tile are ignored)">,
  ];
  let dependentDialects = [
    "::mlir::scf::SCFDialect", "::mlir::tensor::TensorDialect",
    "::mlir::linalg::LinalgDialect", "::mlir::arith::ArithDialect",
    "::mlir::math::MathDialect", "::mlir::affine::AffineDialect"
  ];
}

def TxTileAttentionGrad : Pass<"tx-tile-attention-grad", "::mlir::func::FuncOp"> {
  let summary = "Tile tx.attention_grad into FlashAttention-2's backward loops (target-independent)";
  let description = [{
    The tiled backward of FlashAttention-2 (Tri Dao, 2023, Algorithm 2), on
    tensors, without atomics and so deterministic: every `tx.attention_grad`
    becomes

    1. the run-time shape checks of the reference lowering;
    2. `Δ = rowsum(dO ∘ O)` (f32 `[B, H, Sq]`), one `linalg.generic`;
    3. dK, dV: an `scf.forall` over `(B, Hkv, key tiles of kv-tile)`; each
       iteration is one `tx.attention_dkdv` (the tile of a whole-problem op,
       through its `TilingInterface`) over the key tile and all query rows
       of the K/V head's `H / Hkv` query heads, tiled again by
       `scf::tileUsingSCF` along the queries: an `scf.for` of step `q-tile`
       with dK, dV (f32) in `iter_args`;
    4. dQ: an `scf.forall` over `(B, H, query tiles of q-tile)`; each
       iteration one `tx.attention_dq` over the query tile and all keys,
       tiled along the keys: an `scf.for` of step `kv-tile` with dQ in
       `iter_args`; with a `grad_mask` result the blocks also write dS
       into an f32 `[B, H, Sq, Sk]` tensor, summed over the mask's
       broadcast dimensions afterwards (as the reference lowering does);
    5. causal and sliding windows: each `scf.for` visits only the tiles
       that some row (key) of its tile sees; per-sequence lengths become
       the ops' `row_limit` / `key_limit` and the diagonal `causal_offset =
       Lk - Lq + first row - first key` per batch;
    6. the f32 gradients rounded once to the operands' element types (dQ
       times `rsqrt(D)` when the scale is the default of a dynamic D: the
       tiles then read Q pre-scaled, as `tx-tile-attention`'s);
    7. `decompose=true` (default): each step's block op becomes
       `linalg.generic` ops (`AggregatedOpInterface`).

    Each query row's probabilities are recomputed twice (once per pass),
    as FlashAttention-2 does without atomics; no `Sq x Sk` tensor exists
    at any size except the dS of a `grad_mask`. A `tx.attention_grad` whose
    sizes are statically empty is left to the reference lowering
    (`convert-tx-to-linalg`).

    `tx-cpu-pipeline="attention=tiled"` runs this pass with its attention
    tile sizes. With `from-strategy=true` (`tx-gpu-pipeline attention-grad-kernels=true`) only ops
    that carry `tx.grad_tiles = array<i64: q_tile, kv_tile>`
    (`tx-attention-grad-strategy`) are tiled, with those tiles, and both
    foralls carry the attribute for `tx-map-attention-grad-to-gpu`.
  }];
  let options = [
    Option<"qTile", "q-tile", "int64_t", /*default=*/"64",
           "Query rows per tile (>= 1; default 64)">,
    Option<"kvTile", "kv-tile", "int64_t", /*default=*/"64",
           "Keys per tile (>= 1; default 64)">,
    Option<"decompose", "decompose", "bool", /*default=*/"true",
           "Decompose each tiled block op into linalg.generic ops (default true)">,
    Option<"fromStrategy", "from-strategy", "bool", /*default=*/"false",
           "Tile only the ops that carry tx.grad_tiles, with those tiles, and put the attribute on both foralls (the GPU path; default false)">,
  ];
  let dependentDialects = [
    "::mlir::tx::TxDialect", "::mlir::linalg::LinalgDialect",
    "::mlir::arith::ArithDialect", "::mlir::math::MathDialect",
    "::mlir::tensor::TensorDialect", "::mlir::scf::SCFDialect",
    "::mlir::affine::AffineDialect", "::mlir::cf::ControlFlowDialect"
  ];
}

def TxAttentionGradStrategy : Pass<"tx-attention-grad-strategy", "::mlir::func::FuncOp"> {
  let summary = "Choose the backward's GPU kernels: mark the tx.attention_grad ops the kernels take with their tiles (the mma.sync pair, or sm_90a's one-pass wgmma kernel)";
  let description = [{
    Puts `tx.grad_tiles = array<i64: q_tile, kv_tile>` on every
    `tx.attention_grad` that the backward's mma.sync kernels
    (`tx-map-attention-grad-to-gpu`) take on a chip of compute capability
    `sm` (80 or more): Q, K, V and dO of f16 or bf16, a static head dim
    `D = Dv` of 64 or 128, no mask, soft cap, window or per-sequence
    lengths (causal, GQA and MQA are taken). The tiles are (64, 64) for
    D = 64 and (32, 64) for D = 128: the dK/dV kernel's CTA has
    `kv_tile / 16` warps and steps over `q_tile` query rows, the dQ
    kernel's has `q_tile / 16` warps and steps over `kv_tile` keys. An op
    that already carries the attribute keeps it. Other ops are left
    unmarked: `tx-tile-attention-grad from-strategy=true` does not tile
    them and they take the reference lowering (`convert-tx-to-linalg`).

    On an sm_90a chip (`wgmma=true`) the same ops take instead the one-pass
    warpgroup-MMA kernel, tiles (64, 128), and also get the unit attribute
    `tx.grad_dq_reduce`: dQ is accumulated across key tiles by f32
    reductions in the dK/dV kernel (five products per step instead of the
    mma.sync pair's seven), so it is not bitwise deterministic;
    `deterministic=true` keeps the mma.sync pair there.
  }];
  let options = [
    Option<"sm", "sm", "int64_t", /*default=*/"90",
           "Compute capability of the target (default 90; the kernels need 80 or more)">,
    Option<"wgmma", "wgmma", "bool", /*default=*/"false",
           "The chip is sm_90a: mark D 64/128 ops for the one-pass wgmma kernel (tiles 64, 128; tx.grad_dq_reduce)">,
    Option<"deterministic", "deterministic", "bool", /*default=*/"false",
           "Bitwise-deterministic gradients: the mma.sync pair (no reductions in an order that varies) even on sm_90a">,
  ];
}

def TxMapAttentionGradToGPU : Pass<"tx-map-attention-grad-to-gpu", "::mlir::func::FuncOp"> {
  let summary = "Map the tiled tx.attention_grad (foralls of tx.attention_dkdv and tx.attention_dq) onto the backward's kernels (the mma.sync pair; sm_90a's one-pass wgmma kernel)";
  let description = [{
    The GPU mapping of the backward's tiled IR, built by
    `tx-tile-attention-grad from-strategy=true decompose=false`:

    ```
    scf.forall (b, kh, n0) in (B, Hkv, key tiles) {      // tx.grad_tiles
      scf.for m0 = .. step q_tile { tx.attention_dkdv (tiles) -> dK, dV }
    }
    scf.forall (b, h, m0) in (B, H, query tiles) {        // tx.grad_tiles
      scf.for n0 = .. step kv_tile { tx.attention_dq (tiles) -> dQ }
    }
    ```

    Each forall becomes one `gpu.launch` (sm_80+): its iteration space is
    the grid (one CTA per forall iteration), its loop is the loop inside the
    CTA, and the block op is lowered to mma.sync m16n8k16 code
    (FlashAttention-2's backward, Algorithm 2: Sᵀ = K·Qᵀ, Pᵀ from the LSE,
    dV += Pᵀ·dO, dPᵀ = V·dOᵀ, dSᵀ = Pᵀ ∘ (dPᵀ − Δ), dK += dSᵀ·Q; and
    S, P, dP, dS, dQ += dS·K), with Q/K/V/dO tiles staged in shared memory
    by cp.async and the accumulators in registers. No atomics: the results
    are bitwise deterministic. The forall's results (f32 dK, dV, dQ) are
    the kernels' buffers.

    Foralls that also carry `tx.grad_dq_reduce` (`tx-attention-grad-strategy
    wgmma=true`, tiles (64, 128)) are mapped as a pair: the dK/dV forall
    and the dQ forall of the same operands become one launch of the sm_90a
    one-pass kernel (FlashAttention-2's Algorithm 2 as written, issued as
    FlashAttention-3 issues its products): B·Hkv·ceil(Sk/128) CTAs of two
    warpgroups, each owning 64 keys; per 64-row query step Sᵀ = K·Qᵀ and
    dPᵀ = V·dOᵀ by wgmma from shared memory, dV += Pᵀ·dO and dK += dSᵀ·Q
    with Pᵀ and dSᵀ as register operands, dSᵀ staged in shared memory for
    dQ_tile = dS·K, added into a zeroed f32 dQ by one bulk reduction
    (`cp.reduce.async.bulk .add.f32`) of each warpgroup's contiguous rows.
    Five products per step instead of the pair's seven; the order of the
    dQ additions varies from run to run, so dQ is not bitwise
    deterministic. A dQ forall so marked without its dK/dV forall, or the
    attribute with other tiles, is an error.

    A forall with `tx.grad_tiles` whose structure or block op the kernels
    do not take (a mask, soft cap, window or lengths operand, element types
    other than f16/bf16, a head dim that is not a multiple of 32 or above
    128, tiles that are not multiples of 16) is an error with its reason.

    `tx-gpu-pipeline attention-grad-kernels=true` runs the three passes
    (off by default: the kernels compile and pass ptxas but have not yet
    run on a GPU).
  }];
  let dependentDialects = [
    "::mlir::gpu::GPUDialect", "::mlir::arith::ArithDialect",
    "::mlir::math::MathDialect", "::mlir::scf::SCFDialect",
    "::mlir::memref::MemRefDialect", "::mlir::vector::VectorDialect",
    "::mlir::nvgpu::NVGPUDialect", "::mlir::LLVM::LLVMDialect",
    "::mlir::NVVM::NVVMDialect",
    "::mlir::bufferization::BufferizationDialect"
  ];
}

def TxTileAttention : Pass<"tx-tile-attention", "::mlir::func::FuncOp"> {
  let summary = "Tile tx.attention into FlashAttention-2 loops over tx.online_attention (target-independent)";
  let description = [{
    The target-independent flash attention path, in the style of IREE's
    LinalgExt, shared by the CPU and GPU pipelines. Every `tx.attention`
    becomes, on tensors:

    1. the run-time shape checks of the reference lowering
       (`emitAttentionSizesAndChecks`);
    2. an `scf.forall` over `(B, H, Sq)` with tiles `(1, 1, q-tile)`, made by
       upstream `scf::tileUsingSCF` through tx.attention's `TilingInterface`:
       each tile is one `tx.online_attention` of its query rows against all
       keys from the state `acc = 0`, `max = -inf`, `sum = 0` (f32), with
       `causal_offset = Sk - Sq + first row` when causal or windowed and
       `scale` = the op's scale or `1/sqrt(D)` (when D is dynamic and no
       scale is given, the tile of Q is pre-scaled by `rsqrt(D)` at run time
       and `scale = 1`); with one query head per tile, a GQA tile reads K/V
       head `h / (H / Hkv)` in place (no copy);
    3. the tile's epilogue: `O = (sum == 0) ? 0 : acc / sum` rounded once to
       the element type, and `lse = max + log(sum)` (-inf for a row that
       sees no key) when the op returns it, as `linalg.generic` ops tagged
       `tx.attention_epilogue`, inserted into the results by the forall;
    4. the `tx.online_attention` tiled again by `scf::tileUsingSCF` along the
       keys: an `scf.for` of step `kv-tile` whose `iter_args` carry
       `(acc, max, sum)`: the FlashAttention-2 loop (Dao 2023);
    5. causal and sliding windows: the `scf.for` bounds shrink to the key
       tiles some row of the query tile sees (upper bound
       `min(Sk, max(0, rows + causal_offset + right))`, lower bound the tile
       holding `causal_offset - left`; tile sizes still come from Sk, so a
       partial last tile stays correct); tiles on the diagonal are masked by
       the op;
    6. `decompose=true` (default): each step's `tx.online_attention` becomes
       `linalg.generic` ops (its `AggregatedOpInterface` decomposition).

    No tensor of `Sq x Sk` elements exists at any size: the largest
    temporary is one `q-tile x kv-tile` block of scores, and the state is
    one tile's `q-tile * (Dv + 2)` floats.

    What is upstream and what is ours: `TilingInterface` and
    `scf::tileUsingSCF` produce the loops (`scf.forall`, `scf.for` with the
    state in `iter_args`, the slices, the partial-tile sizes). The ops
    `tx.attention` and `tx.online_attention`, their tiling (slices, GQA head
    mapping, causal offset), the decomposition, the causal tile skipping and
    the epilogue are tx's. `transform.structured.tile_using_forall` on
    `tx.attention` (tile sizes `[1, 1, q]`) gives the same forall.

    The GPU pipeline runs this pass with `from-strategy=true` after
    `tx-attention-strategy`: only ops that carry a `tx.gpu_strategy` are
    tiled, with its `q_tile` and `kv_tile`, and the strategy is copied onto
    the `scf.forall`; the split-KV decode family is tiled `(1, H / Hkv, Sq)`
    (the query heads that share a K/V head, all rows) with its keys per
    warp step as the key loop's step.

    Split-KV (`kv-splits` > 1; FlashDecoding, Dao et al. 2023): the keys of
    each query tile are first split into `kv-splits` chunks of
    `ceil(Sk / kv-splits)` keys by an inner `scf.forall` whose iterations
    compute each chunk's state `(acc, max, sum)` from the initial state (the
    chunk's `tx.online_attention`, tiled as above: causal offset shifted by
    the chunk's first key) into stacked `[kv-splits, 1, 1, q-tile, ...]`
    tensors; `linalg.generic` ops then merge them with the log-sum-exp rule
    (`M = max_s m_s`, `w_s = exp(m_s - M)`, `sum = sum_s w_s l_s`,
    `acc = sum_s w_s acc_s`; a chunk whose keys are all hidden has
    `m_s = -inf` and weight 0 and adds nothing) before the epilogue. The
    GPU's decode kernels compute the same split and merge.

    Tile sizes: `q-tile` and `kv-tile` default to 64 whatever the head dim
    (a 64 x 64 f32 score block is 16 KiB, and FlashAttention-2 uses 64 or
    128 row/column blocks for D <= 128); both must be >= 1.
  }];
  let options = [
    Option<"qTile", "q-tile", "int64_t", /*default=*/"64",
           "Query rows per tile (>= 1; default 64)">,
    Option<"kvTile", "kv-tile", "int64_t", /*default=*/"64",
           "Keys per step of the online-softmax loop (>= 1; default 64)">,
    Option<"decompose", "decompose", "bool", /*default=*/"true",
           "Decompose each tiled tx.online_attention into linalg.generic ops (default true)">,
    Option<"kvSplits", "kv-splits", "int64_t", /*default=*/"1",
           "Split-KV: chunks of ceil(Sk / kv-splits) keys, each tiled as above from the initial state in an scf.forall, merged with the log-sum-exp rule (1 = no split; 1..65536)">,
    Option<"fromStrategy", "from-strategy", "bool", /*default=*/"false",
           "Tile only ops with a tx.gpu_strategy attribute (tx-attention-strategy), with its q_tile and kv_tile instead of q-tile and kv-tile, and copy it onto the scf.forall; decode-family ops stay whole">,
  ];
  let dependentDialects = [
    "::mlir::tx::TxDialect", "::mlir::linalg::LinalgDialect",
    "::mlir::arith::ArithDialect", "::mlir::math::MathDialect",
    "::mlir::tensor::TensorDialect", "::mlir::scf::SCFDialect",
    "::mlir::affine::AffineDialect", "::mlir::cf::ControlFlowDialect",
    "::mlir::bufferization::BufferizationDialect"
  ];
}

#endif // TRANSFORMER_PASSES_TD
