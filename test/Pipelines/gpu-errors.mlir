// Bad target options are one located diagnostic and a non-zero exit; nothing
// is printed as success (case G4 for the PTX versions).
// RUN: not tx-opt %s --tx-gpu-pipeline="chip=sm_91" 2>&1 | FileCheck %s --check-prefix=CHIP
// RUN: not tx-opt %s --tx-gpu-pipeline="chip=gfx90a" 2>&1 | FileCheck %s --check-prefix=CHIP2
// RUN: not tx-opt %s --tx-gpu-pipeline="format=bin toolkit=/nonexistent/cuda" 2>&1 | FileCheck %s --check-prefix=TOOLKIT
// RUN: not tx-opt %s --tx-gpu-pipeline="format=isa toolkit=/nonexistent/cuda" 2>&1 | FileCheck %s --check-prefix=TOOLKIT
// RUN: not tx-opt %s --tx-gpu-pipeline="format=bin toolkit=%S" 2>&1 | FileCheck %s --check-prefix=NOPTXAS
// RUN: not tx-opt %s --tx-gpu-pipeline="format=isa features=garbage" 2>&1 | FileCheck %s --check-prefix=FEATURE
// RUN: not tx-opt %s --tx-gpu-pipeline="format=isa features=+ptxab" 2>&1 | FileCheck %s --check-prefix=MALFORMED
// RUN: not tx-opt %s --tx-gpu-pipeline="format=isa attention=turbo" 2>&1 | FileCheck %s --check-prefix=ATTN
// RUN: not tx-opt %s --tx-gpu-pipeline="format=isa chip=sm_89a" 2>&1 | FileCheck %s --check-prefix=CHIP3
// RUN: not tx-opt %s --tx-gpu-pipeline="format=isa chip=sm_90f" 2>&1 | FileCheck %s --check-prefix=CHIP4
// RUN: not tx-opt %s --tx-gpu-pipeline="format=isa features=+ptx91" 2>&1 | FileCheck %s --check-prefix=LLVMPTX
// Architecture-specific chips get the PTX version they need by default.
// RUN: tx-opt %s --tx-gpu-pipeline="format=isa chip=sm_100f" | FileCheck %s --check-prefix=SM100F
// RUN: not tx-opt %s --tx-gpu-pipeline="format=cubin" 2>&1 | FileCheck %s --check-prefix=FORMAT
// RUN: not tx-opt %s --tx-gpu-pipeline="format=isa features=+ptx70" 2>&1 | FileCheck %s --check-prefix=OLDPTX
// RUN: not tx-opt %s --tx-gpu-pipeline="format=isa chip=sm_90a features=+ptx78" 2>&1 | FileCheck %s --check-prefix=OLDPTXA
// RUN: not tx-opt %s --tx-gpu-pipeline="format=isa block-size=0" 2>&1 | FileCheck %s --check-prefix=BLOCK
// A failed pipeline writes no output file.
// RUN: rm -f %t.never
// RUN: not tx-opt %s --tx-gpu-pipeline="chip=sm_91" -o %t.never
// RUN: not test -e %t.never

// CHIP: gpu-errors.mlir:0:0: error: tx-gpu-pipeline: unknown chip 'sm_91'; expected sm_NN with NN one of 50, 52,
// CHIP-NOT: see current operation
// CHIP2: error: tx-gpu-pipeline: unknown chip 'gfx90a'
// TOOLKIT: error: tx-gpu-pipeline: CUDA toolkit '/nonexistent/cuda' does not exist; pass toolkit=<CUDA path> (it provides libdevice, and ptxas for format=bin/fatbin)
// TOOLKIT-NOT: error
// FORMAT: error: tx-gpu-pipeline: unknown format 'cubin'; expected isa, bin, fatbin or offload
// OLDPTX: error: tx-gpu-pipeline: PTX 7.0 cannot target sm_90, which needs PTX 7.8 or later
// OLDPTXA: error: tx-gpu-pipeline: PTX 7.8 cannot target sm_90a, which needs PTX 8.0 or later
// NOPTXAS: error: tx-gpu-pipeline: format 'bin' needs ptxas, but '{{.*}}/bin/ptxas' does not exist; pass toolkit=<CUDA path> or use format=isa
// FEATURE: error: tx-gpu-pipeline: unknown feature 'garbage'; expected +ptxNN (e.g. +ptx80)
// ATTN: error: tx-gpu-pipeline: unknown attention strategy 'turbo'; expected simple or flash
// MALFORMED: error: tx-gpu-pipeline: malformed PTX feature '+ptxab'; expected +ptxNN
// CHIP3: error: tx-gpu-pipeline: unknown chip 'sm_89a'
// CHIP4: error: tx-gpu-pipeline: unknown chip 'sm_90f'
// LLVMPTX: error: tx-gpu-pipeline: PTX 9.1 is newer than LLVM 22's NVPTX backend supports (PTX 9.0)
// SM100F: chip = "sm_100f", features = "+ptx88"{{.*}}.target sm_100f
// BLOCK: error: tx-map-parallel-loops-to-gpu: block-size must be in [1, 1024], got 0

func.func @sm(%x: tensor<4x8xf32>) -> tensor<4x8xf32> {
  %0 = tx.softmax %x dim = 1 : tensor<4x8xf32>
  return %0 : tensor<4x8xf32>
}
