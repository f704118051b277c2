// Score and mask functions against FlexAttention (issue #42's six
// variants, bench/mods_bench.py): B 4, H 16, S 4096 (16384 for the
// document mask), D 128, f16; the same variants written with tx's
// attributes where one exists, and the dense op (the per-pair time).

func.func @dense(%q: tensor<4x16x4096x128xf16>, %k: tensor<4x16x4096x128xf16>, %v: tensor<4x16x4096x128xf16>) -> tensor<4x16x4096x128xf16> {
  %o = tx.attention %q, %k, %v 
      : tensor<4x16x4096x128xf16>, tensor<4x16x4096x128xf16>, tensor<4x16x4096x128xf16> -> tensor<4x16x4096x128xf16>
  return %o : tensor<4x16x4096x128xf16>
}

func.func @dense_doc(%q: tensor<4x16x16384x128xf16>, %k: tensor<4x16x16384x128xf16>, %v: tensor<4x16x16384x128xf16>) -> tensor<4x16x16384x128xf16> {
  %o = tx.attention %q, %k, %v 
      : tensor<4x16x16384x128xf16>, tensor<4x16x16384x128xf16>, tensor<4x16x16384x128xf16> -> tensor<4x16x16384x128xf16>
  return %o : tensor<4x16x16384x128xf16>
}

func.func @attr_causal(%q: tensor<4x16x4096x128xf16>, %k: tensor<4x16x4096x128xf16>, %v: tensor<4x16x4096x128xf16>) -> tensor<4x16x4096x128xf16> {
  %o = tx.attention %q, %k, %v causal
      : tensor<4x16x4096x128xf16>, tensor<4x16x4096x128xf16>, tensor<4x16x4096x128xf16> -> tensor<4x16x4096x128xf16>
  return %o : tensor<4x16x4096x128xf16>
}

func.func @attr_window(%q: tensor<4x16x4096x128xf16>, %k: tensor<4x16x4096x128xf16>, %v: tensor<4x16x4096x128xf16>) -> tensor<4x16x4096x128xf16> {
  %o = tx.attention %q, %k, %v causal window = [1024, 0]
      : tensor<4x16x4096x128xf16>, tensor<4x16x4096x128xf16>, tensor<4x16x4096x128xf16> -> tensor<4x16x4096x128xf16>
  return %o : tensor<4x16x4096x128xf16>
}

func.func @attr_softcap(%q: tensor<4x16x4096x128xf16>, %k: tensor<4x16x4096x128xf16>, %v: tensor<4x16x4096x128xf16>) -> tensor<4x16x4096x128xf16> {
  %o = tx.attention %q, %k, %v softcap = 30.0
      : tensor<4x16x4096x128xf16>, tensor<4x16x4096x128xf16>, tensor<4x16x4096x128xf16> -> tensor<4x16x4096x128xf16>
  return %o : tensor<4x16x4096x128xf16>
}

func.func @mod_alibi(%q: tensor<4x16x4096x128xf16>, %k: tensor<4x16x4096x128xf16>, %v: tensor<4x16x4096x128xf16>, %slopes: tensor<16xf32>) -> tensor<4x16x4096x128xf16> {
  %o = tx.attention %q, %k, %v score_mod(%slopes : tensor<16xf32>) {
      ^bb0(%s: f32, %b: index, %h: index, %i: index, %j: index, %sl: tensor<16xf32>):
        %m = tensor.extract %sl[%h] : tensor<16xf32>
        %ji = arith.index_cast %j : index to i64
        %ii = arith.index_cast %i : index to i64
        %d = arith.subi %ji, %ii : i64
        %df = arith.sitofp %d : i64 to f32
        %bias = arith.mulf %m, %df : f32
        %r = arith.addf %s, %bias : f32
        tx.yield %r : f32
      }
      : tensor<4x16x4096x128xf16>, tensor<4x16x4096x128xf16>, tensor<4x16x4096x128xf16> -> tensor<4x16x4096x128xf16>
  return %o : tensor<4x16x4096x128xf16>
}

// ALiBi with the index arithmetic written in i32 (the region's own choice):
// what 64-bit index arithmetic per score costs against mod_alibi.
func.func @mod_alibi32(%q: tensor<4x16x4096x128xf16>, %k: tensor<4x16x4096x128xf16>, %v: tensor<4x16x4096x128xf16>, %slopes: tensor<16xf32>) -> tensor<4x16x4096x128xf16> {
  %o = tx.attention %q, %k, %v score_mod(%slopes : tensor<16xf32>) {
      ^bb0(%s: f32, %b: index, %h: index, %i: index, %j: index, %sl: tensor<16xf32>):
        %m = tensor.extract %sl[%h] : tensor<16xf32>
        %ji = arith.index_cast %j : index to i32
        %ii = arith.index_cast %i : index to i32
        %d = arith.subi %ji, %ii : i32
        %df = arith.sitofp %d : i32 to f32
        %bias = arith.mulf %m, %df : f32
        %r = arith.addf %s, %bias : f32
        tx.yield %r : f32
      }
      : tensor<4x16x4096x128xf16>, tensor<4x16x4096x128xf16>, tensor<4x16x4096x128xf16> -> tensor<4x16x4096x128xf16>
  return %o : tensor<4x16x4096x128xf16>
}

