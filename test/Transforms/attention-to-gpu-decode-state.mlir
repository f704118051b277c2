// The split-KV decode kernel's per-warp regions hold a warp's K/V stages
// during the key loop and its state (m, l, O: P x (Dv + 2) f32) after it;
// consecutive warps are the larger of the two apart (128-byte aligned), so
// a state larger than the stages does not run into the next warp's.
// Here P = 32 rows (MQA 32/1, decode-max-rows = 32), D 64, Dv 256, f16,
// CUDA-core form: stages 32 * 4 * 16 + 3 * (16 * 64 * 2 + 16 * 256 * 2) =
// 32768 bytes < state 4 * 32 * 258 = 33024; Q 32 * 64 * 4 = 8192; shared
// memory 8192 + 4 * 33024 = 140288 bytes, warp w's state at 8192 + 33024 w.
// RUN: tx-opt %s --pass-pipeline="builtin.module(func.func(tx-attention-to-gpu{decode-max-rows=32}))" | FileCheck %s
// CHECK-LABEL: func.func @mqa32_dv256
// CHECK: gpu.launch {{.*}} dynamic_shared_memory_size %c140288_i32
// CHECK-DAG: memref.view %{{.*}}[%c41216{{.*}}][] : memref<?xi8, #gpu.address_space<workgroup>> to memref<8256xf32, #gpu.address_space<workgroup>>
// CHECK-DAG: memref.view %{{.*}}[%c74240{{.*}}][] : memref<?xi8, #gpu.address_space<workgroup>> to memref<8256xf32, #gpu.address_space<workgroup>>
func.func @mqa32_dv256(%q: tensor<?x32x1x64xf16>, %k: tensor<?x1x?x64xf16>, %v: tensor<?x1x?x256xf16>) -> tensor<?x32x1x256xf16> {
  %0 = tx.attention %q, %k, %v : tensor<?x32x1x64xf16>, tensor<?x1x?x64xf16>, tensor<?x1x?x256xf16> -> tensor<?x32x1x256xf16>
  return %0 : tensor<?x32x1x256xf16>
}
