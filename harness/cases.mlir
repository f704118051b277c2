// GPU check cases (the RUN cases of shared/cases/CASES.md): fully dynamic
// tx functions that harness/check.py calls with many shapes. Compiled by
// scripts/tx-compile.sh like the examples.
func.func @softmax_dyn_f32(%x: tensor<?x?xf32>) -> tensor<?x?xf32> {
  %0 = tx.softmax %x dim = -1 : tensor<?x?xf32>
  return %0 : tensor<?x?xf32>
}
func.func @softmax_dyn_f16(%x: tensor<?x?xf16>) -> tensor<?x?xf16> {
  %0 = tx.softmax %x dim = -1 : tensor<?x?xf16>
  return %0 : tensor<?x?xf16>
}
func.func @softmax_dyn_bf16(%x: tensor<?x?xbf16>) -> tensor<?x?xbf16> {
  %0 = tx.softmax %x dim = -1 : tensor<?x?xbf16>
  return %0 : tensor<?x?xbf16>
}
// Softmax of rank 3 and 1: the GPU path views the operand as [R, N] (the
// leading dims collapsed, or one row) and writes the result through the same
// view of a buffer of the op's shape.
func.func @softmax_rank3_dyn_f16(%x: tensor<?x?x?xf16>) -> tensor<?x?x?xf16> {
  %0 = tx.softmax %x dim = -1 : tensor<?x?x?xf16>
  return %0 : tensor<?x?x?xf16>
}
func.func @softmax_rank3_f32(%x: tensor<2x3x77xf32>) -> tensor<2x3x77xf32> {
  %0 = tx.softmax %x dim = 2 : tensor<2x3x77xf32>
  return %0 : tensor<2x3x77xf32>
}
func.func @softmax_rank1_dyn_f32(%x: tensor<?xf32>) -> tensor<?xf32> {
  %0 = tx.softmax %x dim = 0 : tensor<?xf32>
  return %0 : tensor<?xf32>
}
func.func @attn_dyn_f32(%q: tensor<?x?x?x?xf32>, %k: tensor<?x?x?x?xf32>, %v: tensor<?x?x?x?xf32>) -> tensor<?x?x?x?xf32> {
  %0 = tx.attention %q, %k, %v : tensor<?x?x?x?xf32>, tensor<?x?x?x?xf32>, tensor<?x?x?x?xf32> -> tensor<?x?x?x?xf32>
  return %0 : tensor<?x?x?x?xf32>
}
func.func @attn_causal_dyn_f32(%q: tensor<?x?x?x?xf32>, %k: tensor<?x?x?x?xf32>, %v: tensor<?x?x?x?xf32>) -> tensor<?x?x?x?xf32> {
  %0 = tx.attention %q, %k, %v causal : tensor<?x?x?x?xf32>, tensor<?x?x?x?xf32>, tensor<?x?x?x?xf32> -> tensor<?x?x?x?xf32>
  return %0 : tensor<?x?x?x?xf32>
}
func.func @attn_mask_dyn_f32(%q: tensor<?x?x?x?xf32>, %k: tensor<?x?x?x?xf32>, %v: tensor<?x?x?x?xf32>, %m: tensor<?x?x?x?xi1>) -> tensor<?x?x?x?xf32> {
  %0 = tx.attention %q, %k, %v mask(%m : tensor<?x?x?x?xi1>) : tensor<?x?x?x?xf32>, tensor<?x?x?x?xf32>, tensor<?x?x?x?xf32> -> tensor<?x?x?x?xf32>
  return %0 : tensor<?x?x?x?xf32>
}
func.func @attn_mask_causal_dyn_f32(%q: tensor<?x?x?x?xf32>, %k: tensor<?x?x?x?xf32>, %v: tensor<?x?x?x?xf32>, %m: tensor<?x?x?x?xi1>) -> tensor<?x?x?x?xf32> {
  %0 = tx.attention %q, %k, %v mask(%m : tensor<?x?x?x?xi1>) causal : tensor<?x?x?x?xf32>, tensor<?x?x?x?xf32>, tensor<?x?x?x?xf32> -> tensor<?x?x?x?xf32>
  return %0 : tensor<?x?x?x?xf32>
}
func.func @attn_dyn_f16(%q: tensor<?x?x?x?xf16>, %k: tensor<?x?x?x?xf16>, %v: tensor<?x?x?x?xf16>) -> tensor<?x?x?x?xf16> {
  %0 = tx.attention %q, %k, %v : tensor<?x?x?x?xf16>, tensor<?x?x?x?xf16>, tensor<?x?x?x?xf16> -> tensor<?x?x?x?xf16>
  return %0 : tensor<?x?x?x?xf16>
}
func.func @attn_causal_dyn_f16(%q: tensor<?x?x?x?xf16>, %k: tensor<?x?x?x?xf16>, %v: tensor<?x?x?x?xf16>) -> tensor<?x?x?x?xf16> {
  %0 = tx.attention %q, %k, %v causal : tensor<?x?x?x?xf16>, tensor<?x?x?x?xf16>, tensor<?x?x?x?xf16> -> tensor<?x?x?x?xf16>
  return %0 : tensor<?x?x?x?xf16>
}
func.func @attn_mask_dyn_f16(%q: tensor<?x?x?x?xf16>, %k: tensor<?x?x?x?xf16>, %v: tensor<?x?x?x?xf16>, %m: tensor<?x?x?x?xi1>) -> tensor<?x?x?x?xf16> {
  %0 = tx.attention %q, %k, %v mask(%m : tensor<?x?x?x?xi1>) : tensor<?x?x?x?xf16>, tensor<?x?x?x?xf16>, tensor<?x?x?x?xf16> -> tensor<?x?x?x?xf16>
  return %0 : tensor<?x?x?x?xf16>
}
func.func @attn_mask_causal_dyn_f16(%q: tensor<?x?x?x?xf16>, %k: tensor<?x?x?x?xf16>, %v: tensor<?x?x?x?xf16>, %m: tensor<?x?x?x?xi1>) -> tensor<?x?x?x?xf16> {
  %0 = tx.attention %q, %k, %v mask(%m : tensor<?x?x?x?xi1>) causal : tensor<?x?x?x?xf16>, tensor<?x?x?x?xf16>, tensor<?x?x?x?xf16> -> tensor<?x?x?x?xf16>
  return %0 : tensor<?x?x?x?xf16>
}
func.func @attn_scale1_dyn_f32(%q: tensor<?x?x?x?xf32>, %k: tensor<?x?x?x?xf32>, %v: tensor<?x?x?x?xf32>) -> tensor<?x?x?x?xf32> {
  %0 = tx.attention %q, %k, %v scale = 1.0 : tensor<?x?x?x?xf32>, tensor<?x?x?x?xf32>, tensor<?x?x?x?xf32> -> tensor<?x?x?x?xf32>
  return %0 : tensor<?x?x?x?xf32>
}
func.func @attn_addmask_dyn_f32(%q: tensor<?x?x?x?xf32>, %k: tensor<?x?x?x?xf32>, %v: tensor<?x?x?x?xf32>, %m: tensor<1x1x?x?xf32>) -> tensor<?x?x?x?xf32> {
  %0 = tx.attention %q, %k, %v mask(%m : tensor<1x1x?x?xf32>) : tensor<?x?x?x?xf32>, tensor<?x?x?x?xf32>, tensor<?x?x?x?xf32> -> tensor<?x?x?x?xf32>
  return %0 : tensor<?x?x?x?xf32>
}
func.func @softmax_3x31_f32(%x: tensor<3x31xf32>) -> tensor<3x31xf32> {
  %0 = tx.softmax %x dim = -1 : tensor<3x31xf32>
  return %0 : tensor<3x31xf32>
}
func.func @softmax_3x31_f16(%x: tensor<3x31xf16>) -> tensor<3x31xf16> {
  %0 = tx.softmax %x dim = -1 : tensor<3x31xf16>
  return %0 : tensor<3x31xf16>
}
func.func @softmax_3x33_f32(%x: tensor<3x33xf32>) -> tensor<3x33xf32> {
  %0 = tx.softmax %x dim = -1 : tensor<3x33xf32>
  return %0 : tensor<3x33xf32>
}
func.func @softmax_3x33_f16(%x: tensor<3x33xf16>) -> tensor<3x33xf16> {
  %0 = tx.softmax %x dim = -1 : tensor<3x33xf16>
  return %0 : tensor<3x33xf16>
}
func.func @softmax_3x127_f32(%x: tensor<3x127xf32>) -> tensor<3x127xf32> {
  %0 = tx.softmax %x dim = -1 : tensor<3x127xf32>
  return %0 : tensor<3x127xf32>
}
func.func @softmax_3x127_f16(%x: tensor<3x127xf16>) -> tensor<3x127xf16> {
  %0 = tx.softmax %x dim = -1 : tensor<3x127xf16>
  return %0 : tensor<3x127xf16>
}
func.func @softmax_3x128_f32(%x: tensor<3x128xf32>) -> tensor<3x128xf32> {
  %0 = tx.softmax %x dim = -1 : tensor<3x128xf32>
  return %0 : tensor<3x128xf32>
}
func.func @softmax_3x128_f16(%x: tensor<3x128xf16>) -> tensor<3x128xf16> {
  %0 = tx.softmax %x dim = -1 : tensor<3x128xf16>
  return %0 : tensor<3x128xf16>
}
func.func @softmax_3x1025_f32(%x: tensor<3x1025xf32>) -> tensor<3x1025xf32> {
  %0 = tx.softmax %x dim = -1 : tensor<3x1025xf32>
  return %0 : tensor<3x1025xf32>
}
func.func @softmax_3x1025_f16(%x: tensor<3x1025xf16>) -> tensor<3x1025xf16> {
  %0 = tx.softmax %x dim = -1 : tensor<3x1025xf16>
  return %0 : tensor<3x1025xf16>
}
func.func @softmax_5x1000_f32(%x: tensor<5x1000xf32>) -> tensor<5x1000xf32> {
  %0 = tx.softmax %x dim = -1 : tensor<5x1000xf32>
  return %0 : tensor<5x1000xf32>
}
func.func @softmax_5x1000_f16(%x: tensor<5x1000xf16>) -> tensor<5x1000xf16> {
  %0 = tx.softmax %x dim = -1 : tensor<5x1000xf16>
  return %0 : tensor<5x1000xf16>
}
func.func @softmax_3x77_f32(%x: tensor<3x77xf32>) -> tensor<3x77xf32> {
  %0 = tx.softmax %x dim = -1 : tensor<3x77xf32>
  return %0 : tensor<3x77xf32>
}
func.func @softmax_3x77_f16(%x: tensor<3x77xf16>) -> tensor<3x77xf16> {
  %0 = tx.softmax %x dim = -1 : tensor<3x77xf16>
  return %0 : tensor<3x77xf16>
}
func.func @softmax_7x50257_f32(%x: tensor<7x50257xf32>) -> tensor<7x50257xf32> {
  %0 = tx.softmax %x dim = -1 : tensor<7x50257xf32>
  return %0 : tensor<7x50257xf32>
}
func.func @softmax_7x50257_f16(%x: tensor<7x50257xf16>) -> tensor<7x50257xf16> {
  %0 = tx.softmax %x dim = -1 : tensor<7x50257xf16>
  return %0 : tensor<7x50257xf16>
}
func.func @softmax_400x49157_f32(%x: tensor<400x49157xf32>) -> tensor<400x49157xf32> {
  %0 = tx.softmax %x dim = -1 : tensor<400x49157xf32>
  return %0 : tensor<400x49157xf32>
}
func.func @softmax_140x49157_f32(%x: tensor<140x49157xf32>) -> tensor<140x49157xf32> {
  %0 = tx.softmax %x dim = -1 : tensor<140x49157xf32>
  return %0 : tensor<140x49157xf32>
}
func.func @softmax_600x50257_f16(%x: tensor<600x50257xf16>) -> tensor<600x50257xf16> {
  %0 = tx.softmax %x dim = -1 : tensor<600x50257xf16>
  return %0 : tensor<600x50257xf16>
}
func.func @softmax_600x40000_f16(%x: tensor<600x40000xf16>) -> tensor<600x40000xf16> {
  %0 = tx.softmax %x dim = -1 : tensor<600x40000xf16>
  return %0 : tensor<600x40000xf16>
}
func.func @softmax_300x50257_bf16(%x: tensor<300x50257xbf16>) -> tensor<300x50257xbf16> {
  %0 = tx.softmax %x dim = -1 : tensor<300x50257xbf16>
  return %0 : tensor<300x50257xbf16>
}
func.func @softmax_3x4096_f32(%x: tensor<3x4096xf32>) -> tensor<3x4096xf32> {
  %0 = tx.softmax %x dim = -1 : tensor<3x4096xf32>
  return %0 : tensor<3x4096xf32>
}
func.func @softmax_3x4096_f16(%x: tensor<3x4096xf16>) -> tensor<3x4096xf16> {
  %0 = tx.softmax %x dim = -1 : tensor<3x4096xf16>
  return %0 : tensor<3x4096xf16>
}
func.func @softmax_3x4_f32(%x: tensor<3x4xf32>) -> tensor<3x4xf32> {
  %0 = tx.softmax %x dim = -1 : tensor<3x4xf32>
  return %0 : tensor<3x4xf32>
}
func.func @softmax_dim0_dyn_f32(%x: tensor<?x?xf32>) -> tensor<?x?xf32> {
  %0 = tx.softmax %x dim = 0 : tensor<?x?xf32>
  return %0 : tensor<?x?xf32>
}

