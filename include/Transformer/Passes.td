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

    Dynamic shapes lower to `tensor.dim`-based sizes. The pass fails with a
    diagnostic on the op if it meets a case it cannot lower.
  }];
  let dependentDialects = [
    "::mlir::linalg::LinalgDialect", "::mlir::arith::ArithDialect",
    "::mlir::math::MathDialect", "::mlir::tensor::TensorDialect",
    "::mlir::cf::ControlFlowDialect"
  ];
}

def TxSoftmaxToGPU : Pass<"tx-softmax-to-gpu", "::mlir::func::FuncOp"> {
  let summary = "Map tx.softmax over the innermost dim onto GPU CTAs and warps";
  let description = [{
    tx's fast softmax. Every `tx.softmax` along the innermost dimension is
    rewritten (on tensors, before bufferization) into a `gpu.launch` over the
    rows of the input viewed as `[R, N]`:

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

    Softmax along another dimension is left to the reference lowering
    (`convert-tx-to-linalg`), which is correct but slower. Options of 0 mean
    "choose from the shape".
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
  ];
  let dependentDialects = [
    "::mlir::gpu::GPUDialect", "::mlir::arith::ArithDialect",
    "::mlir::math::MathDialect", "::mlir::scf::SCFDialect",
    "::mlir::memref::MemRefDialect", "::mlir::vector::VectorDialect",
    "::mlir::bufferization::BufferizationDialect"
  ];
}

def TxAttentionToGPU : Pass<"tx-attention-to-gpu", "::mlir::func::FuncOp"> {
  let summary = "Map tx.attention onto one online-softmax GPU kernel (a warp per query row)";
  let description = [{
    A first flash-style attention path: every `tx.attention` whose D and Dv
    are static multiples of 32 up to 256 becomes (on tensors, before
    bufferization) a `gpu.launch` with one warp per query row `(b, h, i)`.
    The lanes hold D/32 elements of q (pre-scaled by `scale * log2(e)`) and
    Dv/32 of the output accumulator; the warp walks the keys once with
    FlashAttention-2's online softmax (Dao 2023): a running max m, sum l and
    accumulator rescaled by `exp2(m_old - m_new)`, each score reduced over
    the lanes with `gpu.shuffle xor`. No `Sq x Sk` buffer exists at any size.
    Causal rows stop at their last visible key (bottom-right alignment); a
    row with no visible key gives zeros; GQA reads K/V head `h / (H / Hkv)`
    in place; masks are read per score. K/V are read from global memory by
    every warp (no shared-memory staging, no tensor cores yet). Other head
    dims are left to the reference lowering.
  }];
  let options = [
    Option<"blockSize", "block-size", "int64_t", /*default=*/"128",
           "Threads per CTA (a multiple of 32; one query row per warp)">,
  ];
  let dependentDialects = [
    "::mlir::gpu::GPUDialect", "::mlir::arith::ArithDialect",
    "::mlir::math::MathDialect", "::mlir::scf::SCFDialect",
    "::mlir::memref::MemRefDialect", "::mlir::cf::ControlFlowDialect",
    "::mlir::bufferization::BufferizationDialect"
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

def TxCheckGPUTarget : Pass<"tx-check-gpu-target", "::mlir::ModuleOp"> {
  let summary = "Validate the GPU target options of tx-gpu-pipeline";
  let description = [{
    Fails with one diagnostic when the target cannot be compiled for: an
    unknown chip name, a PTX version (`+ptxNN` feature) older than the chip
    needs or newer than the installed `ptxas` accepts (the message names both
    versions), an unknown output format, or a `bin`/`fatbin` format whose
    toolkit has no `bin/ptxas`. `tx-gpu-pipeline` runs it first so that a bad
    option is reported before any lowering.
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

def TxTileAttention : Pass<"tx-tile-attention", "::mlir::func::FuncOp"> {
  let summary = "Tile tx.attention into FlashAttention-2 loops over tx.online_attention (target-independent)";
  let description = [{
    The target-independent flash attention path, in the style of IREE's
    LinalgExt. Every `tx.attention` becomes, on tensors:

    1. the run-time shape checks of the reference lowering
       (`emitAttentionSizesAndChecks`);
    2. the running state `acc = 0` (`[B, H, Sq, Dv]`), `max = -inf`,
       `sum = 0` (`[B, H, Sq]`), all `f32` (`linalg.fill` on `tensor.empty`);
    3. one `tx.online_attention` over the whole problem, with
       `causal_offset = Sk - Sq` when causal and `scale` = the op's scale or
       `1/sqrt(D)` (when D is dynamic and no scale is given, Q is pre-scaled
       by `rsqrt(D)` at run time and `scale = 1`);
    4. tiled by upstream `scf::tileUsingSCF` into an `scf.forall` over
       `(B, H, Sq)` with tiles `(1, 1, q-tile)`; with one query head per tile,
       a GQA tile reads K/V head `h / (H / Hkv)` in place (no copy);
    5. the tile tiled again by `scf::tileUsingSCF` along the keys: an
       `scf.for` of step `kv-tile` whose `iter_args` carry `(acc, max, sum)`:
       the FlashAttention-2 loop (Dao 2023);
    6. causal: the `scf.for` upper bound is shrunk to
       `min(Sk, max(0, rows + causal_offset))` of the query tile (the last
       visible key + 1; tile sizes still come from Sk, so a partial last tile
       stays correct): key tiles entirely above the diagonal are never
       visited, tiles on the diagonal are masked by the op;
    7. `decompose=true` (default): each tile's `tx.online_attention` becomes
       `linalg.generic` ops (its `AggregatedOpInterface` decomposition);
    8. `O = (sum == 0) ? 0 : acc / sum`, rounded once to the element type.

    No tensor of `Sq x Sk` elements exists at any size: the largest
    temporary is one `q-tile x kv-tile` block of scores. The state is
    `B * H * Sq * (Dv + 2)` floats.

    What is upstream and what is ours: `TilingInterface` and
    `scf::tileUsingSCF` produce the loops (`scf.forall`, `scf.for` with the
    state in `iter_args`, the slices, the partial-tile sizes). The op
    `tx.online_attention`, its tiling (slices, GQA head mapping, causal
    offset), its decomposition, the causal tile skipping and the
    finalization are tx's.

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
  ];
  let dependentDialects = [
    "::mlir::tx::TxDialect", "::mlir::linalg::LinalgDialect",
    "::mlir::arith::ArithDialect", "::mlir::math::MathDialect",
    "::mlir::tensor::TensorDialect", "::mlir::scf::SCFDialect",
    "::mlir::affine::AffineDialect", "::mlir::cf::ControlFlowDialect"
  ];
}

#endif // TRANSFORMER_PASSES_TD
