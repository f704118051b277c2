// Known upstream crash (LLVM 22.1.8), found by txfuzz.py (seed 2812, input
// 4732, the one-hour run of 2026-12-06) and reproduced here with upstream
// ops only in Debian's mlir-opt: a gpu.launch_func of a gpu.func whose
// region has no block (a declaration, in generic form) segfaults in the gpu
// dialect's verifier of `gpu.container_module`
// (GPUDialect::verifyOperationAttribute reads the kernel's entry block),
// while parsing, before any pass runs. tx cannot fix it; txfuzz.py counts
// it apart as "upstream-gpu-launch-bodiless-kernel". This test fails once a
// new LLVM fixes it: then drop the exception in txfuzz.py (KNOWN_UPSTREAM)
// and docs/Fuzzing.md.
// UNSUPPORTED: tx-sanitize
// RUN: not --crash mlir-opt %s 2>&1 | FileCheck %s
// CHECK: GPUDialect::verifyOperationAttribute
"builtin.module"() ({
  "gpu.module"() <{sym_name = "k"}> ({
    "gpu.func"() <{function_type = (!llvm.ptr) -> ()}> ({
    }) {gpu.kernel, sym_name = "kern", workgroup_attributions = 0 : i64} : () -> ()
  }) : () -> ()
  "llvm.func"() <{CConv = #llvm.cconv<ccc>, function_type = !llvm.func<void ()>, linkage = #llvm.linkage<external>, sym_name = "host", unnamed_addr = 0 : i64, visibility_ = 0 : i64}> ({
    %0 = "llvm.mlir.constant"() <{value = 1 : index}> : () -> i64
    %1 = "llvm.mlir.zero"() : () -> !llvm.ptr
    "gpu.launch_func"(%0, %0, %0, %0, %0, %0, %1) <{kernel = @k::@kern, operandSegmentSizes = array<i32: 0, 1, 1, 5, 1, 1, 1, 0, 0, 0, 0, 1, 0>}> : (i64, i64, i64, i64, i64, i64, !llvm.ptr) -> ()
    "llvm.return"() : () -> ()
  }) : () -> ()
}) {gpu.container_module} : () -> ()
