// tx.attention with score_mod / mask_mod regions (issue #42) on the passes
// before the lowering: tx-gather-kv-pages moves the regions (and their
// captured operands) to the unpaged op; tx-tile-attention tiles it (each
// tile's tx.online_attention carries the regions with the tile's offsets;
// decomposed, the body reads the captured slopes at the whole op's head
// h0 + h); tx-attention-strategy gives it a kernel; tx-derive-gradients
// gives it a backward that carries the regions, or none, with the reason,
// when the score function has an op tx cannot differentiate.
// RUN: tx-opt %s --tx-gather-kv-pages | FileCheck %s --check-prefix=GATHER
// RUN: tx-opt %s --tx-gather-kv-pages --tx-tile-attention="q-tile=4 kv-tile=4" | FileCheck %s --check-prefix=TILE
// RUN: tx-opt %s --tx-gather-kv-pages --tx-attention-strategy 2>&1 | FileCheck %s --check-prefix=STRATEGY
// RUN: tx-opt %s --tx-derive-gradients | FileCheck %s --check-prefix=GRAD

// GATHER-LABEL: func.func @paged_alibi
// GATHER: linalg.generic
// GATHER: tx.attention %{{.*}}, %{{.*}}, %{{.*}} kv_lengths(%{{.*}} : tensor<2xi32>) causal score_mod(%[[SL:.*]] : tensor<4xf32>) {
// GATHER-NEXT: ^bb0(%{{.*}}: f32, %{{.*}}: index, %{{.*}}: index, %{{.*}}: index, %{{.*}}: index, %{{.*}}: tensor<4xf32>):
// GATHER: } : tensor<2x4x3x8xf32>, tensor<2x2x16x8xf32>, tensor<2x2x16x8xf32> -> tensor<2x4x3x8xf32>
// TILE-LABEL: func.func @paged_alibi
// TILE-SAME: %[[SLOPES:[^:]*]]: tensor<4xf32>)
// TILE: scf.forall (%{{.*}}, %[[H0:[^,]*]], %{{.*}}) =
// TILE: scf.for
// TILE: linalg.generic
// TILE: %[[LH:.*]] = linalg.index 1 : index
// TILE-NEXT: %[[H:.*]] = arith.addi %[[H0]], %[[LH]] : index
// TILE: tensor.extract %[[SLOPES]][%[[H]]] : tensor<4xf32>
// TILE-NOT: tx.attention %
// STRATEGY-LABEL: func.func @paged_alibi
// STRATEGY: tx.attention {{.*}} score_mod
// STRATEGY: } {tx.gpu_strategy = #tx.simt_strategy<
// GRAD: func.func @paged_alibi({{.*}} attributes {tx.no_gradient = "result 0 is a paged tx.attention (page_table): no backward reads a paged KV cache"}
func.func @paged_alibi(%q: tensor<2x4x3x8xf32>, %k: tensor<9x4x2x8xf32>, %v: tensor<9x4x2x8xf32>,
                       %pt: tensor<2x4xi32>, %kl: tensor<2xi32>, %slopes: tensor<4xf32>)
    -> tensor<2x4x3x8xf32> {
  %o = tx.attention %q, %k, %v kv_lengths(%kl : tensor<2xi32>) page_table(%pt : tensor<2x4xi32>) causal
      score_mod(%slopes : tensor<4xf32>) {
      ^bb0(%s: f32, %b: index, %h: index, %i: index, %j: index, %c: tensor<4xf32>):
        %m = tensor.extract %c[%h] : tensor<4xf32>
        %r = arith.addf %s, %m : f32
        tx.yield %r : f32
      }
      : tensor<2x4x3x8xf32>, tensor<9x4x2x8xf32>, tensor<9x4x2x8xf32> -> tensor<2x4x3x8xf32>
  return %o : tensor<2x4x3x8xf32>
}

// The backward carries the regions and their captured operands (the
// derivative of a score function is generated when the backward is lowered).
// GRAD-LABEL: func.func @document__tx_bwd
// GRAD-SAME: %[[DOC:[^:]*]]: tensor<8xi32>
// GRAD: tx.attention_grad %{{.*}}, %{{.*}}, %{{.*}}, %{{.*}}, %{{.*}}, %{{.*}} mask_mod(%[[DOC]] : tensor<8xi32>) {
// GRAD: arith.cmpi eq, %{{.*}}, %{{.*}} : i32
// GRAD: tx.yield %{{.*}} : i1
func.func @document(%q: tensor<1x2x8x8xf32>, %k: tensor<1x2x8x8xf32>, %v: tensor<1x2x8x8xf32>,
                    %doc: tensor<8xi32>) -> tensor<1x2x8x8xf32> {
  %o = tx.attention %q, %k, %v mask_mod(%doc : tensor<8xi32>) {
      ^bb0(%b: index, %h: index, %i: index, %j: index, %d: tensor<8xi32>):
        %di = tensor.extract %d[%i] : tensor<8xi32>
        %dj = tensor.extract %d[%j] : tensor<8xi32>
        %same = arith.cmpi eq, %di, %dj : i32
        tx.yield %same : i1
      }
      : tensor<1x2x8x8xf32>, tensor<1x2x8x8xf32>, tensor<1x2x8x8xf32> -> tensor<1x2x8x8xf32>
  return %o : tensor<1x2x8x8xf32>
}

// GRAD: func.func @remainder({{.*}} attributes {tx.no_gradient = "result 0's score_mod has arith.remf (loc({{.*}}mods-paths.mlir{{.*}})), which depends on the score and which tx cannot differentiate"}
func.func @remainder(%q: tensor<1x2x8x8xf32>, %k: tensor<1x2x8x8xf32>, %v: tensor<1x2x8x8xf32>)
    -> tensor<1x2x8x8xf32> {
  %o = tx.attention %q, %k, %v score_mod {
      ^bb0(%s: f32, %b: index, %h: index, %i: index, %j: index):
        %c = arith.constant 3.0 : f32
        %r = arith.remf %s, %c : f32
        tx.yield %r : f32
      }
      : tensor<1x2x8x8xf32>, tensor<1x2x8x8xf32>, tensor<1x2x8x8xf32> -> tensor<1x2x8x8xf32>
  return %o : tensor<1x2x8x8xf32>
}
