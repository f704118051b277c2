// tx.attention's score_mod and mask_mod regions (issue #42): each rule of
// TxOps.td "Score and mask functions" broken once, each a located error.
// RUN: tx-opt %s --split-input-file --verify-diagnostics

func.func @score_signature(%q: tensor<1x2x8x16xf32>, %k: tensor<1x2x8x16xf32>, %v: tensor<1x2x8x16xf32>) -> tensor<1x2x8x16xf32> {
  // expected-error @below {{'tx.attention' op score_mod's block must take (f32 score, index b, index h, index q_idx, index kv_idx) then one argument per captured operand (0), i.e. (f32, index, index, index, index); got (f32, index, index, index)}}
  %o = tx.attention %q, %k, %v score_mod {
  ^bb0(%s: f32, %b: index, %h: index, %i: index):
    tx.yield %s : f32
  } : tensor<1x2x8x16xf32>, tensor<1x2x8x16xf32>, tensor<1x2x8x16xf32> -> tensor<1x2x8x16xf32>
  return %o : tensor<1x2x8x16xf32>
}

// -----

func.func @mask_capture_type(%q: tensor<1x2x8x16xf32>, %k: tensor<1x2x8x16xf32>, %v: tensor<1x2x8x16xf32>, %d: tensor<8xi32>) -> tensor<1x2x8x16xf32> {
  // expected-error @below {{mask_mod's block must take (index b, index h, index q_idx, index kv_idx) then one argument per captured operand (1), i.e. (index, index, index, index, tensor<8xi32>); got (index, index, index, index, tensor<8xi64>)}}
  %o = tx.attention %q, %k, %v mask_mod(%d : tensor<8xi32>) {
  ^bb0(%b: index, %h: index, %i: index, %j: index, %x: tensor<8xi64>):
    %t = arith.constant true
    tx.yield %t : i1
  } : tensor<1x2x8x16xf32>, tensor<1x2x8x16xf32>, tensor<1x2x8x16xf32> -> tensor<1x2x8x16xf32>
  return %o : tensor<1x2x8x16xf32>
}

// -----

func.func @score_yields_f16(%q: tensor<1x2x8x16xf32>, %k: tensor<1x2x8x16xf32>, %v: tensor<1x2x8x16xf32>) -> tensor<1x2x8x16xf32> {
  %o = tx.attention %q, %k, %v score_mod {
  ^bb0(%s: f32, %b: index, %h: index, %i: index, %j: index):
    %t = arith.truncf %s : f32 to f16
    // expected-error @below {{'tx.yield' op in score_mod must yield one 'f32', got 'f16'}}
    tx.yield %t : f16
  } : tensor<1x2x8x16xf32>, tensor<1x2x8x16xf32>, tensor<1x2x8x16xf32> -> tensor<1x2x8x16xf32>
  return %o : tensor<1x2x8x16xf32>
}

// -----

func.func @mask_yields_f32(%q: tensor<1x2x8x16xf32>, %k: tensor<1x2x8x16xf32>, %v: tensor<1x2x8x16xf32>) -> tensor<1x2x8x16xf32> {
  %o = tx.attention %q, %k, %v mask_mod {
  ^bb0(%b: index, %h: index, %i: index, %j: index):
    %t = arith.constant 1.0 : f32
    // expected-error @below {{'tx.yield' op in mask_mod must yield one 'i1', got 'f32'}}
    tx.yield %t : f32
  } : tensor<1x2x8x16xf32>, tensor<1x2x8x16xf32>, tensor<1x2x8x16xf32> -> tensor<1x2x8x16xf32>
  return %o : tensor<1x2x8x16xf32>
}

// -----

func.func @side_effect(%q: tensor<1x2x8x16xf32>, %k: tensor<1x2x8x16xf32>, %v: tensor<1x2x8x16xf32>) -> tensor<1x2x8x16xf32> {
  %o = tx.attention %q, %k, %v score_mod {
  ^bb0(%s: f32, %b: index, %h: index, %i: index, %j: index):
    // expected-error @below {{'memref.alloc' op in score_mod has side effects; a score or mask function may only compute values}}
    %m = memref.alloc() : memref<4xf32>
    tx.yield %s : f32
  } : tensor<1x2x8x16xf32>, tensor<1x2x8x16xf32>, tensor<1x2x8x16xf32> -> tensor<1x2x8x16xf32>
  return %o : tensor<1x2x8x16xf32>
}

// -----

