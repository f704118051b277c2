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

    Dynamic shapes lower to `tensor.dim`-based sizes. The pass fails with a
    diagnostic on the op if it meets a case it cannot lower.
  }];
  let dependentDialects = [
    "::mlir::linalg::LinalgDialect", "::mlir::arith::ArithDialect",
    "::mlir::math::MathDialect", "::mlir::tensor::TensorDialect",
    "::mlir::cf::ControlFlowDialect"
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
  ];
}

#endif // TRANSFORMER_PASSES_TD
