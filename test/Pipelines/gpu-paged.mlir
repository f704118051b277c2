// A paged KV cache on the GPU path (issue #43): tx-gpu-pipeline runs
// tx-gather-kv-pages first, so every paged op becomes gathers and an
// unpaged op. The split-KV decode kernel and the prefill kernels then read
// the pools in place (tx-map-attention-to-gpu matches the gathers and drops
// them): one page table read per key tile when a page holds whole tiles
// (page size 16, 16-key decode tiles), one per row otherwise (a dynamic
// page size; 16-token pages under 128-key wgmma tiles).
// tx.merge_attention_states lowers to one elementwise kernel pair.
// RUN: tx-opt %s --tx-gather-kv-pages --tx-attention-to-gpu="sm=90 wgmma" | FileCheck %s
// RUN: tx-opt %s --tx-gpu-pipeline="chip=sm_90a format=isa" | FileCheck %s --check-prefix=PTX
// RUN: tx-opt %s --tx-gpu-pipeline="chip=sm_90 format=isa" | FileCheck %s --check-prefix=PTX

// The pages of the pipeline's first two tiles are read together, then
// each tile's copies (one table read per tile): the page id checked against
// num_pages, the row read at [page, row, kh, col].
// CHECK-LABEL: func.func @paged_decode
// CHECK-NOT: tx.kv_page_gather
// CHECK: gpu.launch
// CHECK: memref.load %{{.*}} : memref<?x?xi32>
// CHECK: memref.load %{{.*}} : memref<?x?xi32>
// CHECK-NOT: memref<?x?xi32>
// CHECK: arith.cmpi slt, %{{.*}}, %{{.*}} : index
// CHECK-NOT: memref<?x?xi32>
// CHECK: nvgpu.device_async_copy %{{.*}}[%{{.*}}, %{{.*}}, %{{.*}}, %{{.*}}], %{{.*}}[%{{.*}}], 8, %{{.*}} {bypassL1} : memref<?x16x8x128xf16>
// CHECK-NOT: memref<?x?xi32>
// CHECK: nvgpu.device_async_copy %{{.*}} : memref<?x16x8x128xf16>
// CHECK: gpu.launch
// CHECK-NOT: tx.kv_page_gather
// CHECK-NOT: tx.attention %
// CHECK-LABEL: func.func @paged_decode_dynamic_page
// CHECK-NOT: tx.kv_page_gather
// CHECK: gpu.launch
// CHECK: memref.load %{{.*}} : memref<?x?xi32>
// CHECK: nvgpu.device_async_copy %{{.*}} : memref<?x?x8x128xf16>
// CHECK: memref.load %{{.*}} : memref<?x?xi32>
// CHECK: nvgpu.device_async_copy %{{.*}} : memref<?x?x8x128xf16>
// CHECK-LABEL: func.func @paged_prefill
// CHECK-NOT: tx.kv_page_gather
// CHECK: gpu.launch
// CHECK: memref.load %{{.*}} : memref<?x?xi32>
// CHECK: memref.load %{{.*}} : memref<?x?xi32>
// CHECK: nvgpu.device_async_copy %{{.*}} : memref<?x16x2x128xf16>
// CHECK-NOT: tx.kv_page_gather
// CHECK-LABEL: func.func @merge
// CHECK: tx.merge_attention_states

// PTX-DAG: .visible .entry paged_decode_kernel
// PTX-DAG: .visible .entry paged_prefill_kernel
// PTX-DAG: .visible .entry merge_kernel

func.func @paged_decode(%q: tensor<?x32x1x128xf16>, %k: tensor<?x16x8x128xf16>,
                        %v: tensor<?x16x8x128xf16>, %pt: tensor<?x?xi32>,
                        %lens: tensor<?xi32>) -> tensor<?x32x1x128xf16> {
  %o = tx.attention %q, %k, %v kv_lengths(%lens : tensor<?xi32>) page_table(%pt : tensor<?x?xi32>) causal
      : tensor<?x32x1x128xf16>, tensor<?x16x8x128xf16>, tensor<?x16x8x128xf16> -> tensor<?x32x1x128xf16>
  return %o : tensor<?x32x1x128xf16>
}

func.func @paged_decode_dynamic_page(%q: tensor<?x32x1x128xf16>, %k: tensor<?x?x8x128xf16>,
                                     %v: tensor<?x?x8x128xf16>, %pt: tensor<?x?xi32>,
                                     %lens: tensor<?xi32>) -> tensor<?x32x1x128xf16> {
  %o = tx.attention %q, %k, %v kv_lengths(%lens : tensor<?xi32>) page_table(%pt : tensor<?x?xi32>)
      : tensor<?x32x1x128xf16>, tensor<?x?x8x128xf16>, tensor<?x?x8x128xf16> -> tensor<?x32x1x128xf16>
  return %o : tensor<?x32x1x128xf16>
}

func.func @paged_prefill(%q: tensor<?x8x?x128xf16>, %k: tensor<?x16x2x128xf16>,
                         %v: tensor<?x16x2x128xf16>, %pt: tensor<?x?xi32>,
                         %lens: tensor<?xi32>) -> tensor<?x8x?x128xf16> {
  %o = tx.attention %q, %k, %v kv_lengths(%lens : tensor<?xi32>) page_table(%pt : tensor<?x?xi32>) causal
      : tensor<?x8x?x128xf16>, tensor<?x16x2x128xf16>, tensor<?x16x2x128xf16> -> tensor<?x8x?x128xf16>
  return %o : tensor<?x8x?x128xf16>
}

func.func @merge(%a: tensor<?x32x1x128xf16>, %la: tensor<?x32x1xf32>,
                 %b: tensor<?x32x1x128xf16>, %lb: tensor<?x32x1xf32>)
    -> (tensor<?x32x1x128xf16>, tensor<?x32x1xf32>) {
  %o, %l = tx.merge_attention_states %a, %la, %b, %lb : tensor<?x32x1x128xf16>, tensor<?x32x1xf32>
  return %o, %l : tensor<?x32x1x128xf16>, tensor<?x32x1xf32>
}
