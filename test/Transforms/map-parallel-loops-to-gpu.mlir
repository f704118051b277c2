// RUN: tx-opt %s --split-input-file --pass-pipeline="builtin.module(func.func(tx-map-parallel-loops-to-gpu{block-size=128}))" --verify-diagnostics | FileCheck %s

// One thread per iteration of the linearized 2-D space; the row reduction
// (a loop-carried scf.for) stays sequential inside the thread (case G1).
// CHECK-LABEL: func.func @row_max
// CHECK: %[[NONEMPTY:.*]] = arith.cmpi sgt, %[[N:[^,]*]], %{{.*}} : index
// CHECK: scf.if %[[NONEMPTY]] {
// CHECK:   %[[GRID:.*]] = arith.ceildivsi %[[N]], %{{.*}}
// CHECK:   gpu.launch blocks(%[[BX:.*]], %{{.*}}, %{{.*}}) in (%{{.*}} = %[[GRID]], %{{.*}} = %{{.*}}, %{{.*}} = %{{.*}}) threads(%[[TX:.*]], %{{.*}}, %{{.*}}) in
// CHECK:     %[[ID:.*]] = arith.addi %{{.*}}, %[[TX]]
// CHECK:     %[[IN:.*]] = arith.cmpi slt, %[[ID]], %[[N]]
// CHECK:     scf.if %[[IN]] {
// CHECK:       affine.delinearize_index %[[ID]] into
// CHECK:       scf.for {{.*}} iter_args
// CHECK:         arith.maximumf
// CHECK:       memref.store
// CHECK:     gpu.terminator
// CHECK-NOT: scf.parallel
func.func @row_max(%in: memref<?x?x?xf32>, %out: memref<?x?xf32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c2 = arith.constant 2 : index
  %n0 = memref.dim %in, %c0 : memref<?x?x?xf32>
  %n1 = memref.dim %in, %c1 : memref<?x?x?xf32>
  %n2 = memref.dim %in, %c2 : memref<?x?x?xf32>
  %ninf = arith.constant 0xFF800000 : f32
  scf.parallel (%i, %j) = (%c0, %c0) to (%n0, %n1) step (%c1, %c1) {
    %m = scf.for %k = %c0 to %n2 step %c1 iter_args(%acc = %ninf) -> f32 {
      %x = memref.load %in[%i, %j, %k] : memref<?x?x?xf32>
      %y = arith.maximumf %acc, %x : f32
      scf.yield %y : f32
    }
    memref.store %m, %out[%i, %j] : memref<?x?xf32>
    scf.reduce
  }
  return
}

// -----

// Host temporaries become device buffers, freed at the end of their block;
// host copies become device copies.
// CHECK-LABEL: func.func @temporaries
// CHECK: %[[T0:.*]] = gpu.wait async
// CHECK: %[[BUF:.*]], %[[T1:.*]] = gpu.alloc async [%[[T0]]] () : memref<16xf32>
// CHECK: gpu.wait [%[[T1]]]
// CHECK: gpu.launch
// CHECK: gpu.memcpy async [%{{.*}}] %{{.*}}, %[[BUF]]
// CHECK: gpu.dealloc async [%{{.*}}] %[[BUF]]
// CHECK: return
// CHECK-NOT: memref.alloc
func.func @temporaries(%in: memref<16xf32>, %out: memref<16xf32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c16 = arith.constant 16 : index
  %tmp = memref.alloc() : memref<16xf32>
  scf.parallel (%i) = (%c0) to (%c16) step (%c1) {
    %x = memref.load %in[%i] : memref<16xf32>
    %y = arith.addf %x, %x : f32
    memref.store %y, %tmp[%i] : memref<16xf32>
    scf.reduce
  }
  memref.copy %tmp, %out : memref<16xf32> to memref<16xf32>
  return
}

// -----

// Case G1: a reduction carried by scf.parallel itself would race.
func.func @parallel_reduction(%in: memref<16xf32>) -> f32 {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c16 = arith.constant 16 : index
  %zero = arith.constant 0.0 : f32
  // expected-error @+1 {{tx-map-parallel-loops-to-gpu: scf.parallel with reductions cannot be mapped one thread per iteration (the reduction would race)}}
  %r = scf.parallel (%i) = (%c0) to (%c16) step (%c1) init (%zero) -> f32 {
    %x = memref.load %in[%i] : memref<16xf32>
    scf.reduce(%x : f32) {
    ^bb0(%a: f32, %b: f32):
      %s = arith.addf %a, %b : f32
      scf.reduce.return %s : f32
    }
  }
  return %r : f32
}

// -----

// Case G1: a sum written through memory in a plain loop on the host is not
// mapped onto threads (it would race); it is refused, not run on the CPU.
func.func @host_loop_reduction(%in: memref<16x8xf32>, %s: memref<16xf32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c8 = arith.constant 8 : index
  %c16 = arith.constant 16 : index
  scf.for %i = %c0 to %c16 step %c1 {
    scf.for %j = %c0 to %c8 step %c1 {
      // expected-error @+1 {{tx-map-parallel-loops-to-gpu: 'memref.load' accesses memory on the host outside any parallel loop; it cannot run on the GPU}}
      %x = memref.load %in[%i, %j] : memref<16x8xf32>
      %acc = memref.load %s[%i] : memref<16xf32>
      %y = arith.addf %acc, %x : f32
      memref.store %y, %s[%i] : memref<16xf32>
    }
  }
  return
}

// -----

// Case G2: a loop body that itself launches is refused at mapping.
func.func @nested_launch(%in: memref<16xf32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c16 = arith.constant 16 : index
  // expected-error @+1 {{tx-map-parallel-loops-to-gpu: this parallel loop itself launches GPU kernels; a kernel cannot launch kernels (no dynamic parallelism)}}
  scf.parallel (%i) = (%c0) to (%c16) step (%c1) {
    gpu.launch blocks(%bx, %by, %bz) in (%gx = %c1, %gy = %c1, %gz = %c1) threads(%tx, %ty, %tz) in (%sx = %c1, %sy = %c1, %sz = %c1) {
      gpu.terminator
    }
    scf.reduce
  }
  return
}
