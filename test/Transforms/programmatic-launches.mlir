// tx-programmatic-launches: a gpu.launch marked tx.programmatic_launch gets
// a call of the runtime's txRuntimeLaunchProgrammaticNext() right before it
// (declared once, private) and loses the mark; unmarked launches are left
// alone (errors: programmatic-launches-errors.mlir).
// RUN: tx-opt %s --tx-programmatic-launches | FileCheck %s

// CHECK-LABEL: module
// CHECK: func.func private @txRuntimeLaunchProgrammaticNext()
// CHECK-NOT: func.func private @txRuntimeLaunchProgrammaticNext
// CHECK-LABEL: func.func @two
// CHECK-NOT: call
// CHECK: gpu.launch
// CHECK: } {other}
// CHECK-NEXT: call @txRuntimeLaunchProgrammaticNext() : () -> ()
// CHECK-NEXT: gpu.launch
// CHECK-NOT: tx.programmatic_launch
// CHECK: call @txRuntimeLaunchProgrammaticNext() : () -> ()
// CHECK-NEXT: gpu.launch
func.func @two() {
  %c1 = arith.constant 1 : index
  gpu.launch blocks(%bx, %by, %bz) in (%x = %c1, %y = %c1, %z = %c1) threads(%tx, %ty, %tz) in (%a = %c1, %b = %c1, %c = %c1) {
    gpu.terminator
  } {other}
  gpu.launch blocks(%bx, %by, %bz) in (%x = %c1, %y = %c1, %z = %c1) threads(%tx, %ty, %tz) in (%a = %c1, %b = %c1, %c = %c1) {
    gpu.terminator
  } {tx.programmatic_launch}
  gpu.launch blocks(%bx, %by, %bz) in (%x = %c1, %y = %c1, %z = %c1) threads(%tx, %ty, %tz) in (%a = %c1, %b = %c1, %c = %c1) {
    gpu.terminator
  } {tx.programmatic_launch}
  return
}
