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

func.func @value_from_above(%q: tensor<1x2x8x16xf32>, %k: tensor<1x2x8x16xf32>, %v: tensor<1x2x8x16xf32>, %c: f32) -> tensor<1x2x8x16xf32> {
  %o = tx.attention %q, %k, %v score_mod {
  ^bb0(%s: f32, %b: index, %h: index, %i: index, %j: index):
    // expected-error @below {{'arith.addf' op in score_mod uses a value defined outside the region; pass it as a captured operand: score_mod(%v : f32)}}
    %r = arith.addf %s, %c : f32
    tx.yield %r : f32
  } : tensor<1x2x8x16xf32>, tensor<1x2x8x16xf32>, tensor<1x2x8x16xf32> -> tensor<1x2x8x16xf32>
  return %o : tensor<1x2x8x16xf32>
}

// -----

func.func @memref_capture(%q: tensor<1x2x8x16xf32>, %k: tensor<1x2x8x16xf32>, %v: tensor<1x2x8x16xf32>, %m: memref<8xf32>) -> tensor<1x2x8x16xf32> {
  // expected-error @below {{score_mod may capture ranked tensors and integer, float or index scalars, not 'memref<8xf32>'}}
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
  // expected-error @below {{'tx.attention' op mask_mod must end in tx.yield}}
  %o = tx.attention %q, %k, %v mask_mod {
  ^bb0(%b: index, %h: index, %i: index, %j: index):
    %t = arith.constant true
  } : tensor<1x2x8x16xf32>, tensor<1x2x8x16xf32>, tensor<1x2x8x16xf32> -> tensor<1x2x8x16xf32>
  return %o : tensor<1x2x8x16xf32>
}

// -----

func.func @yield_outside(%x: f32) -> f32 {
  // expected-error @below {{'tx.yield' op expects parent op 'tx.attention'}}
  tx.yield %x : f32
}
