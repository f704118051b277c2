// The math ops a score function may use that upstream lowers on no target
// (math.clampf, math.ipowi) or not inside a gpu.module (arith.remf: the
// module-wide arith-to-llvm made it an llvm.frem that convert-gpu-to-nvvm
// rejected), with math.erf, math.cbrt and math.isinf, compile to PTX in
// every kernel family: wgmma (sm_90a) or mma.sync (sm_90) for f16, CUDA
// cores for f32, the split-KV decode for one query row. Values:
// test/Execution/attention_mods.mlir (CPU), harness/check_mods.py (GPU).
// RUN: tx-opt %s --tx-gpu-pipeline="chip=sm_90a format=isa" | FileCheck %s --check-prefix=PTX
// RUN: tx-opt %s --tx-gpu-pipeline="chip=sm_90 format=isa" | FileCheck %s --check-prefix=PTX
// The remainder is libdevice's fmodf, called before arith-to-llvm.
// RUN: tx-opt %s --tx-gpu-pipeline="chip=sm_90a format=isa" --mlir-print-ir-after=tx-gpu-libdevice-calls 2>&1 >/dev/null | FileCheck %s --check-prefix=LIB
// LIB: llvm.func @__nv_fmodf(f32, f32) -> f32
// LIB: llvm.call @__nv_fmodf
// LIB-NOT: arith.remf

// PTX-LABEL: .entry math_f16
func.func @math_f16(%q: tensor<1x2x128x64xf16>, %k: tensor<1x2x128x64xf16>,
              %v: tensor<1x2x128x64xf16>) -> tensor<1x2x128x64xf16> {
  %o = tx.attention %q, %k, %v score_mod {
      ^bb0(%s: f32, %b: index, %h: index, %i: index, %j: index):
        %lo = arith.constant -2.5 : f32
        %hi = arith.constant 2.5 : f32
        %cl = math.clampf %s to [%lo, %hi] : f32
        %m = arith.constant 1.5 : f32
        %rm = arith.remf %s, %m : f32
        %e = math.erf %s : f32
        %four = arith.constant 4.0 : f32
        %e4 = arith.divf %e, %four : f32
        %cb = math.cbrt %s : f32
        %ten = arith.constant 10.0 : f32
        %cb10 = arith.divf %cb, %ten : f32
        %j32 = arith.index_cast %j : index to i32
        %c4 = arith.constant 4 : i32
        %jm = arith.remui %j32, %c4 : i32
        %c2 = arith.constant 2 : i32
        %p = math.ipowi %jm, %c2 : i32
        %pf = arith.sitofp %p : i32 to f32
        %hundred = arith.constant 100.0 : f32
        %pf100 = arith.divf %pf, %hundred : f32
        %r1 = arith.addf %cl, %rm : f32
        %r2 = arith.addf %r1, %e4 : f32
        %r3 = arith.addf %r2, %cb10 : f32
        %r = arith.addf %r3, %pf100 : f32
        %big = arith.constant 1.0e30 : f32
        %b1 = arith.mulf %r, %big : f32
        %b2 = arith.mulf %b1, %big : f32
        %over = math.isinf %b2 : f32
        %pick = arith.select %over, %r, %s : f32
        %sinf = math.isinf %s : f32
        %zero = arith.constant 0.0 : f32
        %add = arith.select %sinf, %hundred, %zero : f32
        %out = arith.addf %pick, %add : f32
        tx.yield %out : f32
      }
      : tensor<1x2x128x64xf16>, tensor<1x2x128x64xf16>, tensor<1x2x128x64xf16> -> tensor<1x2x128x64xf16>
  return %o : tensor<1x2x128x64xf16>
}

