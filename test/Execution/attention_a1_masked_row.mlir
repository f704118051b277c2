// CASES.md A1: a fully masked query row yields exactly 0 (never NaN); the
// other rows match the float64 reference; a row whose first two keys are
// masked (keys 2-3 visible) is NOT zeroed; same in f16 and with causal + mask.
//
// RUN: tx-opt %s --tx-cpu-pipeline | %run_cpu | FileCheck %s
// The tiled path (tx-tile-attention): key tiles of 2, so that the row whose
// keys 0-1 are masked has a whole first key tile masked and is still not
// zeroed; query tiles of 1 and 2.
// RUN: tx-opt %s --tx-cpu-pipeline="attention=tiled attention-kv-tile=2 attention-q-tile=1" | %run_cpu | FileCheck %s
// RUN: tx-opt %s --tx-cpu-pipeline="attention=tiled attention-kv-tile=2 attention-q-tile=2" | %run_cpu | FileCheck %s
//
// Random variants checked against the float64 reference (exact zeros included):
// RUN: %python %S/Inputs/numeric_case.py attention --B 1 --H 1 --Sq 3 --Sk 4 --D 2 --mask keep --masked-row 1 --first-keys-masked 2 --seed 501 --name a1_f32 | tx-opt --tx-cpu-pipeline | %run_cpu | FileCheck %s --check-prefix=GEN32
// GEN32: case a1_f32: relerr {{.*}} ok 1
// RUN: %python %S/Inputs/numeric_case.py attention --dtype f16 --B 1 --H 1 --Sq 3 --Sk 4 --D 2 --mask keep --masked-row 1 --first-keys-masked 2 --seed 502 --name a1_f16 | tx-opt --tx-cpu-pipeline | %run_cpu | FileCheck %s --check-prefix=GEN16
// GEN16: case a1_f16: relerr {{.*}} ok 1
// Causal + mask: row 0 sees keys 0-1 (causal, Sk - Sq = 1) and the mask hides
// exactly those, so row 0 is 0; row 2 (keys 0-1 masked) is not.
// RUN: %python %S/Inputs/numeric_case.py attention --B 1 --H 1 --Sq 3 --Sk 4 --D 2 --causal --mask keep --keep-prob 1.0 --first-keys-masked 0 --first-keys-masked 2 --seed 503 --name a1_causal_mask | tx-opt --tx-cpu-pipeline | %run_cpu | FileCheck %s --check-prefix=GENC
// GENC: case a1_causal_mask: relerr {{.*}} ok 1
// Larger: 1x2x16x40 with a keep-mask [B,H,Sq,Sk], two dead rows, one row with
// keys 0-1 masked only.
// RUN: %python %S/Inputs/numeric_case.py attention --B 1 --H 2 --Sq 16 --Sk 40 --D 8 --mask keep --mask-bcast B,H --keep-prob 0.9 --masked-row 1 --masked-row 15 --first-keys-masked 7 --seed 504 --name a1_larger | tx-opt --tx-cpu-pipeline | %run_cpu | FileCheck %s --check-prefix=GENL
// GENL: case a1_larger: relerr {{.*}} ok 1
// The random variants through the tiled path (key tiles of 2):
// RUN: %python %S/Inputs/numeric_case.py attention --B 1 --H 1 --Sq 3 --Sk 4 --D 2 --mask keep --masked-row 1 --first-keys-masked 2 --seed 501 --name a1_f32 | tx-opt --tx-cpu-pipeline="attention=tiled attention-kv-tile=2" | %run_cpu | FileCheck %s --check-prefix=GEN32
// RUN: %python %S/Inputs/numeric_case.py attention --dtype f16 --B 1 --H 1 --Sq 3 --Sk 4 --D 2 --mask keep --masked-row 1 --first-keys-masked 2 --seed 502 --name a1_f16 | tx-opt --tx-cpu-pipeline="attention=tiled attention-kv-tile=2" | %run_cpu | FileCheck %s --check-prefix=GEN16
// RUN: %python %S/Inputs/numeric_case.py attention --B 1 --H 1 --Sq 3 --Sk 4 --D 2 --causal --mask keep --keep-prob 1.0 --first-keys-masked 0 --first-keys-masked 2 --seed 503 --name a1_causal_mask | tx-opt --tx-cpu-pipeline="attention=tiled attention-kv-tile=2 attention-q-tile=2" | %run_cpu | FileCheck %s --check-prefix=GENC
// RUN: %python %S/Inputs/numeric_case.py attention --B 1 --H 2 --Sq 16 --Sk 40 --D 8 --mask keep --mask-bcast B,H --keep-prob 0.9 --masked-row 1 --masked-row 15 --first-keys-masked 7 --seed 504 --name a1_larger | tx-opt --tx-cpu-pipeline="attention=tiled attention-kv-tile=2 attention-q-tile=5" | %run_cpu | FileCheck %s --check-prefix=GENL

