// tx-gpu-pipeline refuses a public function that returns one value as two
// results (each result of an entry point is written into its own caller
// buffer, docs/ABI.md); upstream's buffer-results-to-out-params crashed on
// it. A private function may.
// RUN: not tx-opt %s --tx-gpu-pipeline="format=isa" -o /dev/null 2>&1 | FileCheck %s
// CHECK: [[@LINE+5]]:3: error: tx-gpu-pipeline: @dup returns one value as results 0 and 2; each result of an entry point is written into its own buffer of the caller (docs/ABI.md): return it once, or return a copy
// CHECK-NOT: error
func.func @dup(%x: tensor<4x8xf32>) -> (tensor<4x8xf32>, tensor<4x8xf32>, tensor<4x8xf32>) {
  %p = tx.softmax %x dim = 1 : tensor<4x8xf32>
  %q = tx.softmax %p dim = 1 : tensor<4x8xf32>
  return %p, %q, %p : tensor<4x8xf32>, tensor<4x8xf32>, tensor<4x8xf32>
}
