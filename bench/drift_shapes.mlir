// The inputs of bench/drift_bench.py (issue #38): the same functions as the
// drift cases of harness/flash_cases.mlir, compiled alone so that several
// compilers' libraries can be compared in one process.
func.func @drift_f16(%q: tensor<?x?x?x128xf16>, %k: tensor<?x?x?x128xf16>, %v: tensor<?x?x?x128xf16>) -> tensor<?x?x?x128xf16> {
  %0 = tx.attention %q, %k, %v scale = 0.0721 : tensor<?x?x?x128xf16>, tensor<?x?x?x128xf16>, tensor<?x?x?x128xf16> -> tensor<?x?x?x128xf16>
  return %0 : tensor<?x?x?x128xf16>
}
func.func @drift_bf16(%q: tensor<?x?x?x128xbf16>, %k: tensor<?x?x?x128xbf16>, %v: tensor<?x?x?x128xbf16>) -> tensor<?x?x?x128xbf16> {
  %0 = tx.attention %q, %k, %v scale = 0.0721 : tensor<?x?x?x128xbf16>, tensor<?x?x?x128xbf16>, tensor<?x?x?x128xbf16> -> tensor<?x?x?x128xbf16>
  return %0 : tensor<?x?x?x128xbf16>
}
func.func @drift_f32(%q: tensor<?x?x?x128xf32>, %k: tensor<?x?x?x128xf32>, %v: tensor<?x?x?x128xf32>) -> tensor<?x?x?x128xf32> {
  %0 = tx.attention %q, %k, %v scale = 0.0721 : tensor<?x?x?x128xf32>, tensor<?x?x?x128xf32>, tensor<?x?x?x128xf32> -> tensor<?x?x?x128xf32>
  return %0 : tensor<?x?x?x128xf32>
}
func.func @drift_causal_f16(%q: tensor<?x?x?x64xf16>, %k: tensor<?x?x?x64xf16>, %v: tensor<?x?x?x64xf16>) -> tensor<?x?x?x64xf16> {
  %0 = tx.attention %q, %k, %v scale = 0.0721 causal : tensor<?x?x?x64xf16>, tensor<?x?x?x64xf16>, tensor<?x?x?x64xf16> -> tensor<?x?x?x64xf16>
  return %0 : tensor<?x?x?x64xf16>
}
func.func @drift_dec_f16(%q: tensor<?x32x1x128xf16>, %k: tensor<?x8x?x128xf16>, %v: tensor<?x8x?x128xf16>) -> tensor<?x32x1x128xf16> {
  %0 = tx.attention %q, %k, %v scale = 0.0721 : tensor<?x32x1x128xf16>, tensor<?x8x?x128xf16>, tensor<?x8x?x128xf16> -> tensor<?x32x1x128xf16>
  return %0 : tensor<?x32x1x128xf16>
}
func.func @drift_dec1_f16(%q: tensor<?x32x1x128xf16>, %k: tensor<?x8x?x128xf16>, %v: tensor<?x8x?x128xf16>) -> tensor<?x32x1x128xf16> {
  %0 = tx.attention %q, %k, %v scale = 0.0721 {tx.gpu_strategy = #tx.decode_strategy<warps = 4, kv_splits = 1, num_sms = 132, stages = 3, tile_keys = 16>} : tensor<?x32x1x128xf16>, tensor<?x8x?x128xf16>, tensor<?x8x?x128xf16> -> tensor<?x32x1x128xf16>
  return %0 : tensor<?x32x1x128xf16>
}
