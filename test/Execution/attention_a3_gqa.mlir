// CASES.md A3: grouped-query head mapping. Query head h reads K/V head
// h / (H / Hkv). Sq = Sk = 1 (the single key weighs 1), D = Dv = 2.
//   H=4, Hkv=2, V head 0 = [1,1], head 1 = [2,2] -> [1,1] [1,1] [2,2] [2,2]
//   H=4, Hkv=1, V = [3,-1]                       -> every head [3,-1]
//   H=6, Hkv=3, V heads [1,1] [2,2] [3,3], B=2 (batch 1 negated)
//                                                -> [1,1] [1,1] [2,2] [2,2] [3,3] [3,3]
// The first and the last case again through a fully dynamic function (G =
// H / Hkv computed at run time).
// (H=6, Hkv=4 is a verifier error, tested in test/Dialect.)
//
// RUN: tx-opt %s --tx-cpu-pipeline | %run_cpu | FileCheck %s

func.func private @printMemrefF32(tensor<*xf32>)

func.func @gqa2(%q: tensor<1x4x1x2xf32>, %k: tensor<1x2x1x2xf32>, %v: tensor<1x2x1x2xf32>) -> tensor<1x4x1x2xf32> {
  %o = tx.attention %q, %k, %v
      : tensor<1x4x1x2xf32>, tensor<1x2x1x2xf32>, tensor<1x2x1x2xf32> -> tensor<1x4x1x2xf32>
  return %o : tensor<1x4x1x2xf32>
}

func.func @mqa(%q: tensor<1x4x1x2xf32>, %k: tensor<1x1x1x2xf32>, %v: tensor<1x1x1x2xf32>) -> tensor<1x4x1x2xf32> {
  %o = tx.attention %q, %k, %v
      : tensor<1x4x1x2xf32>, tensor<1x1x1x2xf32>, tensor<1x1x1x2xf32> -> tensor<1x4x1x2xf32>
  return %o : tensor<1x4x1x2xf32>
}

func.func @gqa3(%q: tensor<2x6x1x2xf32>, %k: tensor<2x3x1x2xf32>, %v: tensor<2x3x1x2xf32>) -> tensor<2x6x1x2xf32> {
  %o = tx.attention %q, %k, %v
      : tensor<2x6x1x2xf32>, tensor<2x3x1x2xf32>, tensor<2x3x1x2xf32> -> tensor<2x6x1x2xf32>
  return %o : tensor<2x6x1x2xf32>
}

func.func @dyn(%q: tensor<?x?x?x?xf32>, %k: tensor<?x?x?x?xf32>, %v: tensor<?x?x?x?xf32>) -> tensor<?x?x?x?xf32> {
  %o = tx.attention %q, %k, %v
      : tensor<?x?x?x?xf32>, tensor<?x?x?x?xf32>, tensor<?x?x?x?xf32> -> tensor<?x?x?x?xf32>
  return %o : tensor<?x?x?x?xf32>
}