// The op is isolated from above: a value from outside must be captured.
func.func @value_from_above(%q: tensor<1x2x8x16xf32>, %k: tensor<1x2x8x16xf32>, %v: tensor<1x2x8x16xf32>, %c: f32) -> tensor<1x2x8x16xf32> {
  // expected-note @below {{required by region isolation constraints}}
  %o = tx.attention %q, %k, %v score_mod {
  ^bb0(%s: f32, %b: index, %h: index, %i: index, %j: index):
    // expected-error @below {{'arith.addf' op using value defined outside the region}}
    %r = arith.addf %s, %c : f32
    tx.yield %r : f32
  } : tensor<1x2x8x16xf32>, tensor<1x2x8x16xf32>, tensor<1x2x8x16xf32> -> tensor<1x2x8x16xf32>
  return %o : tensor<1x2x8x16xf32>
}

// -----

func.func @memref_capture(%q: tensor<1x2x8x16xf32>, %k: tensor<1x2x8x16xf32>, %v: tensor<1x2x8x16xf32>, %m: memref<8xf32>) -> tensor<1x2x8x16xf32> {
  // expected-error @below {{score_mod may capture ranked tensors and scalars of integers of at most 64 bits, index, f16, bf16, f32 or f64, not 'memref<8xf32>'}}
  %o = tx.attention %q, %k, %v score_mod(%m : memref<8xf32>) {
  ^bb0(%s: f32, %b: index, %h: index, %i: index, %j: index, %x: memref<8xf32>):
    tx.yield %s : f32
  } : tensor<1x2x8x16xf32>, tensor<1x2x8x16xf32>, tensor<1x2x8x16xf32> -> tensor<1x2x8x16xf32>
  return %o : tensor<1x2x8x16xf32>
}

// -----

func.func @repeated(%q: tensor<1x2x8x16xf32>, %k: tensor<1x2x8x16xf32>, %v: tensor<1x2x8x16xf32>) -> tensor<1x2x8x16xf32> {
  %o = tx.attention %q, %k, %v mask_mod {
  ^bb0(%b: index, %h: index, %i: index, %j: index):
    %t = arith.constant true
    tx.yield %t : i1
  }
  // expected-error @below {{the clause 'mask_mod' appears twice}}
  mask_mod {
  ^bb0(%b: index, %h: index, %i: index, %j: index):
    %t = arith.constant true
    tx.yield %t : i1
  } : tensor<1x2x8x16xf32>, tensor<1x2x8x16xf32>, tensor<1x2x8x16xf32> -> tensor<1x2x8x16xf32>
  return %o : tensor<1x2x8x16xf32>
}

// -----

func.func @no_yield(%q: tensor<1x2x8x16xf32>, %k: tensor<1x2x8x16xf32>, %v: tensor<1x2x8x16xf32>) -> tensor<1x2x8x16xf32> {
  %o = tx.attention %q, %k, %v mask_mod {
  ^bb0(%b: index, %h: index, %i: index, %j: index):
    // expected-error @below {{block with no terminator}}
    %t = arith.constant true
  } : tensor<1x2x8x16xf32>, tensor<1x2x8x16xf32>, tensor<1x2x8x16xf32> -> tensor<1x2x8x16xf32>
  return %o : tensor<1x2x8x16xf32>
}

// -----

func.func @yield_outside(%x: f32) -> f32 {
  // expected-error @below {{'tx.yield' op expects parent op to be one of 'tx.attention, tx.online_attention, tx.attention_grad'}}
  tx.yield %x : f32
}

// -----

// A yield without its value (generic form): an error, not a crash (the
// regions are checked after the ops inside them).
func.func @yield_no_value(%q: tensor<1x2x8x16xf32>, %k: tensor<1x2x8x16xf32>, %v: tensor<1x2x8x16xf32>) -> tensor<1x2x8x16xf32> {
  %o = tx.attention %q, %k, %v score_mod {
  ^bb0(%s: f32, %b: index, %h: index, %i: index, %j: index):
    // expected-error @below {{'tx.yield' op requires a single operand}}
    "tx.yield"() : () -> ()
  } : tensor<1x2x8x16xf32>, tensor<1x2x8x16xf32>, tensor<1x2x8x16xf32> -> tensor<1x2x8x16xf32>
  return %o : tensor<1x2x8x16xf32>
}

// -----

