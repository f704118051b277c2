// CASES.md H1 (small CPU form): a key that the mask hides from a query
// contributes nothing to it, whatever its K and V hold (a KV cache's padding
// slots may hold NaN or Inf). Sq = 3, Sk = 8, D = Dv = 2; row i keeps keys
// j < L_i with L = (1, 3, 5); visible keys have K = 0 and V[j] = [j, j];
// keys 5..7 (hidden from every row) hold NaN/+-Inf in K and V. Exact answer:
// rows [0, 0], [1, 1], [2, 2]. The same with an additive mask of 0 / -inf
// (an additive -inf hides the key like a false i1 entry: select, not add), in
// f32 and f16. A key hidden from some rows only (key 4, NaN in V, visible to
// row 2 alone) makes row 2 NaN and leaves rows 0 and 1 exact; causal: a NaN
// in the V of key 7 reaches only the row that sees it.
// CASES.md H3: Q = K = V = 60000 (f16, Sk = 4, D = 64) gives exactly 60000.
//
// RUN: tx-opt %s --tx-cpu-pipeline | %run_cpu | FileCheck %s
// RUN: tx-opt %s --tx-cpu-pipeline="attention=tiled attention-kv-tile=2 attention-q-tile=1" | %run_cpu | FileCheck %s
// RUN: tx-opt %s --tx-cpu-pipeline="attention=tiled attention-kv-tile=3 attention-q-tile=2" | %run_cpu | FileCheck %s
// RUN: tx-opt %s --tx-cpu-pipeline="attention=tiled attention-kv-tile=8 attention-q-tile=3" | %run_cpu | FileCheck %s

func.func private @printMemrefF32(tensor<*xf32>)

