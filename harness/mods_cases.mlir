// Score and mask functions (tx.attention's score_mod / mask_mod regions,
// issue #42) for harness/check_mods.py. Today these ops take the reference
// lowering on the GPU too (the flash kernels do not take regions yet).

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
