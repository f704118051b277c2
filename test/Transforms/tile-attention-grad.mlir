// tx-tile-attention-grad: the structure of the tiled backward (the values
// are checked by test/Execution/grad_attention_tiled.mlir).
// RUN: tx-opt %s --split-input-file --tx-tile-attention-grad="q-tile=4 kv-tile=4 decompose=false" --canonicalize --cse | FileCheck %s
// RUN: tx-opt %s --split-input-file --tx-tile-attention-grad | FileCheck %s --check-prefix=DECOMP
// RUN: not tx-opt %s --split-input-file --tx-tile-attention-grad="kv-tile=0" 2>&1 | FileCheck %s --check-prefix=OPT

// Causal, GQA 4/2, Sq = 10, Sk = 12 (bottom-right: causal_offset 2).
// Δ first; dK/dV: a forall over (Hkv, key tiles) whose iteration reads the
// K/V head's 2 query heads and loops over query tiles from the first that
// sees the key tile; dQ: a forall over (H, query tiles) whose key loop
// stops after the tile's last visible key; one rounding per gradient.
// CHECK-LABEL: func.func @causal
// CHECK: %[[DELTA:.*]] = linalg.generic {{.*}} ins(%{{.*}}, %{{.*}} : tensor<1x4x10x8xf16>, tensor<1x4x10x8xf16>) outs(%{{.*}} : tensor<1x4x10xf32>)
// CHECK: %[[KV:.*]]:2 = scf.forall (%[[KH:.*]], %[[NT:.*]]) in (2, 3) shared_outs({{.*}}) -> (tensor<1x2x12x8xf32>, tensor<1x2x12x8xf32>)
// CHECK: tensor.extract_slice %arg0[0, %{{.*}}, 0, 0] [1, 2, 10, 8]
// CHECK: scf.for %{{.*}} = %{{.*}} to %c10 step %c4 iter_args
// CHECK: tx.attention_dkdv {{.*}} scale = 0.353553385 causal causal_offset(%{{.*}}) outs
// CHECK: scf.forall.in_parallel
// CHECK: %[[Q:.*]] = scf.forall (%{{.*}}, %{{.*}}) in (4, 3) shared_outs({{.*}}) -> (tensor<1x4x10x8xf32>)
// CHECK: tensor.extract_slice %arg1[0, %{{.*}}, 0, 0] [1, 1, 12, 8]
// CHECK: scf.for %{{.*}} = %c0 to %{{.*}} step %c4 iter_args
// CHECK: tx.attention_dq {{.*}} causal causal_offset(%{{.*}}) outs
// CHECK: arith.truncf
// CHECK: return
// DECOMP-LABEL: func.func @causal
// DECOMP-NOT: tx.attention_d
// DECOMP: return
// OPT: tx-tile-attention-grad: kv-tile must be >= 1, got 0
func.func @causal(%q: tensor<1x4x10x8xf16>, %k: tensor<1x2x12x8xf16>, %v: tensor<1x2x12x8xf16>,
                  %o: tensor<1x4x10x8xf16>, %do: tensor<1x4x10x8xf16>, %lse: tensor<1x4x10xf32>)
    -> (tensor<1x4x10x8xf16>, tensor<1x2x12x8xf16>, tensor<1x2x12x8xf16>) {
  %dq, %dk, %dv = tx.attention_grad %q, %k, %v, %o, %do, %lse causal
      : tensor<1x4x10x8xf16>, tensor<1x2x12x8xf16>, tensor<1x2x12x8xf16>, tensor<1x4x10x8xf16>,
        tensor<1x4x10x8xf16>, tensor<1x4x10xf32>
      -> tensor<1x4x10x8xf16>, tensor<1x2x12x8xf16>, tensor<1x2x12x8xf16>
  return %dq, %dk, %dv : tensor<1x4x10x8xf16>, tensor<1x2x12x8xf16>, tensor<1x2x12x8xf16>
}

// -----

// Per-sequence lengths: each iteration reads its batch's lengths; the
// limits and the diagonal come from them.
// CHECK-LABEL: func.func @lengths
// CHECK: scf.forall (%[[B:.*]], %{{.*}}, %{{.*}}) in (2, 2, 2)
// CHECK: tensor.extract %arg6[%[[B]]]
// CHECK: tensor.extract %arg7[%[[B]]]
// CHECK: tx.attention_dkdv {{.*}} row_limit(%{{.*}}) key_limit(%{{.*}}) outs
// CHECK: tx.attention_dq {{.*}} row_limit(%{{.*}}) key_limit(%{{.*}}) outs
// A mask gradient: the dQ forall carries dS [B, H, Sq, Sk] too, each block
// op writes its block of it; then one reduction to the mask's shape.
// CHECK-LABEL: func.func @grad_mask
// CHECK: scf.forall (%{{.*}}, %{{.*}}) in (2, 2) shared_outs({{.*}}) -> (tensor<1x2x8x4xf32>, tensor<1x2x8x8xf32>)
// CHECK: tx.attention_dq {{.*}} outs(%{{.*}}, %{{.*}}) : {{.*}} -> tensor<1x1x?x4xf32>, tensor<1x1x?x4xf32>
// CHECK: linalg.generic {{.*}} iterator_types = ["reduction", "reduction", "parallel", "parallel"]
// CHECK-NOT: tx.attention_grad
func.func @lengths(%q: tensor<2x2x6x8xf32>, %k: tensor<2x2x7x8xf32>, %v: tensor<2x2x7x8xf32>,
                   %o: tensor<2x2x6x8xf32>, %do: tensor<2x2x6x8xf32>, %lse: tensor<2x2x6xf32>,
                   %kl: tensor<2xi32>, %ql: tensor<2xi32>)
    -> (tensor<2x2x6x8xf32>, tensor<2x2x7x8xf32>, tensor<2x2x7x8xf32>) {
  %dq, %dk, %dv = tx.attention_grad %q, %k, %v, %o, %do, %lse
      kv_lengths(%kl : tensor<2xi32>) q_lengths(%ql : tensor<2xi32>)
      : tensor<2x2x6x8xf32>, tensor<2x2x7x8xf32>, tensor<2x2x7x8xf32>, tensor<2x2x6x8xf32>,
        tensor<2x2x6x8xf32>, tensor<2x2x6xf32>
      -> tensor<2x2x6x8xf32>, tensor<2x2x7x8xf32>, tensor<2x2x7x8xf32>
  return %dq, %dk, %dv : tensor<2x2x6x8xf32>, tensor<2x2x7x8xf32>, tensor<2x2x7x8xf32>
}
func.func @grad_mask(%q: tensor<1x2x8x4xf32>, %m: tensor<1x1x8x8xf32>, %lse: tensor<1x2x8xf32>)
    -> (tensor<1x2x8x4xf32>, tensor<1x1x8x8xf32>) {
  %dq, %dk, %dv, %dm = tx.attention_grad %q, %q, %q, %q, %q, %lse mask(%m : tensor<1x1x8x8xf32>)
      : tensor<1x2x8x4xf32>, tensor<1x2x8x4xf32>, tensor<1x2x8x4xf32>, tensor<1x2x8x4xf32>,
        tensor<1x2x8x4xf32>, tensor<1x2x8xf32>
      -> tensor<1x2x8x4xf32>, tensor<1x2x8x4xf32>, tensor<1x2x8x4xf32>, tensor<1x1x8x8xf32>
  return %dq, %dm : tensor<1x2x8x4xf32>, tensor<1x1x8x8xf32>
}
