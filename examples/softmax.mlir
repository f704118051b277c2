// Bundled tx examples with real model shapes. Each function is one entry point
// of the compiled library (scripts/tx-compile.sh); docs/ABI.md gives its C ABI.
// Row softmax over 32768 x 1024.
func.func @softmax_f16(%x: tensor<32768x1024xf16>) -> tensor<32768x1024xf16> attributes {llvm.emit_c_interface} {
  %p = tx.softmax %x dim = -1 : tensor<32768x1024xf16>
  return %p : tensor<32768x1024xf16>
}
func.func @softmax_f32(%x: tensor<32768x1024xf32>) -> tensor<32768x1024xf32> attributes {llvm.emit_c_interface} {
  %p = tx.softmax %x dim = -1 : tensor<32768x1024xf32>
  return %p : tensor<32768x1024xf32>
}
