// CASES.md A2: causal alignment when Sq != Sk. tx aligns the diagonal
// bottom-right: query i sees key j iff j <= i + Sk - Sq. D = Dv = 1, Q = K = 0
// (all visible keys weigh the same), V[j] = j + 1.
//   (a) Sq=2, Sk=5 -> [2.5, 3.0]          (top-left would give [1.0, 1.5])
//   (b) Sq=5, Sk=2 -> [0, 0, 0, 1.0, 1.5] (top-left: [1.0, 1.5, 1.5, 1.5, 1.5])
// Each also through a fully dynamic function (Sk - Sq at run time).
//
// RUN: tx-opt %s --tx-cpu-pipeline | %run_cpu | FileCheck %s
// The tiled path, with tiles that split the diagonal (and skip key tiles):
// RUN: tx-opt %s --tx-cpu-pipeline="attention=tiled" | %run_cpu | FileCheck %s
// RUN: tx-opt %s --tx-cpu-pipeline="attention=tiled attention-q-tile=1 attention-kv-tile=1" | %run_cpu | FileCheck %s
// RUN: tx-opt %s --tx-cpu-pipeline="attention=tiled attention-q-tile=2 attention-kv-tile=3" | %run_cpu | FileCheck %s

func.func private @printMemrefF32(tensor<*xf32>)

func.func @a(%q: tensor<1x1x2x1xf32>, %k: tensor<1x1x5x1xf32>, %v: tensor<1x1x5x1xf32>) -> tensor<1x1x2x1xf32> {
  %o = tx.attention %q, %k, %v causal
      : tensor<1x1x2x1xf32>, tensor<1x1x5x1xf32>, tensor<1x1x5x1xf32> -> tensor<1x1x2x1xf32>
  return %o : tensor<1x1x2x1xf32>
}

func.func @b(%q: tensor<1x1x5x1xf32>, %k: tensor<1x1x2x1xf32>, %v: tensor<1x1x2x1xf32>) -> tensor<1x1x5x1xf32> {
  %o = tx.attention %q, %k, %v causal
      : tensor<1x1x5x1xf32>, tensor<1x1x2x1xf32>, tensor<1x1x2x1xf32> -> tensor<1x1x5x1xf32>
  return %o : tensor<1x1x5x1xf32>
}

func.func @dyn(%q: tensor<?x?x?x?xf32>, %k: tensor<?x?x?x?xf32>, %v: tensor<?x?x?x?xf32>) -> tensor<?x?x?x?xf32> {
  %o = tx.attention %q, %k, %v causal
      : tensor<?x?x?x?xf32>, tensor<?x?x?x?xf32>, tensor<?x?x?x?xf32> -> tensor<?x?x?x?xf32>
  return %o : tensor<?x?x?x?xf32>
}

func.func @main() {
  %q2 = arith.constant dense<0.0> : tensor<1x1x2x1xf32>
  %q5 = arith.constant dense<0.0> : tensor<1x1x5x1xf32>
  %k2 = arith.constant dense<0.0> : tensor<1x1x2x1xf32>
  %k5 = arith.constant dense<0.0> : tensor<1x1x5x1xf32>
  %v2 = arith.constant dense<[[[[1.0], [2.0]]]]> : tensor<1x1x2x1xf32>
  %v5 = arith.constant dense<[[[[1.0], [2.0], [3.0], [4.0], [5.0]]]]> : tensor<1x1x5x1xf32>

  // CHECK-LABEL: sizes = [1, 1, 2, 1]
  // CHECK-NEXT: {{\[\[\[\[}}2.5],
  // CHECK-NEXT: [3]]]]
  %oa = call @a(%q2, %k5, %v5) : (tensor<1x1x2x1xf32>, tensor<1x1x5x1xf32>, tensor<1x1x5x1xf32>) -> tensor<1x1x2x1xf32>
  %ua = tensor.cast %oa : tensor<1x1x2x1xf32> to tensor<*xf32>
  call @printMemrefF32(%ua) : (tensor<*xf32>) -> ()

  // CHECK-LABEL: sizes = [1, 1, 5, 1]
  // CHECK-NEXT: {{\[\[\[\[}}0],
  // CHECK-NEXT: [0],
  // CHECK-NEXT: [0],
  // CHECK-NEXT: [1],
  // CHECK-NEXT: [1.5]]]]
  %ob = call @b(%q5, %k2, %v2) : (tensor<1x1x5x1xf32>, tensor<1x1x2x1xf32>, tensor<1x1x2x1xf32>) -> tensor<1x1x5x1xf32>
  %ub = tensor.cast %ob : tensor<1x1x5x1xf32> to tensor<*xf32>
  call @printMemrefF32(%ub) : (tensor<*xf32>) -> ()

  // The same two cases through one dynamically shaped function.
  // CHECK-LABEL: sizes = [1, 1, 2, 1]
  // CHECK-NEXT: {{\[\[\[\[}}2.5],
  // CHECK-NEXT: [3]]]]
  %q2d = tensor.cast %q2 : tensor<1x1x2x1xf32> to tensor<?x?x?x?xf32>
  %k5d = tensor.cast %k5 : tensor<1x1x5x1xf32> to tensor<?x?x?x?xf32>
  %v5d = tensor.cast %v5 : tensor<1x1x5x1xf32> to tensor<?x?x?x?xf32>
  %oad = call @dyn(%q2d, %k5d, %v5d) : (tensor<?x?x?x?xf32>, tensor<?x?x?x?xf32>, tensor<?x?x?x?xf32>) -> tensor<?x?x?x?xf32>
  %uad = tensor.cast %oad : tensor<?x?x?x?xf32> to tensor<*xf32>
  call @printMemrefF32(%uad) : (tensor<*xf32>) -> ()

  // CHECK-LABEL: sizes = [1, 1, 5, 1]
  // CHECK-NEXT: {{\[\[\[\[}}0],
  // CHECK-NEXT: [0],
  // CHECK-NEXT: [0],
  // CHECK-NEXT: [1],
  // CHECK-NEXT: [1.5]]]]
  %q5d = tensor.cast %q5 : tensor<1x1x5x1xf32> to tensor<?x?x?x?xf32>
  %k2d = tensor.cast %k2 : tensor<1x1x2x1xf32> to tensor<?x?x?x?xf32>
  %v2d = tensor.cast %v2 : tensor<1x1x2x1xf32> to tensor<?x?x?x?xf32>
  %obd = call @dyn(%q5d, %k2d, %v2d) : (tensor<?x?x?x?xf32>, tensor<?x?x?x?xf32>, tensor<?x?x?x?xf32>) -> tensor<?x?x?x?xf32>
  %ubd = tensor.cast %obd : tensor<?x?x?x?xf32> to tensor<*xf32>
  call @printMemrefF32(%ubd) : (tensor<*xf32>) -> ()
  return
}
