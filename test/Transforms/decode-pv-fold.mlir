// The tensor-core decode kernel's P V (issue #38): each step's product is
// taken from a zero accumulator and folded into the running O with one
// fma.rn (O * alpha + P V), never accumulated in O itself: the f32
// additions of mma.sync truncate, and a running O in the accumulator lost
// an ulp fraction of the whole sum at every step (-0.21 ulp mean error on
// 131072 keys in one split; bench/RESULTS.md session 22). The mean signed
// error is checked on the GPU by harness/check.py ("drift decode" rows).
// RUN: tx-opt %s --pass-pipeline="builtin.module(func.func(tx-attention-to-gpu{decode-cluster=0}))" | FileCheck %s

// CHECK-LABEL: func.func @decode_gqa
// CHECK: %[[ZERO:.*]] = arith.constant dense<0.000000e+00> : vector<2x2xf32>
// CHECK: scf.for {{.*}} iter_args(
// (The scores Q K^T start from zero too.) The step's P V, after V's
// fragments (transposed ldmatrix):
// CHECK: nvgpu.ldmatrix {{.*}}transpose = true
// CHECK: %[[PV:.*]] = nvgpu.mma.sync(%{{.*}}, %{{.*}}, %[[ZERO]]) {mmaShape = [16, 8, 16]}
// CHECK-NEXT: math.fma %arg{{[0-9]+}}, %{{.*}}, %[[PV]] : vector<2x2xf32>
// CHECK-NOT: arith.mulf %arg{{[0-9]+}}, %{{.*}} : vector<2x2xf32>
// CHECK: scf.yield
func.func @decode_gqa(%q: tensor<?x32x1x128xf16>, %k: tensor<?x8x?x128xf16>, %v: tensor<?x8x?x128xf16>) -> tensor<?x32x1x128xf16> {
  %0 = tx.attention %q, %k, %v : tensor<?x32x1x128xf16>, tensor<?x8x?x128xf16>, tensor<?x8x?x128xf16> -> tensor<?x32x1x128xf16>
  return %0 : tensor<?x32x1x128xf16>
}
