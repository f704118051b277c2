// Score and mask functions (tx.attention's score_mod / mask_mod regions,
// issue #42) for harness/check_mods.py: the flash kernels inline them in
// their score step (wgmma or mma.sync for f16/bf16, CUDA cores for f32,
// the split-KV decode for one query row).

// ALiBi: per-head slopes (captured f32 [H]), causal, GQA 8/2, f16.
func.func @mods_alibi_f16(%q: tensor<?x8x?x64xf16>, %k: tensor<?x2x?x64xf16>,
                          %v: tensor<?x2x?x64xf16>, %slopes: tensor<8xf32>) -> tensor<?x8x?x64xf16> {
  %o = tx.attention %q, %k, %v causal score_mod(%slopes : tensor<8xf32>) {
      ^bb0(%s: f32, %b: index, %h: index, %i: index, %j: index, %sl: tensor<8xf32>):
        %m = tensor.extract %sl[%h] : tensor<8xf32>
        %ji = arith.index_cast %j : index to i64
        %ii = arith.index_cast %i : index to i64
        %d = arith.subi %ji, %ii : i64
        %df = arith.sitofp %d : i64 to f32
        %bias = arith.mulf %m, %df : f32
        %r = arith.addf %s, %bias : f32
        tx.yield %r : f32
      }
      : tensor<?x8x?x64xf16>, tensor<?x2x?x64xf16>, tensor<?x2x?x64xf16> -> tensor<?x8x?x64xf16>
  return %o : tensor<?x8x?x64xf16>
}

// Document masking of packed sequences (captured i32 ids per position,
// Sq == Sk), bf16, MHA.
func.func @mods_document_bf16(%q: tensor<?x4x?x64xbf16>, %k: tensor<?x4x?x64xbf16>,
                              %v: tensor<?x4x?x64xbf16>, %doc: tensor<?xi32>) -> tensor<?x4x?x64xbf16> {
  %o = tx.attention %q, %k, %v mask_mod(%doc : tensor<?xi32>) {
      ^bb0(%b: index, %h: index, %i: index, %j: index, %d: tensor<?xi32>):
        %di = tensor.extract %d[%i] : tensor<?xi32>
        %dj = tensor.extract %d[%j] : tensor<?xi32>
        %same = arith.cmpi eq, %di, %dj : i32
        tx.yield %same : i1
      }
      : tensor<?x4x?x64xbf16>, tensor<?x4x?x64xbf16>, tensor<?x4x?x64xbf16> -> tensor<?x4x?x64xbf16>
  return %o : tensor<?x4x?x64xbf16>
}

// Soft-capping at 20 written as a score function, f32.
func.func @mods_softcap_f32(%q: tensor<?x2x?x32xf32>, %k: tensor<?x2x?x32xf32>,
                            %v: tensor<?x2x?x32xf32>) -> tensor<?x2x?x32xf32> {
  %o = tx.attention %q, %k, %v score_mod {
      ^bb0(%s: f32, %b: index, %h: index, %i: index, %j: index):
        %c = arith.constant 20.0 : f32
        %x = arith.divf %s, %c : f32
        %t = math.tanh %x : f32
        %r = arith.mulf %c, %t : f32
        tx.yield %r : f32
      }
      : tensor<?x2x?x32xf32>, tensor<?x2x?x32xf32>, tensor<?x2x?x32xf32> -> tensor<?x2x?x32xf32>
  return %o : tensor<?x2x?x32xf32>
}

// ALiBi on the split-KV decode: one query row, GQA 32/8, D 128, f16,
// per-sequence kv_lengths.
func.func @mods_alibi_decode_f16(%q: tensor<?x32x1x128xf16>, %k: tensor<?x8x?x128xf16>,
                                 %v: tensor<?x8x?x128xf16>, %kl: tensor<?xi32>,
                                 %slopes: tensor<32xf32>) -> tensor<?x32x1x128xf16> {
  %o = tx.attention %q, %k, %v kv_lengths(%kl : tensor<?xi32>) score_mod(%slopes : tensor<32xf32>) {
      ^bb0(%s: f32, %b: index, %h: index, %i: index, %j: index, %sl: tensor<32xf32>):
        %m = tensor.extract %sl[%h] : tensor<32xf32>
        %ji = arith.index_cast %j : index to i64
        %df = arith.sitofp %ji : i64 to f32
        %bias = arith.mulf %m, %df : f32
        %r = arith.subf %s, %bias : f32
        tx.yield %r : f32
      }
      : tensor<?x32x1x128xf16>, tensor<?x8x?x128xf16>, tensor<?x8x?x128xf16> -> tensor<?x32x1x128xf16>
  return %o : tensor<?x32x1x128xf16>
}

// Both functions at D 128, bf16: a learned relative-position bias (a
// captured bf16 table of 511 entries, j - i clamped into [-255, 255]) and
// a prefix-LM mask (the first 7 keys visible to every query, causal after).
func.func @mods_relbias_prefix_bf16(%q: tensor<?x4x?x128xbf16>, %k: tensor<?x4x?x128xbf16>,
                                    %v: tensor<?x4x?x128xbf16>, %table: tensor<511xbf16>)
    -> tensor<?x4x?x128xbf16> {
  %o = tx.attention %q, %k, %v score_mod(%table : tensor<511xbf16>) {
      ^bb0(%s: f32, %b: index, %h: index, %i: index, %j: index, %t: tensor<511xbf16>):
        %c255 = arith.constant 255 : index
        %c0 = arith.constant 0 : index
        %c510 = arith.constant 510 : index
        %x = arith.addi %j, %c255 : index
        %y = arith.subi %x, %i : index
        %lo = arith.maxsi %y, %c0 : index
        %idx = arith.minsi %lo, %c510 : index
        %e = tensor.extract %t[%idx] : tensor<511xbf16>
        %ef = arith.extf %e : bf16 to f32
        %r = arith.addf %s, %ef : f32
        tx.yield %r : f32
      }
      mask_mod {
      ^bb0(%b: index, %h: index, %i: index, %j: index):
        %c7 = arith.constant 7 : index
        %pre = arith.cmpi ult, %j, %c7 : index
        %diag = arith.cmpi ule, %j, %i : index
        %vis = arith.ori %pre, %diag : i1
        tx.yield %vis : i1
      }
      : tensor<?x4x?x128xbf16>, tensor<?x4x?x128xbf16>, tensor<?x4x?x128xbf16> -> tensor<?x4x?x128xbf16>
  return %o : tensor<?x4x?x128xbf16>
}

