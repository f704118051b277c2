// A tx.gpu_strategy already on an op is kept by tx-attention-strategy and
// tx-softmax-strategy, and checked there: what no kernel can take is an
// error at the op (values out of range: test/Dialect/gpu-strategy-invalid.mlir;
// values no kernel of the op takes: gpu-strategy-errors.mlir and
// map-softmax-to-gpu-errors.mlir).
// RUN: not tx-opt %s --split-input-file --tx-attention-strategy --tx-softmax-strategy --mlir-print-op-on-diagnostic=false -o /dev/null 2>&1 | FileCheck %s
// The tiling step left out: a strategy but no row tiles.
// RUN: not tx-opt %s --split-input-file --tx-softmax-strategy --tx-map-softmax-to-gpu -o /dev/null 2>&1 | FileCheck %s --check-prefix=UNTILED

// CHECK: strategy-kept-errors.mlir:[[@LINE+2]]:8: error: 'tx.gpu_strategy' must be a strategy attribute (#tx.simt_strategy, #tx.mma_strategy, #tx.wgmma_strategy, #tx.decode_strategy or #tx.softmax_strategy), got "wgmma"
func.func @not_strategy(%q: tensor<1x2x64x64xf16>, %k: tensor<1x2x128x64xf16>, %v: tensor<1x2x128x64xf16>) -> tensor<1x2x64x64xf16> {
  %o = tx.attention %q, %k, %v {tx.gpu_strategy = "wgmma"} : tensor<1x2x64x64xf16>, tensor<1x2x128x64xf16>, tensor<1x2x128x64xf16> -> tensor<1x2x64x64xf16>
  return %o : tensor<1x2x64x64xf16>
}

// -----

// A dynamic head dim: no GPU kernel takes the op, so no strategy may be on
// it (without one it takes the reference lowering).
// CHECK: strategy-kept-errors.mlir:[[@LINE+2]]:8: error: tx-attention-strategy: tx.gpu_strategy needs static head dims D and Dv in [1, 256], got D = ?, Dv = ?; without it the op takes the reference lowering (a strategy already on the op is kept, not replaced)
func.func @dynamic_d(%q: tensor<1x2x64x?xf16>, %k: tensor<1x2x128x?xf16>, %v: tensor<1x2x128x?xf16>) -> tensor<1x2x64x?xf16> {
  %o = tx.attention %q, %k, %v {tx.gpu_strategy = #tx.simt_strategy<warps = 4, q_tile = 16, kv_tile = 32>} : tensor<1x2x64x?xf16>, tensor<1x2x128x?xf16>, tensor<1x2x128x?xf16> -> tensor<1x2x64x?xf16>
  return %o : tensor<1x2x64x?xf16>
}

// -----

// CHECK: strategy-kept-errors.mlir:[[@LINE+2]]:8: error: tx-attention-strategy: tx.gpu_strategy needs static head dims D and Dv in [1, 256], got D = 64, Dv = 512; without it the op takes the reference lowering (a strategy already on the op is kept, not replaced)
func.func @wide_dv(%q: tensor<1x2x64x64xf16>, %k: tensor<1x2x128x64xf16>, %v: tensor<1x2x128x512xf16>) -> tensor<1x2x64x512xf16> {
  %o = tx.attention %q, %k, %v {tx.gpu_strategy = #tx.simt_strategy<warps = 4, q_tile = 16, kv_tile = 32>} : tensor<1x2x64x64xf16>, tensor<1x2x128x64xf16>, tensor<1x2x128x512xf16> -> tensor<1x2x64x512xf16>
  return %o : tensor<1x2x64x512xf16>
}

// -----

// CHECK: strategy-kept-errors.mlir:[[@LINE+2]]:8: error: 'tx.gpu_strategy' must be a strategy attribute (#tx.simt_strategy, #tx.mma_strategy, #tx.wgmma_strategy, #tx.decode_strategy or #tx.softmax_strategy), got [1, 2]
func.func @softmax_not_strategy(%x: tensor<64x1024xf16>) -> tensor<64x1024xf16> {
  %y = tx.softmax %x dim = 1 {tx.gpu_strategy = [1, 2]} : tensor<64x1024xf16>
  return %y : tensor<64x1024xf16>
}

// -----

// An attention strategy on a softmax.
// CHECK: strategy-kept-errors.mlir:[[@LINE+2]]:8: error: tx-softmax-strategy: tx.gpu_strategy must be a softmax strategy, got #tx.simt_strategy<warps = 4, q_tile = 16, kv_tile = 32> (a strategy already on the op is kept, not replaced)
func.func @softmax_wrong_family(%x: tensor<64x1024xf16>) -> tensor<64x1024xf16> {
  %y = tx.softmax %x dim = 1 {tx.gpu_strategy = #tx.simt_strategy<warps = 4, q_tile = 16, kv_tile = 32>} : tensor<64x1024xf16>
  return %y : tensor<64x1024xf16>
}

// -----

// UNTILED: strategy-kept-errors.mlir:[[@LINE+2]]:8: error: tx-map-softmax-to-gpu: this tx.softmax has a tx.gpu_strategy but is not tiled; run tx-tile-softmax from-strategy=true first (tx-softmax-to-gpu runs the whole path)
func.func @untiled(%x: tensor<64x1024xf16>) -> tensor<64x1024xf16> {
  %y = tx.softmax %x dim = 1 : tensor<64x1024xf16>
  return %y : tensor<64x1024xf16>
}
