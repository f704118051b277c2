// tx.attention's and tx.softmax's one GPU path, pinned in the middle of
// tx-gpu-pipeline for the bundled examples. Attention: strategy (tx.gpu_strategy on the op) -> tiling (the
// FlashAttention-2 tiled IR: scf.forall over query tiles, scf.for over key
// tiles of tx.online_attention, the epilogue) -> staging (Q, K, V tiles
// copied into workgroup-memory tensors) -> pipelining (tx.pipeline_stages on
// the key loop) -> GPU mapping (the forall is the grid: one gpu.launch, no
// forall or tx op left).
// RUN: tx-opt %tx_src/examples/gpt2_attention.mlir --tx-gpu-pipeline="chip=sm_90a format=isa" -o /dev/null --mlir-disable-threading --mlir-print-ir-after=tx-attention-strategy,tx-tile-attention,tx-stage-attention,tx-pipeline-attention,tx-map-attention-to-gpu 2>&1 | FileCheck %s --check-prefix=GPT2
// RUN: tx-opt %tx_src/examples/llama3_gqa_attention.mlir --tx-gpu-pipeline="chip=sm_90a format=isa" -o /dev/null --mlir-disable-threading --mlir-print-ir-after=tx-tile-attention,tx-map-attention-to-gpu 2>&1 | FileCheck %s --check-prefix=LLAMA
// Softmax: strategy (the vector kernel and its scalar fallback) -> row tiles
// of the strategy's rows per CTA -> the kernels:
// RUN: tx-opt %tx_src/examples/softmax.mlir --tx-gpu-pipeline="chip=sm_90a format=isa" -o /dev/null --mlir-disable-threading --mlir-print-ir-after=tx-softmax-strategy,tx-tile-softmax,tx-map-softmax-to-gpu 2>&1 | FileCheck %s --check-prefix=SOFTMAX
// On sm_90 (no wgmma) the strategy takes mma.sync for f16:
// RUN: tx-opt %tx_src/examples/gpt2_attention.mlir --tx-gpu-pipeline="chip=sm_90 format=isa" -o /dev/null --mlir-disable-threading --mlir-print-ir-after=tx-tile-attention 2>&1 | FileCheck %s --check-prefix=SM90

// GPT2: IR Dump After TxAttentionStrategy
// GPT2-LABEL: func.func @gpt2_attention_f16
// GPT2: tx.attention %{{.*}}, %{{.*}}, %{{.*}} causal {tx.gpu_strategy = #tx.wgmma_strategy<warps = 4, q_tile = 64, kv_tile = 128, stages = 2>}
// GPT2: IR Dump After TxTileAttention
// GPT2-LABEL: func.func @gpt2_attention_f16
// GPT2-NOT: tx.attention
// GPT2: scf.forall (%[[B:.*]], %[[H:.*]], %[[I:.*]]) = (0, 0, 0) to (8, 12, 1024) step (1, 1, 64) shared_outs(%[[OUT:.*]] = %{{.*}}) -> (tensor<8x12x1024x64xf16>)
// GPT2:   tensor.extract_slice %{{.*}}[%[[B]], %[[H]], %[[I]], 0] [1, 1, 64, 64]
// GPT2:   scf.for %{{.*}} = %{{.*}} to %{{.*}} step %c128 iter_args(%{{.*}} = %{{.*}}, %{{.*}} = %{{.*}}, %{{.*}} = %{{.*}}) -> (tensor<1x1x64x64xf32>, tensor<1x1x64xf32>, tensor<1x1x64xf32>)
// GPT2:     tx.online_attention {{.*}} scale = 1.250000e-01 causal causal_offset(%{{.*}}) {{.*}} : tensor<1x1x64x64xf16>, tensor<1x1x128x64xf16>, tensor<1x1x128x64xf16> -> tensor<1x1x64x64xf32>, tensor<1x1x64xf32>, tensor<1x1x64xf32>
// GPT2:   linalg.generic {{.*}} attrs = {tx.attention_epilogue = "output"}
// GPT2:   tensor.parallel_insert_slice %{{.*}} into %[[OUT]][%[[B]], %[[H]], %[[I]], 0] [1, 1, 64, 64]
// GPT2: } {tx.gpu_strategy = #tx.wgmma_strategy<
// GPT2: IR Dump After TxStageAttention
// GPT2-LABEL: func.func @gpt2_attention_f16
// GPT2: %[[QT:.*]] = tensor.extract_slice %{{.*}}[%{{.*}}, %{{.*}}, %{{.*}}, 0] [1, 1, 64, 64]
// GPT2: %[[QB:.*]] = bufferization.alloc_tensor() {memory_space = #gpu.address_space<workgroup>} : tensor<1x1x64x64xf16>
// GPT2: bufferization.materialize_in_destination %[[QT]] in %[[QB]]
// GPT2: scf.for
// GPT2-COUNT-2: bufferization.alloc_tensor() {memory_space = #gpu.address_space<workgroup>} : tensor<1x1x128x64xf16>
// GPT2: tx.online_attention
// GPT2: IR Dump After TxPipelineAttention
// GPT2-LABEL: func.func @gpt2_attention_f16
// GPT2: tx.online_attention
// GPT2: } {tx.pipeline_stages = 2 : i64}
// GPT2: IR Dump After TxMapAttentionToGPU
// GPT2-LABEL: func.func @gpt2_attention_f16
// GPT2-NOT: scf.forall
// GPT2-NOT: tx.online_attention
// 8 * 12 * 1024 / 64 CTAs of one warpgroup:
// GPT2: gpu.launch blocks(%{{.*}}, %{{.*}}, %{{.*}}) in (%{{.*}} = %{{.*}}, %{{.*}} = %{{.*}}, %{{.*}} = %{{.*}}) threads(%{{.*}}, %{{.*}}, %{{.*}}) in (%{{.*}} = %c128{{.*}}, %{{.*}} = %{{.*}}, %{{.*}} = %{{.*}})
// GPT2: } {tx.required_chip = "sm_90a"}
// The f32 function takes the CUDA-core family, through the same path:
// GPT2: IR Dump After TxAttentionStrategy
// GPT2-LABEL: func.func @gpt2_attention_f32
// GPT2: tx.gpu_strategy = #tx.simt_strategy<warps = 4, q_tile = 32, kv_tile = 64>
// GPT2: IR Dump After TxTileAttention
// GPT2: scf.forall ({{.*}}) = (0, 0, 0) to (8, 12, 1024) step (1, 1, 32)
// GPT2:   scf.for {{.*}} step %c64
// GPT2:     tx.online_attention

