// tx-map-attention-to-gpu on tiled IR whose tx.online_attention carries a
// score_mod (the output of tx-attention-strategy + tx-tile-attention for
// f32 B=1 H=2 Sq=64 Sk=128 D=32 with ALiBi-like per-head biases, then
// edited): the captured operand is defined inside the scf.forall, which
// the kernel's launch replaces, so the mapping refuses it.
// RUN: not tx-opt %s --tx-stage-attention --tx-map-attention-to-gpu="sm=90" -o /dev/null 2>&1 | FileCheck %s
#map = affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, d3)>
#map1 = affine_map<(d0, d1, d2, d3) -> (d0, d1, d2)>
module {
  func.func @f(%arg0: tensor<1x2x64x32xf32>, %arg1: tensor<1x2x128x32xf32>, %arg2: tensor<1x2x128x32xf32>, %arg3: tensor<2xf32>) -> tensor<1x2x64x32xf32> {
    %0 = tensor.empty() : tensor<1x2x64x32xf32>
// CHECK: mods-map-errors.mlir:[[@LINE+1]]:{{[0-9]+}}: error: tx-map-attention-to-gpu: the operands captured by score_mod and mask_mod must be defined outside the scf.forall (the kernel's launch replaces it)
    %1 = scf.forall (%arg4, %arg5, %arg6) = (0, 0, 0) to (1, 2, 64) step (1, 1, 32) shared_outs(%arg7 = %0) -> (tensor<1x2x64x32xf32>) {
      %inner = tensor.empty() : tensor<2xf32>
      %extracted_slice = tensor.extract_slice %arg0[%arg4, %arg5, %arg6, 0] [1, 1, 32, 32] [1, 1, 1, 1] : tensor<1x2x64x32xf32> to tensor<1x1x32x32xf32>
      %extracted_slice_0 = tensor.extract_slice %arg1[%arg4, %arg5, 0, 0] [1, 1, 128, 32] [1, 1, 1, 1] : tensor<1x2x128x32xf32> to tensor<1x1x128x32xf32>
      %extracted_slice_1 = tensor.extract_slice %arg2[%arg4, %arg5, 0, 0] [1, 1, 128, 32] [1, 1, 1, 1] : tensor<1x2x128x32xf32> to tensor<1x1x128x32xf32>
      %2 = tensor.empty() : tensor<1x1x32x32xf32>
      %cst = arith.constant 0.000000e+00 : f32
      %3 = linalg.fill ins(%cst : f32) outs(%2 : tensor<1x1x32x32xf32>) -> tensor<1x1x32x32xf32>
      %4 = tensor.empty() : tensor<1x1x32xf32>
      %cst_2 = arith.constant 0xFF800000 : f32
      %5 = linalg.fill ins(%cst_2 : f32) outs(%4 : tensor<1x1x32xf32>) -> tensor<1x1x32xf32>
      %6 = tensor.empty() : tensor<1x1x32xf32>
      %cst_3 = arith.constant 0.000000e+00 : f32
      %7 = linalg.fill ins(%cst_3 : f32) outs(%6 : tensor<1x1x32xf32>) -> tensor<1x1x32xf32>
      %c0 = arith.constant 0 : index
      %c0_4 = arith.constant 0 : index
      %c128 = arith.constant 128 : index
      %c64 = arith.constant 64 : index
      %8:3 = scf.for %arg8 = %c0_4 to %c128 step %c64 iter_args(%arg9 = %3, %arg10 = %5, %arg11 = %7) -> (tensor<1x1x32x32xf32>, tensor<1x1x32xf32>, tensor<1x1x32xf32>) {
        %extracted_slice_5 = tensor.extract_slice %extracted_slice[0, 0, 0, 0] [1, 1, 32, 32] [1, 1, 1, 1] : tensor<1x1x32x32xf32> to tensor<1x1x32x32xf32>
        %extracted_slice_6 = tensor.extract_slice %extracted_slice_0[0, 0, %arg8, 0] [1, 1, 64, 32] [1, 1, 1, 1] : tensor<1x1x128x32xf32> to tensor<1x1x64x32xf32>
        %extracted_slice_7 = tensor.extract_slice %extracted_slice_1[0, 0, %arg8, 0] [1, 1, 64, 32] [1, 1, 1, 1] : tensor<1x1x128x32xf32> to tensor<1x1x64x32xf32>
        %extracted_slice_8 = tensor.extract_slice %arg9[0, 0, 0, 0] [1, 1, 32, 32] [1, 1, 1, 1] : tensor<1x1x32x32xf32> to tensor<1x1x32x32xf32>
        %extracted_slice_9 = tensor.extract_slice %arg10[0, 0, 0] [1, 1, 32] [1, 1, 1] : tensor<1x1x32xf32> to tensor<1x1x32xf32>
        %extracted_slice_10 = tensor.extract_slice %arg11[0, 0, 0] [1, 1, 32] [1, 1, 1] : tensor<1x1x32xf32> to tensor<1x1x32xf32>
        %new_acc, %new_max, %new_sum = tx.online_attention %extracted_slice_5, %extracted_slice_6, %extracted_slice_7 scale = 0.176776692 mod_offsets(%arg4, %arg5, %arg6, %arg8) score_mod(%inner : tensor<2xf32>) {
        ^bb0(%arg12: f32, %arg13: index, %arg14: index, %arg15: index, %arg16: index, %arg17: tensor<2xf32>):
          %extracted = tensor.extract %arg17[%arg14] : tensor<2xf32>
          %11 = arith.addf %arg12, %extracted : f32
          tx.yield %11 : f32
        } outs(%extracted_slice_8, %extracted_slice_9, %extracted_slice_10) : tensor<1x1x32x32xf32>, tensor<1x1x64x32xf32>, tensor<1x1x64x32xf32> -> tensor<1x1x32x32xf32>, tensor<1x1x32xf32>, tensor<1x1x32xf32>
        %inserted_slice = tensor.insert_slice %new_acc into %arg9[0, 0, 0, 0] [1, 1, 32, 32] [1, 1, 1, 1] : tensor<1x1x32x32xf32> into tensor<1x1x32x32xf32>
        %inserted_slice_11 = tensor.insert_slice %new_max into %arg10[0, 0, 0] [1, 1, 32] [1, 1, 1] : tensor<1x1x32xf32> into tensor<1x1x32xf32>
        %inserted_slice_12 = tensor.insert_slice %new_sum into %arg11[0, 0, 0] [1, 1, 32] [1, 1, 1] : tensor<1x1x32xf32> into tensor<1x1x32xf32>
        scf.yield %inserted_slice, %inserted_slice_11, %inserted_slice_12 : tensor<1x1x32x32xf32>, tensor<1x1x32xf32>, tensor<1x1x32xf32>
      }
      %9 = tensor.empty() : tensor<1x1x32x32xf32>
      %10 = linalg.generic {indexing_maps = [#map, #map1, #map], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} ins(%8#0, %8#2 : tensor<1x1x32x32xf32>, tensor<1x1x32xf32>) outs(%9 : tensor<1x1x32x32xf32>) attrs =  {tx.attention_epilogue = "output"} {
      ^bb0(%in: f32, %in_5: f32, %out: f32):
        %cst_6 = arith.constant 0.000000e+00 : f32
        %11 = arith.divf %in, %in_5 : f32
        %12 = arith.cmpf oeq, %in_5, %cst_6 : f32
        %13 = arith.select %12, %cst_6, %11 : f32
        linalg.yield %13 : f32
      } -> tensor<1x1x32x32xf32>
      scf.forall.in_parallel {
        tensor.parallel_insert_slice %10 into %arg7[%arg4, %arg5, %arg6, 0] [1, 1, 32, 32] [1, 1, 1, 1] : tensor<1x1x32x32xf32> into tensor<1x2x64x32xf32>
      }
    } {tx.gpu_strategy = #tx.simt_strategy<warps = 4, q_tile = 32, kv_tile = 64>}
    return %1 : tensor<1x2x64x32xf32>
  }
}

