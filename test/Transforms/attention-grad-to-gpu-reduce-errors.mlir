// tx-map-attention-grad-to-gpu: a dQ forall marked tx.grad_dq_reduce (dQ summed
// by the one-pass kernel of its dK/dV forall) whose dK/dV forall is not marked
// is a located error. The input is tx-tile-attention-grad's output for a marked
// op with the first forall's tx.grad_dq_reduce removed.
// RUN: not tx-opt %s --tx-map-attention-grad-to-gpu 2>&1 | FileCheck %s
// CHECK: error: tx-map-attention-grad-to-gpu: tx.grad_dq_reduce: no dK/dV forall of the same operands (with the attribute) in the block

#map = affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, d3)>
#map1 = affine_map<(d0, d1, d2, d3) -> (d0, d1, d2)>
#map2 = affine_map<(d0) -> (-d0 + 40, 64)>
#map3 = affine_map<(d0) -> (-d0 + 40, 128)>
module {
  func.func @lonely(%arg0: tensor<1x2x40x64xf16>, %arg1: tensor<1x2x40x64xf16>, %arg2: tensor<1x2x40xf32>) -> tensor<1x2x40x64xf16> {
    %0 = tensor.empty() : tensor<1x2x40xf32>
    %cst = arith.constant 0.000000e+00 : f32
    %1 = linalg.fill ins(%cst : f32) outs(%0 : tensor<1x2x40xf32>) -> tensor<1x2x40xf32>
    %2 = linalg.generic {indexing_maps = [#map, #map, #map1], iterator_types = ["parallel", "parallel", "parallel", "reduction"]} ins(%arg1, %arg1 : tensor<1x2x40x64xf16>, tensor<1x2x40x64xf16>) outs(%1 : tensor<1x2x40xf32>) {
    ^bb0(%in: f16, %in_3: f16, %out: f32):
      %17 = arith.extf %in_3 : f16 to f32
      %18 = arith.extf %in : f16 to f32
      %19 = arith.mulf %18, %17 : f32
      %20 = arith.addf %out, %19 : f32
      linalg.yield %20 : f32
    } -> tensor<1x2x40xf32>
    %3 = tensor.empty() : tensor<1x2x40x64xf32>
    %cst_0 = arith.constant 0.000000e+00 : f32
    %4 = linalg.fill ins(%cst_0 : f32) outs(%3 : tensor<1x2x40x64xf32>) -> tensor<1x2x40x64xf32>
    %5 = tensor.empty() : tensor<1x2x40x64xf32>
    %cst_1 = arith.constant 0.000000e+00 : f32
    %6 = linalg.fill ins(%cst_1 : f32) outs(%5 : tensor<1x2x40x64xf32>) -> tensor<1x2x40x64xf32>
    %7:2 = scf.forall (%arg3, %arg4, %arg5) in (1, 2, 1) shared_outs(%arg6 = %4, %arg7 = %6) -> (tensor<1x2x40x64xf32>, tensor<1x2x40x64xf32>) {
      %c128 = arith.constant 128 : index
      %17 = arith.muli %arg5, %c128 : index
      %c40 = arith.constant 40 : index
      %18 = arith.subi %c40, %17 : index
      %c128_3 = arith.constant 128 : index
      %19 = arith.minsi %c128_3, %18 : index
      %c40_4 = arith.constant 40 : index
      %c40_5 = arith.constant 40 : index
      %extracted_slice = tensor.extract_slice %arg0[%arg3, %arg4, 0, 0] [1, 1, 40, 64] [1, 1, 1, 1] : tensor<1x2x40x64xf16> to tensor<1x1x40x64xf16>
      %extracted_slice_6 = tensor.extract_slice %arg0[%arg3, %arg4, %17, 0] [1, 1, %19, 64] [1, 1, 1, 1] : tensor<1x2x40x64xf16> to tensor<1x1x?x64xf16>
      %extracted_slice_7 = tensor.extract_slice %arg0[%arg3, %arg4, %17, 0] [1, 1, %19, 64] [1, 1, 1, 1] : tensor<1x2x40x64xf16> to tensor<1x1x?x64xf16>
      %extracted_slice_8 = tensor.extract_slice %arg1[%arg3, %arg4, 0, 0] [1, 1, 40, 64] [1, 1, 1, 1] : tensor<1x2x40x64xf16> to tensor<1x1x40x64xf16>
      %extracted_slice_9 = tensor.extract_slice %arg2[%arg3, %arg4, 0] [1, 1, 40] [1, 1, 1] : tensor<1x2x40xf32> to tensor<1x1x40xf32>
      %extracted_slice_10 = tensor.extract_slice %2[%arg3, %arg4, 0] [1, 1, 40] [1, 1, 1] : tensor<1x2x40xf32> to tensor<1x1x40xf32>
      %extracted_slice_11 = tensor.extract_slice %arg6[%arg3, %arg4, %17, 0] [1, 1, %19, 64] [1, 1, 1, 1] : tensor<1x2x40x64xf32> to tensor<1x1x?x64xf32>
      %extracted_slice_12 = tensor.extract_slice %arg7[%arg3, %arg4, %17, 0] [1, 1, %19, 64] [1, 1, 1, 1] : tensor<1x2x40x64xf32> to tensor<1x1x?x64xf32>
      %c2 = arith.constant 2 : index
      %c0 = arith.constant 0 : index
      %c40_13 = arith.constant 40 : index
      %c64 = arith.constant 64 : index
      %20:2 = scf.for %arg8 = %c0 to %c40_13 step %c64 iter_args(%arg9 = %extracted_slice_11, %arg10 = %extracted_slice_12) -> (tensor<1x1x?x64xf32>, tensor<1x1x?x64xf32>) {
        %c40_14 = arith.constant 40 : index
        %21 = affine.min #map2(%arg8)
        %extracted_slice_15 = tensor.extract_slice %extracted_slice[0, 0, %arg8, 0] [1, 1, %21, 64] [1, 1, 1, 1] : tensor<1x1x40x64xf16> to tensor<1x1x?x64xf16>
        %extracted_slice_16 = tensor.extract_slice %extracted_slice_6[0, 0, 0, 0] [1, 1, %19, 64] [1, 1, 1, 1] : tensor<1x1x?x64xf16> to tensor<1x1x?x64xf16>
        %extracted_slice_17 = tensor.extract_slice %extracted_slice_7[0, 0, 0, 0] [1, 1, %19, 64] [1, 1, 1, 1] : tensor<1x1x?x64xf16> to tensor<1x1x?x64xf16>
        %extracted_slice_18 = tensor.extract_slice %extracted_slice_8[0, 0, %arg8, 0] [1, 1, %21, 64] [1, 1, 1, 1] : tensor<1x1x40x64xf16> to tensor<1x1x?x64xf16>
        %extracted_slice_19 = tensor.extract_slice %extracted_slice_9[0, 0, %arg8] [1, 1, %21] [1, 1, 1] : tensor<1x1x40xf32> to tensor<1x1x?xf32>
        %extracted_slice_20 = tensor.extract_slice %extracted_slice_10[0, 0, %arg8] [1, 1, %21] [1, 1, 1] : tensor<1x1x40xf32> to tensor<1x1x?xf32>
        %extracted_slice_21 = tensor.extract_slice %arg9[0, 0, 0, 0] [1, 1, %19, 64] [1, 1, 1, 1] : tensor<1x1x?x64xf32> to tensor<1x1x?x64xf32>
        %extracted_slice_22 = tensor.extract_slice %arg10[0, 0, 0, 0] [1, 1, %19, 64] [1, 1, 1, 1] : tensor<1x1x?x64xf32> to tensor<1x1x?x64xf32>
        %grad_key, %grad_value = tx.attention_dkdv %extracted_slice_15, %extracted_slice_16, %extracted_slice_17, %extracted_slice_18, %extracted_slice_19, %extracted_slice_20 scale = 1.250000e-01 outs(%extracted_slice_21, %extracted_slice_22) : tensor<1x1x?x64xf16>, tensor<1x1x?x64xf16>, tensor<1x1x?x64xf16>, tensor<1x1x?x64xf16>, tensor<1x1x?xf32> -> tensor<1x1x?x64xf32>, tensor<1x1x?x64xf32>
        %inserted_slice = tensor.insert_slice %grad_key into %arg9[0, 0, 0, 0] [1, 1, %19, 64] [1, 1, 1, 1] : tensor<1x1x?x64xf32> into tensor<1x1x?x64xf32>
        %inserted_slice_23 = tensor.insert_slice %grad_value into %arg10[0, 0, 0, 0] [1, 1, %19, 64] [1, 1, 1, 1] : tensor<1x1x?x64xf32> into tensor<1x1x?x64xf32>
        scf.yield %inserted_slice, %inserted_slice_23 : tensor<1x1x?x64xf32>, tensor<1x1x?x64xf32>
      }
      scf.forall.in_parallel {
        tensor.parallel_insert_slice %20#0 into %arg6[%arg3, %arg4, %17, 0] [1, 1, %19, 64] [1, 1, 1, 1] : tensor<1x1x?x64xf32> into tensor<1x2x40x64xf32>
        tensor.parallel_insert_slice %20#1 into %arg7[%arg3, %arg4, %17, 0] [1, 1, %19, 64] [1, 1, 1, 1] : tensor<1x1x?x64xf32> into tensor<1x2x40x64xf32>
      }
    } {tx.grad_tiles = array<i64: 64, 128>}
    %8 = tensor.empty() : tensor<1x2x40x64xf32>
    %cst_2 = arith.constant 0.000000e+00 : f32
    %9 = linalg.fill ins(%cst_2 : f32) outs(%8 : tensor<1x2x40x64xf32>) -> tensor<1x2x40x64xf32>
    %10 = scf.forall (%arg3, %arg4, %arg5) in (1, 2, 1) shared_outs(%arg6 = %9) -> (tensor<1x2x40x64xf32>) {
      %c64 = arith.constant 64 : index
      %17 = arith.muli %arg5, %c64 : index
      %c40 = arith.constant 40 : index
      %18 = arith.subi %c40, %17 : index
      %c64_3 = arith.constant 64 : index
      %19 = arith.minsi %c64_3, %18 : index
      %c40_4 = arith.constant 40 : index
      %c40_5 = arith.constant 40 : index
      %extracted_slice = tensor.extract_slice %arg0[%arg3, %arg4, %17, 0] [1, 1, %19, 64] [1, 1, 1, 1] : tensor<1x2x40x64xf16> to tensor<1x1x?x64xf16>
      %extracted_slice_6 = tensor.extract_slice %arg0[%arg3, %arg4, 0, 0] [1, 1, 40, 64] [1, 1, 1, 1] : tensor<1x2x40x64xf16> to tensor<1x1x40x64xf16>
      %extracted_slice_7 = tensor.extract_slice %arg0[%arg3, %arg4, 0, 0] [1, 1, 40, 64] [1, 1, 1, 1] : tensor<1x2x40x64xf16> to tensor<1x1x40x64xf16>
      %extracted_slice_8 = tensor.extract_slice %arg1[%arg3, %arg4, %17, 0] [1, 1, %19, 64] [1, 1, 1, 1] : tensor<1x2x40x64xf16> to tensor<1x1x?x64xf16>
      %extracted_slice_9 = tensor.extract_slice %arg2[%arg3, %arg4, %17] [1, 1, %19] [1, 1, 1] : tensor<1x2x40xf32> to tensor<1x1x?xf32>
      %extracted_slice_10 = tensor.extract_slice %2[%arg3, %arg4, %17] [1, 1, %19] [1, 1, 1] : tensor<1x2x40xf32> to tensor<1x1x?xf32>
      %extracted_slice_11 = tensor.extract_slice %arg6[%arg3, %arg4, %17, 0] [1, 1, %19, 64] [1, 1, 1, 1] : tensor<1x2x40x64xf32> to tensor<1x1x?x64xf32>
      %c2 = arith.constant 2 : index
      %c0 = arith.constant 0 : index
      %c40_12 = arith.constant 40 : index
      %c128 = arith.constant 128 : index
      %20 = scf.for %arg7 = %c0 to %c40_12 step %c128 iter_args(%arg8 = %extracted_slice_11) -> (tensor<1x1x?x64xf32>) {
        %c40_13 = arith.constant 40 : index
        %21 = affine.min #map3(%arg7)
        %extracted_slice_14 = tensor.extract_slice %extracted_slice[0, 0, 0, 0] [1, 1, %19, 64] [1, 1, 1, 1] : tensor<1x1x?x64xf16> to tensor<1x1x?x64xf16>
        %extracted_slice_15 = tensor.extract_slice %extracted_slice_6[0, 0, %arg7, 0] [1, 1, %21, 64] [1, 1, 1, 1] : tensor<1x1x40x64xf16> to tensor<1x1x?x64xf16>
        %extracted_slice_16 = tensor.extract_slice %extracted_slice_7[0, 0, %arg7, 0] [1, 1, %21, 64] [1, 1, 1, 1] : tensor<1x1x40x64xf16> to tensor<1x1x?x64xf16>
        %extracted_slice_17 = tensor.extract_slice %extracted_slice_8[0, 0, 0, 0] [1, 1, %19, 64] [1, 1, 1, 1] : tensor<1x1x?x64xf16> to tensor<1x1x?x64xf16>
        %extracted_slice_18 = tensor.extract_slice %extracted_slice_9[0, 0, 0] [1, 1, %19] [1, 1, 1] : tensor<1x1x?xf32> to tensor<1x1x?xf32>
        %extracted_slice_19 = tensor.extract_slice %extracted_slice_10[0, 0, 0] [1, 1, %19] [1, 1, 1] : tensor<1x1x?xf32> to tensor<1x1x?xf32>
        %extracted_slice_20 = tensor.extract_slice %arg8[0, 0, 0, 0] [1, 1, %19, 64] [1, 1, 1, 1] : tensor<1x1x?x64xf32> to tensor<1x1x?x64xf32>
        %grad_query = tx.attention_dq %extracted_slice_14, %extracted_slice_15, %extracted_slice_16, %extracted_slice_17, %extracted_slice_18, %extracted_slice_19 scale = 1.250000e-01 outs(%extracted_slice_20) : tensor<1x1x?x64xf16>, tensor<1x1x?x64xf16>, tensor<1x1x?x64xf16>, tensor<1x1x?x64xf16>, tensor<1x1x?xf32> -> tensor<1x1x?x64xf32>
        %inserted_slice = tensor.insert_slice %grad_query into %arg8[0, 0, 0, 0] [1, 1, %19, 64] [1, 1, 1, 1] : tensor<1x1x?x64xf32> into tensor<1x1x?x64xf32>
        scf.yield %inserted_slice : tensor<1x1x?x64xf32>
      }
      scf.forall.in_parallel {
        tensor.parallel_insert_slice %20 into %arg6[%arg3, %arg4, %17, 0] [1, 1, %19, 64] [1, 1, 1, 1] : tensor<1x1x?x64xf32> into tensor<1x2x40x64xf32>
      }
    } {tx.grad_dq_reduce, tx.grad_tiles = array<i64: 64, 128>}
    %11 = tensor.empty() : tensor<1x2x40x64xf16>
    %12 = linalg.generic {indexing_maps = [#map, #map], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} ins(%10 : tensor<1x2x40x64xf32>) outs(%11 : tensor<1x2x40x64xf16>) {
    ^bb0(%in: f32, %out: f16):
      %17 = arith.truncf %in : f32 to f16
      linalg.yield %17 : f16
    } -> tensor<1x2x40x64xf16>
    %13 = tensor.empty() : tensor<1x2x40x64xf16>
    %14 = linalg.generic {indexing_maps = [#map, #map], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} ins(%7#0 : tensor<1x2x40x64xf32>) outs(%13 : tensor<1x2x40x64xf16>) {
    ^bb0(%in: f32, %out: f16):
      %17 = arith.truncf %in : f32 to f16
      linalg.yield %17 : f16
    } -> tensor<1x2x40x64xf16>
    %15 = tensor.empty() : tensor<1x2x40x64xf16>
    %16 = linalg.generic {indexing_maps = [#map, #map], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} ins(%7#1 : tensor<1x2x40x64xf32>) outs(%15 : tensor<1x2x40x64xf16>) {
    ^bb0(%in: f32, %out: f16):
      %17 = arith.truncf %in : f32 to f16
      linalg.yield %17 : f16
    } -> tensor<1x2x40x64xf16>
    return %12 : tensor<1x2x40x64xf16>
  }
}

