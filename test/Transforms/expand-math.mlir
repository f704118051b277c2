// tx-expand-math and tx-gpu-libdevice-calls: the math ops a score or mask
// function may use that upstream lowers on no target (math.clampf), not on
// the CPU (math.isinf), or not inside a gpu.module after the module-wide
// arith-to-llvm (arith.remf). Other ops are left exactly as they are.
// RUN: tx-opt %s --tx-expand-math | FileCheck %s
// RUN: tx-opt %s --pass-pipeline="builtin.module(gpu.module(tx-gpu-libdevice-calls))" | FileCheck %s --check-prefix=LIB

// CHECK-LABEL: func.func @isinf
// CHECK-DAG: %[[INF:.*]] = arith.constant 0x7F800000 : f32
// CHECK-DAG: %[[ABS:.*]] = math.absf %arg0 : f32
// CHECK: %[[EQ:.*]] = arith.cmpf oeq, %[[ABS]], %[[INF]] : f32
// CHECK: return %[[EQ]]
func.func @isinf(%x: f32) -> i1 {
  %r = math.isinf %x : f32
  return %r : i1
}

// CHECK-LABEL: func.func @isinf_vector
// CHECK: arith.constant dense<0x7C00> : vector<4xf16>
// CHECK: arith.cmpf oeq, %{{.*}}, %{{.*}} : vector<4xf16>
func.func @isinf_vector(%x: vector<4xf16>) -> vector<4xi1> {
  %r = math.isinf %x : vector<4xf16>
  return %r : vector<4xi1>
}

// A clamp (the semantics upstream fixed after LLVM 22, llvm-project PR
// 175012): maximumf(minimumf(x, hi), lo).
// CHECK-LABEL: func.func @clampf
// CHECK-NOT: math.clampf
// CHECK: %[[BELOW:.*]] = arith.minimumf %arg0, %arg2 : f32
// CHECK: %[[R:.*]] = arith.maximumf %[[BELOW]], %arg1 : f32
// CHECK: return %[[R]]
func.func @clampf(%x: f32, %lo: f32, %hi: f32) -> f32 {
  %r = math.clampf %x to [%lo, %hi] : f32
  return %r : f32
}

// Nothing else changes (no folding): the constant addition stays.
// CHECK-LABEL: func.func @untouched
// CHECK: %[[A:.*]] = arith.addf %{{.*}}, %{{.*}} : f32
// CHECK: math.tanh %[[A]]
func.func @untouched() -> f32 {
  %a = arith.constant 1.0 : f32
  %s = arith.addf %a, %a : f32
  %t = math.tanh %s : f32
  return %t : f32
}

// LIB: gpu.module @kernels
// LIB-DAG: llvm.func @__nv_fmod(f64, f64) -> f64
// LIB-DAG: llvm.func @__nv_fmodf(f32, f32) -> f32
// LIB-LABEL: gpu.func @rem
// LIB: %[[R:.*]] = llvm.call @__nv_fmodf(%arg0, %arg1) : (f32, f32) -> f32
// LIB: %[[XE:.*]] = arith.extf %arg2 : f16 to f32
// LIB: %[[YE:.*]] = arith.extf %arg3 : f16 to f32
// LIB: %[[H:.*]] = llvm.call @__nv_fmodf(%[[XE]], %[[YE]]) : (f32, f32) -> f32
// LIB: arith.truncf %[[H]] : f32 to f16
// LIB: llvm.call @__nv_fmod(%{{.*}}, %{{.*}}) : (f64, f64) -> f64
// LIB: arith.remf %{{.*}}, %{{.*}} : vector<2xf32>
// LIB-NOT: arith.remf
gpu.module @kernels {
  gpu.func @rem(%x: f32, %y: f32, %xh: f16, %yh: f16, %xd: f64, %yd: f64,
                %xv: vector<2xf32>, %out: memref<4xf32>) kernel {
    %r = arith.remf %x, %y : f32
    %h = arith.remf %xh, %yh : f16
    %d = arith.remf %xd, %yd : f64
    %v = arith.remf %xv, %xv : vector<2xf32>
    %c0 = arith.constant 0 : index
    memref.store %r, %out[%c0] : memref<4xf32>
    %he = arith.extf %h : f16 to f32
    memref.store %he, %out[%c0] : memref<4xf32>
    %dt = arith.truncf %d : f64 to f32
    memref.store %dt, %out[%c0] : memref<4xf32>
    %v0 = vector.extract %v[0] : f32 from vector<2xf32>
    memref.store %v0, %out[%c0] : memref<4xf32>
    gpu.return
  }
}

// A remf outside a gpu.module is not the pass's business.
// LIB-LABEL: func.func @host_rem
// LIB: arith.remf
func.func @host_rem(%x: f32) -> f32 {
  %r = arith.remf %x, %x : f32
  return %r : f32
}
