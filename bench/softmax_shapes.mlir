// Softmax benchmark shapes (bench/softmax_bench.py). Compiled twice by
// bench/build.sh: with the default (fast) softmax strategy and with
// softmax=simple (the reference lowering + one thread per element).
func.func @softmax_32768x1024_f32(%x: tensor<32768x1024xf32>) -> tensor<32768x1024xf32> {
  %0 = tx.softmax %x dim = -1 : tensor<32768x1024xf32>
  return %0 : tensor<32768x1024xf32>
}
func.func @softmax_32768x1024_f16(%x: tensor<32768x1024xf16>) -> tensor<32768x1024xf16> {
  %0 = tx.softmax %x dim = -1 : tensor<32768x1024xf16>
  return %0 : tensor<32768x1024xf16>
}
func.func @softmax_8192x4096_f32(%x: tensor<8192x4096xf32>) -> tensor<8192x4096xf32> {
  %0 = tx.softmax %x dim = -1 : tensor<8192x4096xf32>
  return %0 : tensor<8192x4096xf32>
}
func.func @softmax_8192x4096_f16(%x: tensor<8192x4096xf16>) -> tensor<8192x4096xf16> {
  %0 = tx.softmax %x dim = -1 : tensor<8192x4096xf16>
  return %0 : tensor<8192x4096xf16>
}
func.func @softmax_4096x32768_f32(%x: tensor<4096x32768xf32>) -> tensor<4096x32768xf32> {
  %0 = tx.softmax %x dim = -1 : tensor<4096x32768xf32>
  return %0 : tensor<4096x32768xf32>
}
func.func @softmax_4096x32768_f16(%x: tensor<4096x32768xf16>) -> tensor<4096x32768xf16> {
  %0 = tx.softmax %x dim = -1 : tensor<4096x32768xf16>
  return %0 : tensor<4096x32768xf16>
}
func.func @softmax_65536x128_f32(%x: tensor<65536x128xf32>) -> tensor<65536x128xf32> {
  %0 = tx.softmax %x dim = -1 : tensor<65536x128xf32>
  return %0 : tensor<65536x128xf32>
}
func.func @softmax_65536x128_f16(%x: tensor<65536x128xf16>) -> tensor<65536x128xf16> {
  %0 = tx.softmax %x dim = -1 : tensor<65536x128xf16>
  return %0 : tensor<65536x128xf16>
}
func.func @softmax_1024x50257_f32(%x: tensor<1024x50257xf32>) -> tensor<1024x50257xf32> {
  %0 = tx.softmax %x dim = -1 : tensor<1024x50257xf32>
  return %0 : tensor<1024x50257xf32>
}
func.func @softmax_1024x50257_f16(%x: tensor<1024x50257xf16>) -> tensor<1024x50257xf16> {
  %0 = tx.softmax %x dim = -1 : tensor<1024x50257xf16>
  return %0 : tensor<1024x50257xf16>
}
