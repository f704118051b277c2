// CASES.md A5: zero-size dimensions, static shapes (some also through a fully
// dynamic function). No crash; empty results stay empty; Sk = 0 (no visible
// key) gives zeros. (B,H,Sq,Sk,D,Dv):
//   (0,2,4,4,8,8) -> empty   (1,2,0,4,8,8) -> empty
//   (1,2,4,0,8,8) -> zeros   (1,2,4,4,8,0) -> empty
// plus H = 0 (Hkv = 1) -> empty, D = 0 with an explicit scale (every score is
// 0: the mean of V), and softmax on 0x16 and 4x0 (empty).
//
// RUN: tx-opt %s --tx-cpu-pipeline | %run_cpu | FileCheck %s
// The same through the tiled attention path (statically empty problems are
// resolved without loops; dynamic ones run zero-trip loops):
// RUN: tx-opt %s --tx-cpu-pipeline="attention=tiled" | %run_cpu | FileCheck %s
// RUN: tx-opt %s --tx-cpu-pipeline="attention=tiled attention-q-tile=3 attention-kv-tile=1" | %run_cpu | FileCheck %s
// RUN: tx-opt %s --tx-cpu-pipeline="attention=tiled attention-q-tile=3 attention-kv-tile=1 attention-kv-splits=3" | %run_cpu | FileCheck %s

func.func private @printMemrefF32(tensor<*xf32>)

func.func @b0(%q: tensor<0x2x4x8xf32>, %k: tensor<0x2x4x8xf32>, %v: tensor<0x2x4x8xf32>) -> tensor<0x2x4x8xf32> {
  %o = tx.attention %q, %k, %v causal : tensor<0x2x4x8xf32>, tensor<0x2x4x8xf32>, tensor<0x2x4x8xf32> -> tensor<0x2x4x8xf32>
  return %o : tensor<0x2x4x8xf32>
}
func.func @sq0(%q: tensor<1x2x0x8xf32>, %k: tensor<1x2x4x8xf32>, %v: tensor<1x2x4x8xf32>) -> tensor<1x2x0x8xf32> {
  %o = tx.attention %q, %k, %v causal : tensor<1x2x0x8xf32>, tensor<1x2x4x8xf32>, tensor<1x2x4x8xf32> -> tensor<1x2x0x8xf32>
  return %o : tensor<1x2x0x8xf32>
}
func.func @sk0(%q: tensor<1x2x4x8xf32>, %k: tensor<1x2x0x8xf32>, %v: tensor<1x2x0x8xf32>) -> tensor<1x2x4x8xf32> {
  %o = tx.attention %q, %k, %v : tensor<1x2x4x8xf32>, tensor<1x2x0x8xf32>, tensor<1x2x0x8xf32> -> tensor<1x2x4x8xf32>
  return %o : tensor<1x2x4x8xf32>
}
func.func @sk0_causal_mask_f16(%q: tensor<1x2x4x8xf16>, %k: tensor<1x1x0x8xf16>, %v: tensor<1x1x0x8xf16>,
                               %m: tensor<1x1x4x0xf16>) -> tensor<1x2x4x8xf16> {
  %o = tx.attention %q, %k, %v mask(%m : tensor<1x1x4x0xf16>) causal
      : tensor<1x2x4x8xf16>, tensor<1x1x0x8xf16>, tensor<1x1x0x8xf16> -> tensor<1x2x4x8xf16>
  return %o : tensor<1x2x4x8xf16>
}
func.func @dv0(%q: tensor<1x2x4x8xf32>, %k: tensor<1x2x4x8xf32>, %v: tensor<1x2x4x0xf32>) -> tensor<1x2x4x0xf32> {
  %o = tx.attention %q, %k, %v : tensor<1x2x4x8xf32>, tensor<1x2x4x8xf32>, tensor<1x2x4x0xf32> -> tensor<1x2x4x0xf32>
  return %o : tensor<1x2x4x0xf32>
}
func.func @d0(%q: tensor<1x1x2x0xf32>, %k: tensor<1x1x3x0xf32>, %v: tensor<1x1x3x2xf32>) -> tensor<1x1x2x2xf32> {
  %o = tx.attention %q, %k, %v scale = 1.0 : tensor<1x1x2x0xf32>, tensor<1x1x3x0xf32>, tensor<1x1x3x2xf32> -> tensor<1x1x2x2xf32>
  return %o : tensor<1x1x2x2xf32>
}
func.func @dyn(%q: tensor<?x?x?x?xf32>, %k: tensor<?x?x?x?xf32>, %v: tensor<?x?x?x?xf32>) -> tensor<?x?x?x?xf32> {
  %o = tx.attention %q, %k, %v causal : tensor<?x?x?x?xf32>, tensor<?x?x?x?xf32>, tensor<?x?x?x?xf32> -> tensor<?x?x?x?xf32>
  return %o : tensor<?x?x?x?xf32>
}
func.func @dyn_nc(%q: tensor<?x?x?x?xf32>, %k: tensor<?x?x?x?xf32>, %v: tensor<?x?x?x?xf32>) -> tensor<?x?x?x?xf32> {
  %o = tx.attention %q, %k, %v : tensor<?x?x?x?xf32>, tensor<?x?x?x?xf32>, tensor<?x?x?x?xf32> -> tensor<?x?x?x?xf32>
  return %o : tensor<?x?x?x?xf32>
}
func.func @h0(%q: tensor<1x0x4x8xf32>, %k: tensor<1x1x4x8xf32>, %v: tensor<1x1x4x8xf32>) -> tensor<1x0x4x8xf32> {
  %o = tx.attention %q, %k, %v : tensor<1x0x4x8xf32>, tensor<1x1x4x8xf32>, tensor<1x1x4x8xf32> -> tensor<1x0x4x8xf32>
  return %o : tensor<1x0x4x8xf32>
}
func.func @sm_0x16(%x: tensor<0x16xf32>) -> tensor<0x16xf32> {
  %0 = tx.softmax %x dim = 1 : tensor<0x16xf32>
  return %0 : tensor<0x16xf32>
}
func.func @sm_4x0(%x: tensor<4x0xf16>) -> tensor<4x0xf16> {
  %0 = tx.softmax %x dim = -1 : tensor<4x0xf16>
  return %0 : tensor<4x0xf16>
}
func.func @sm_dyn(%x: tensor<?x?xf32>) -> tensor<?x?xf32> {
  %0 = tx.softmax %x dim = 1 : tensor<?x?xf32>
  return %0 : tensor<?x?xf32>
}

