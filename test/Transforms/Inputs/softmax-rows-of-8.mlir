// A transform library for map-softmax-to-gpu-user-tiles.mlir: every
// tx.softmax tiled over rows, 8 rows per tile.
module attributes {transform.with_named_sequence} {
  transform.named_sequence @__transform_main(%root: !transform.any_op {transform.readonly}) {
    %sm = transform.structured.match ops{["tx.softmax"]} in %root : (!transform.any_op) -> !transform.any_op
    %tiled, %loop = transform.structured.tile_using_forall %sm tile_sizes [8, 0]
        : (!transform.any_op) -> (!transform.any_op, !transform.any_op)
    transform.yield
  }
}
