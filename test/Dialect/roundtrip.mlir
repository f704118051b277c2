// Custom form -> custom form, generic form -> custom form, and through MLIR
// bytecode: all three must print the same custom form.
// RUN: tx-opt %s | FileCheck %s
// RUN: tx-opt %s --mlir-print-op-generic | tx-opt | FileCheck %s
// RUN: tx-opt %s --emit-bytecode | tx-opt | FileCheck %s
// RUN: tx-opt %s | tx-opt | FileCheck %s

// CHECK-LABEL: func.func @softmax_f32
// CHECK: tx.softmax %{{.*}} dim = 1 : tensor<4x8xf32>
func.func @softmax_f32(%x: tensor<4x8xf32>) -> tensor<4x8xf32> {
  %0 = tx.softmax %x dim = 1 : tensor<4x8xf32>
  return %0 : tensor<4x8xf32>
}

// CHECK-LABEL: func.func @softmax_f16_negative_dim
// CHECK: tx.softmax %{{.*}} dim = -1 : tensor<2x3x1024xf16>
func.func @softmax_f16_negative_dim(%x: tensor<2x3x1024xf16>) -> tensor<2x3x1024xf16> {
  %0 = tx.softmax %x dim = -1 : tensor<2x3x1024xf16>
  return %0 : tensor<2x3x1024xf16>
}

// CHECK-LABEL: func.func @softmax_bf16_dynamic
// CHECK: tx.softmax %{{.*}} dim = 0 : tensor<?x?xbf16>
func.func @softmax_bf16_dynamic(%x: tensor<?x?xbf16>) -> tensor<?x?xbf16> {
  %0 = tx.softmax %x dim = 0 : tensor<?x?xbf16>
  return %0 : tensor<?x?xbf16>
}

// CHECK-LABEL: func.func @softmax_rank1
// CHECK: tx.softmax %{{.*}} dim = -1 : tensor<77xf32>
func.func @softmax_rank1(%x: tensor<77xf32>) -> tensor<77xf32> {
  %0 = tx.softmax %x dim = -1 : tensor<77xf32>
  return %0 : tensor<77xf32>
}

// CHECK-LABEL: func.func @attention_plain
// CHECK: tx.attention %{{.*}}, %{{.*}}, %{{.*}} : tensor<2x4x16x64xf16>, tensor<2x4x32x64xf16>, tensor<2x4x32x64xf16> -> tensor<2x4x16x64xf16>
func.func @attention_plain(%q: tensor<2x4x16x64xf16>, %k: tensor<2x4x32x64xf16>, %v: tensor<2x4x32x64xf16>) -> tensor<2x4x16x64xf16> {
  %0 = tx.attention %q, %k, %v : tensor<2x4x16x64xf16>, tensor<2x4x32x64xf16>, tensor<2x4x32x64xf16> -> tensor<2x4x16x64xf16>
  return %0 : tensor<2x4x16x64xf16>
}

// CHECK-LABEL: func.func @attention_causal_gqa
// CHECK: tx.attention %{{.*}}, %{{.*}}, %{{.*}} causal : tensor<1x32x128x128xbf16>, tensor<1x8x128x128xbf16>, tensor<1x8x128x128xbf16> -> tensor<1x32x128x128xbf16>
func.func @attention_causal_gqa(%q: tensor<1x32x128x128xbf16>, %k: tensor<1x8x128x128xbf16>, %v: tensor<1x8x128x128xbf16>) -> tensor<1x32x128x128xbf16> {
  %0 = tx.attention %q, %k, %v causal : tensor<1x32x128x128xbf16>, tensor<1x8x128x128xbf16>, tensor<1x8x128x128xbf16> -> tensor<1x32x128x128xbf16>
  return %0 : tensor<1x32x128x128xbf16>
}

// CHECK-LABEL: func.func @attention_scale
// CHECK: tx.attention %{{.*}}, %{{.*}}, %{{.*}} scale = 1.250000e-01 : tensor<1x1x3x2xf32>
func.func @attention_scale(%q: tensor<1x1x3x2xf32>, %k: tensor<1x1x4x2xf32>, %v: tensor<1x1x4x8xf32>) -> tensor<1x1x3x8xf32> {
  %0 = tx.attention %q, %k, %v scale = 0.125 : tensor<1x1x3x2xf32>, tensor<1x1x4x2xf32>, tensor<1x1x4x8xf32> -> tensor<1x1x3x8xf32>
  return %0 : tensor<1x1x3x8xf32>
}

