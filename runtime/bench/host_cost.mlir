// Entry points for the host-cost benchmark (runtime/bench/run_h200.sh):
// one tx.softmax each, on a tiny tensor with a static and with a dynamic
// shape (the dynamic one computes into a device temporary that is copied into
// the out-parameter), and the 65536x128 f32 case of issue #15 (a ~9 us
// kernel on an H200).
func.func @softmax_static(%x: tensor<4x128xf32>) -> tensor<4x128xf32> {
  %0 = tx.softmax %x dim = -1 : tensor<4x128xf32>
  return %0 : tensor<4x128xf32>
}
func.func @softmax_dynamic(%x: tensor<?x?xf32>) -> tensor<?x?xf32> {
  %0 = tx.softmax %x dim = -1 : tensor<?x?xf32>
  return %0 : tensor<?x?xf32>
}
func.func @softmax_static_big(%x: tensor<65536x128xf32>) -> tensor<65536x128xf32> {
  %0 = tx.softmax %x dim = -1 : tensor<65536x128xf32>
  return %0 : tensor<65536x128xf32>
}
