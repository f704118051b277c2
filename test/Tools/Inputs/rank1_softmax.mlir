// A softmax over a vector: its backward (tx.softmax_grad of rank 1) has no
// GPU lowering yet, so tx-compile.sh builds the library without the derived
// entry points and warns (test/Tools/tx-compile.test).
func.func @softmax_vec(%x: tensor<128xf32>) -> tensor<128xf32> {
  %p = tx.softmax %x dim = 0 : tensor<128xf32>
  return %p : tensor<128xf32>
}