func.func @mod_relbias(%q: tensor<4x16x4096x128xf16>, %k: tensor<4x16x4096x128xf16>, %v: tensor<4x16x4096x128xf16>, %table: tensor<8191xf16>) -> tensor<4x16x4096x128xf16> {
  %o = tx.attention %q, %k, %v score_mod(%table : tensor<8191xf16>) {
      ^bb0(%s: f32, %b: index, %h: index, %i: index, %j: index, %t: tensor<8191xf16>):
        %c = arith.constant 4095 : index
        %x = arith.addi %j, %c : index
        %idx = arith.subi %x, %i : index
        %e = tensor.extract %t[%idx] : tensor<8191xf16>
        %ef = arith.extf %e : f16 to f32
        %r = arith.addf %s, %ef : f32
        tx.yield %r : f32
      }
      : tensor<4x16x4096x128xf16>, tensor<4x16x4096x128xf16>, tensor<4x16x4096x128xf16> -> tensor<4x16x4096x128xf16>
  return %o : tensor<4x16x4096x128xf16>
}

func.func @mod_document(%q: tensor<4x16x16384x128xf16>, %k: tensor<4x16x16384x128xf16>, %v: tensor<4x16x16384x128xf16>, %doc: tensor<16384xi32>) -> tensor<4x16x16384x128xf16> {
  %o = tx.attention %q, %k, %v mask_mod(%doc : tensor<16384xi32>) {
      ^bb0(%b: index, %h: index, %i: index, %j: index, %d: tensor<16384xi32>):
        %di = tensor.extract %d[%i] : tensor<16384xi32>
        %dj = tensor.extract %d[%j] : tensor<16384xi32>
        %same = arith.cmpi eq, %di, %dj : i32
        tx.yield %same : i1
      }
      : tensor<4x16x16384x128xf16>, tensor<4x16x16384x128xf16>, tensor<4x16x16384x128xf16> -> tensor<4x16x16384x128xf16>
  return %o : tensor<4x16x16384x128xf16>
}

func.func @mod_prefix(%q: tensor<4x16x4096x128xf16>, %k: tensor<4x16x4096x128xf16>, %v: tensor<4x16x4096x128xf16>) -> tensor<4x16x4096x128xf16> {
  %o = tx.attention %q, %k, %v mask_mod {
      ^bb0(%b: index, %h: index, %i: index, %j: index):
        %p = arith.constant 1024 : index
        %pre = arith.cmpi ult, %j, %p : index
        %diag = arith.cmpi ule, %j, %i : index
        %vis = arith.ori %pre, %diag : i1
        tx.yield %vis : i1
      }
      : tensor<4x16x4096x128xf16>, tensor<4x16x4096x128xf16>, tensor<4x16x4096x128xf16> -> tensor<4x16x4096x128xf16>
  return %o : tensor<4x16x4096x128xf16>
}

func.func @mod_window(%q: tensor<4x16x4096x128xf16>, %k: tensor<4x16x4096x128xf16>, %v: tensor<4x16x4096x128xf16>) -> tensor<4x16x4096x128xf16> {
  %o = tx.attention %q, %k, %v mask_mod {
      ^bb0(%b: index, %h: index, %i: index, %j: index):
        %w = arith.constant 1024 : index
        %jw = arith.addi %j, %w : index
        %lo = arith.cmpi uge, %jw, %i : index
        %hi = arith.cmpi ule, %j, %i : index
        %vis = arith.andi %lo, %hi : i1
        tx.yield %vis : i1
      }
      : tensor<4x16x4096x128xf16>, tensor<4x16x4096x128xf16>, tensor<4x16x4096x128xf16> -> tensor<4x16x4096x128xf16>
  return %o : tensor<4x16x4096x128xf16>
}

func.func @mod_softcap(%q: tensor<4x16x4096x128xf16>, %k: tensor<4x16x4096x128xf16>, %v: tensor<4x16x4096x128xf16>) -> tensor<4x16x4096x128xf16> {
  %o = tx.attention %q, %k, %v score_mod {
      ^bb0(%s: f32, %b: index, %h: index, %i: index, %j: index):
        %c = arith.constant 30.0 : f32
        %x = arith.divf %s, %c : f32
        %t = math.tanh %x : f32
        %r = arith.mulf %c, %t : f32
        tx.yield %r : f32
      }
      : tensor<4x16x4096x128xf16>, tensor<4x16x4096x128xf16>, tensor<4x16x4096x128xf16> -> tensor<4x16x4096x128xf16>
  return %o : tensor<4x16x4096x128xf16>
}
func.func @mod_causal(%q: tensor<4x16x4096x128xf16>, %k: tensor<4x16x4096x128xf16>, %v: tensor<4x16x4096x128xf16>) -> tensor<4x16x4096x128xf16> {
  %o = tx.attention %q, %k, %v mask_mod {
      ^bb0(%b: index, %h: index, %i: index, %j: index):
        %vis = arith.cmpi ule, %j, %i : index
        tx.yield %vis : i1
      }
      : tensor<4x16x4096x128xf16>, tensor<4x16x4096x128xf16>, tensor<4x16x4096x128xf16> -> tensor<4x16x4096x128xf16>
  return %o : tensor<4x16x4096x128xf16>
}
