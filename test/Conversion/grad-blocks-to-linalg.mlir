// convert-tx-to-linalg decomposes hand-written backward block ops (as it
// does tx.online_attention); one whose K/V heads it cannot map is a located
// error.
// RUN: tx-opt %s --split-input-file --convert-tx-to-linalg -verify-diagnostics | FileCheck %s

// CHECK-LABEL: func.func @dq
// CHECK-NOT: tx.attention_dq
// CHECK: linalg.generic
// CHECK: math.exp
// CHECK: return
func.func @dq(%q: tensor<1x4x8x4xf16>, %k: tensor<1x2x6x4xf16>, %do: tensor<1x4x8x4xf16>,
              %l: tensor<1x4x8xf32>, %dq: tensor<1x4x8x4xf32>, %c: index) -> tensor<1x4x8x4xf32> {
  %0 = tx.attention_dq %q, %k, %k, %do, %l, %l scale = 0.5 causal causal_offset(%c) outs(%dq)
      : tensor<1x4x8x4xf16>, tensor<1x2x6x4xf16>, tensor<1x2x6x4xf16>, tensor<1x4x8x4xf16>,
        tensor<1x4x8xf32> -> tensor<1x4x8x4xf32>
  return %0 : tensor<1x4x8x4xf32>
}

// -----

// CHECK-LABEL: func.func @dkdv
// CHECK-NOT: tx.attention_dkdv
// CHECK: linalg.generic
// CHECK: return
func.func @dkdv(%q: tensor<1x4x8x4xf32>, %k: tensor<1x1x6x4xf32>, %l: tensor<1x4x8xf32>,
                %dk: tensor<1x1x6x4xf32>) -> tensor<1x1x6x4xf32> {
  %0:2 = tx.attention_dkdv %q, %k, %k, %q, %l, %l scale = 0.5 outs(%dk, %dk)
      : tensor<1x4x8x4xf32>, tensor<1x1x6x4xf32>, tensor<1x1x6x4xf32>, tensor<1x4x8x4xf32>,
        tensor<1x4x8xf32> -> tensor<1x1x6x4xf32>, tensor<1x1x6x4xf32>
  return %0#0 : tensor<1x1x6x4xf32>
}

// -----

func.func @dkdv_two_kv_heads(%q: tensor<1x4x8x4xf32>, %k: tensor<1x2x6x4xf32>, %l: tensor<1x4x8xf32>,
                             %dk: tensor<1x2x6x4xf32>) -> tensor<1x2x6x4xf32> {
  // expected-error @+2 {{'tx.attention_dkdv' op decomposition needs one K/V head or H == Hkv (tile the K/V head dimension by 1 first)}}
  // expected-error @+1 {{failed to legalize operation 'tx.attention_dkdv'}}
  %0:2 = tx.attention_dkdv %q, %k, %k, %q, %l, %l scale = 0.5 outs(%dk, %dk)
      : tensor<1x4x8x4xf32>, tensor<1x2x6x4xf32>, tensor<1x2x6x4xf32>, tensor<1x4x8x4xf32>,
        tensor<1x4x8xf32> -> tensor<1x2x6x4xf32>, tensor<1x2x6x4xf32>
  return %0#0 : tensor<1x2x6x4xf32>
}
