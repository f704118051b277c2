// The host side of the C ABI (docs/ABI.md, issue #15): dynamic softmax and
// attention entry points write their result into the out-parameter (no
// mgpuMemAlloc/mgpuMemcpy/mgpuMemFree of a result; the split-KV workspace of
// a flash call with few CTAs is the only allocation), check its sizes first,
// report failed checks through txRuntimeFail instead of aborting, run on one
// stream per call, and get an _on_stream twin.
// RUN: tx-opt %s --tx-gpu-pipeline="format=isa" -o %t.fast.mlir
// RUN: FileCheck %s --check-prefixes=CHECK,FAST < %t.fast.mlir
// RUN: not grep -E "mgpuMemcpy|@abort|@puts|memref.copy|gpu.memcpy" %t.fast.mlir
// RUN: tx-opt %s --tx-gpu-pipeline="format=isa softmax=simple attention=simple" -o %t.simple.mlir
// RUN: FileCheck %s --check-prefixes=CHECK,SIMPLE < %t.simple.mlir
// RUN: not grep -E "mgpuMemcpy|@abort|@puts" %t.simple.mlir
// RUN: tx-opt %s --tx-gpu-pipeline="format=isa stream-entry-points=false" | FileCheck %s --check-prefix=NOSTREAM
// RUN: tx-opt %s --tx-gpu-pipeline="format=isa c-interface=false" | FileCheck %s --check-prefix=NOSTREAM

// CHECK-DAG: llvm.mlir.global internal constant @{{.*}}("softmax_dyn: result #0 has size %lld in dim 1, but the computation produces %lld\00")
// CHECK-DAG: llvm.mlir.global internal constant @{{.*}}("attn_dyn: tx.attention: batch size of query and key differ: %lld vs %lld\00")
// CHECK-DAG: llvm.mlir.global internal constant @{{.*}}("attn_dyn: result #0 has size %lld in dim 2, but the computation produces %lld\00")
// CHECK-DAG: llvm.func @txRuntimeFail(!llvm.ptr)
// CHECK-DAG: llvm.func @txRuntimeBeginCall(!llvm.ptr)
// CHECK-DAG: llvm.func @txRuntimeEndCall() -> i32

// The checks come first; the stream is created after them.
// CHECK-LABEL: llvm.func @softmax_dyn(
// CHECK-NOT: mgpuStreamCreate
// CHECK: llvm.cond_br
// CHECK-NOT: mgpuStreamCreate
// CHECK: llvm.cond_br
// CHECK: %[[S:.*]] = llvm.call @mgpuStreamCreate()
// SIMPLE: llvm.call @mgpuMemAlloc(%{{.*}}, %[[S]], %{{.*}})
// CHECK: gpu.launch_func <%[[S]] : !llvm.ptr> @softmax_dyn_kernel
// FAST: gpu.launch_func <%[[S]] : !llvm.ptr> @softmax_dyn_kernel
// SIMPLE: llvm.call @mgpuStreamSynchronize(%[[S]])
// SIMPLE-NEXT: llvm.call @mgpuMemFree(%{{.*}}, %[[S]])
// CHECK: llvm.call @mgpuStreamSynchronize(%[[S]])
// CHECK-NEXT: llvm.call @mgpuStreamDestroy(%[[S]])
// CHECK-NEXT: llvm.return
// CHECK: llvm.call @snprintf(
// CHECK-NEXT: llvm.call @txRuntimeFail(
// CHECK-NEXT: llvm.return
// CHECK-LABEL: llvm.func @_mlir_ciface_softmax_dyn(
// CHECK-LABEL: llvm.func @softmax_dyn_on_stream(
// CHECK: llvm.call @txRuntimeBeginCall(%arg14)
// CHECK-NEXT: llvm.call @softmax_dyn(
// CHECK-NEXT: %[[RC:.*]] = llvm.call @txRuntimeEndCall()
// CHECK-NEXT: llvm.return %[[RC]] : i32
// CHECK-LABEL: llvm.func @_mlir_ciface_softmax_dyn_on_stream(%{{.*}}: !llvm.ptr, %{{.*}}: !llvm.ptr, %{{.*}}: !llvm.ptr) -> i32

// CHECK-LABEL: llvm.func @attn_dyn(
// CHECK-NOT: mgpuStreamCreate
// CHECK: %[[S:.*]] = llvm.call @mgpuStreamCreate()
// The flash kernel over key chunks where the grid leaves SMs idle (its
// workspace, the merge kernel as a programmatic dependent), else alone.
// FAST-NOT: llvm.call @mgpuMemcpy
// FAST-COUNT-2: llvm.call @mgpuMemAlloc(%{{.*}}, %[[S]], %{{.*}})
// FAST: gpu.launch_func <%[[S]] : !llvm.ptr> @attn_dyn_kernel::@attn_dyn_kernel {{.*}} dynamic_shared_memory_size
// FAST: llvm.call @txRuntimeLaunchProgrammaticNext()
// FAST-NEXT: gpu.launch_func <%[[S]] : !llvm.ptr> @attn_dyn_kernel_1::@attn_dyn_kernel
// FAST-COUNT-2: llvm.call @mgpuMemFree(%{{.*}}, %[[S]])
// FAST-NOT: llvm.call @mgpuMem
// FAST: gpu.launch_func <%[[S]] : !llvm.ptr> @attn_dyn_kernel_2::@attn_dyn_kernel {{.*}} dynamic_shared_memory_size
// SIMPLE-COUNT-3: llvm.call @mgpuMemAlloc(%{{.*}}, %[[S]], %{{.*}})
// SIMPLE-NOT: llvm.call @mgpuMemAlloc
// SIMPLE: gpu.launch_func <%[[S]] : !llvm.ptr> @attn_dyn_kernel
// SIMPLE-COUNT-3: llvm.call @mgpuMemFree(%{{.*}}, %[[S]])
// CHECK: llvm.call @mgpuStreamSynchronize(%[[S]])
// CHECK-NEXT: llvm.call @mgpuStreamDestroy(%[[S]])
// CHECK-NEXT: llvm.return
// The failed checks formatted with their two values (the shape rules of
// the op, the out-parameter's size) share one failure block after
// canonicalization (format and values as block arguments); the rules
// without values (H, Hkv) another.
// CHECK: llvm.call @snprintf(
// CHECK-NEXT: llvm.call @txRuntimeFail(
// CHECK: llvm.call @txRuntimeFail(
// CHECK-LABEL: llvm.func @_mlir_ciface_attn_dyn(
// CHECK-LABEL: llvm.func @_mlir_ciface_attn_dyn_on_stream(%{{.*}}: !llvm.ptr, %{{.*}}: !llvm.ptr, %{{.*}}: !llvm.ptr, %{{.*}}: !llvm.ptr, %{{.*}}: !llvm.ptr) -> i32

// NOSTREAM-NOT: _on_stream
// NOSTREAM-NOT: txRuntimeBeginCall

func.func @softmax_dyn(%x: tensor<?x?xf32>) -> tensor<?x?xf32> {
  %p = tx.softmax %x dim = -1 : tensor<?x?xf32>
  return %p : tensor<?x?xf32>
}
func.func @attn_dyn(%q: tensor<?x?x?x64xf16>, %k: tensor<?x?x?x64xf16>, %v: tensor<?x?x?x64xf16>) -> tensor<?x?x?x64xf16> {
  %o = tx.attention %q, %k, %v causal : tensor<?x?x?x64xf16>, tensor<?x?x?x64xf16>, tensor<?x?x?x64xf16> -> tensor<?x?x?x64xf16>
  return %o : tensor<?x?x?x64xf16>
}
