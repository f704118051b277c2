// Case G2: a kernel body that calls a helper gets the helper cloned into the
// GPU module and compiled to a device function.
// RUN: tx-opt %S/Inputs/helper-call.mlir --tx-gpu-pipeline="format=isa opt-level=0" | FileCheck %s
// CHECK-DAG: gpu.binary @use_helper_kernel {{.*}}.visible .entry use_helper_kernel({{.*}}.visible .func (.param .b32 func_retval0) shifted_exp(
// Dynamic memrefs keep their sizes: under the default (descriptor) calling
// convention the launch passes the whole memref (case G3).
// CHECK-DAG: gpu.launch_func <%{{.*}} : !llvm.ptr> @use_helper_kernel::@use_helper_kernel {{.*}} args({{.*}}%arg0 : !llvm.ptr, %arg1 : !llvm.ptr, %arg2 : i64, %arg3 : i64, %arg4 : i64