// PTX-LABEL: .entry math_f32
func.func @math_f32(%q: tensor<1x2x40x32xf32>, %k: tensor<1x2x70x32xf32>,
              %v: tensor<1x2x70x32xf32>) -> tensor<1x2x40x32xf32> {
  %o = tx.attention %q, %k, %v score_mod {
      ^bb0(%s: f32, %b: index, %h: index, %i: index, %j: index):
        %lo = arith.constant -2.5 : f32
        %hi = arith.constant 2.5 : f32
        %cl = math.clampf %s to [%lo, %hi] : f32
        %m = arith.constant 1.5 : f32
        %rm = arith.remf %s, %m : f32
        %e = math.erf %s : f32
        %four = arith.constant 4.0 : f32
        %e4 = arith.divf %e, %four : f32
        %cb = math.cbrt %s : f32
        %ten = arith.constant 10.0 : f32
        %cb10 = arith.divf %cb, %ten : f32
        %j32 = arith.index_cast %j : index to i32
        %c4 = arith.constant 4 : i32
        %jm = arith.remui %j32, %c4 : i32
        %c2 = arith.constant 2 : i32
        %p = math.ipowi %jm, %c2 : i32
        %pf = arith.sitofp %p : i32 to f32
        %hundred = arith.constant 100.0 : f32
        %pf100 = arith.divf %pf, %hundred : f32
        %r1 = arith.addf %cl, %rm : f32
        %r2 = arith.addf %r1, %e4 : f32
        %r3 = arith.addf %r2, %cb10 : f32
        %r = arith.addf %r3, %pf100 : f32
        %big = arith.constant 1.0e30 : f32
        %b1 = arith.mulf %r, %big : f32
        %b2 = arith.mulf %b1, %big : f32
        %over = math.isinf %b2 : f32
        %pick = arith.select %over, %r, %s : f32
        %sinf = math.isinf %s : f32
        %zero = arith.constant 0.0 : f32
        %add = arith.select %sinf, %hundred, %zero : f32
        %out = arith.addf %pick, %add : f32
        tx.yield %out : f32
      }
      : tensor<1x2x40x32xf32>, tensor<1x2x70x32xf32>, tensor<1x2x70x32xf32> -> tensor<1x2x40x32xf32>
  return %o : tensor<1x2x40x32xf32>
}

// PTX-LABEL: .entry math_decode_f16
func.func @math_decode_f16(%q: tensor<2x8x1x128xf16>, %k: tensor<2x8x300x128xf16>,
              %v: tensor<2x8x300x128xf16>) -> tensor<2x8x1x128xf16> {
  %o = tx.attention %q, %k, %v score_mod {
      ^bb0(%s: f32, %b: index, %h: index, %i: index, %j: index):
        %lo = arith.constant -2.5 : f32
        %hi = arith.constant 2.5 : f32
        %cl = math.clampf %s to [%lo, %hi] : f32
        %m = arith.constant 1.5 : f32
        %rm = arith.remf %s, %m : f32
        %e = math.erf %s : f32
        %four = arith.constant 4.0 : f32
        %e4 = arith.divf %e, %four : f32
        %cb = math.cbrt %s : f32
        %ten = arith.constant 10.0 : f32
        %cb10 = arith.divf %cb, %ten : f32
        %j32 = arith.index_cast %j : index to i32
        %c4 = arith.constant 4 : i32
        %jm = arith.remui %j32, %c4 : i32
        %c2 = arith.constant 2 : i32
        %p = math.ipowi %jm, %c2 : i32
        %pf = arith.sitofp %p : i32 to f32
        %hundred = arith.constant 100.0 : f32
        %pf100 = arith.divf %pf, %hundred : f32
        %r1 = arith.addf %cl, %rm : f32
        %r2 = arith.addf %r1, %e4 : f32
        %r3 = arith.addf %r2, %cb10 : f32
        %r = arith.addf %r3, %pf100 : f32
        %big = arith.constant 1.0e30 : f32
        %b1 = arith.mulf %r, %big : f32
        %b2 = arith.mulf %b1, %big : f32
        %over = math.isinf %b2 : f32
        %pick = arith.select %over, %r, %s : f32
        %sinf = math.isinf %s : f32
        %zero = arith.constant 0.0 : f32
        %add = arith.select %sinf, %hundred, %zero : f32
        %out = arith.addf %pick, %add : f32
        tx.yield %out : f32
      }
      : tensor<2x8x1x128xf16>, tensor<2x8x300x128xf16>, tensor<2x8x300x128xf16> -> tensor<2x8x1x128xf16>
  return %o : tensor<2x8x1x128xf16>
}