// CHECK-LABEL: func.func @attention_keep_mask_scale_causal
// CHECK: tx.attention %{{.*}}, %{{.*}}, %{{.*}} mask(%{{.*}} : tensor<1x1x3x4xi1>) scale = 5.000000e-01 causal : tensor<1x1x3x2xf32>
func.func @attention_keep_mask_scale_causal(%q: tensor<1x1x3x2xf32>, %k: tensor<1x1x4x2xf32>, %v: tensor<1x1x4x2xf32>, %m: tensor<1x1x3x4xi1>) -> tensor<1x1x3x2xf32> {
  %0 = tx.attention %q, %k, %v mask(%m : tensor<1x1x3x4xi1>) scale = 0.5 causal : tensor<1x1x3x2xf32>, tensor<1x1x4x2xf32>, tensor<1x1x4x2xf32> -> tensor<1x1x3x2xf32>
  return %0 : tensor<1x1x3x2xf32>
}

// CHECK-LABEL: func.func @attention_additive_mask
// CHECK: tx.attention %{{.*}}, %{{.*}}, %{{.*}} mask(%{{.*}} : tensor<2x4x16x16xf16>) : tensor<2x4x16x64xf16>
func.func @attention_additive_mask(%q: tensor<2x4x16x64xf16>, %k: tensor<2x2x16x64xf16>, %v: tensor<2x2x16x64xf16>, %m: tensor<2x4x16x16xf16>) -> tensor<2x4x16x64xf16> {
  %0 = tx.attention %q, %k, %v mask(%m : tensor<2x4x16x16xf16>) : tensor<2x4x16x64xf16>, tensor<2x2x16x64xf16>, tensor<2x2x16x64xf16> -> tensor<2x4x16x64xf16>
  return %0 : tensor<2x4x16x64xf16>
}

// CHECK-LABEL: func.func @attention_mask_causal
// CHECK: tx.attention %{{.*}}, %{{.*}}, %{{.*}} mask(%{{.*}} : tensor<1x4x16x16xf32>) causal : tensor<2x4x16x64xf32>
func.func @attention_mask_causal(%q: tensor<2x4x16x64xf32>, %k: tensor<2x4x16x64xf32>, %v: tensor<2x4x16x64xf32>, %m: tensor<1x4x16x16xf32>) -> tensor<2x4x16x64xf32> {
  %0 = tx.attention %q, %k, %v mask(%m : tensor<1x4x16x16xf32>) causal : tensor<2x4x16x64xf32>, tensor<2x4x16x64xf32>, tensor<2x4x16x64xf32> -> tensor<2x4x16x64xf32>
  return %0 : tensor<2x4x16x64xf32>
}

// CHECK-LABEL: func.func @attention_dynamic
// CHECK: tx.attention %{{.*}}, %{{.*}}, %{{.*}} mask(%{{.*}} : tensor<?x?x?x?xi1>) scale = 2.500000e-01 causal : tensor<?x?x?x?xf32>, tensor<?x?x?x?xf32>, tensor<?x?x?x?xf32> -> tensor<?x?x?x?xf32>
func.func @attention_dynamic(%q: tensor<?x?x?x?xf32>, %k: tensor<?x?x?x?xf32>, %v: tensor<?x?x?x?xf32>, %m: tensor<?x?x?x?xi1>) -> tensor<?x?x?x?xf32> {
  %0 = tx.attention %q, %k, %v mask(%m : tensor<?x?x?x?xi1>) scale = 0.25 causal : tensor<?x?x?x?xf32>, tensor<?x?x?x?xf32>, tensor<?x?x?x?xf32> -> tensor<?x?x?x?xf32>
  return %0 : tensor<?x?x?x?xf32>
}

// CHECK-LABEL: func.func @attention_softcap
// CHECK: tx.attention %{{.*}}, %{{.*}}, %{{.*}} mask(%{{.*}} : tensor<1x1x3x4xbf16>) scale = 5.000000e-01 softcap = 5.000000e+01 causal : tensor<1x2x3x2xbf16>
func.func @attention_softcap(%q: tensor<1x2x3x2xbf16>, %k: tensor<1x1x4x2xbf16>, %v: tensor<1x1x4x2xbf16>, %m: tensor<1x1x3x4xbf16>) -> tensor<1x2x3x2xbf16> {
  %0 = tx.attention %q, %k, %v mask(%m : tensor<1x1x3x4xbf16>) scale = 0.5 softcap = 50.0 causal : tensor<1x2x3x2xbf16>, tensor<1x1x4x2xbf16>, tensor<1x1x4x2xbf16> -> tensor<1x2x3x2xbf16>
  return %0 : tensor<1x2x3x2xbf16>
}

