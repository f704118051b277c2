// CASES.md S2 (tiling the softmax dimension) through the tiled attention
// path: the keys of tx.attention are the softmax dimension, and
// tx-tile-attention tiles them with kv-tile = 2 as S2 asks. The rows of S2 are
// made the scores of an attention with D = 1, scale = 1, Q = [0, 1, 1],
// K = [1000, 1001, 0, 0] and an additive mask, and V = the 4 x 4 identity,
// so that the output rows are the softmax weights:
//   row 0: scores [0, 0, 0, 0]            -> [.25 .25 .25 .25]
//   row 1: scores [-inf x 4]              -> [0 0 0 0] (attention gives zeros
//          for a row with no visible key, where tx.softmax gives NaN)
//   row 2: scores [1000, 1001, -inf, -inf] -> [0.268941, 0.731059, 0, 0]
// (Upstream linalg.softmax tiled this way gives 0.5 x 4 and NaN tails.) The
// second function reverses the keys, so that row 2's first key tile is fully
// masked: the online rescale must start from max = -inf without NaN.
//
// RUN: tx-opt %s --tx-cpu-pipeline="attention=tiled attention-kv-tile=2" | %run_cpu | FileCheck %s
// RUN: tx-opt %s --tx-cpu-pipeline="attention=tiled attention-kv-tile=2 attention-q-tile=1" | %run_cpu | FileCheck %s
// RUN: tx-opt %s --tx-cpu-pipeline="attention=tiled attention-kv-tile=1 attention-q-tile=2" | %run_cpu | FileCheck %s
// The reference path gives the same rows:
// RUN: tx-opt %s --tx-cpu-pipeline | %run_cpu | FileCheck %s

func.func private @printMemrefF32(tensor<*xf32>)

func.func @s2(%q: tensor<1x1x3x1xf32>, %k: tensor<1x1x4x1xf32>, %v: tensor<1x1x4x4xf32>,
              %m: tensor<1x1x3x4xf32>) -> tensor<1x1x3x4xf32> {
  %o = tx.attention %q, %k, %v mask(%m : tensor<1x1x3x4xf32>) scale = 1.0
      : tensor<1x1x3x1xf32>, tensor<1x1x4x1xf32>, tensor<1x1x4x4xf32> -> tensor<1x1x3x4xf32>
  return %o : tensor<1x1x3x4xf32>
}

func.func @main() {
  %q = arith.constant dense<[[[[0.0], [1.0], [1.0]]]]> : tensor<1x1x3x1xf32>
  %v = arith.constant dense<[[[[1.0, 0.0, 0.0, 0.0], [0.0, 1.0, 0.0, 0.0],
                               [0.0, 0.0, 1.0, 0.0], [0.0, 0.0, 0.0, 1.0]]]]> : tensor<1x1x4x4xf32>
  %k = arith.constant dense<[[[[1000.0], [1001.0], [0.0], [0.0]]]]> : tensor<1x1x4x1xf32>
  %m = arith.constant dense<[[[[0.0, 0.0, 0.0, 0.0],
                               [0xFF800000, 0xFF800000, 0xFF800000, 0xFF800000],
                               [0.0, 0.0, 0xFF800000, 0xFF800000]]]]> : tensor<1x1x3x4xf32>
  // Row 0 has scores 0 * k = 0 everywhere.
  // CHECK-LABEL: sizes = [1, 1, 3, 4]
  // CHECK-NEXT: {{\[\[\[\[}}0.25,{{ +}}0.25,{{ +}}0.25,{{ +}}0.25],
  // CHECK-NEXT: [0,{{ +}}0,{{ +}}0,{{ +}}0],
  // CHECK-NEXT: [0.268941,{{ +}}0.731059,{{ +}}0,{{ +}}0]]]]
  %o = call @s2(%q, %k, %v, %m) : (tensor<1x1x3x1xf32>, tensor<1x1x4x1xf32>, tensor<1x1x4x4xf32>, tensor<1x1x3x4xf32>) -> tensor<1x1x3x4xf32>
  %u = tensor.cast %o : tensor<1x1x3x4xf32> to tensor<*xf32>
  call @printMemrefF32(%u) : (tensor<*xf32>) -> ()

  // Reversed keys: row 2 is [-inf, -inf, 1000, 1001].
  %kr = arith.constant dense<[[[[0.0], [0.0], [1000.0], [1001.0]]]]> : tensor<1x1x4x1xf32>
  %mr = arith.constant dense<[[[[0.0, 0.0, 0.0, 0.0],
                                [0xFF800000, 0xFF800000, 0xFF800000, 0xFF800000],
                                [0xFF800000, 0xFF800000, 0.0, 0.0]]]]> : tensor<1x1x3x4xf32>
  // CHECK-LABEL: sizes = [1, 1, 3, 4]
  // CHECK-NEXT: {{\[\[\[\[}}0.25,{{ +}}0.25,{{ +}}0.25,{{ +}}0.25],
  // CHECK-NEXT: [0,{{ +}}0,{{ +}}0,{{ +}}0],
  // CHECK-NEXT: [0,{{ +}}0,{{ +}}0.268941,{{ +}}0.731059]]]]
  %or = call @s2(%q, %kr, %v, %mr) : (tensor<1x1x3x1xf32>, tensor<1x1x4x1xf32>, tensor<1x1x4x4xf32>, tensor<1x1x3x4xf32>) -> tensor<1x1x3x4xf32>
  %ur = tensor.cast %or : tensor<1x1x3x4xf32> to tensor<*xf32>
  call @printMemrefF32(%ur) : (tensor<*xf32>) -> ()
  return
}
