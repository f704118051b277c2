// RUN: not tx-opt %s --tx-tile-softmax="rows-per-tile=0" 2>&1 | FileCheck %s --check-prefix=ROWS
// RUN: not tx-opt %s --tx-tile-softmax="cols-per-tile=-1" 2>&1 | FileCheck %s --check-prefix=COLS
// RUN: not tx-opt %s --tx-cpu-pipeline="softmax=blocked" 2>&1 | FileCheck %s --check-prefix=STRATEGY

// ROWS: tile-softmax-errors.mlir:[[@LINE+3]]:1: error: tx-tile-softmax: rows-per-tile must be >= 1, got 0
// COLS: tile-softmax-errors.mlir:[[@LINE+2]]:1: error: tx-tile-softmax: cols-per-tile must be >= 0 (0 = whole rows), got -1
// STRATEGY: error: tx-cpu-pipeline: unknown softmax strategy 'blocked'; expected simple or tiled
func.func @f(%x: tensor<4x8xf32>) -> tensor<4x8xf32> {
  %y = tx.softmax %x dim = -1 : tensor<4x8xf32>
  return %y : tensor<4x8xf32>
}