func.func private @printMemrefF32(tensor<*xf32>)

func.func @a1_f32(%q: tensor<1x1x3x2xf32>, %k: tensor<1x1x4x2xf32>, %v: tensor<1x1x4x2xf32>,
                  %m: tensor<1x1x3x4xi1>) -> tensor<1x1x3x2xf32> {
  %o = tx.attention %q, %k, %v mask(%m : tensor<1x1x3x4xi1>)
      : tensor<1x1x3x2xf32>, tensor<1x1x4x2xf32>, tensor<1x1x4x2xf32> -> tensor<1x1x3x2xf32>
  return %o : tensor<1x1x3x2xf32>
}

func.func @a1_f16(%q: tensor<1x1x3x2xf16>, %k: tensor<1x1x4x2xf16>, %v: tensor<1x1x4x2xf16>,
                  %m: tensor<1x1x3x4xi1>) -> tensor<1x1x3x2xf16> {
  %o = tx.attention %q, %k, %v mask(%m : tensor<1x1x3x4xi1>)
      : tensor<1x1x3x2xf16>, tensor<1x1x4x2xf16>, tensor<1x1x4x2xf16> -> tensor<1x1x3x2xf16>
  return %o : tensor<1x1x3x2xf16>
}

func.func @a1_causal(%q: tensor<1x1x3x2xf32>, %k: tensor<1x1x4x2xf32>, %v: tensor<1x1x4x2xf32>,
                     %m: tensor<1x1x3x4xi1>) -> tensor<1x1x3x2xf32> {
  %o = tx.attention %q, %k, %v mask(%m : tensor<1x1x3x4xi1>) causal
      : tensor<1x1x3x2xf32>, tensor<1x1x4x2xf32>, tensor<1x1x4x2xf32> -> tensor<1x1x3x2xf32>
  return %o : tensor<1x1x3x2xf32>
}

func.func @print(%t: tensor<1x1x3x2xf32>) {
  %u = tensor.cast %t : tensor<1x1x3x2xf32> to tensor<*xf32>
  call @printMemrefF32(%u) : (tensor<*xf32>) -> ()
  return
}

func.func @print_f16(%t: tensor<1x1x3x2xf16>) {
  %e = tensor.empty() : tensor<1x1x3x2xf32>
  %w = linalg.generic {indexing_maps = [affine_map<(a, b, c, d) -> (a, b, c, d)>,
                                        affine_map<(a, b, c, d) -> (a, b, c, d)>],
                       iterator_types = ["parallel", "parallel", "parallel", "parallel"]}
      ins(%t : tensor<1x1x3x2xf16>) outs(%e : tensor<1x1x3x2xf32>) {
  ^bb0(%x: f16, %y: f32):
    %z = arith.extf %x : f16 to f32
    linalg.yield %z : f32
  } -> tensor<1x1x3x2xf32>
  call @print(%w) : (tensor<1x1x3x2xf32>) -> ()
  return
}

