// tx-programmatic-launches: a symbol txRuntimeLaunchProgrammaticNext that
// is not a func.func of type () -> () is an error at it (tx-opt exits
// non-zero).
// RUN: not tx-opt %s --split-input-file --tx-programmatic-launches 2>&1 | FileCheck %s


// CHECK: programmatic-launches-errors.mlir:[[@LINE+1]]:1: error: tx-programmatic-launches: txRuntimeLaunchProgrammaticNext must have the type () -> (), got '(i32) -> ()'
func.func private @txRuntimeLaunchProgrammaticNext(i32)
func.func @wrong_type() {
  %c1 = arith.constant 1 : index
  gpu.launch blocks(%bx, %by, %bz) in (%x = %c1, %y = %c1, %z = %c1) threads(%tx, %ty, %tz) in (%a = %c1, %b = %c1, %c = %c1) {
    gpu.terminator
  } {tx.programmatic_launch}
  return
}

// -----

// CHECK: programmatic-launches-errors.mlir:[[@LINE+1]]:1: error: tx-programmatic-launches: the symbol txRuntimeLaunchProgrammaticNext is taken by an op that is not a func.func
memref.global "private" @txRuntimeLaunchProgrammaticNext : memref<1xi32>
func.func @taken() {
  %c1 = arith.constant 1 : index
  gpu.launch blocks(%bx, %by, %bz) in (%x = %c1, %y = %c1, %z = %c1) threads(%tx, %ty, %tz) in (%a = %c1, %b = %c1, %c = %c1) {
    gpu.terminator
  } {tx.programmatic_launch}
  return
}
