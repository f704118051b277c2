// tx-cpu-pipeline compiles the elementwise tensor ops a test's @main uses
// around tx ops (issue #44): here an f16 softmax of known values whose
// result is widened with arith.extf on the tensor (no hand-written
// linalg.generic) and printed. The inputs ln 1..ln 4 round in f16 to 0,
// 0.69335938, 1.09863281, 1.38671875; their softmax in float64 is
// [0.0999782, 0.1999988, 0.2999407, 0.4000824], which f16 rounds to
// 0.0999756, 0.199951, 0.300049, 0.400146 (numpy).
// RUN: tx-opt %s --tx-cpu-pipeline | %run_cpu | FileCheck %s
// CHECK: ( 0.0999756, 0.199951, 0.300049, 0.400146 )
// CHECK-NEXT: ( 0.25, 0.25, 0.25, 0.25 )

func.func @main() {
  %x = arith.constant dense<[[0.0, 0.693147180559945, 1.09861228866811, 1.38629436111989],
                             [7.0, 7.0, 7.0, 7.0]]> : tensor<2x4xf16>
  %p = tx.softmax %x dim = 1 : tensor<2x4xf16>
  %w = arith.extf %p : tensor<2x4xf16> to tensor<2x4xf32>
  %c0 = arith.constant 0 : index
  %c0f = arith.constant 0.0 : f32
  %r0 = tensor.extract_slice %w[0, 0] [1, 4] [1, 1] : tensor<2x4xf32> to tensor<4xf32>
  %r1 = tensor.extract_slice %w[1, 0] [1, 4] [1, 1] : tensor<2x4xf32> to tensor<4xf32>
  %v0 = vector.transfer_read %r0[%c0], %c0f {in_bounds = [true]} : tensor<4xf32>, vector<4xf32>
  %v1 = vector.transfer_read %r1[%c0], %c0f {in_bounds = [true]} : tensor<4xf32>, vector<4xf32>
  vector.print %v0 : vector<4xf32>
  vector.print %v1 : vector<4xf32>
  return
}