// The log-sum-exp result through the reference lowering (dynamic head dims).
func.func @attn_lse_causal_dyn_f32(%q: tensor<?x?x?x?xf32>, %k: tensor<?x?x?x?xf32>, %v: tensor<?x?x?x?xf32>) -> (tensor<?x?x?x?xf32>, tensor<?x?x?xf32>) {
  %0, %1 = tx.attention %q, %k, %v causal : tensor<?x?x?x?xf32>, tensor<?x?x?x?xf32>, tensor<?x?x?x?xf32> -> tensor<?x?x?x?xf32>, tensor<?x?x?xf32>
  return %0, %1 : tensor<?x?x?x?xf32>, tensor<?x?x?xf32>
}
// A user's own row tiling (what transform.structured.tile_using_forall on
// tx.softmax with tile sizes [8, 0] / [2, 0] makes): tx-gpu-pipeline maps
// the forall with the user's rows per CTA (8 rows of 32 lanes in 256
// threads; 2 warps of one vocabulary row each).
func.func @softmax_user_rows8_dyn_f32(%x: tensor<?x1000xf32>) -> tensor<?x1000xf32> {
  %c0 = arith.constant 0 : index
  %r = tensor.dim %x, %c0 : tensor<?x1000xf32>
  %e = tensor.empty(%r) : tensor<?x1000xf32>
  %n = affine.apply affine_map<()[s0] -> (s0 ceildiv 8)>()[%r]
  %y = scf.forall (%i) in (%n) shared_outs(%o = %e) -> (tensor<?x1000xf32>) {
    %off = affine.apply affine_map<(d0) -> (d0 * 8)>(%i)
    %sz = affine.min affine_map<(d0)[s0] -> (-d0 + s0, 8)>(%off)[%r]
    %t = tensor.extract_slice %x[%off, 0] [%sz, 1000] [1, 1] : tensor<?x1000xf32> to tensor<?x1000xf32>
    %s = tx.softmax %t dim = -1 : tensor<?x1000xf32>
    scf.forall.in_parallel {
      tensor.parallel_insert_slice %s into %o[%off, 0] [%sz, 1000] [1, 1] : tensor<?x1000xf32> into tensor<?x1000xf32>
    }
  }
  return %y : tensor<?x1000xf32>
}
func.func @softmax_user_rows2_f16(%x: tensor<37x50257xf16>) -> tensor<37x50257xf16> {
  %e = tensor.empty() : tensor<37x50257xf16>
  %y = scf.forall (%i) in (19) shared_outs(%o = %e) -> (tensor<37x50257xf16>) {
    %off = affine.apply affine_map<(d0) -> (d0 * 2)>(%i)
    %sz = affine.min affine_map<(d0) -> (-d0 + 37, 2)>(%off)
    %t = tensor.extract_slice %x[%off, 0] [%sz, 50257] [1, 1] : tensor<37x50257xf16> to tensor<?x50257xf16>
    %s = tx.softmax %t dim = -1 : tensor<?x50257xf16>
    scf.forall.in_parallel {
      tensor.parallel_insert_slice %s into %o[%off, 0] [%sz, 50257] [1, 1] : tensor<?x50257xf16> into tensor<37x50257xf16>
    }
  }
  return %y : tensor<37x50257xf16>
}
