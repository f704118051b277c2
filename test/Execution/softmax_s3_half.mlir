// CASES.md S3: half-precision softmax (max, sum and quotient in f32, rounded
// once at the end).
//   (a) f32 [1000, 1001]      -> [0.268941, 0.731059]
//   (b) f16 [60000, 60000]    -> [0.5, 0.5]
//   (c) f16 4096 zeros        -> every lane exactly 2^-12 = 0.000244141
//                                (a pure-f16 running sum stalls at 2048 -> 2x)
//   (d) f16 [-65504, 65504]   -> [0, 1]
//   (e) bf16 4096 zeros       -> every lane exactly 2^-12
//
// RUN: tx-opt %s --tx-cpu-pipeline | %run_cpu | FileCheck %s
// Through tx-tile-softmax with online chunks of 1 and of 100 elements (the
// f32 running sum still gives exactly 2^-12 on 4096 zeros):
// RUN: tx-opt %s --tx-cpu-pipeline="softmax=tiled softmax-cols-per-tile=1" | %run_cpu | FileCheck %s
// RUN: tx-opt %s --tx-cpu-pipeline="softmax=tiled softmax-cols-per-tile=100" | %run_cpu | FileCheck %s
//
// (c) and (e) again through the generator with tolerance 0 (exact):
// RUN: %python %S/Inputs/numeric_case.py softmax --dtype f16 --shape 1x4096 --row zeros:0 --tol 0 --name s3c_f16_zeros | tx-opt --tx-cpu-pipeline | %run_cpu | FileCheck %s --check-prefix=GENC
// GENC: case s3c_f16_zeros: relerr 0 ok 1
// RUN: %python %S/Inputs/numeric_case.py softmax --dtype bf16 --shape 4096 --row zeros:0 --tol 0 --name s3e_bf16_zeros | tx-opt --tx-cpu-pipeline | %run_cpu | FileCheck %s --check-prefix=GENE
// GENE: case s3e_bf16_zeros: relerr 0 ok 1

func.func private @printMemrefF32(tensor<*xf32>)

func.func @a(%x: tensor<2xf32>) -> tensor<2xf32> {
  %0 = tx.softmax %x dim = 0 : tensor<2xf32>
  return %0 : tensor<2xf32>
}

func.func @h2(%x: tensor<1x2xf16>) -> tensor<1x2xf16> {
  %0 = tx.softmax %x dim = -1 : tensor<1x2xf16>
  return %0 : tensor<1x2xf16>
}

func.func @h4096(%x: tensor<1x4096xf16>) -> tensor<1x4096xf16> {
  %0 = tx.softmax %x dim = 1 : tensor<1x4096xf16>
  return %0 : tensor<1x4096xf16>
}

func.func @b4096(%x: tensor<4096xbf16>) -> tensor<4096xbf16> {
  %0 = tx.softmax %x dim = 0 : tensor<4096xbf16>
  return %0 : tensor<4096xbf16>
}

// Number of lanes of %x that differ from %want (or are NaN).
func.func @count_ne_f16(%x: tensor<1x4096xf16>, %want: f16) -> i64 {
  %c0 = arith.constant 0 : i64
  %e = tensor.empty() : tensor<i64>
  %z = linalg.fill ins(%c0 : i64) outs(%e : tensor<i64>) -> tensor<i64>
  %r = linalg.generic {indexing_maps = [affine_map<(i, j) -> (i, j)>, affine_map<(i, j) -> ()>],
                       iterator_types = ["reduction", "reduction"]}
      ins(%x : tensor<1x4096xf16>) outs(%z : tensor<i64>) {
  ^bb0(%a: f16, %acc: i64):
    %ne = arith.cmpf une, %a, %want : f16
    %n = arith.extui %ne : i1 to i64
    %s = arith.addi %acc, %n : i64
    linalg.yield %s : i64
  } -> tensor<i64>
  %v = tensor.extract %r[] : tensor<i64>
  return %v : i64
}

