// tx-map-attention-grad-to-gpu and tx-tile-attention-grad from-strategy=true:
// hand-written tx.grad_tiles that the kernels do not take are located
// errors (a tuner's or a user's tiles; tx-attention-grad-strategy writes
// none of these).
// RUN: not tx-opt %s --split-input-file --tx-tile-attention-grad="from-strategy=true decompose=false" --tx-map-attention-grad-to-gpu 2>&1 | FileCheck %s

// CHECK: error: tx-map-attention-grad-to-gpu: the backward's kernels take no tiles that are not multiples of 16
func.func @tiles24(%q: tensor<1x2x40x64xf16>, %o: tensor<1x2x40x64xf16>, %lse: tensor<1x2x40xf32>)
    -> tensor<1x2x40x64xf16> {
  %dq, %dk, %dv = tx.attention_grad %q, %q, %q, %o, %o, %lse {tx.grad_tiles = array<i64: 24, 64>}
      : tensor<1x2x40x64xf16>, tensor<1x2x40x64xf16>, tensor<1x2x40x64xf16>, tensor<1x2x40x64xf16>,
        tensor<1x2x40x64xf16>, tensor<1x2x40xf32>
      -> tensor<1x2x40x64xf16>, tensor<1x2x40x64xf16>, tensor<1x2x40x64xf16>
  return %dq : tensor<1x2x40x64xf16>
}

// -----

// CHECK: error: tx-tile-attention-grad: tx.grad_tiles must be array<i64: q_tile, kv_tile> with both >= 1
func.func @tiles0(%q: tensor<1x2x40x64xf16>, %o: tensor<1x2x40x64xf16>, %lse: tensor<1x2x40xf32>)
    -> tensor<1x2x40x64xf16> {
  %dq, %dk, %dv = tx.attention_grad %q, %q, %q, %o, %o, %lse {tx.grad_tiles = array<i64: 0, 64>}
      : tensor<1x2x40x64xf16>, tensor<1x2x40x64xf16>, tensor<1x2x40x64xf16>, tensor<1x2x40x64xf16>,
        tensor<1x2x40x64xf16>, tensor<1x2x40xf32>
      -> tensor<1x2x40x64xf16>, tensor<1x2x40x64xf16>, tensor<1x2x40x64xf16>
  return %dq : tensor<1x2x40x64xf16>
}

// -----

// CHECK: error: tx-map-attention-grad-to-gpu: the backward's kernels take no a mask or per-sequence lengths
func.func @masked(%q: tensor<1x2x40x64xf16>, %o: tensor<1x2x40x64xf16>, %lse: tensor<1x2x40xf32>,
                  %m: tensor<1x1x40x40xi1>) -> tensor<1x2x40x64xf16> {
  %dq, %dk, %dv = tx.attention_grad %q, %q, %q, %o, %o, %lse mask(%m : tensor<1x1x40x40xi1>) {tx.grad_tiles = array<i64: 64, 64>}
      : tensor<1x2x40x64xf16>, tensor<1x2x40x64xf16>, tensor<1x2x40x64xf16>, tensor<1x2x40x64xf16>,
        tensor<1x2x40x64xf16>, tensor<1x2x40xf32>
      -> tensor<1x2x40x64xf16>, tensor<1x2x40x64xf16>, tensor<1x2x40x64xf16>
  return %dq : tensor<1x2x40x64xf16>
}

// -----

// CHECK: error: tx-map-attention-grad-to-gpu: the backward's kernels take no q_tile above 2 x kv_tile
func.func @tall(%q: tensor<1x2x40x64xf16>, %o: tensor<1x2x40x64xf16>, %lse: tensor<1x2x40xf32>)
    -> tensor<1x2x40x64xf16> {
  %dq, %dk, %dv = tx.attention_grad %q, %q, %q, %o, %o, %lse {tx.grad_tiles = array<i64: 64, 16>}
      : tensor<1x2x40x64xf16>, tensor<1x2x40x64xf16>, tensor<1x2x40x64xf16>, tensor<1x2x40x64xf16>,
        tensor<1x2x40x64xf16>, tensor<1x2x40xf32>
      -> tensor<1x2x40x64xf16>, tensor<1x2x40x64xf16>, tensor<1x2x40x64xf16>
  return %dq : tensor<1x2x40x64xf16>
}

// -----

// The one-pass kernel's attribute with other tiles.
// CHECK: error: tx-map-attention-grad-to-gpu: tx.grad_dq_reduce needs tx.grad_tiles = array<i64: 64, 128> (the one-pass kernel's tiles)
func.func @reduce_tiles(%q: tensor<1x2x40x64xf16>, %o: tensor<1x2x40x64xf16>, %lse: tensor<1x2x40xf32>)
    -> tensor<1x2x40x64xf16> {
  %dq, %dk, %dv = tx.attention_grad %q, %q, %q, %o, %o, %lse {tx.grad_tiles = array<i64: 64, 64>, tx.grad_dq_reduce}
      : tensor<1x2x40x64xf16>, tensor<1x2x40x64xf16>, tensor<1x2x40x64xf16>, tensor<1x2x40x64xf16>,
        tensor<1x2x40x64xf16>, tensor<1x2x40xf32>
      -> tensor<1x2x40x64xf16>, tensor<1x2x40x64xf16>, tensor<1x2x40x64xf16>
  return %dq : tensor<1x2x40x64xf16>
}
