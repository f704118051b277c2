// tx-emit-manifest refuses gradient attributes its readers could not use
// (tx-derive-gradients writes them; these are hand-written).
// RUN: not tx-opt %s --split-input-file --tx-emit-manifest -o /dev/null 2>&1 | FileCheck %s

// CHECK: error: tx-emit-manifest: 'tx.gradient' must be {forward = @f, backward = @g, arguments = array<i64: ...>} naming public functions of this module and, in increasing order, arguments of this function (tx-derive-gradients writes it)
func.func @f(%x: tensor<4xf32>) -> tensor<4xf32> attributes {tx.gradient = {arguments = array<i64: 0, 5>, backward = @f, forward = @f}} {
  return %x : tensor<4xf32>
}

// -----

// CHECK: error: tx-emit-manifest: 'tx.gradient' must be
func.func @g(%x: tensor<4xf32>) -> tensor<4xf32> attributes {tx.gradient = 3 : i32} {
  return %x : tensor<4xf32>
}

// -----

// CHECK: error: tx-emit-manifest: 'tx.gradient' must be
func.func @h(%x: tensor<4xf32>) -> tensor<4xf32> attributes {tx.gradient = {arguments = array<i64: 0>, backward = @nope, forward = @h}} {
  return %x : tensor<4xf32>
}

// -----

// CHECK: error: tx-emit-manifest: 'tx.no_gradient' must be a string
func.func @i(%x: tensor<4xf32>) -> tensor<4xf32> attributes {tx.no_gradient = 1 : i32} {
  return %x : tensor<4xf32>
}

// -----

// CHECK: error: tx-emit-manifest: 'tx.derived' must be "forward" or "backward"
func.func @j(%x: tensor<4xf32>) -> tensor<4xf32> attributes {tx.derived = "sideways"} {
  return %x : tensor<4xf32>
}
