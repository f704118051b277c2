// CASES.md S2: tx.softmax on 3x4, dim 1, rows [0 0 0 0], [-inf x 4],
// [1000, 1001, -inf, -inf], with a tile of 2 on the softmax dimension.
// tx-tile-softmax never tiles that dimension as independent tiles (each row
// needs its own max and sum); cols-per-tile = 2 splits the rows into chunks
// of 2 with the online softmax, which gives the right answer:
//   [.25 .25 .25 .25], a NaN row, [0.268941, 0.731059, 0, 0].
// (Upstream linalg.softmax tiled this way gives 0.5 x 4 and NaN tails.)
// Row 2 reversed ([-inf, -inf, 1001, 1000]) starts with a chunk that is all
// -inf: the running sum must stay 0 there, not NaN.
//
// RUN: tx-opt %s --tx-cpu-pipeline="softmax=tiled softmax-cols-per-tile=2" | %run_cpu | FileCheck %s
// RUN: tx-opt %s --tx-cpu-pipeline="softmax=tiled softmax-cols-per-tile=2 softmax-rows-per-tile=1" | %run_cpu | FileCheck %s
// RUN: tx-opt %s --tx-cpu-pipeline="softmax=tiled softmax-cols-per-tile=3 softmax-rows-per-tile=2" | %run_cpu | FileCheck %s
// RUN: tx-opt %s --tx-cpu-pipeline="softmax=tiled softmax-cols-per-tile=1" | %run_cpu | FileCheck %s
// The untiled reference path gives the same rows:
// RUN: tx-opt %s --tx-cpu-pipeline | %run_cpu | FileCheck %s
// (Tiling the softmax dimension through the TilingInterface is refused:
// test/Transforms/tile-softmax.mlir.)

func.func private @printMemrefF32(tensor<*xf32>)

func.func @s2(%x: tensor<3x4xf32>) -> tensor<3x4xf32> {
  %y = tx.softmax %x dim = 1 : tensor<3x4xf32>
  return %y : tensor<3x4xf32>
}

func.func @main() {
  %x = arith.constant dense<[[0.0, 0.0, 0.0, 0.0],
                             [0xFF800000, 0xFF800000, 0xFF800000, 0xFF800000],
                             [1000.0, 1001.0, 0xFF800000, 0xFF800000]]> : tensor<3x4xf32>
  %y = call @s2(%x) : (tensor<3x4xf32>) -> tensor<3x4xf32>
  %u = tensor.cast %y : tensor<3x4xf32> to tensor<*xf32>
  call @printMemrefF32(%u) : (tensor<*xf32>) -> ()
  %r = arith.constant dense<[[0xFF800000, 0xFF800000, 1001.0, 1000.0]]> : tensor<1x4xf32>
  %x2 = tensor.insert_slice %r into %x[2, 0] [1, 4] [1, 1] : tensor<1x4xf32> into tensor<3x4xf32>
  %y2 = call @s2(%x2) : (tensor<3x4xf32>) -> tensor<3x4xf32>
  %u2 = tensor.cast %y2 : tensor<3x4xf32> to tensor<*xf32>
  call @printMemrefF32(%u2) : (tensor<*xf32>) -> ()
  return
}

// CHECK-LABEL: sizes = [3, 4]
// CHECK-NEXT: {{\[\[}}0.25,{{ +}}0.25,{{ +}}0.25,{{ +}}0.25],
// CHECK-NEXT: [{{-?}}nan,{{ +-?}}nan,{{ +-?}}nan,{{ +-?}}nan],
// CHECK-NEXT: [0.268941,{{ +}}0.731059,{{ +}}0,{{ +}}0]]
// CHECK-LABEL: sizes = [3, 4]
// CHECK-NEXT: {{\[\[}}0.25,{{ +}}0.25,{{ +}}0.25,{{ +}}0.25],
// CHECK-NEXT: [{{-?}}nan,{{ +-?}}nan,{{ +-?}}nan,{{ +-?}}nan],
// CHECK-NEXT: [0,{{ +}}0,{{ +}}0.731059,{{ +}}0.268941]]