func.func @main() {
  %q = arith.constant dense<[[[[0.5, -1.0]], [[2.0, 1.0]], [[-3.0, 0.25]], [[1.0, 1.0]]]]> : tensor<1x4x1x2xf32>
  %k = arith.constant dense<[[[[1.0, 2.0]], [[-1.0, 0.5]]]]> : tensor<1x2x1x2xf32>
  %v = arith.constant dense<[[[[1.0, 1.0]], [[2.0, 2.0]]]]> : tensor<1x2x1x2xf32>
  // CHECK-LABEL: sizes = [1, 4, 1, 2]
  // CHECK-NEXT: {{\[\[\[\[}}1,{{ +}}1]],
  // CHECK-NEXT: {{\[\[}}1,{{ +}}1]],
  // CHECK-NEXT: {{\[\[}}2,{{ +}}2]],
  // CHECK-NEXT: {{\[\[}}2,{{ +}}2]]]]
  %o = call @gqa2(%q, %k, %v) : (tensor<1x4x1x2xf32>, tensor<1x2x1x2xf32>, tensor<1x2x1x2xf32>) -> tensor<1x4x1x2xf32>
  %u = tensor.cast %o : tensor<1x4x1x2xf32> to tensor<*xf32>
  call @printMemrefF32(%u) : (tensor<*xf32>) -> ()

  %k1 = arith.constant dense<[[[[1.0, 2.0]]]]> : tensor<1x1x1x2xf32>
  %v1 = arith.constant dense<[[[[3.0, -1.0]]]]> : tensor<1x1x1x2xf32>
  // CHECK-LABEL: sizes = [1, 4, 1, 2]
  // CHECK-NEXT: {{\[\[\[\[}}3,{{ +}}-1]],
  // CHECK-NEXT: {{\[\[}}3,{{ +}}-1]],
  // CHECK-NEXT: {{\[\[}}3,{{ +}}-1]],
  // CHECK-NEXT: {{\[\[}}3,{{ +}}-1]]]]
  %o1 = call @mqa(%q, %k1, %v1) : (tensor<1x4x1x2xf32>, tensor<1x1x1x2xf32>, tensor<1x1x1x2xf32>) -> tensor<1x4x1x2xf32>
  %u1 = tensor.cast %o1 : tensor<1x4x1x2xf32> to tensor<*xf32>
  call @printMemrefF32(%u1) : (tensor<*xf32>) -> ()

  %q3 = arith.constant dense<0.5> : tensor<2x6x1x2xf32>
  %k3 = arith.constant dense<1.0> : tensor<2x3x1x2xf32>
  %v3 = arith.constant dense<[[[[1.0, 1.0]], [[2.0, 2.0]], [[3.0, 3.0]]],
                              [[[-1.0, -1.0]], [[-2.0, -2.0]], [[-3.0, -3.0]]]]> : tensor<2x3x1x2xf32>
  // CHECK-LABEL: sizes = [2, 6, 1, 2]
  // CHECK-NEXT: {{\[\[\[\[}}1,{{ +}}1]],
  // CHECK-NEXT: {{\[\[}}1,{{ +}}1]],
  // CHECK-NEXT: {{\[\[}}2,{{ +}}2]],
  // CHECK-NEXT: {{\[\[}}2,{{ +}}2]],
  // CHECK-NEXT: {{\[\[}}3,{{ +}}3]],
  // CHECK-NEXT: {{\[\[}}3,{{ +}}3]]],
  // CHECK-NEXT: {{\[\[\[}}-1,{{ +}}-1]],
  // CHECK-NEXT: {{\[\[}}-1,{{ +}}-1]],
  // CHECK-NEXT: {{\[\[}}-2,{{ +}}-2]],
  // CHECK-NEXT: {{\[\[}}-2,{{ +}}-2]],
  // CHECK-NEXT: {{\[\[}}-3,{{ +}}-3]],
  // CHECK-NEXT: {{\[\[}}-3,{{ +}}-3]]]]
  %o3 = call @gqa3(%q3, %k3, %v3) : (tensor<2x6x1x2xf32>, tensor<2x3x1x2xf32>, tensor<2x3x1x2xf32>) -> tensor<2x6x1x2xf32>
  %u3 = tensor.cast %o3 : tensor<2x6x1x2xf32> to tensor<*xf32>
  call @printMemrefF32(%u3) : (tensor<*xf32>) -> ()

  // CHECK-LABEL: sizes = [1, 4, 1, 2]
  // CHECK-NEXT: {{\[\[\[\[}}1,{{ +}}1]],
  // CHECK-NEXT: {{\[\[}}1,{{ +}}1]],
  // CHECK-NEXT: {{\[\[}}2,{{ +}}2]],
  // CHECK-NEXT: {{\[\[}}2,{{ +}}2]]]]
  %qd = tensor.cast %q : tensor<1x4x1x2xf32> to tensor<?x?x?x?xf32>
  %kd = tensor.cast %k : tensor<1x2x1x2xf32> to tensor<?x?x?x?xf32>
  %vd = tensor.cast %v : tensor<1x2x1x2xf32> to tensor<?x?x?x?xf32>
  %od = call @dyn(%qd, %kd, %vd) : (tensor<?x?x?x?xf32>, tensor<?x?x?x?xf32>, tensor<?x?x?x?xf32>) -> tensor<?x?x?x?xf32>
  %ud = tensor.cast %od : tensor<?x?x?x?xf32> to tensor<*xf32>
  call @printMemrefF32(%ud) : (tensor<*xf32>) -> ()

  // CHECK-LABEL: sizes = [2, 6, 1, 2]
  // CHECK-NEXT: {{\[\[\[\[}}1,{{ +}}1]],
  // CHECK-NEXT: {{\[\[}}1,{{ +}}1]],
  // CHECK-NEXT: {{\[\[}}2,{{ +}}2]],
  // CHECK-NEXT: {{\[\[}}2,{{ +}}2]],
  // CHECK-NEXT: {{\[\[}}3,{{ +}}3]],
  // CHECK-NEXT: {{\[\[}}3,{{ +}}3]]],
  // CHECK-NEXT: {{\[\[\[}}-1,{{ +}}-1]],
  // CHECK-NEXT: {{\[\[}}-1,{{ +}}-1]],
  // CHECK-NEXT: {{\[\[}}-2,{{ +}}-2]],
  // CHECK-NEXT: {{\[\[}}-2,{{ +}}-2]],
  // CHECK-NEXT: {{\[\[}}-3,{{ +}}-3]],
  // CHECK-NEXT: {{\[\[}}-3,{{ +}}-3]]]]
  %q3d = tensor.cast %q3 : tensor<2x6x1x2xf32> to tensor<?x?x?x?xf32>
  %k3d = tensor.cast %k3 : tensor<2x3x1x2xf32> to tensor<?x?x?x?xf32>
  %v3d = tensor.cast %v3 : tensor<2x3x1x2xf32> to tensor<?x?x?x?xf32>
  %o3d = call @dyn(%q3d, %k3d, %v3d) : (tensor<?x?x?x?xf32>, tensor<?x?x?x?xf32>, tensor<?x?x?x?xf32>) -> tensor<?x?x?x?xf32>
  %u3d = tensor.cast %o3d : tensor<?x?x?x?xf32> to tensor<*xf32>
  call @printMemrefF32(%u3d) : (tensor<*xf32>) -> ()
  return
}
