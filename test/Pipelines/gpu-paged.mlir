// A paged KV cache on the GPU path (issue #43, first step): tx-gpu-pipeline
// runs tx-gather-kv-pages first, so the gathers become parallel loops mapped
// to the GPU and the unpaged op takes the kernel its shape gets (here the
// split-KV decode kernel and its merge launch); tx.merge_attention_states
// lowers to one elementwise kernel pair.
// RUN: tx-opt %s --tx-gather-kv-pages --tx-attention-to-gpu="sm=90 wgmma" | FileCheck %s
// RUN: tx-opt %s --tx-gpu-pipeline="chip=sm_90a format=isa" | FileCheck %s --check-prefix=PTX
// RUN: tx-opt %s --tx-gpu-pipeline="chip=sm_90 format=isa" | FileCheck %s --check-prefix=PTX

// CHECK-LABEL: func.func @paged_decode
// CHECK: linalg.generic {{.*}} attrs = {tx.kv_page_gather}
// CHECK: linalg.generic {{.*}} attrs = {tx.kv_page_gather}
// CHECK: gpu.launch
// CHECK: gpu.launch
// CHECK-NOT: tx.attention %
// CHECK-LABEL: func.func @merge
// CHECK: tx.merge_attention_states

// PTX-DAG: .visible .entry paged_decode_kernel
// PTX-DAG: .visible .entry merge_kernel

func.func @paged_decode(%q: tensor<?x32x1x128xf16>, %k: tensor<?x16x8x128xf16>,
                        %v: tensor<?x16x8x128xf16>, %pt: tensor<?x?xi32>,
                        %lens: tensor<?xi32>) -> tensor<?x32x1x128xf16> {
  %o = tx.attention %q, %k, %v kv_lengths(%lens : tensor<?xi32>) page_table(%pt : tensor<?x?xi32>) causal
      : tensor<?x32x1x128xf16>, tensor<?x16x8x128xf16>, tensor<?x16x8x128xf16> -> tensor<?x32x1x128xf16>
  return %o : tensor<?x32x1x128xf16>
}

func.func @merge(%a: tensor<?x32x1x128xf16>, %la: tensor<?x32x1xf32>,
                 %b: tensor<?x32x1x128xf16>, %lb: tensor<?x32x1xf32>)
    -> (tensor<?x32x1x128xf16>, tensor<?x32x1xf32>) {
  %o, %l = tx.merge_attention_states %a, %la, %b, %lb : tensor<?x32x1x128xf16>, tensor<?x32x1xf32>
  return %o, %l : tensor<?x32x1x128xf16>, tensor<?x32x1xf32>
}