func.func @print(%t: tensor<*xf32>) {
  call @printMemrefF32(%t) : (tensor<*xf32>) -> ()
  return
}

// Prints "<tag> sizes [a, b, c, d]" from the run-time sizes (printMemrefF32
// reads past the end of an empty buffer, so empty results are not printed).
func.func @dims4(%t: tensor<?x?x?x?xf32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c2 = arith.constant 2 : index
  %c3 = arith.constant 3 : index
  %d0 = tensor.dim %t, %c0 : tensor<?x?x?x?xf32>
  %d1 = tensor.dim %t, %c1 : tensor<?x?x?x?xf32>
  %d2 = tensor.dim %t, %c2 : tensor<?x?x?x?xf32>
  %d3 = tensor.dim %t, %c3 : tensor<?x?x?x?xf32>
  vector.print str "empty result sizes ["
  vector.print %d0 : index punctuation <comma>
  vector.print %d1 : index punctuation <comma>
  vector.print %d2 : index punctuation <comma>
  vector.print %d3 : index punctuation <no_punctuation>
  vector.print str "]\n"
  return
}

func.func @dims2(%t: tensor<?x?xf32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %d0 = tensor.dim %t, %c0 : tensor<?x?xf32>
  %d1 = tensor.dim %t, %c1 : tensor<?x?xf32>
  vector.print str "empty result sizes ["
  vector.print %d0 : index punctuation <comma>
  vector.print %d1 : index punctuation <no_punctuation>
  vector.print str "]\n"
  return
}