// Block sparsity on the CUDA-core kernel: a sliding window of 16 keys
// written as a mask function, f32.
func.func @mods_window_f32(%q: tensor<?x2x?x32xf32>, %k: tensor<?x2x?x32xf32>,
                           %v: tensor<?x2x?x32xf32>) -> tensor<?x2x?x32xf32> {
  %o = tx.attention %q, %k, %v mask_mod {
      ^bb0(%b: index, %h: index, %i: index, %j: index):
        %c16 = arith.constant 16 : index
        %j16 = arith.addi %j, %c16 : index
        %lo = arith.cmpi uge, %j16, %i : index
        %hi = arith.cmpi ule, %j, %i : index
        %vis = arith.andi %lo, %hi : i1
        tx.yield %vis : i1
      }
      : tensor<?x2x?x32xf32>, tensor<?x2x?x32xf32>, tensor<?x2x?x32xf32> -> tensor<?x2x?x32xf32>
  return %o : tensor<?x2x?x32xf32>
}

// Whole query tiles that see no key (rows < 100), keys from 64, causal by
// the mask, bf16 D 64: empty key-tile lists give zero rows.
func.func @mods_late_bf16(%q: tensor<?x4x?x64xbf16>, %k: tensor<?x4x?x64xbf16>,
                          %v: tensor<?x4x?x64xbf16>) -> tensor<?x4x?x64xbf16> {
  %o = tx.attention %q, %k, %v mask_mod {
      ^bb0(%b: index, %h: index, %i: index, %j: index):
        %c100 = arith.constant 100 : index
        %c64 = arith.constant 64 : index
        %r = arith.cmpi uge, %i, %c100 : index
        %k64 = arith.cmpi uge, %j, %c64 : index
        %diag = arith.cmpi ule, %j, %i : index
        %a = arith.andi %r, %k64 : i1
        %vis = arith.andi %a, %diag : i1
        tx.yield %vis : i1
      }
      : tensor<?x4x?x64xbf16>, tensor<?x4x?x64xbf16>, tensor<?x4x?x64xbf16> -> tensor<?x4x?x64xbf16>
  return %o : tensor<?x4x?x64xbf16>
}

// The math ops upstream lowers on no target or not inside a gpu.module
// (tx-expand-math, convert-math-to-funcs, tx-gpu-libdevice-calls):
// clampf, remf, erf, cbrt, ipowi and isinf in one score function, f16, MHA
// (remf by 7: the scores stay far from its jumps, where the kernel's f32
// scores and the float64 reference could land on either side).
func.func @mods_mathops_f16(%q: tensor<?x2x?x64xf16>, %k: tensor<?x2x?x64xf16>,
                            %v: tensor<?x2x?x64xf16>) -> tensor<?x2x?x64xf16> {
  %o = tx.attention %q, %k, %v score_mod {
      ^bb0(%s: f32, %b: index, %h: index, %i: index, %j: index):
        %lo = arith.constant -2.5 : f32
        %hi = arith.constant 2.5 : f32
        %cl = math.clampf %s to [%lo, %hi] : f32
        %m = arith.constant 7.0 : f32
        %rm = arith.remf %s, %m : f32
        %e = math.erf %s : f32
        %four = arith.constant 4.0 : f32
        %e4 = arith.divf %e, %four : f32
        %cb = math.cbrt %s : f32
        %ten = arith.constant 10.0 : f32
        %cb10 = arith.divf %cb, %ten : f32
        %j32 = arith.index_cast %j : index to i32
        %c4 = arith.constant 4 : i32
        %jm = arith.remui %j32, %c4 : i32
        %c2 = arith.constant 2 : i32
        %p = math.ipowi %jm, %c2 : i32
        %pf = arith.sitofp %p : i32 to f32
        %hundred = arith.constant 100.0 : f32
        %pf100 = arith.divf %pf, %hundred : f32
        %r1 = arith.addf %cl, %rm : f32
        %r2 = arith.addf %r1, %e4 : f32
        %r3 = arith.addf %r2, %cb10 : f32
        %r = arith.addf %r3, %pf100 : f32
        %big = arith.constant 1.0e30 : f32
        %b1 = arith.mulf %r, %big : f32
        %b2 = arith.mulf %b1, %big : f32
        %over = math.isinf %b2 : f32
        %pick = arith.select %over, %r, %s : f32
        %sinf = math.isinf %s : f32
        %zero = arith.constant 0.0 : f32
        %add = arith.select %sinf, %hundred, %zero : f32
        %out = arith.addf %pick, %add : f32
        tx.yield %out : f32
      }
      : tensor<?x2x?x64xf16>, tensor<?x2x?x64xf16>, tensor<?x2x?x64xf16> -> tensor<?x2x?x64xf16>
  return %o : tensor<?x2x?x64xf16>
}