func.func @h1_keep(%q: tensor<1x1x3x2xf32>, %k: tensor<1x1x8x2xf32>, %v: tensor<1x1x8x2xf32>,
                   %m: tensor<1x1x3x8xi1>) -> tensor<1x1x3x2xf32> {
  %o = tx.attention %q, %k, %v mask(%m : tensor<1x1x3x8xi1>)
      : tensor<1x1x3x2xf32>, tensor<1x1x8x2xf32>, tensor<1x1x8x2xf32> -> tensor<1x1x3x2xf32>
  return %o : tensor<1x1x3x2xf32>
}
func.func @h1_add(%q: tensor<1x1x3x2xf32>, %k: tensor<1x1x8x2xf32>, %v: tensor<1x1x8x2xf32>,
                  %m: tensor<1x1x3x8xf32>) -> tensor<1x1x3x2xf32> {
  %o = tx.attention %q, %k, %v mask(%m : tensor<1x1x3x8xf32>)
      : tensor<1x1x3x2xf32>, tensor<1x1x8x2xf32>, tensor<1x1x8x2xf32> -> tensor<1x1x3x2xf32>
  return %o : tensor<1x1x3x2xf32>
}
func.func @h1_keep_f16(%q: tensor<1x1x3x2xf16>, %k: tensor<1x1x8x2xf16>, %v: tensor<1x1x8x2xf16>,
                       %m: tensor<1x1x3x8xi1>) -> tensor<1x1x3x2xf16> {
  %o = tx.attention %q, %k, %v mask(%m : tensor<1x1x3x8xi1>)
      : tensor<1x1x3x2xf16>, tensor<1x1x8x2xf16>, tensor<1x1x8x2xf16> -> tensor<1x1x3x2xf16>
  return %o : tensor<1x1x3x2xf16>
}
func.func @h1_add_f16(%q: tensor<1x1x3x2xf16>, %k: tensor<1x1x8x2xf16>, %v: tensor<1x1x8x2xf16>,
                      %m: tensor<1x1x3x8xf16>) -> tensor<1x1x3x2xf16> {
  %o = tx.attention %q, %k, %v mask(%m : tensor<1x1x3x8xf16>)
      : tensor<1x1x3x2xf16>, tensor<1x1x8x2xf16>, tensor<1x1x8x2xf16> -> tensor<1x1x3x2xf16>
  return %o : tensor<1x1x3x2xf16>
}
func.func @h1_causal(%q: tensor<1x1x3x2xf32>, %k: tensor<1x1x8x2xf32>, %v: tensor<1x1x8x2xf32>)
    -> tensor<1x1x3x2xf32> {
  %o = tx.attention %q, %k, %v causal
      : tensor<1x1x3x2xf32>, tensor<1x1x8x2xf32>, tensor<1x1x8x2xf32> -> tensor<1x1x3x2xf32>
  return %o : tensor<1x1x3x2xf32>
}
func.func @h3_f16(%q: tensor<1x1x1x64xf16>, %k: tensor<1x1x4x64xf16>, %v: tensor<1x1x4x64xf16>)
    -> tensor<1x1x1x64xf16> {
  %o = tx.attention %q, %k, %v
      : tensor<1x1x1x64xf16>, tensor<1x1x4x64xf16>, tensor<1x1x4x64xf16> -> tensor<1x1x1x64xf16>
  return %o : tensor<1x1x1x64xf16>
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
  // Keys 0..4: K = 0, V = [j, j]; keys 5..7: NaN, +Inf, -Inf in K and V.
  %k = arith.constant dense<[[[[0.0, 0.0], [0.0, 0.0], [0.0, 0.0], [0.0, 0.0], [0.0, 0.0],
                               [0x7FC00000, 1.0], [0x7F800000, 0xFF800000], [3.0, 0x7FC00000]]]]> : tensor<1x1x8x2xf32>
  %v = arith.constant dense<[[[[0.0, 0.0], [1.0, 1.0], [2.0, 2.0], [3.0, 3.0], [4.0, 4.0],
                               [0x7FC00000, 0x7F800000], [0xFF800000, 0x7FC00000], [0x7F800000, 1.0]]]]> : tensor<1x1x8x2xf32>
  %m = arith.constant dense<[[[[true, false, false, false, false, false, false, false],
                               [true, true, true, false, false, false, false, false],
                               [true, true, true, true, true, false, false, false]]]]> : tensor<1x1x3x8xi1>
  %madd = arith.constant dense<[[[[0.0, 0xFF800000, 0xFF800000, 0xFF800000, 0xFF800000, 0xFF800000, 0xFF800000, 0xFF800000],
                                  [0.0, 0.0, 0.0, 0xFF800000, 0xFF800000, 0xFF800000, 0xFF800000, 0xFF800000],
                                  [0.0, 0.0, 0.0, 0.0, 0.0, 0xFF800000, 0xFF800000, 0xFF800000]]]]> : tensor<1x1x3x8xf32>

  // CHECK-LABEL: sizes = [1, 1, 3, 2]
  // CHECK-NEXT: {{\[\[\[\[}}0,{{ +}}0],
  // CHECK-NEXT:    [1,{{ +}}1],
  // CHECK-NEXT:    [2,{{ +}}2]]]]
  %o1 = call @h1_keep(%q, %k, %v, %m) : (tensor<1x1x3x2xf32>, tensor<1x1x8x2xf32>, tensor<1x1x8x2xf32>, tensor<1x1x3x8xi1>) -> tensor<1x1x3x2xf32>
  call @print(%o1) : (tensor<1x1x3x2xf32>) -> ()
  // CHECK-LABEL: sizes = [1, 1, 3, 2]
  // CHECK-NEXT: {{\[\[\[\[}}0,{{ +}}0],
  // CHECK-NEXT:    [1,{{ +}}1],
  // CHECK-NEXT:    [2,{{ +}}2]]]]
  %o2 = call @h1_add(%q, %k, %v, %madd) : (tensor<1x1x3x2xf32>, tensor<1x1x8x2xf32>, tensor<1x1x8x2xf32>, tensor<1x1x3x8xf32>) -> tensor<1x1x3x2xf32>
  call @print(%o2) : (tensor<1x1x3x2xf32>) -> ()

  // f16 (0x7E00 NaN, 0x7C00 +Inf, 0xFC00 -Inf).
  %qh = arith.constant dense<[[[[0.5, -1.0], [1.0, 2.0], [-1.5, 0.25]]]]> : tensor<1x1x3x2xf16>
  %kh = arith.constant dense<[[[[0.0, 0.0], [0.0, 0.0], [0.0, 0.0], [0.0, 0.0], [0.0, 0.0],
                                [0x7E00, 1.0], [0x7C00, 0xFC00], [3.0, 0x7E00]]]]> : tensor<1x1x8x2xf16>
  %vh = arith.constant dense<[[[[0.0, 0.0], [1.0, 1.0], [2.0, 2.0], [3.0, 3.0], [4.0, 4.0],
                                [0x7E00, 0x7C00], [0xFC00, 0x7E00], [0x7C00, 1.0]]]]> : tensor<1x1x8x2xf16>
  %maddh = arith.constant dense<[[[[0.0, 0xFC00, 0xFC00, 0xFC00, 0xFC00, 0xFC00, 0xFC00, 0xFC00],
                                   [0.0, 0.0, 0.0, 0xFC00, 0xFC00, 0xFC00, 0xFC00, 0xFC00],
                                   [0.0, 0.0, 0.0, 0.0, 0.0, 0xFC00, 0xFC00, 0xFC00]]]]> : tensor<1x1x3x8xf16>
  // CHECK-LABEL: sizes = [1, 1, 3, 2]
  // CHECK-NEXT: {{\[\[\[\[}}0,{{ +}}0],
  // CHECK-NEXT:    [1,{{ +}}1],
  // CHECK-NEXT:    [2,{{ +}}2]]]]
  %o3 = call @h1_keep_f16(%qh, %kh, %vh, %m) : (tensor<1x1x3x2xf16>, tensor<1x1x8x2xf16>, tensor<1x1x8x2xf16>, tensor<1x1x3x8xi1>) -> tensor<1x1x3x2xf16>
  call @print_f16(%o3) : (tensor<1x1x3x2xf16>) -> ()
  // CHECK-LABEL: sizes = [1, 1, 3, 2]
  // CHECK-NEXT: {{\[\[\[\[}}0,{{ +}}0],
  // CHECK-NEXT:    [1,{{ +}}1],
  // CHECK-NEXT:    [2,{{ +}}2]]]]
  %o4 = call @h1_add_f16(%qh, %kh, %vh, %maddh) : (tensor<1x1x3x2xf16>, tensor<1x1x8x2xf16>, tensor<1x1x8x2xf16>, tensor<1x1x3x8xf16>) -> tensor<1x1x3x2xf16>
  call @print_f16(%o4) : (tensor<1x1x3x2xf16>) -> ()

  // Key 4's V is NaN: hidden from rows 0 and 1 (they stay exact), visible to
  // row 2 (NaN there, as in the float64 reference).
  %vn = arith.constant dense<[[[[0.0, 0.0], [1.0, 1.0], [2.0, 2.0], [3.0, 3.0], [0x7FC00000, 0x7FC00000],
                                [0x7FC00000, 0x7F800000], [0xFF800000, 0x7FC00000], [0x7F800000, 1.0]]]]> : tensor<1x1x8x2xf32>
  // CHECK-LABEL: sizes = [1, 1, 3, 2]
  // CHECK-NEXT: {{\[\[\[\[}}0,{{ +}}0],
  // CHECK-NEXT:    [1,{{ +}}1],
  // CHECK-NEXT:    [nan,{{ +}}nan]]]]
  %o5 = call @h1_keep(%q, %k, %vn, %m) : (tensor<1x1x3x2xf32>, tensor<1x1x8x2xf32>, tensor<1x1x8x2xf32>, tensor<1x1x3x8xi1>) -> tensor<1x1x3x2xf32>
  call @print(%o5) : (tensor<1x1x3x2xf32>) -> ()

  // Causal (row i sees keys j <= i + 5), K = 0, V = [j, j] except key 7's V
  // NaN (K NaN too): rows 0 and 1 see keys 0..5 and 0..6 -> 2.5 and 3;
  // row 2 sees key 7 -> NaN.
  %kc = arith.constant dense<[[[[0.0, 0.0], [0.0, 0.0], [0.0, 0.0], [0.0, 0.0], [0.0, 0.0],
                                [0.0, 0.0], [0.0, 0.0], [0x7FC00000, 0x7FC00000]]]]> : tensor<1x1x8x2xf32>
  %vc = arith.constant dense<[[[[0.0, 0.0], [1.0, 1.0], [2.0, 2.0], [3.0, 3.0], [4.0, 4.0],
                                [5.0, 5.0], [6.0, 6.0], [0x7FC00000, 0x7F800000]]]]> : tensor<1x1x8x2xf32>
  // CHECK-LABEL: sizes = [1, 1, 3, 2]
  // CHECK-NEXT: {{\[\[\[\[}}2.5,{{ +}}2.5],
  // CHECK-NEXT:    [3,{{ +}}3],
  // CHECK-NEXT:    [nan,{{ +}}nan]]]]
  %o6 = call @h1_causal(%q, %kc, %vc) : (tensor<1x1x3x2xf32>, tensor<1x1x8x2xf32>, tensor<1x1x8x2xf32>) -> tensor<1x1x3x2xf32>
  call @print(%o6) : (tensor<1x1x3x2xf32>) -> ()

  // H3: huge but equal logits give exactly the value.
  %q3 = arith.constant dense<6.0e4> : tensor<1x1x1x64xf16>
  %k3 = arith.constant dense<6.0e4> : tensor<1x1x4x64xf16>
  %o7 = call @h3_f16(%q3, %k3, %k3) : (tensor<1x1x1x64xf16>, tensor<1x1x4x64xf16>, tensor<1x1x4x64xf16>) -> tensor<1x1x1x64xf16>
  %c0 = arith.constant 0 : index
  %c63 = arith.constant 63 : index
  %h0 = tensor.extract %o7[%c0, %c0, %c0, %c0] : tensor<1x1x1x64xf16>
  %h1 = tensor.extract %o7[%c0, %c0, %c0, %c63] : tensor<1x1x1x64xf16>
  %e0 = arith.extf %h0 : f16 to f32
  %e1 = arith.extf %h1 : f16 to f32
  // CHECK: h3 60000 60000
  vector.print str "h3 "
  vector.print %e0 : f32 punctuation <no_punctuation>
  vector.print str " "
  vector.print %e1 : f32
  return
}
