// tx-map-attention-to-gpu on hand-edited tiled IR (the output of
// tx-attention-strategy + tx-tile-attention for f32 B=1 H=2 Sq=64 Sk=128
// D=32, causal, then edited): what the mapping cannot build faithfully is
// refused with a located error, never compiled as something else.
// (sm = 75: the chip checks come first.)
// RUN: not tx-opt %s --split-input-file --tx-stage-attention --tx-map-attention-to-gpu="sm=75" -o /dev/null 2>&1 | FileCheck %s
// The mma strategy on f32 Q/K/V (case 4) on an sm_80+ chip: not a kernel of
// this problem.
// RUN: not tx-opt %s --split-input-file --tx-stage-attention --tx-map-attention-to-gpu="sm=90" -o /dev/null 2>&1 | FileCheck %s --check-prefix=F32MMA
// CHECK: map-attention-to-gpu-edited.mlir:[[@LINE+10]]:{{[0-9]+}}: error: tx-map-attention-to-gpu: the K and V tiles must be the tile's batch and K/V head (h / (H / Hkv))
#map = affine_map<()[s0] -> (s0 + 64)>
#map1 = affine_map<()[s0] -> (128, s0 + 96)>
#map2 = affine_map<(d0) -> (d0, 0)>
#map3 = affine_map<()[s0, s1] -> (-s0 + s1 + 64)>
#map4 = affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, d3)>
#map5 = affine_map<(d0, d1, d2, d3) -> (d0, d1, d2)>
module {
  func.func @f(%arg0: tensor<1x2x64x32xf32>, %arg1: tensor<1x2x128x32xf32>, %arg2: tensor<1x2x128x32xf32>) -> tensor<1x2x64x32xf32> {
    %0 = tensor.empty() : tensor<1x2x64x32xf32>
    %1 = scf.forall (%arg3, %arg4, %arg5) = (0, 0, 0) to (1, 2, 64) step (1, 1, 32) shared_outs(%arg6 = %0) -> (tensor<1x2x64x32xf32>) {
      %extracted_slice = tensor.extract_slice %arg0[%arg3, %arg4, %arg5, 0] [1, 1, 32, 32] [1, 1, 1, 1] : tensor<1x2x64x32xf32> to tensor<1x1x32x32xf32>
      %extracted_slice_0 = tensor.extract_slice %arg1[%arg3, 0, 0, 0] [1, 1, 128, 32] [1, 1, 1, 1] : tensor<1x2x128x32xf32> to tensor<1x1x128x32xf32>
      %extracted_slice_1 = tensor.extract_slice %arg2[%arg3, %arg4, 0, 0] [1, 1, 128, 32] [1, 1, 1, 1] : tensor<1x2x128x32xf32> to tensor<1x1x128x32xf32>
      %2 = affine.apply #map()[%arg5]
      %3 = tensor.empty() : tensor<1x1x32x32xf32>
      %cst = arith.constant 0.000000e+00 : f32
      %4 = linalg.fill ins(%cst : f32) outs(%3 : tensor<1x1x32x32xf32>) -> tensor<1x1x32x32xf32>
      %5 = tensor.empty() : tensor<1x1x32xf32>
      %cst_2 = arith.constant 0xFF800000 : f32
      %6 = linalg.fill ins(%cst_2 : f32) outs(%5 : tensor<1x1x32xf32>) -> tensor<1x1x32xf32>
      %7 = tensor.empty() : tensor<1x1x32xf32>
      %cst_3 = arith.constant 0.000000e+00 : f32
      %8 = linalg.fill ins(%cst_3 : f32) outs(%7 : tensor<1x1x32xf32>) -> tensor<1x1x32xf32>
      %9 = affine.min #map1()[%arg5]
      %10 = affine.max #map2(%9)
      %c0 = arith.constant 0 : index
      %c128 = arith.constant 128 : index
      %c64 = arith.constant 64 : index
      %11:3 = scf.for %arg7 = %c0 to %10 step %c64 iter_args(%arg8 = %4, %arg9 = %6, %arg10 = %8) -> (tensor<1x1x32x32xf32>, tensor<1x1x32xf32>, tensor<1x1x32xf32>) {
        %extracted_slice_4 = tensor.extract_slice %extracted_slice[0, 0, 0, 0] [1, 1, 32, 32] [1, 1, 1, 1] : tensor<1x1x32x32xf32> to tensor<1x1x32x32xf32>
        %extracted_slice_5 = tensor.extract_slice %extracted_slice_0[0, 0, %arg7, 0] [1, 1, 64, 32] [1, 1, 1, 1] : tensor<1x1x128x32xf32> to tensor<1x1x64x32xf32>
        %extracted_slice_6 = tensor.extract_slice %extracted_slice_1[0, 0, %arg7, 0] [1, 1, 64, 32] [1, 1, 1, 1] : tensor<1x1x128x32xf32> to tensor<1x1x64x32xf32>
        %14 = affine.apply #map3()[%arg7, %arg5]
        %extracted_slice_7 = tensor.extract_slice %arg8[0, 0, 0, 0] [1, 1, 32, 32] [1, 1, 1, 1] : tensor<1x1x32x32xf32> to tensor<1x1x32x32xf32>
        %extracted_slice_8 = tensor.extract_slice %arg9[0, 0, 0] [1, 1, 32] [1, 1, 1] : tensor<1x1x32xf32> to tensor<1x1x32xf32>
        %extracted_slice_9 = tensor.extract_slice %arg10[0, 0, 0] [1, 1, 32] [1, 1, 1] : tensor<1x1x32xf32> to tensor<1x1x32xf32>
        %new_acc, %new_max, %new_sum = tx.online_attention %extracted_slice_4, %extracted_slice_5, %extracted_slice_6 scale = 0.176776692 causal causal_offset(%14) outs(%extracted_slice_7, %extracted_slice_8, %extracted_slice_9) : tensor<1x1x32x32xf32>, tensor<1x1x64x32xf32>, tensor<1x1x64x32xf32> -> tensor<1x1x32x32xf32>, tensor<1x1x32xf32>, tensor<1x1x32xf32>
        %inserted_slice = tensor.insert_slice %new_acc into %arg8[0, 0, 0, 0] [1, 1, 32, 32] [1, 1, 1, 1] : tensor<1x1x32x32xf32> into tensor<1x1x32x32xf32>
        %inserted_slice_10 = tensor.insert_slice %new_max into %arg9[0, 0, 0] [1, 1, 32] [1, 1, 1] : tensor<1x1x32xf32> into tensor<1x1x32xf32>
        %inserted_slice_11 = tensor.insert_slice %new_sum into %arg10[0, 0, 0] [1, 1, 32] [1, 1, 1] : tensor<1x1x32xf32> into tensor<1x1x32xf32>
        scf.yield %inserted_slice, %inserted_slice_10, %inserted_slice_11 : tensor<1x1x32x32xf32>, tensor<1x1x32xf32>, tensor<1x1x32xf32>
      }
      %12 = tensor.empty() : tensor<1x1x32x32xf32>
      %13 = linalg.generic {indexing_maps = [#map4, #map5, #map4], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} ins(%11#0, %11#2 : tensor<1x1x32x32xf32>, tensor<1x1x32xf32>) outs(%12 : tensor<1x1x32x32xf32>) attrs =  {tx.attention_epilogue = "output"} {
      ^bb0(%in: f32, %in_4: f32, %out: f32):
        %cst_5 = arith.constant 0.000000e+00 : f32
        %14 = arith.divf %in, %in_4 : f32
        %15 = arith.cmpf oeq, %in_4, %cst_5 : f32
        %16 = arith.select %15, %cst_5, %14 : f32
        linalg.yield %16 : f32
      } -> tensor<1x1x32x32xf32>
      scf.forall.in_parallel {
        tensor.parallel_insert_slice %13 into %arg6[%arg3, %arg4, %arg5, 0] [1, 1, 32, 32] [1, 1, 1, 1] : tensor<1x1x32x32xf32> into tensor<1x2x64x32xf32>
      }
    } {tx.gpu_strategy = #tx.simt_strategy<warps = 4, q_tile = 32, kv_tile = 64>}
    return %1 : tensor<1x2x64x32xf32>
  }
}

// -----

// CHECK: map-attention-to-gpu-edited.mlir:[[@LINE+10]]:{{[0-9]+}}: error: tx-map-attention-to-gpu: result 0 of the forall is not an attention epilogue (a linalg.generic tagged tx.attention_epilogue of the tile's final state)
#map = affine_map<()[s0] -> (s0 + 64)>
#map1 = affine_map<()[s0] -> (128, s0 + 96)>
#map2 = affine_map<(d0) -> (d0, 0)>
#map3 = affine_map<()[s0, s1] -> (-s0 + s1 + 64)>
#map4 = affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, d3)>
#map5 = affine_map<(d0, d1, d2, d3) -> (d0, d1, d2)>
module {
  func.func @f(%arg0: tensor<1x2x64x32xf32>, %arg1: tensor<1x2x128x32xf32>, %arg2: tensor<1x2x128x32xf32>) -> tensor<1x2x64x32xf32> {
    %0 = tensor.empty() : tensor<1x2x64x32xf32>
    %1 = scf.forall (%arg3, %arg4, %arg5) = (0, 0, 0) to (1, 2, 64) step (1, 1, 32) shared_outs(%arg6 = %0) -> (tensor<1x2x64x32xf32>) {
      %extracted_slice = tensor.extract_slice %arg0[%arg3, %arg4, %arg5, 0] [1, 1, 32, 32] [1, 1, 1, 1] : tensor<1x2x64x32xf32> to tensor<1x1x32x32xf32>
      %extracted_slice_0 = tensor.extract_slice %arg1[%arg3, %arg4, 0, 0] [1, 1, 128, 32] [1, 1, 1, 1] : tensor<1x2x128x32xf32> to tensor<1x1x128x32xf32>
      %extracted_slice_1 = tensor.extract_slice %arg2[%arg3, %arg4, 0, 0] [1, 1, 128, 32] [1, 1, 1, 1] : tensor<1x2x128x32xf32> to tensor<1x1x128x32xf32>
      %2 = affine.apply #map()[%arg5]
      %3 = tensor.empty() : tensor<1x1x32x32xf32>
      %cst = arith.constant 0.000000e+00 : f32
      %4 = linalg.fill ins(%cst : f32) outs(%3 : tensor<1x1x32x32xf32>) -> tensor<1x1x32x32xf32>
      %5 = tensor.empty() : tensor<1x1x32xf32>
      %cst_2 = arith.constant 0xFF800000 : f32
      %6 = linalg.fill ins(%cst_2 : f32) outs(%5 : tensor<1x1x32xf32>) -> tensor<1x1x32xf32>
      %7 = tensor.empty() : tensor<1x1x32xf32>
      %cst_3 = arith.constant 0.000000e+00 : f32
      %8 = linalg.fill ins(%cst_3 : f32) outs(%7 : tensor<1x1x32xf32>) -> tensor<1x1x32xf32>
      %9 = affine.min #map1()[%arg5]
      %10 = affine.max #map2(%9)
      %c0 = arith.constant 0 : index
      %c128 = arith.constant 128 : index
      %c64 = arith.constant 64 : index
      %11:3 = scf.for %arg7 = %c0 to %10 step %c64 iter_args(%arg8 = %4, %arg9 = %6, %arg10 = %8) -> (tensor<1x1x32x32xf32>, tensor<1x1x32xf32>, tensor<1x1x32xf32>) {
        %extracted_slice_4 = tensor.extract_slice %extracted_slice[0, 0, 0, 0] [1, 1, 32, 32] [1, 1, 1, 1] : tensor<1x1x32x32xf32> to tensor<1x1x32x32xf32>
        %extracted_slice_5 = tensor.extract_slice %extracted_slice_0[0, 0, %arg7, 0] [1, 1, 64, 32] [1, 1, 1, 1] : tensor<1x1x128x32xf32> to tensor<1x1x64x32xf32>
        %extracted_slice_6 = tensor.extract_slice %extracted_slice_1[0, 0, %arg7, 0] [1, 1, 64, 32] [1, 1, 1, 1] : tensor<1x1x128x32xf32> to tensor<1x1x64x32xf32>
        %14 = affine.apply #map3()[%arg7, %arg5]
        %extracted_slice_7 = tensor.extract_slice %arg8[0, 0, 0, 0] [1, 1, 32, 32] [1, 1, 1, 1] : tensor<1x1x32x32xf32> to tensor<1x1x32x32xf32>
        %extracted_slice_8 = tensor.extract_slice %arg9[0, 0, 0] [1, 1, 32] [1, 1, 1] : tensor<1x1x32xf32> to tensor<1x1x32xf32>
        %extracted_slice_9 = tensor.extract_slice %arg10[0, 0, 0] [1, 1, 32] [1, 1, 1] : tensor<1x1x32xf32> to tensor<1x1x32xf32>
        %new_acc, %new_max, %new_sum = tx.online_attention %extracted_slice_4, %extracted_slice_5, %extracted_slice_6 scale = 0.176776692 causal causal_offset(%14) outs(%extracted_slice_7, %extracted_slice_8, %extracted_slice_9) : tensor<1x1x32x32xf32>, tensor<1x1x64x32xf32>, tensor<1x1x64x32xf32> -> tensor<1x1x32x32xf32>, tensor<1x1x32xf32>, tensor<1x1x32xf32>
        %inserted_slice = tensor.insert_slice %new_acc into %arg8[0, 0, 0, 0] [1, 1, 32, 32] [1, 1, 1, 1] : tensor<1x1x32x32xf32> into tensor<1x1x32x32xf32>
        %inserted_slice_10 = tensor.insert_slice %new_max into %arg9[0, 0, 0] [1, 1, 32] [1, 1, 1] : tensor<1x1x32xf32> into tensor<1x1x32xf32>
        %inserted_slice_11 = tensor.insert_slice %new_sum into %arg10[0, 0, 0] [1, 1, 32] [1, 1, 1] : tensor<1x1x32xf32> into tensor<1x1x32xf32>
        scf.yield %inserted_slice, %inserted_slice_10, %inserted_slice_11 : tensor<1x1x32x32xf32>, tensor<1x1x32xf32>, tensor<1x1x32xf32>
      }
      %12 = tensor.empty() : tensor<1x1x32x32xf32>
      %13 = linalg.generic {indexing_maps = [#map4, #map5, #map4], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} ins(%11#0, %11#2 : tensor<1x1x32x32xf32>, tensor<1x1x32xf32>) outs(%12 : tensor<1x1x32x32xf32>) attrs =  {tx.attention_epilogue = "output"} {
      ^bb0(%in: f32, %in_4: f32, %out: f32):
        %cst_5 = arith.constant 0.000000e+00 : f32
        %14 = arith.mulf %in, %in_4 : f32
        %15 = arith.cmpf oeq, %in_4, %cst_5 : f32
        %16 = arith.select %15, %cst_5, %14 : f32
        linalg.yield %16 : f32
      } -> tensor<1x1x32x32xf32>
      scf.forall.in_parallel {
        tensor.parallel_insert_slice %13 into %arg6[%arg3, %arg4, %arg5, 0] [1, 1, 32, 32] [1, 1, 1, 1] : tensor<1x1x32x32xf32> into tensor<1x2x64x32xf32>
      }
    } {tx.gpu_strategy = #tx.simt_strategy<warps = 4, q_tile = 32, kv_tile = 64>}
    return %1 : tensor<1x2x64x32xf32>
  }
}

// -----

// A softmax strategy on an attention forall.
// CHECK: map-attention-to-gpu-edited.mlir:[[@LINE+10]]:{{[0-9]+}}: error: tx-map-attention-to-gpu: its tx.gpu_strategy is not an attention strategy
#map = affine_map<()[s0] -> (s0 + 64)>
#map1 = affine_map<()[s0] -> (128, s0 + 96)>
#map2 = affine_map<(d0) -> (d0, 0)>
#map3 = affine_map<()[s0, s1] -> (-s0 + s1 + 64)>
#map4 = affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, d3)>
#map5 = affine_map<(d0, d1, d2, d3) -> (d0, d1, d2)>
module {
  func.func @f(%arg0: tensor<1x2x64x32xf32>, %arg1: tensor<1x2x128x32xf32>, %arg2: tensor<1x2x128x32xf32>) -> tensor<1x2x64x32xf32> {
    %0 = tensor.empty() : tensor<1x2x64x32xf32>
    %1 = scf.forall (%arg3, %arg4, %arg5) = (0, 0, 0) to (1, 2, 64) step (1, 1, 32) shared_outs(%arg6 = %0) -> (tensor<1x2x64x32xf32>) {
      %extracted_slice = tensor.extract_slice %arg0[%arg3, %arg4, %arg5, 0] [1, 1, 32, 32] [1, 1, 1, 1] : tensor<1x2x64x32xf32> to tensor<1x1x32x32xf32>
      %extracted_slice_0 = tensor.extract_slice %arg1[%arg3, %arg4, 0, 0] [1, 1, 128, 32] [1, 1, 1, 1] : tensor<1x2x128x32xf32> to tensor<1x1x128x32xf32>
      %extracted_slice_1 = tensor.extract_slice %arg2[%arg3, %arg4, 0, 0] [1, 1, 128, 32] [1, 1, 1, 1] : tensor<1x2x128x32xf32> to tensor<1x1x128x32xf32>
      %2 = affine.apply #map()[%arg5]
      %3 = tensor.empty() : tensor<1x1x32x32xf32>
      %cst = arith.constant 0.000000e+00 : f32
      %4 = linalg.fill ins(%cst : f32) outs(%3 : tensor<1x1x32x32xf32>) -> tensor<1x1x32x32xf32>
      %5 = tensor.empty() : tensor<1x1x32xf32>
      %cst_2 = arith.constant 0xFF800000 : f32
      %6 = linalg.fill ins(%cst_2 : f32) outs(%5 : tensor<1x1x32xf32>) -> tensor<1x1x32xf32>
      %7 = tensor.empty() : tensor<1x1x32xf32>
      %cst_3 = arith.constant 0.000000e+00 : f32
      %8 = linalg.fill ins(%cst_3 : f32) outs(%7 : tensor<1x1x32xf32>) -> tensor<1x1x32xf32>
      %9 = affine.min #map1()[%arg5]
      %10 = affine.max #map2(%9)
      %c0 = arith.constant 0 : index
      %c128 = arith.constant 128 : index
      %c64 = arith.constant 64 : index
      %11:3 = scf.for %arg7 = %c0 to %10 step %c64 iter_args(%arg8 = %4, %arg9 = %6, %arg10 = %8) -> (tensor<1x1x32x32xf32>, tensor<1x1x32xf32>, tensor<1x1x32xf32>) {
        %extracted_slice_4 = tensor.extract_slice %extracted_slice[0, 0, 0, 0] [1, 1, 32, 32] [1, 1, 1, 1] : tensor<1x1x32x32xf32> to tensor<1x1x32x32xf32>
        %extracted_slice_5 = tensor.extract_slice %extracted_slice_0[0, 0, %arg7, 0] [1, 1, 64, 32] [1, 1, 1, 1] : tensor<1x1x128x32xf32> to tensor<1x1x64x32xf32>
        %extracted_slice_6 = tensor.extract_slice %extracted_slice_1[0, 0, %arg7, 0] [1, 1, 64, 32] [1, 1, 1, 1] : tensor<1x1x128x32xf32> to tensor<1x1x64x32xf32>
        %14 = affine.apply #map3()[%arg7, %arg5]
        %extracted_slice_7 = tensor.extract_slice %arg8[0, 0, 0, 0] [1, 1, 32, 32] [1, 1, 1, 1] : tensor<1x1x32x32xf32> to tensor<1x1x32x32xf32>
        %extracted_slice_8 = tensor.extract_slice %arg9[0, 0, 0] [1, 1, 32] [1, 1, 1] : tensor<1x1x32xf32> to tensor<1x1x32xf32>
        %extracted_slice_9 = tensor.extract_slice %arg10[0, 0, 0] [1, 1, 32] [1, 1, 1] : tensor<1x1x32xf32> to tensor<1x1x32xf32>
        %new_acc, %new_max, %new_sum = tx.online_attention %extracted_slice_4, %extracted_slice_5, %extracted_slice_6 scale = 0.176776692 causal causal_offset(%14) outs(%extracted_slice_7, %extracted_slice_8, %extracted_slice_9) : tensor<1x1x32x32xf32>, tensor<1x1x64x32xf32>, tensor<1x1x64x32xf32> -> tensor<1x1x32x32xf32>, tensor<1x1x32xf32>, tensor<1x1x32xf32>
        %inserted_slice = tensor.insert_slice %new_acc into %arg8[0, 0, 0, 0] [1, 1, 32, 32] [1, 1, 1, 1] : tensor<1x1x32x32xf32> into tensor<1x1x32x32xf32>
        %inserted_slice_10 = tensor.insert_slice %new_max into %arg9[0, 0, 0] [1, 1, 32] [1, 1, 1] : tensor<1x1x32xf32> into tensor<1x1x32xf32>
        %inserted_slice_11 = tensor.insert_slice %new_sum into %arg10[0, 0, 0] [1, 1, 32] [1, 1, 1] : tensor<1x1x32xf32> into tensor<1x1x32xf32>
        scf.yield %inserted_slice, %inserted_slice_10, %inserted_slice_11 : tensor<1x1x32x32xf32>, tensor<1x1x32xf32>, tensor<1x1x32xf32>
      }
      %12 = tensor.empty() : tensor<1x1x32x32xf32>
      %13 = linalg.generic {indexing_maps = [#map4, #map5, #map4], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} ins(%11#0, %11#2 : tensor<1x1x32x32xf32>, tensor<1x1x32xf32>) outs(%12 : tensor<1x1x32x32xf32>) attrs =  {tx.attention_epilogue = "output"} {
      ^bb0(%in: f32, %in_4: f32, %out: f32):
        %cst_5 = arith.constant 0.000000e+00 : f32
        %14 = arith.divf %in, %in_4 : f32
        %15 = arith.cmpf oeq, %in_4, %cst_5 : f32
        %16 = arith.select %15, %cst_5, %14 : f32
        linalg.yield %16 : f32
      } -> tensor<1x1x32x32xf32>
      scf.forall.in_parallel {
        tensor.parallel_insert_slice %13 into %arg6[%arg3, %arg4, %arg5, 0] [1, 1, 32, 32] [1, 1, 1, 1] : tensor<1x1x32x32xf32> into tensor<1x2x64x32xf32>
      }
    } {tx.gpu_strategy = #tx.softmax_strategy<rows_per_cta = 1, scalar = <vector_width = 1, threads_per_row = 128, block_size = 128, cached = 0, grid_ctas = 0, unroll = 4>>}
    return %1 : tensor<1x2x64x32xf32>
  }
}

// -----

// CHECK: map-attention-to-gpu-edited.mlir:[[@LINE+10]]:{{[0-9]+}}: error: tx-map-attention-to-gpu: its tx.gpu_strategy asks for the mma family, which needs sm_80 or newer (this mapping targets sm = 75)
#map = affine_map<()[s0] -> (s0 + 64)>
#map1 = affine_map<()[s0] -> (128, s0 + 96)>
#map2 = affine_map<(d0) -> (d0, 0)>
#map3 = affine_map<()[s0, s1] -> (-s0 + s1 + 64)>
#map4 = affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, d3)>
#map5 = affine_map<(d0, d1, d2, d3) -> (d0, d1, d2)>
module {
  func.func @f(%arg0: tensor<1x2x64x32xf32>, %arg1: tensor<1x2x128x32xf32>, %arg2: tensor<1x2x128x32xf32>) -> tensor<1x2x64x32xf32> {
    %0 = tensor.empty() : tensor<1x2x64x32xf32>
    %1 = scf.forall (%arg3, %arg4, %arg5) = (0, 0, 0) to (1, 2, 64) step (1, 1, 32) shared_outs(%arg6 = %0) -> (tensor<1x2x64x32xf32>) {
      %extracted_slice = tensor.extract_slice %arg0[%arg3, %arg4, %arg5, 0] [1, 1, 32, 32] [1, 1, 1, 1] : tensor<1x2x64x32xf32> to tensor<1x1x32x32xf32>
      %extracted_slice_0 = tensor.extract_slice %arg1[%arg3, %arg4, 0, 0] [1, 1, 128, 32] [1, 1, 1, 1] : tensor<1x2x128x32xf32> to tensor<1x1x128x32xf32>
      %extracted_slice_1 = tensor.extract_slice %arg2[%arg3, %arg4, 0, 0] [1, 1, 128, 32] [1, 1, 1, 1] : tensor<1x2x128x32xf32> to tensor<1x1x128x32xf32>
      %2 = affine.apply #map()[%arg5]
      %3 = tensor.empty() : tensor<1x1x32x32xf32>
      %cst = arith.constant 0.000000e+00 : f32
      %4 = linalg.fill ins(%cst : f32) outs(%3 : tensor<1x1x32x32xf32>) -> tensor<1x1x32x32xf32>
      %5 = tensor.empty() : tensor<1x1x32xf32>
      %cst_2 = arith.constant 0xFF800000 : f32
      %6 = linalg.fill ins(%cst_2 : f32) outs(%5 : tensor<1x1x32xf32>) -> tensor<1x1x32xf32>
      %7 = tensor.empty() : tensor<1x1x32xf32>
      %cst_3 = arith.constant 0.000000e+00 : f32
      %8 = linalg.fill ins(%cst_3 : f32) outs(%7 : tensor<1x1x32xf32>) -> tensor<1x1x32xf32>
      %9 = affine.min #map1()[%arg5]
      %10 = affine.max #map2(%9)
      %c0 = arith.constant 0 : index
      %c128 = arith.constant 128 : index
      %c64 = arith.constant 64 : index
      %11:3 = scf.for %arg7 = %c0 to %10 step %c64 iter_args(%arg8 = %4, %arg9 = %6, %arg10 = %8) -> (tensor<1x1x32x32xf32>, tensor<1x1x32xf32>, tensor<1x1x32xf32>) {
        %extracted_slice_4 = tensor.extract_slice %extracted_slice[0, 0, 0, 0] [1, 1, 32, 32] [1, 1, 1, 1] : tensor<1x1x32x32xf32> to tensor<1x1x32x32xf32>
        %extracted_slice_5 = tensor.extract_slice %extracted_slice_0[0, 0, %arg7, 0] [1, 1, 64, 32] [1, 1, 1, 1] : tensor<1x1x128x32xf32> to tensor<1x1x64x32xf32>
        %extracted_slice_6 = tensor.extract_slice %extracted_slice_1[0, 0, %arg7, 0] [1, 1, 64, 32] [1, 1, 1, 1] : tensor<1x1x128x32xf32> to tensor<1x1x64x32xf32>
        %14 = affine.apply #map3()[%arg7, %arg5]
        %extracted_slice_7 = tensor.extract_slice %arg8[0, 0, 0, 0] [1, 1, 32, 32] [1, 1, 1, 1] : tensor<1x1x32x32xf32> to tensor<1x1x32x32xf32>
        %extracted_slice_8 = tensor.extract_slice %arg9[0, 0, 0] [1, 1, 32] [1, 1, 1] : tensor<1x1x32xf32> to tensor<1x1x32xf32>
        %extracted_slice_9 = tensor.extract_slice %arg10[0, 0, 0] [1, 1, 32] [1, 1, 1] : tensor<1x1x32xf32> to tensor<1x1x32xf32>
        %new_acc, %new_max, %new_sum = tx.online_attention %extracted_slice_4, %extracted_slice_5, %extracted_slice_6 scale = 0.176776692 causal causal_offset(%14) outs(%extracted_slice_7, %extracted_slice_8, %extracted_slice_9) : tensor<1x1x32x32xf32>, tensor<1x1x64x32xf32>, tensor<1x1x64x32xf32> -> tensor<1x1x32x32xf32>, tensor<1x1x32xf32>, tensor<1x1x32xf32>
        %inserted_slice = tensor.insert_slice %new_acc into %arg8[0, 0, 0, 0] [1, 1, 32, 32] [1, 1, 1, 1] : tensor<1x1x32x32xf32> into tensor<1x1x32x32xf32>
        %inserted_slice_10 = tensor.insert_slice %new_max into %arg9[0, 0, 0] [1, 1, 32] [1, 1, 1] : tensor<1x1x32xf32> into tensor<1x1x32xf32>
        %inserted_slice_11 = tensor.insert_slice %new_sum into %arg10[0, 0, 0] [1, 1, 32] [1, 1, 1] : tensor<1x1x32xf32> into tensor<1x1x32xf32>
        scf.yield %inserted_slice, %inserted_slice_10, %inserted_slice_11 : tensor<1x1x32x32xf32>, tensor<1x1x32xf32>, tensor<1x1x32xf32>
      }
      %12 = tensor.empty() : tensor<1x1x32x32xf32>
      %13 = linalg.generic {indexing_maps = [#map4, #map5, #map4], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} ins(%11#0, %11#2 : tensor<1x1x32x32xf32>, tensor<1x1x32xf32>) outs(%12 : tensor<1x1x32x32xf32>) attrs =  {tx.attention_epilogue = "output"} {
      ^bb0(%in: f32, %in_4: f32, %out: f32):
        %cst_5 = arith.constant 0.000000e+00 : f32
        %14 = arith.divf %in, %in_4 : f32
        %15 = arith.cmpf oeq, %in_4, %cst_5 : f32
        %16 = arith.select %15, %cst_5, %14 : f32
        linalg.yield %16 : f32
      } -> tensor<1x1x32x32xf32>
      scf.forall.in_parallel {
        tensor.parallel_insert_slice %13 into %arg6[%arg3, %arg4, %arg5, 0] [1, 1, 32, 32] [1, 1, 1, 1] : tensor<1x1x32x32xf32> into tensor<1x2x64x32xf32>
      }
    } {tx.gpu_strategy = #tx.mma_strategy<warps = 1, q_tile = 32, kv_tile = 64, m_tiles = 2>}
    return %1 : tensor<1x2x64x32xf32>
  }
}

// -----

// CHECK: map-attention-to-gpu-edited.mlir:[[@LINE+10]]:{{[0-9]+}}: error: tx-map-attention-to-gpu: the forall must cover all of (B, H, Sq) of Q (upper bound 1)
#map = affine_map<()[s0] -> (s0 + 64)>
#map1 = affine_map<()[s0] -> (128, s0 + 96)>
#map2 = affine_map<(d0) -> (d0, 0)>
#map3 = affine_map<()[s0, s1] -> (-s0 + s1 + 64)>
#map4 = affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, d3)>
#map5 = affine_map<(d0, d1, d2, d3) -> (d0, d1, d2)>
module {
  func.func @f(%arg0: tensor<1x2x64x32xf32>, %arg1: tensor<1x2x128x32xf32>, %arg2: tensor<1x2x128x32xf32>) -> tensor<1x2x64x32xf32> {
    %0 = tensor.empty() : tensor<1x2x64x32xf32>
    %1 = scf.forall (%arg3, %arg4, %arg5) = (0, 0, 0) to (1, 1, 64) step (1, 1, 32) shared_outs(%arg6 = %0) -> (tensor<1x2x64x32xf32>) {
      %extracted_slice = tensor.extract_slice %arg0[%arg3, %arg4, %arg5, 0] [1, 1, 32, 32] [1, 1, 1, 1] : tensor<1x2x64x32xf32> to tensor<1x1x32x32xf32>
      %extracted_slice_0 = tensor.extract_slice %arg1[%arg3, %arg4, 0, 0] [1, 1, 128, 32] [1, 1, 1, 1] : tensor<1x2x128x32xf32> to tensor<1x1x128x32xf32>
      %extracted_slice_1 = tensor.extract_slice %arg2[%arg3, %arg4, 0, 0] [1, 1, 128, 32] [1, 1, 1, 1] : tensor<1x2x128x32xf32> to tensor<1x1x128x32xf32>
      %2 = affine.apply #map()[%arg5]
      %3 = tensor.empty() : tensor<1x1x32x32xf32>
      %cst = arith.constant 0.000000e+00 : f32
      %4 = linalg.fill ins(%cst : f32) outs(%3 : tensor<1x1x32x32xf32>) -> tensor<1x1x32x32xf32>
      %5 = tensor.empty() : tensor<1x1x32xf32>
      %cst_2 = arith.constant 0xFF800000 : f32
      %6 = linalg.fill ins(%cst_2 : f32) outs(%5 : tensor<1x1x32xf32>) -> tensor<1x1x32xf32>
      %7 = tensor.empty() : tensor<1x1x32xf32>
      %cst_3 = arith.constant 0.000000e+00 : f32
      %8 = linalg.fill ins(%cst_3 : f32) outs(%7 : tensor<1x1x32xf32>) -> tensor<1x1x32xf32>
      %9 = affine.min #map1()[%arg5]
      %10 = affine.max #map2(%9)
      %c0 = arith.constant 0 : index
      %c128 = arith.constant 128 : index
      %c64 = arith.constant 64 : index
      %11:3 = scf.for %arg7 = %c0 to %10 step %c64 iter_args(%arg8 = %4, %arg9 = %6, %arg10 = %8) -> (tensor<1x1x32x32xf32>, tensor<1x1x32xf32>, tensor<1x1x32xf32>) {
        %extracted_slice_4 = tensor.extract_slice %extracted_slice[0, 0, 0, 0] [1, 1, 32, 32] [1, 1, 1, 1] : tensor<1x1x32x32xf32> to tensor<1x1x32x32xf32>
        %extracted_slice_5 = tensor.extract_slice %extracted_slice_0[0, 0, %arg7, 0] [1, 1, 64, 32] [1, 1, 1, 1] : tensor<1x1x128x32xf32> to tensor<1x1x64x32xf32>
        %extracted_slice_6 = tensor.extract_slice %extracted_slice_1[0, 0, %arg7, 0] [1, 1, 64, 32] [1, 1, 1, 1] : tensor<1x1x128x32xf32> to tensor<1x1x64x32xf32>
        %14 = affine.apply #map3()[%arg7, %arg5]
        %extracted_slice_7 = tensor.extract_slice %arg8[0, 0, 0, 0] [1, 1, 32, 32] [1, 1, 1, 1] : tensor<1x1x32x32xf32> to tensor<1x1x32x32xf32>
        %extracted_slice_8 = tensor.extract_slice %arg9[0, 0, 0] [1, 1, 32] [1, 1, 1] : tensor<1x1x32xf32> to tensor<1x1x32xf32>
        %extracted_slice_9 = tensor.extract_slice %arg10[0, 0, 0] [1, 1, 32] [1, 1, 1] : tensor<1x1x32xf32> to tensor<1x1x32xf32>
        %new_acc, %new_max, %new_sum = tx.online_attention %extracted_slice_4, %extracted_slice_5, %extracted_slice_6 scale = 0.176776692 causal causal_offset(%14) outs(%extracted_slice_7, %extracted_slice_8, %extracted_slice_9) : tensor<1x1x32x32xf32>, tensor<1x1x64x32xf32>, tensor<1x1x64x32xf32> -> tensor<1x1x32x32xf32>, tensor<1x1x32xf32>, tensor<1x1x32xf32>
        %inserted_slice = tensor.insert_slice %new_acc into %arg8[0, 0, 0, 0] [1, 1, 32, 32] [1, 1, 1, 1] : tensor<1x1x32x32xf32> into tensor<1x1x32x32xf32>
        %inserted_slice_10 = tensor.insert_slice %new_max into %arg9[0, 0, 0] [1, 1, 32] [1, 1, 1] : tensor<1x1x32xf32> into tensor<1x1x32xf32>
        %inserted_slice_11 = tensor.insert_slice %new_sum into %arg10[0, 0, 0] [1, 1, 32] [1, 1, 1] : tensor<1x1x32xf32> into tensor<1x1x32xf32>
        scf.yield %inserted_slice, %inserted_slice_10, %inserted_slice_11 : tensor<1x1x32x32xf32>, tensor<1x1x32xf32>, tensor<1x1x32xf32>
      }
      %12 = tensor.empty() : tensor<1x1x32x32xf32>
      %13 = linalg.generic {indexing_maps = [#map4, #map5, #map4], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} ins(%11#0, %11#2 : tensor<1x1x32x32xf32>, tensor<1x1x32xf32>) outs(%12 : tensor<1x1x32x32xf32>) attrs =  {tx.attention_epilogue = "output"} {
      ^bb0(%in: f32, %in_4: f32, %out: f32):
        %cst_5 = arith.constant 0.000000e+00 : f32
        %14 = arith.divf %in, %in_4 : f32
        %15 = arith.cmpf oeq, %in_4, %cst_5 : f32
        %16 = arith.select %15, %cst_5, %14 : f32
        linalg.yield %16 : f32
      } -> tensor<1x1x32x32xf32>
      scf.forall.in_parallel {
        tensor.parallel_insert_slice %13 into %arg6[%arg3, %arg4, %arg5, 0] [1, 1, 32, 32] [1, 1, 1, 1] : tensor<1x1x32x32xf32> into tensor<1x2x64x32xf32>
      }
    } {tx.gpu_strategy = #tx.simt_strategy<warps = 4, q_tile = 32, kv_tile = 64>}
    return %1 : tensor<1x2x64x32xf32>
  }
}
// F32MMA: map-attention-to-gpu-edited.mlir:207:10: error: tx-map-attention-to-gpu: its tx.gpu_strategy has no kernel for this problem on this chip: the mma family takes f16 or bf16, got f32 (remove the tx.gpu_strategy, or change it to what tx-attention-strategy writes for this chip on an op without one)
