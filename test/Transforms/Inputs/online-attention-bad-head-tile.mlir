// Used by ../tile-attention-errors.mlir: upstream's transform.structured
// tiling of tx.online_attention with a head tile of 2 under GQA (H = 8,
// Hkv = 2), which the op's TilingInterface refuses with a diagnostic.
func.func @gqa(%q: tensor<1x8x16x32xf32>, %k: tensor<1x2x40x32xf32>, %v: tensor<1x2x40x8xf32>,
               %acc: tensor<1x8x16x8xf32>, %m: tensor<1x8x16xf32>, %l: tensor<1x8x16xf32>) -> tensor<1x8x16x8xf32> {
  %0:3 = tx.online_attention %q, %k, %v scale = 0.125 outs(%acc, %m, %l)
      : tensor<1x8x16x32xf32>, tensor<1x2x40x32xf32>, tensor<1x2x40x8xf32>
      -> tensor<1x8x16x8xf32>, tensor<1x8x16xf32>, tensor<1x8x16xf32>
  return %0#0 : tensor<1x8x16x8xf32>
}
module attributes {transform.with_named_sequence} {
  transform.named_sequence @__transform_main(%root: !transform.any_op {transform.readonly}) {
    %op = transform.structured.match ops{["tx.online_attention"]} in %root : (!transform.any_op) -> !transform.any_op
    %t, %loops:2 = transform.structured.tile_using_for %op tile_sizes [0, 2, 0, 16] : (!transform.any_op) -> (!transform.any_op, !transform.any_op, !transform.any_op)
    transform.yield
  }
}
