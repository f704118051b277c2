// Pipeline options are checked when the pipeline is parsed, before any pass
// runs (issue #44): an unknown option names the pipeline and the nearest
// valid option, in tx-opt, through the mlir-opt plugin and through
// tx-compile.sh; an out-of-range opt-level is refused there too (it used to
// fail late, at the op, with the whole IR dumped).
// RUN: not tx-opt %s --tx-gpu-pipeline="formt=isa" 2>&1 | FileCheck %s --check-prefix=GPU
// RUN: not tx-opt %s --tx-gpu-pipeline="chip=sm_90a attention-q-tle=4" 2>&1 | FileCheck %s --check-prefix=QTILE
// RUN: not tx-opt %s --tx-gpu-pipeline="opt-level=7 format=isa" 2>&1 | FileCheck %s --check-prefix=OPT
// RUN: not tx-opt %s --tx-cpu-pipeline="atention=tiled" 2>&1 | FileCheck %s --check-prefix=CPU
// RUN: not tx-opt %s --tx-gpu-pipeline="zzzz=1" 2>&1 | FileCheck %s --check-prefix=FAR
// RUN: not mlir-opt --load-dialect-plugin=%tx_plugin %s --pass-pipeline="builtin.module(tx-gpu-pipeline{formt=isa})" 2>&1 | FileCheck %s --check-prefix=GPU
// RUN: not mlir-opt --load-dialect-plugin=%tx_plugin %s --pass-pipeline="builtin.module(tx-gpu-pipeline{opt-level=-1})" 2>&1 | FileCheck %s --check-prefix=OPTNEG
// RUN: not bash %tx_src/scripts/tx-compile.sh %s %t.lib formt=isa 2>&1 | FileCheck %s --check-prefix=GPU

// GPU: error: tx-gpu-pipeline: unknown option 'formt'; did you mean 'format'? (tx-opt --help lists tx-gpu-pipeline's options)
// GPU-NOT: IR Dump
// QTILE: error: tx-gpu-pipeline: unknown option 'attention-q-tle'; did you mean 'attention-q-tile'?
// OPT: error: tx-gpu-pipeline: opt-level must be 0, 1, 2 or 3, got 7
// OPT-NOT: tx.attention
// OPTNEG: error: tx-gpu-pipeline: opt-level must be 0, 1, 2 or 3, got -1
// CPU: error: tx-cpu-pipeline: unknown option 'atention'; did you mean 'attention'?
// A name far from every option gets no suggestion.
// FAR: error: tx-gpu-pipeline: unknown option 'zzzz' (tx-opt --help lists tx-gpu-pipeline's options)

func.func @attn(%q: tensor<1x2x16x64xf16>, %k: tensor<1x2x16x64xf16>, %v: tensor<1x2x16x64xf16>) -> tensor<1x2x16x64xf16> {
  %o = tx.attention %q, %k, %v : tensor<1x2x16x64xf16>, tensor<1x2x16x64xf16>, tensor<1x2x16x64xf16> -> tensor<1x2x16x64xf16>
  return %o : tensor<1x2x16x64xf16>
}