// An op that writes into a captured tensor (tensor.insert yields a tensor):
// refused, since the lowering would write into the caller's buffer.
func.func @tensor_insert(%q: tensor<1x2x8x16xf32>, %k: tensor<1x2x8x16xf32>, %v: tensor<1x2x8x16xf32>, %t: tensor<3xf32>) -> tensor<1x2x8x16xf32> {
  %o = tx.attention %q, %k, %v score_mod(%t : tensor<3xf32>) {
  ^bb0(%s: f32, %b: index, %h: index, %i: index, %j: index, %x: tensor<3xf32>):
    %c0 = arith.constant 0 : index
    // expected-error @below {{'tensor.insert' op in score_mod yields a tensor; a score or mask function computes scalars (read captured tensors with tensor.extract)}}
    %y = tensor.insert %s into %x[%c0] : tensor<3xf32>
    %e = tensor.extract %y[%c0] : tensor<3xf32>
    tx.yield %e : f32
  } : tensor<1x2x8x16xf32>, tensor<1x2x8x16xf32>, tensor<1x2x8x16xf32> -> tensor<1x2x8x16xf32>
  return %o : tensor<1x2x8x16xf32>
}

// -----

// A tx.attention inside a score function: it yields a tensor.
func.func @nested_attention(%q: tensor<1x2x8x16xf32>, %k: tensor<1x2x8x16xf32>, %v: tensor<1x2x8x16xf32>) -> tensor<1x2x8x16xf32> {
  %o = tx.attention %q, %k, %v score_mod(%q : tensor<1x2x8x16xf32>) {
  ^bb0(%s: f32, %b: index, %h: index, %i: index, %j: index, %x: tensor<1x2x8x16xf32>):
    // expected-error @below {{'tx.attention' op in score_mod yields a tensor}}
    %n = tx.attention %x, %x, %x : tensor<1x2x8x16xf32>, tensor<1x2x8x16xf32>, tensor<1x2x8x16xf32> -> tensor<1x2x8x16xf32>
    %e = tensor.extract %n[%b, %h, %i, %j] : tensor<1x2x8x16xf32>
    %r = arith.addf %s, %e : f32
    tx.yield %r : f32
  } : tensor<1x2x8x16xf32>, tensor<1x2x8x16xf32>, tensor<1x2x8x16xf32> -> tensor<1x2x8x16xf32>
  return %o : tensor<1x2x8x16xf32>
}

// -----

func.func @i128_capture(%q: tensor<1x2x8x16xf32>, %k: tensor<1x2x8x16xf32>, %v: tensor<1x2x8x16xf32>, %c: i128) -> tensor<1x2x8x16xf32> {
  // expected-error @below {{score_mod may capture ranked tensors and scalars of integers of at most 64 bits, index, f16, bf16, f32 or f64, not 'i128'}}
  %o = tx.attention %q, %k, %v score_mod(%c : i128) {
  ^bb0(%s: f32, %b: index, %h: index, %i: index, %j: index, %x: i128):
    tx.yield %s : f32
  } : tensor<1x2x8x16xf32>, tensor<1x2x8x16xf32>, tensor<1x2x8x16xf32> -> tensor<1x2x8x16xf32>
  return %o : tensor<1x2x8x16xf32>
}

// -----

func.func @f8_tensor_capture(%q: tensor<1x2x8x16xf32>, %k: tensor<1x2x8x16xf32>, %v: tensor<1x2x8x16xf32>, %t: tensor<4xf8E4M3FN>) -> tensor<1x2x8x16xf32> {
  // expected-error @below {{mask_mod may capture ranked tensors and scalars of integers of at most 64 bits, index, f16, bf16, f32 or f64, not 'tensor<4xf8E4M3FN>'}}
  %o = tx.attention %q, %k, %v mask_mod(%t : tensor<4xf8E4M3FN>) {
  ^bb0(%b: index, %h: index, %i: index, %j: index, %x: tensor<4xf8E4M3FN>):
    %t1 = arith.constant true
    tx.yield %t1 : i1
  } : tensor<1x2x8x16xf32>, tensor<1x2x8x16xf32>, tensor<1x2x8x16xf32> -> tensor<1x2x8x16xf32>
  return %o : tensor<1x2x8x16xf32>
}

// -----

func.func @empty_region(%q: tensor<1x2x8x16xf32>, %k: tensor<1x2x8x16xf32>, %v: tensor<1x2x8x16xf32>) -> tensor<1x2x8x16xf32> {
  // expected-error @below {{a score or mask function needs a body: { ^bb0(...): ... tx.yield %x : T }}}
  %o = tx.attention %q, %k, %v score_mod { } : tensor<1x2x8x16xf32>, tensor<1x2x8x16xf32>, tensor<1x2x8x16xf32> -> tensor<1x2x8x16xf32>
  return %o : tensor<1x2x8x16xf32>
}

