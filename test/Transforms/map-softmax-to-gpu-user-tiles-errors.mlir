// A user's row tiling of tx.softmax (a forall without tx.gpu_strategy) that
// tx-map-softmax-to-gpu cannot map: each diagnostic is located at the
// forall, never a crash. (map-softmax-to-gpu-user-tiles.mlir: the tilings
// it maps.)
// RUN: not tx-opt %s --split-input-file --tx-map-softmax-to-gpu -o /dev/null 2>&1 | FileCheck %s
// Options for such tilings are checked like the strategy's:
// RUN: not tx-opt %s --tx-map-softmax-to-gpu="num-sms=0" -o /dev/null 2>&1 | FileCheck %s --check-prefix=OPT
// RUN: not tx-opt %s --tx-map-softmax-to-gpu="max-shared-memory=-1" -o /dev/null 2>&1 | FileCheck %s --check-prefix=SMEM
// OPT: error: tx-map-softmax-to-gpu: num-sms must be in [1, 4096], got 0
// SMEM: error: tx-map-softmax-to-gpu: max-shared-memory must be >= 0, got -1

// 33 rows per CTA: no kernel (rows per CTA = block size / threads per row,
// block sizes are powers of two).
// CHECK: map-softmax-to-gpu-user-tiles-errors.mlir:[[@LINE+3]]:8: error: tx-map-softmax-to-gpu: no softmax kernel runs a tile of 33 rows per CTA (rows per CTA = block size / threads per row, at most 1024 threads per CTA)
func.func @rows_33(%x: tensor<99x1000xf32>) -> tensor<99x1000xf32> {
  %e = tensor.empty() : tensor<99x1000xf32>
  %y = scf.forall (%r) = (0) to (99) step (33) shared_outs(%o = %e) -> (tensor<99x1000xf32>) {
    %t = tensor.extract_slice %x[%r, 0] [33, 1000] [1, 1] : tensor<99x1000xf32> to tensor<33x1000xf32>
    %s = tx.softmax %t dim = -1 : tensor<33x1000xf32>
    scf.forall.in_parallel {
      tensor.parallel_insert_slice %s into %o[%r, 0] [33, 1000] [1, 1] : tensor<33x1000xf32> into tensor<99x1000xf32>
    }
  }
  return %y : tensor<99x1000xf32>
}

// -----

// Tiles that start one row late (iv * 8 + 1): not a partition of the rows.
// CHECK: map-softmax-to-gpu-user-tiles-errors.mlir:[[@LINE+4]]:8: error: tx-map-softmax-to-gpu: a user's row tiling must give the tile's first row as the induction variable (step k) or as iv * k (tile_using_forall's normalized form)
#shifted = affine_map<(d0) -> (d0 * 8 + 1)>
func.func @shifted(%x: tensor<64x1000xf32>) -> tensor<64x1000xf32> {
  %e = tensor.empty() : tensor<64x1000xf32>
  %y = scf.forall (%i) in (7) shared_outs(%o = %e) -> (tensor<64x1000xf32>) {
    %r = affine.apply #shifted(%i)
    %t = tensor.extract_slice %x[%r, 0] [8, 1000] [1, 1] : tensor<64x1000xf32> to tensor<8x1000xf32>
    %s = tx.softmax %t dim = -1 : tensor<8x1000xf32>
    scf.forall.in_parallel {
      tensor.parallel_insert_slice %s into %o[%r, 0] [8, 1000] [1, 1] : tensor<8x1000xf32> into tensor<64x1000xf32>
    }
  }
  return %y : tensor<64x1000xf32>
}

// -----

// A forall over only the first 32 of 64 rows.
// CHECK: map-softmax-to-gpu-user-tiles-errors.mlir:[[@LINE+3]]:8: error: tx-map-softmax-to-gpu: the forall must run over all R rows of the [R, N] input and its tile be a softmax over whole rows [r, r + k) (dim 1)
func.func @half(%x: tensor<64x1000xf32>) -> tensor<64x1000xf32> {
  %e = tensor.empty() : tensor<64x1000xf32>
  %y = scf.forall (%r) = (0) to (32) step (8) shared_outs(%o = %e) -> (tensor<64x1000xf32>) {
    %t = tensor.extract_slice %x[%r, 0] [8, 1000] [1, 1] : tensor<64x1000xf32> to tensor<8x1000xf32>
    %s = tx.softmax %t dim = -1 : tensor<8x1000xf32>
    scf.forall.in_parallel {
      tensor.parallel_insert_slice %s into %o[%r, 0] [8, 1000] [1, 1] : tensor<8x1000xf32> into tensor<64x1000xf32>
    }
  }
  return %y : tensor<64x1000xf32>
}

// -----

// Tiles of 4 rows in a forall that steps by 8 (rows 4..7 of each step
// would be skipped).
// CHECK: map-softmax-to-gpu-user-tiles-errors.mlir:[[@LINE+3]]:8: error: tx-map-softmax-to-gpu: the forall must run over all R rows of the [R, N] input and its tile be a softmax over whole rows [r, r + k) (dim 1)
func.func @gaps(%x: tensor<64x1000xf32>) -> tensor<64x1000xf32> {
  %e = tensor.empty() : tensor<64x1000xf32>
  %y = scf.forall (%r) = (0) to (64) step (8) shared_outs(%o = %e) -> (tensor<64x1000xf32>) {
    %t = tensor.extract_slice %x[%r, 0] [4, 1000] [1, 1] : tensor<64x1000xf32> to tensor<4x1000xf32>
    %s = tx.softmax %t dim = -1 : tensor<4x1000xf32>
    scf.forall.in_parallel {
      tensor.parallel_insert_slice %s into %o[%r, 0] [4, 1000] [1, 1] : tensor<4x1000xf32> into tensor<64x1000xf32>
    }
  }
  return %y : tensor<64x1000xf32>
}

// -----

// Every other row (stride 2): the tile is not rows [r, r + k).
// CHECK: map-softmax-to-gpu-user-tiles-errors.mlir:[[@LINE+3]]:8: error: tx-map-softmax-to-gpu: the forall must write the tile's softmax into its one result at rows [r, r + k) (unit strides, the tile's rows)
func.func @strided(%x: tensor<64x1000xf32>) -> tensor<64x1000xf32> {
  %e = tensor.empty() : tensor<64x1000xf32>
  %y = scf.forall (%r) = (0) to (64) step (8) shared_outs(%o = %e) -> (tensor<64x1000xf32>) {
    %t = tensor.extract_slice %x[%r, 0] [8, 1000] [2, 1] : tensor<64x1000xf32> to tensor<8x1000xf32>
    %s = tx.softmax %t dim = -1 : tensor<8x1000xf32>
    scf.forall.in_parallel {
      tensor.parallel_insert_slice %s into %o[%r, 0] [8, 1000] [1, 1] : tensor<8x1000xf32> into tensor<64x1000xf32>
    }
  }
  return %y : tensor<64x1000xf32>
}