// LLAMA: IR Dump After TxTileAttention
// LLAMA-LABEL: func.func @llama3_gqa_attention_f16
// GQA: query head h reads K/V head h floordiv 4 (in place).
// LLAMA: scf.forall (%[[B:.*]], %[[H:.*]], %[[I:.*]]) = (0, 0, 0) to (1, 32, 4096) step (1, 1, 128)
// LLAMA:   %[[KVH:.*]] = affine.apply affine_map<(d0) -> (d0 floordiv 4)>(%[[H]])
// LLAMA:   tensor.extract_slice %{{.*}}[%[[B]], %[[KVH]], 0, 0] [1, 1, 4096, 128]
// LLAMA:   scf.for {{.*}} step %c128
// LLAMA:     tx.online_attention {{.*}} causal
// LLAMA: } {tx.gpu_strategy = #tx.wgmma_strategy<warps = 8, q_tile = 128, kv_tile = 128, stages = 2>}
// LLAMA: IR Dump After TxMapAttentionToGPU
// LLAMA-LABEL: func.func @llama3_gqa_attention_f16
// LLAMA-NOT: scf.forall
// Two warpgroups (ping-pong) per CTA:
// LLAMA: gpu.launch {{.*}} threads(%{{.*}}, %{{.*}}, %{{.*}}) in (%{{.*}} = %c256{{.*}}, %{{.*}} = %{{.*}}, %{{.*}} = %{{.*}})

// SM90-LABEL: func.func @gpt2_attention_f16
// SM90: scf.forall ({{.*}}) = (0, 0, 0) to (8, 12, 1024) step (1, 1, 256)
// SM90:   scf.for {{.*}} step %c64
// SM90:     tx.online_attention
// SM90: } {tx.gpu_strategy = #tx.mma_strategy<warps = 8, q_tile = 256, kv_tile = 64, m_tiles = 2>}

// SOFTMAX: IR Dump After TxSoftmaxStrategy
// SOFTMAX-LABEL: func.func @softmax_f16
// SOFTMAX: tx.softmax %{{.*}} dim = -1 {tx.gpu_strategy = #tx.softmax_strategy<rows_per_cta = 4, scalar = <{{.*}}>, vector = <vector_width = 8, threads_per_row = 32, block_size = 128, {{.*}}unroll = 4>>}
// SOFTMAX: IR Dump After TxTileSoftmax
// SOFTMAX-LABEL: func.func @softmax_f16
// SOFTMAX: scf.forall (%[[R:.*]]) = (0) to (32768) step (4) shared_outs(%[[OUT:.*]] = %{{.*}}) -> (tensor<32768x1024xf16>)
// SOFTMAX:   %[[T:.*]] = tensor.extract_slice %{{.*}}[%[[R]], 0] [4, 1024] [1, 1]
// SOFTMAX:   tx.softmax %[[T]] dim = 1 : tensor<4x1024xf16>
// SOFTMAX:   tensor.parallel_insert_slice %{{.*}} into %[[OUT]][%[[R]], 0] [4, 1024]
// SOFTMAX: } {tx.gpu_strategy = #tx.softmax_strategy<
// SOFTMAX: IR Dump After TxMapSoftmaxToGPU
// SOFTMAX-LABEL: func.func @softmax_f16
// SOFTMAX-NOT: scf.forall
// SOFTMAX-NOT: tx.softmax
// The vector kernel (4 rows of 32 lanes per CTA), and the scalar fallback:
// SOFTMAX: gpu.launch {{.*}} threads(%{{.*}}, %{{.*}}, %{{.*}}) in (%{{.*}} = %c128, %{{.*}} = %{{.*}}, %{{.*}} = %{{.*}})
// SOFTMAX: vector.load {{.*}} vector<8xf16>
// SOFTMAX: gpu.launch