func.func @count_ne_bf16(%x: tensor<4096xbf16>, %want: bf16) -> i64 {
  %c0 = arith.constant 0 : i64
  %e = tensor.empty() : tensor<i64>
  %z = linalg.fill ins(%c0 : i64) outs(%e : tensor<i64>) -> tensor<i64>
  %r = linalg.generic {indexing_maps = [affine_map<(i) -> (i)>, affine_map<(i) -> ()>],
                       iterator_types = ["reduction"]}
      ins(%x : tensor<4096xbf16>) outs(%z : tensor<i64>) {
  ^bb0(%a: bf16, %acc: i64):
    %ne = arith.cmpf une, %a, %want : bf16
    %n = arith.extui %ne : i1 to i64
    %s = arith.addi %acc, %n : i64
    linalg.yield %s : i64
  } -> tensor<i64>
  %v = tensor.extract %r[] : tensor<i64>
  return %v : i64
}

func.func @main() {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c4095 = arith.constant 4095 : index

  // (a)
  // CHECK-LABEL: sizes = [2]
  // CHECK-NEXT: [0.268941,{{ +}}0.731059]
  %xa = arith.constant dense<[1000.0, 1001.0]> : tensor<2xf32>
  %ra = call @a(%xa) : (tensor<2xf32>) -> tensor<2xf32>
  %ua = tensor.cast %ra : tensor<2xf32> to tensor<*xf32>
  call @printMemrefF32(%ua) : (tensor<*xf32>) -> ()

  // (b)
  // CHECK: b: 0.5 0.5
  %xb = arith.constant dense<[[60000.0, 60000.0]]> : tensor<1x2xf16>
  %rb = call @h2(%xb) : (tensor<1x2xf16>) -> tensor<1x2xf16>
  %b0 = tensor.extract %rb[%c0, %c0] : tensor<1x2xf16>
  %b1 = tensor.extract %rb[%c0, %c1] : tensor<1x2xf16>
  vector.print str "b: "
  vector.print %b0 : f16 punctuation <no_punctuation>
  vector.print str " "
  vector.print %b1 : f16

  // (c)
  // CHECK: c: lane0 0.000244141 lane4095 0.000244141 lanes_not_2^-12 0
  %xc = arith.constant dense<0.0> : tensor<1x4096xf16>
  %rc = call @h4096(%xc) : (tensor<1x4096xf16>) -> tensor<1x4096xf16>
  %c_0 = tensor.extract %rc[%c0, %c0] : tensor<1x4096xf16>
  %c_l = tensor.extract %rc[%c0, %c4095] : tensor<1x4096xf16>
  %want_h = arith.constant 2.44140625e-4 : f16
  %nc = call @count_ne_f16(%rc, %want_h) : (tensor<1x4096xf16>, f16) -> i64
  vector.print str "c: lane0 "
  vector.print %c_0 : f16 punctuation <no_punctuation>
  vector.print str " lane4095 "
  vector.print %c_l : f16 punctuation <no_punctuation>
  vector.print str " lanes_not_2^-12 "
  vector.print %nc : i64

  // (d)
  // CHECK: d: 0 1
  %xd = arith.constant dense<[[-65504.0, 65504.0]]> : tensor<1x2xf16>
  %rd = call @h2(%xd) : (tensor<1x2xf16>) -> tensor<1x2xf16>
  %d0 = tensor.extract %rd[%c0, %c0] : tensor<1x2xf16>
  %d1 = tensor.extract %rd[%c0, %c1] : tensor<1x2xf16>
  vector.print str "d: "
  vector.print %d0 : f16 punctuation <no_punctuation>
  vector.print str " "
  vector.print %d1 : f16

  // (e)
  // CHECK: e: lane0 0.000244141 lane4095 0.000244141 lanes_not_2^-12 0
  %xe = arith.constant dense<0.0> : tensor<4096xbf16>
  %re = call @b4096(%xe) : (tensor<4096xbf16>) -> tensor<4096xbf16>
  %e_0 = tensor.extract %re[%c0] : tensor<4096xbf16>
  %e_l = tensor.extract %re[%c4095] : tensor<4096xbf16>
  %want_b = arith.constant 2.44140625e-4 : bf16
  %ne = call @count_ne_bf16(%re, %want_b) : (tensor<4096xbf16>, bf16) -> i64
  vector.print str "e: lane0 "
  vector.print %e_0 : bf16 punctuation <no_punctuation>
  vector.print str " lane4095 "
  vector.print %e_l : bf16 punctuation <no_punctuation>
  vector.print str " lanes_not_2^-12 "
  vector.print %ne : i64
  return
}