func.func @main() {
  %q = arith.constant dense<[[[[0.5, -1.0], [1.0, 2.0], [-1.5, 0.25]]]]> : tensor<1x1x3x2xf32>
  %k = arith.constant dense<[[[[1.0, 0.0], [0.0, 1.0], [-1.0, 1.0], [0.5, 0.5]]]]> : tensor<1x1x4x2xf32>
  %v = arith.constant dense<[[[[1.0, 2.0], [3.0, -1.0], [0.0, 0.5], [-2.0, 1.0]]]]> : tensor<1x1x4x2xf32>
  // Row 0: key 1 masked; row 1: every key masked; row 2: keys 0-1 masked.
  %m = arith.constant dense<[[[[true, false, true, true],
                               [false, false, false, false],
                               [false, false, true, true]]]]> : tensor<1x1x3x4xi1>
  // float64 reference: row 0 [-0.0965431, 1.47962], row 1 [0, 0],
  // row 2 [-0.314356, 0.578589].
  // CHECK-LABEL: sizes = [1, 1, 3, 2]
  // (printed to 5 significant digits; the 6th may differ in f32)
  // CHECK-NEXT: {{\[\[\[\[}}-0.09654{{[0-9]*}},{{ +}}1.4796{{[0-9]*}}],
  // CHECK-NEXT:    [0,{{ +}}0],
  // CHECK-NEXT:    [-0.31435{{[0-9]*}},{{ +}}0.57858{{[0-9]*}}]]]]
  %o = call @a1_f32(%q, %k, %v, %m) : (tensor<1x1x3x2xf32>, tensor<1x1x4x2xf32>, tensor<1x1x4x2xf32>, tensor<1x1x3x4xi1>) -> tensor<1x1x3x2xf32>
  call @print(%o) : (tensor<1x1x3x2xf32>) -> ()

  // f16: the same inputs (exact in f16); row 1 exactly 0, rows 0 and 2 are the
  // reference rounded once to f16 (-0.0965576, 1.47949, -0.314453, 0.578613).
  // CHECK-LABEL: sizes = [1, 1, 3, 2]
  // CHECK-NEXT: {{\[\[\[\[}}-0.0965576,{{ +}}1.47949],
  // CHECK-NEXT:    [0,{{ +}}0],
  // CHECK-NEXT:    [-0.314453,{{ +}}0.578613]]]]
  %qh = arith.constant dense<[[[[0.5, -1.0], [1.0, 2.0], [-1.5, 0.25]]]]> : tensor<1x1x3x2xf16>
  %kh = arith.constant dense<[[[[1.0, 0.0], [0.0, 1.0], [-1.0, 1.0], [0.5, 0.5]]]]> : tensor<1x1x4x2xf16>
  %vh = arith.constant dense<[[[[1.0, 2.0], [3.0, -1.0], [0.0, 0.5], [-2.0, 1.0]]]]> : tensor<1x1x4x2xf16>
  %oh = call @a1_f16(%qh, %kh, %vh, %m) : (tensor<1x1x3x2xf16>, tensor<1x1x4x2xf16>, tensor<1x1x4x2xf16>, tensor<1x1x3x4xi1>) -> tensor<1x1x3x2xf16>
  call @print_f16(%oh) : (tensor<1x1x3x2xf16>) -> ()

  // Causal (query i sees keys j <= i + 1) + mask hiding keys 0-1 of rows 0 and
  // 2 and key 1 of row 2: row 0 sees nothing -> 0; row 1 sees keys 0-2; row 2
  // sees keys 2-3 (reference [-0.211766, 0.689535] is not zero).
  // CHECK-LABEL: sizes = [1, 1, 3, 2]
  // CHECK-NEXT: {{\[\[\[\[}}0,{{ +}}0],
  // CHECK-NEXT:    [1.7587{{[0-9]*}},{{ +}}0.11714{{[0-9]*}}],
  // CHECK-NEXT:    [-0.21176{{[0-9]*}},{{ +}}0.68953{{[0-9]*}}]]]]
  %mc = arith.constant dense<[[[[false, false, true, true],
                                [true, true, true, true],
                                [true, false, true, true]]]]> : tensor<1x1x3x4xi1>
  %oc = call @a1_causal(%q, %k, %v, %mc) : (tensor<1x1x3x2xf32>, tensor<1x1x4x2xf32>, tensor<1x1x4x2xf32>, tensor<1x1x3x4xi1>) -> tensor<1x1x3x2xf32>
  call @print(%oc) : (tensor<1x1x3x2xf32>) -> ()
  return
}