// CHECK-LABEL: func.func @online_attention_softcap
// CHECK: tx.online_attention %{{.*}}, %{{.*}}, %{{.*}} scale = 1.250000e-01 softcap = 3.000000e+01 causal causal_offset(%{{.*}}) outs(
func.func @online_attention_softcap(%q: tensor<1x2x4x8xf16>, %k: tensor<1x1x6x8xf16>, %v: tensor<1x1x6x8xf16>, %acc: tensor<1x2x4x8xf32>, %mx: tensor<1x2x4xf32>, %sm: tensor<1x2x4xf32>, %c: index) -> tensor<1x2x4x8xf32> {
  %0:3 = tx.online_attention %q, %k, %v scale = 0.125 softcap = 30.0 causal causal_offset(%c) outs(%acc, %mx, %sm) : tensor<1x2x4x8xf16>, tensor<1x1x6x8xf16>, tensor<1x1x6x8xf16> -> tensor<1x2x4x8xf32>, tensor<1x2x4xf32>, tensor<1x2x4xf32>
  return %0#0 : tensor<1x2x4x8xf32>
}

// CHECK-LABEL: func.func @attention_zero_sizes
// CHECK: tx.attention %{{.*}}, %{{.*}}, %{{.*}} : tensor<0x2x4x8xf32>, tensor<0x2x0x8xf32>, tensor<0x2x0x0xf32> -> tensor<0x2x4x0xf32>
func.func @attention_zero_sizes(%q: tensor<0x2x4x8xf32>, %k: tensor<0x2x0x8xf32>, %v: tensor<0x2x0x0xf32>) -> tensor<0x2x4x0xf32> {
  %0 = tx.attention %q, %k, %v : tensor<0x2x4x8xf32>, tensor<0x2x0x8xf32>, tensor<0x2x0x0xf32> -> tensor<0x2x4x0xf32>
  return %0 : tensor<0x2x4x0xf32>
}

// The optional log-sum-exp result (f32 [B, H, Sq]).
// CHECK-LABEL: func.func @attention_lse
// CHECK: tx.attention %{{.*}}, %{{.*}}, %{{.*}} causal : tensor<?x32x?x128xf16>, tensor<?x8x?x128xf16>, tensor<?x8x?x128xf16> -> tensor<?x32x?x128xf16>, tensor<?x32x?xf32>
func.func @attention_lse(%q: tensor<?x32x?x128xf16>, %k: tensor<?x8x?x128xf16>, %v: tensor<?x8x?x128xf16>) -> (tensor<?x32x?x128xf16>, tensor<?x32x?xf32>) {
  %0, %1 = tx.attention %q, %k, %v causal : tensor<?x32x?x128xf16>, tensor<?x8x?x128xf16>, tensor<?x8x?x128xf16> -> tensor<?x32x?x128xf16>, tensor<?x32x?xf32>
  return %0, %1 : tensor<?x32x?x128xf16>, tensor<?x32x?xf32>
}

// CHECK-LABEL: func.func @attention_window
// CHECK: tx.attention %{{.*}}, %{{.*}}, %{{.*}} softcap = 5.000000e+01 window = [4096, 0] causal : tensor<1x2x3x2xf16>
// CHECK: tx.attention %{{.*}}, %{{.*}}, %{{.*}} window = [-1, 2] : tensor<1x2x3x2xf16>
func.func @attention_window(%q: tensor<1x2x3x2xf16>, %k: tensor<1x1x4x2xf16>, %v: tensor<1x1x4x2xf16>) -> tensor<1x2x3x2xf16> {
  %0 = tx.attention %q, %k, %v softcap = 50.0 window = [4096, 0] causal : tensor<1x2x3x2xf16>, tensor<1x1x4x2xf16>, tensor<1x1x4x2xf16> -> tensor<1x2x3x2xf16>
  %1 = tx.attention %q, %k, %v window = [-1, 2] : tensor<1x2x3x2xf16>, tensor<1x1x4x2xf16>, tensor<1x1x4x2xf16> -> tensor<1x2x3x2xf16>
  return %1 : tensor<1x2x3x2xf16>
}

