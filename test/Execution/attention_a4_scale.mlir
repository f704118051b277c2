// CASES.md A4: the default scale is 1/sqrt(D), with D the head dimension of
// Q and K (never Dv). Sq=1, Sk=2, q = k0 = [2,0,0,0], k1 = 0, v0 = [1,0...],
// v1 = [0,1,0...]: the output is the softmax weights (w0, w1).
//   no scale (1/2): scores [2, 0] -> [0.880797, 0.119203]
//   scale = 1.0:    scores [4, 0] -> [0.982014, 0.017986]
//   D=4, Dv=8, no scale -> [0.880797, 0.119203, 0, 0, 0, 0, 0, 0]
//   dynamic D (scale computed at run time) -> [0.880797, 0.119203]
//
// RUN: tx-opt %s --tx-cpu-pipeline | %run_cpu | FileCheck %s

func.func private @printMemrefF32(tensor<*xf32>)

func.func @dflt(%q: tensor<1x1x1x4xf32>, %k: tensor<1x1x2x4xf32>, %v: tensor<1x1x2x2xf32>) -> tensor<1x1x1x2xf32> {
  %o = tx.attention %q, %k, %v
      : tensor<1x1x1x4xf32>, tensor<1x1x2x4xf32>, tensor<1x1x2x2xf32> -> tensor<1x1x1x2xf32>
  return %o : tensor<1x1x1x2xf32>
}

func.func @one(%q: tensor<1x1x1x4xf32>, %k: tensor<1x1x2x4xf32>, %v: tensor<1x1x2x2xf32>) -> tensor<1x1x1x2xf32> {
  %o = tx.attention %q, %k, %v scale = 1.0
      : tensor<1x1x1x4xf32>, tensor<1x1x2x4xf32>, tensor<1x1x2x2xf32> -> tensor<1x1x1x2xf32>
  return %o : tensor<1x1x1x2xf32>
}

func.func @dv8(%q: tensor<1x1x1x4xf32>, %k: tensor<1x1x2x4xf32>, %v: tensor<1x1x2x8xf32>) -> tensor<1x1x1x8xf32> {
  %o = tx.attention %q, %k, %v
      : tensor<1x1x1x4xf32>, tensor<1x1x2x4xf32>, tensor<1x1x2x8xf32> -> tensor<1x1x1x8xf32>
  return %o : tensor<1x1x1x8xf32>
}

func.func @dyn(%q: tensor<?x?x?x?xf32>, %k: tensor<?x?x?x?xf32>, %v: tensor<?x?x?x?xf32>) -> tensor<?x?x?x?xf32> {
  %o = tx.attention %q, %k, %v
      : tensor<?x?x?x?xf32>, tensor<?x?x?x?xf32>, tensor<?x?x?x?xf32> -> tensor<?x?x?x?xf32>
  return %o : tensor<?x?x?x?xf32>
}

func.func @main() {
  %q = arith.constant dense<[[[[2.0, 0.0, 0.0, 0.0]]]]> : tensor<1x1x1x4xf32>
  %k = arith.constant dense<[[[[2.0, 0.0, 0.0, 0.0], [0.0, 0.0, 0.0, 0.0]]]]> : tensor<1x1x2x4xf32>
  %v = arith.constant dense<[[[[1.0, 0.0], [0.0, 1.0]]]]> : tensor<1x1x2x2xf32>
  %v8 = arith.constant dense<[[[[1.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0],
                                [0.0, 1.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0]]]]> : tensor<1x1x2x8xf32>

  // CHECK-LABEL: sizes = [1, 1, 1, 2]
  // CHECK-NEXT: {{\[\[\[\[}}0.880797,{{ +}}0.119203]]]]
  %o0 = call @dflt(%q, %k, %v) : (tensor<1x1x1x4xf32>, tensor<1x1x2x4xf32>, tensor<1x1x2x2xf32>) -> tensor<1x1x1x2xf32>
  %u0 = tensor.cast %o0 : tensor<1x1x1x2xf32> to tensor<*xf32>
  call @printMemrefF32(%u0) : (tensor<*xf32>) -> ()

  // CHECK-LABEL: sizes = [1, 1, 1, 2]
  // CHECK-NEXT: {{\[\[\[\[}}0.982014,{{ +}}0.017986{{[0-9]*}}]]]]
  %o1 = call @one(%q, %k, %v) : (tensor<1x1x1x4xf32>, tensor<1x1x2x4xf32>, tensor<1x1x2x2xf32>) -> tensor<1x1x1x2xf32>
  %u1 = tensor.cast %o1 : tensor<1x1x1x2xf32> to tensor<*xf32>
  call @printMemrefF32(%u1) : (tensor<*xf32>) -> ()

  // CHECK-LABEL: sizes = [1, 1, 1, 8]
  // CHECK-NEXT: {{\[\[\[\[}}0.880797,{{ +}}0.119203,{{ +}}0,{{ +}}0,{{ +}}0,{{ +}}0,{{ +}}0,{{ +}}0]]]]
  %o2 = call @dv8(%q, %k, %v8) : (tensor<1x1x1x4xf32>, tensor<1x1x2x4xf32>, tensor<1x1x2x8xf32>) -> tensor<1x1x1x8xf32>
  %u2 = tensor.cast %o2 : tensor<1x1x1x8xf32> to tensor<*xf32>
  call @printMemrefF32(%u2) : (tensor<*xf32>) -> ()

  // CHECK-LABEL: sizes = [1, 1, 1, 8]
  // CHECK-NEXT: {{\[\[\[\[}}0.880797,{{ +}}0.119203,{{ +}}0,{{ +}}0,{{ +}}0,{{ +}}0,{{ +}}0,{{ +}}0]]]]
  %qd = tensor.cast %q : tensor<1x1x1x4xf32> to tensor<?x?x?x?xf32>
  %kd = tensor.cast %k : tensor<1x1x2x4xf32> to tensor<?x?x?x?xf32>
  %vd = tensor.cast %v8 : tensor<1x1x2x8xf32> to tensor<?x?x?x?xf32>
  %o3 = call @dyn(%qd, %kd, %vd) : (tensor<?x?x?x?xf32>, tensor<?x?x?x?xf32>, tensor<?x?x?x?xf32>) -> tensor<?x?x?x?xf32>
  %u3 = tensor.cast %o3 : tensor<?x?x?x?xf32> to tensor<*xf32>
  call @printMemrefF32(%u3) : (tensor<*xf32>) -> ()
  return
}