func.func @main() {
  // CHECK: empty result sizes [0, 2, 4, 8]
  %q0 = arith.constant dense<1.0> : tensor<0x2x4x8xf32>
  %o0 = call @b0(%q0, %q0, %q0) : (tensor<0x2x4x8xf32>, tensor<0x2x4x8xf32>, tensor<0x2x4x8xf32>) -> tensor<0x2x4x8xf32>
  %u0 = tensor.cast %o0 : tensor<0x2x4x8xf32> to tensor<?x?x?x?xf32>
  call @dims4(%u0) : (tensor<?x?x?x?xf32>) -> ()

  // CHECK: empty result sizes [1, 2, 0, 8]
  %q1 = arith.constant dense<1.0> : tensor<1x2x0x8xf32>
  %k1 = arith.constant dense<0.5> : tensor<1x2x4x8xf32>
  %o1 = call @sq0(%q1, %k1, %k1) : (tensor<1x2x0x8xf32>, tensor<1x2x4x8xf32>, tensor<1x2x4x8xf32>) -> tensor<1x2x0x8xf32>
  %u1 = tensor.cast %o1 : tensor<1x2x0x8xf32> to tensor<?x?x?x?xf32>
  call @dims4(%u1) : (tensor<?x?x?x?xf32>) -> ()

  // Sk = 0: every query row sees no key -> zeros (not NaN, not garbage).
  // CHECK-LABEL: sizes = [1, 2, 4, 8]
  // CHECK-NOT: nan
  // CHECK-COUNT-8: [0,{{ +}}0,{{ +}}0,{{ +}}0,{{ +}}0,{{ +}}0,{{ +}}0,{{ +}}0]
  // CHECK-NOT: nan
  %q2 = arith.constant dense<1.0> : tensor<1x2x4x8xf32>
  %q2h = arith.constant dense<1.0> : tensor<1x1x4x8xf32>
  %k2 = arith.constant dense<1.0> : tensor<1x2x0x8xf32>
  %o2 = call @sk0(%q2, %k2, %k2) : (tensor<1x2x4x8xf32>, tensor<1x2x0x8xf32>, tensor<1x2x0x8xf32>) -> tensor<1x2x4x8xf32>
  %u2 = tensor.cast %o2 : tensor<1x2x4x8xf32> to tensor<*xf32>
  call @print(%u2) : (tensor<*xf32>) -> ()

  // Sk = 0 in f16 with causal, GQA (Hkv=1) and an empty additive mask -> zeros.
  // CHECK-LABEL: sizes = [1, 2, 4, 8]
  // CHECK-NOT: nan
  // CHECK-COUNT-8: [0,{{ +}}0,{{ +}}0,{{ +}}0,{{ +}}0,{{ +}}0,{{ +}}0,{{ +}}0]
  // CHECK-NOT: nan
  %q3 = arith.constant dense<1.0> : tensor<1x2x4x8xf16>
  %k3 = arith.constant dense<1.0> : tensor<1x1x0x8xf16>
  %m3 = arith.constant dense<1.0> : tensor<1x1x4x0xf16>
  %o3 = call @sk0_causal_mask_f16(%q3, %k3, %k3, %m3) : (tensor<1x2x4x8xf16>, tensor<1x1x0x8xf16>, tensor<1x1x0x8xf16>, tensor<1x1x4x0xf16>) -> tensor<1x2x4x8xf16>
  %e3 = tensor.empty() : tensor<1x2x4x8xf32>
  %w3 = linalg.generic {indexing_maps = [affine_map<(a, b, c, d) -> (a, b, c, d)>,
                                         affine_map<(a, b, c, d) -> (a, b, c, d)>],
                        iterator_types = ["parallel", "parallel", "parallel", "parallel"]}
      ins(%o3 : tensor<1x2x4x8xf16>) outs(%e3 : tensor<1x2x4x8xf32>) {
  ^bb0(%x: f16, %y: f32):
    %z = arith.extf %x : f16 to f32
    linalg.yield %z : f32
  } -> tensor<1x2x4x8xf32>
  %u3 = tensor.cast %w3 : tensor<1x2x4x8xf32> to tensor<*xf32>
  call @print(%u3) : (tensor<*xf32>) -> ()

  // CHECK: empty result sizes [1, 2, 4, 0]
  %v4 = arith.constant dense<1.0> : tensor<1x2x4x0xf32>
  %o4 = call @dv0(%q2, %q2, %v4) : (tensor<1x2x4x8xf32>, tensor<1x2x4x8xf32>, tensor<1x2x4x0xf32>) -> tensor<1x2x4x0xf32>
  %u4 = tensor.cast %o4 : tensor<1x2x4x0xf32> to tensor<?x?x?x?xf32>
  call @dims4(%u4) : (tensor<?x?x?x?xf32>) -> ()

  // D = 0, scale 1.0: all scores 0 -> each row is the mean of V = [2, -1].
  // CHECK-LABEL: sizes = [1, 1, 2, 2]
  // CHECK-NEXT: {{\[\[\[\[}}2,{{ +}}-1],
  // CHECK-NEXT: [2,{{ +}}-1]]]]
  %q5 = arith.constant dense<1.0> : tensor<1x1x2x0xf32>
  %k5 = arith.constant dense<1.0> : tensor<1x1x3x0xf32>
  %v5 = arith.constant dense<[[[[1.0, 0.0], [2.0, -1.0], [3.0, -2.0]]]]> : tensor<1x1x3x2xf32>
  %o5 = call @d0(%q5, %k5, %v5) : (tensor<1x1x2x0xf32>, tensor<1x1x3x0xf32>, tensor<1x1x3x2xf32>) -> tensor<1x1x2x2xf32>
  %u5 = tensor.cast %o5 : tensor<1x1x2x2xf32> to tensor<*xf32>
  call @print(%u5) : (tensor<*xf32>) -> ()

  // Dynamic B / Sq / Sk / D: B = 0 -> empty; Sk = 0 (causal) -> zeros.
  // CHECK: empty result sizes [0, 2, 4, 8]
  %q0d = tensor.cast %q0 : tensor<0x2x4x8xf32> to tensor<?x?x?x?xf32>
  %o6 = call @dyn(%q0d, %q0d, %q0d) : (tensor<?x?x?x?xf32>, tensor<?x?x?x?xf32>, tensor<?x?x?x?xf32>) -> tensor<?x?x?x?xf32>
  call @dims4(%o6) : (tensor<?x?x?x?xf32>) -> ()
  // CHECK-LABEL: sizes = [1, 2, 4, 8]
  // CHECK-NOT: nan
  // CHECK-COUNT-8: [0,{{ +}}0,{{ +}}0,{{ +}}0,{{ +}}0,{{ +}}0,{{ +}}0,{{ +}}0]
  // CHECK-NOT: nan
  %q2d = tensor.cast %q2 : tensor<1x2x4x8xf32> to tensor<?x?x?x?xf32>
  %k2d = tensor.cast %k2 : tensor<1x2x0x8xf32> to tensor<?x?x?x?xf32>
  %o7 = call @dyn(%q2d, %k2d, %k2d) : (tensor<?x?x?x?xf32>, tensor<?x?x?x?xf32>, tensor<?x?x?x?xf32>) -> tensor<?x?x?x?xf32>
  %u7 = tensor.cast %o7 : tensor<?x?x?x?xf32> to tensor<*xf32>
  call @print(%u7) : (tensor<*xf32>) -> ()

  // H = 0 query heads, Hkv = 1: empty, static and dynamic.
  // CHECK: empty result sizes [1, 0, 4, 8]
  // CHECK: empty result sizes [1, 0, 4, 8]
  %qh0 = arith.constant dense<1.0> : tensor<1x0x4x8xf32>
  %oh0 = call @h0(%qh0, %q2h, %q2h) : (tensor<1x0x4x8xf32>, tensor<1x1x4x8xf32>, tensor<1x1x4x8xf32>) -> tensor<1x0x4x8xf32>
  %uh0 = tensor.cast %oh0 : tensor<1x0x4x8xf32> to tensor<?x?x?x?xf32>
  call @dims4(%uh0) : (tensor<?x?x?x?xf32>) -> ()
  %qh0d = tensor.cast %qh0 : tensor<1x0x4x8xf32> to tensor<?x?x?x?xf32>
  %q2hd = tensor.cast %q2h : tensor<1x1x4x8xf32> to tensor<?x?x?x?xf32>
  %oh0d = call @dyn_nc(%qh0d, %q2hd, %q2hd) : (tensor<?x?x?x?xf32>, tensor<?x?x?x?xf32>, tensor<?x?x?x?xf32>) -> tensor<?x?x?x?xf32>
  call @dims4(%oh0d) : (tensor<?x?x?x?xf32>) -> ()

  // Softmax: 0x16 and 4x0 (static and dynamic) are empty.
  // CHECK: empty result sizes [0, 16]
  %s0 = arith.constant dense<1.0> : tensor<0x16xf32>
  %r0 = call @sm_0x16(%s0) : (tensor<0x16xf32>) -> tensor<0x16xf32>
  %ur0 = tensor.cast %r0 : tensor<0x16xf32> to tensor<?x?xf32>
  call @dims2(%ur0) : (tensor<?x?xf32>) -> ()
  // CHECK: sm_4x0 f16 done
  %s1 = arith.constant dense<1.0> : tensor<4x0xf16>
  %r1 = call @sm_4x0(%s1) : (tensor<4x0xf16>) -> tensor<4x0xf16>
  vector.print str "sm_4x0 f16 done\n"
  // CHECK: empty result sizes [4, 0]
  %s2 = arith.constant dense<1.0> : tensor<4x0xf32>
  %s2d = tensor.cast %s2 : tensor<4x0xf32> to tensor<?x?xf32>
  %r2 = call @sm_dyn(%s2d) : (tensor<?x?xf32>) -> tensor<?x?xf32>
  call @dims2(%r2) : (tensor<?x?xf32>) -> ()
  // CHECK: empty result sizes [0, 16]
  %s0d = tensor.cast %s0 : tensor<0x16xf32> to tensor<?x?xf32>
  %r3 = call @sm_dyn(%s0d) : (tensor<?x?xf32>) -> tensor<?x?xf32>
  call @dims2(%r3) : (tensor<?x?xf32>) -> ()
  // CHECK: a5 done
  vector.print str "a5 done\n"
  return
}