// CHECK-LABEL: func.func @online_attention_window
// CHECK: tx.online_attention %{{.*}}, %{{.*}}, %{{.*}} scale = 1.250000e-01 window = [3, 1] causal_offset(%{{.*}}) outs(
func.func @online_attention_window(%q: tensor<1x2x4x8xf16>, %k: tensor<1x1x6x8xf16>, %v: tensor<1x1x6x8xf16>, %acc: tensor<1x2x4x8xf32>, %mx: tensor<1x2x4xf32>, %sm: tensor<1x2x4xf32>, %c: index) -> tensor<1x2x4x8xf32> {
  %0:3 = tx.online_attention %q, %k, %v scale = 0.125 window = [3, 1] causal_offset(%c) outs(%acc, %mx, %sm) : tensor<1x2x4x8xf16>, tensor<1x1x6x8xf16>, tensor<1x1x6x8xf16> -> tensor<1x2x4x8xf32>, tensor<1x2x4xf32>, tensor<1x2x4xf32>
  return %0#0 : tensor<1x2x4x8xf32>
}

// Per-sequence lengths (i32 [B]), with a mask and the other clauses.
// CHECK-LABEL: func.func @attention_lengths
// CHECK: tx.attention %{{.*}}, %{{.*}}, %{{.*}} kv_lengths(%{{.*}} : tensor<2xi32>) causal : tensor<2x4x1x64xf16>
// CHECK: tx.attention %{{.*}}, %{{.*}}, %{{.*}} mask(%{{.*}} : tensor<1x1x1x128xi1>) kv_lengths(%{{.*}} : tensor<2xi32>) q_lengths(%{{.*}} : tensor<?xi32>) scale = 5.000000e-01 window = [8, 0] : tensor<2x4x1x64xf16>
// CHECK: tx.attention %{{.*}}, %{{.*}}, %{{.*}} q_lengths(%{{.*}} : tensor<?xi32>) : tensor<2x4x1x64xf16>
func.func @attention_lengths(%q: tensor<2x4x1x64xf16>, %k: tensor<2x2x128x64xf16>, %v: tensor<2x2x128x64xf16>, %kl: tensor<2xi32>, %ql: tensor<?xi32>, %m: tensor<1x1x1x128xi1>) -> tensor<2x4x1x64xf16> {
  %0 = tx.attention %q, %k, %v kv_lengths(%kl : tensor<2xi32>) causal : tensor<2x4x1x64xf16>, tensor<2x2x128x64xf16>, tensor<2x2x128x64xf16> -> tensor<2x4x1x64xf16>
  %1 = tx.attention %q, %k, %v mask(%m : tensor<1x1x1x128xi1>) kv_lengths(%kl : tensor<2xi32>) q_lengths(%ql : tensor<?xi32>) scale = 0.5 window = [8, 0] : tensor<2x4x1x64xf16>, tensor<2x2x128x64xf16>, tensor<2x2x128x64xf16> -> tensor<2x4x1x64xf16>
  %2 = tx.attention %q, %k, %v q_lengths(%ql : tensor<?xi32>) : tensor<2x4x1x64xf16>, tensor<2x2x128x64xf16>, tensor<2x2x128x64xf16> -> tensor<2x4x1x64xf16>
  return %2 : tensor<2x4x1x64xf16>
}

// The optional clauses may come in any order (issue #44); they print in the
// canonical one.
// CHECK-LABEL: func.func @attention_clauses_any_order
// CHECK: tx.attention %{{.*}}, %{{.*}}, %{{.*}} mask(%{{.*}} : tensor<1x1x16x16xi1>) kv_lengths(%{{.*}} : tensor<2xi32>) scale = 1.250000e-01 softcap = 3.000000e+01 window = [4, 0] causal {tx.note = "kept"} :
func.func @attention_clauses_any_order(%q: tensor<2x4x16x64xf32>, %k: tensor<2x4x16x64xf32>, %v: tensor<2x4x16x64xf32>, %m: tensor<1x1x16x16xi1>, %kl: tensor<2xi32>) -> tensor<2x4x16x64xf32> {
  %o = tx.attention %q, %k, %v causal window = [4, 0] softcap = 30.0 scale = 0.125 kv_lengths(%kl : tensor<2xi32>) mask(%m : tensor<1x1x16x16xi1>) {tx.note = "kept"} : tensor<2x4x16x64xf32>, tensor<2x4x16x64xf32>, tensor<2x4x16x64xf32> -> tensor<2x4x16x64xf32>
  return %o : tensor<2x4x16x64xf32>
}
