// Score and mask functions on the GPU path (issue #42): the strategy gives
// ops with regions a flash kernel, and the kernel clones the region's body
// into its score step, the captured tensors read from their buffers
// (memref.load inside the launch). Every family: wgmma (sm_90a) and
// mma.sync (sm_90) for f16, CUDA cores for f32, the split-KV decode for one
// query row. A mask function without causal, window or lengths takes block
// sparsity. The whole pipeline compiles to PTX for both chips.
// RUN: tx-opt %s --tx-attention-to-gpu="sm=90 wgmma" | FileCheck %s --check-prefixes=CHECK,WGMMA
// RUN: tx-opt %s --tx-attention-to-gpu="sm=90" | FileCheck %s --check-prefixes=CHECK,MMA
// RUN: tx-opt %s --tx-gpu-pipeline="chip=sm_90a format=isa" | FileCheck %s --check-prefix=PTX
// RUN: tx-opt %s --tx-gpu-pipeline="chip=sm_90 format=isa" | FileCheck %s --check-prefix=PTX

// CHECK-LABEL: func.func @alibi_f16
// CHECK-SAME: %[[SL:[^:]*]]: tensor<8xf32>
// CHECK: %[[BUF:.*]] = bufferization.to_buffer %[[SL]] read_only : tensor<8xf32> to memref<8xf32>
// CHECK: gpu.launch
// WGMMA: wgmma.mma_async.sync.aligned
// MMA: mma.sync
// CHECK: memref.load %[[BUF]][%{{.*}}] : memref<8xf32>
// CHECK-NOT: tx.attention
// PTX-LABEL: .entry alibi_f16
func.func @alibi_f16(%q: tensor<2x8x256x64xf16>, %k: tensor<2x2x256x64xf16>,
                     %v: tensor<2x2x256x64xf16>, %slopes: tensor<8xf32>) -> tensor<2x8x256x64xf16> {
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
      : tensor<2x8x256x64xf16>, tensor<2x2x256x64xf16>, tensor<2x2x256x64xf16> -> tensor<2x8x256x64xf16>
  return %o : tensor<2x8x256x64xf16>
}

// The CUDA-core kernel: a document mask (captured i32 ids, read at the row
// and at the key), with block sparsity (KeyTileLists.h): a kernel marks
// the key tiles the mask shows for each query tile (a CTA-wide OR,
// bar.red.or), a second compacts them into lists and counts, and the
// attention kernel visits count[row] tiles, tile t at list[row, t].
// CHECK-LABEL: func.func @document_f32
// CHECK: %[[LIST:.*]] = memref.alloc(%{{.*}}) : memref<?xi32>
// CHECK: %[[COUNT:.*]] = memref.alloc(%{{.*}}) : memref<?xi32>
// CHECK: gpu.launch
// CHECK: memref.load %{{.*}}[%{{.*}}] : memref<100xi32>
// CHECK: %[[ANY:.*]] = nvvm.barrier #nvvm.reduction<or> %{{.*}} -> i32
// CHECK: memref.store %[[ANY]], %[[LIST]][%{{.*}}] : memref<?xi32>
// CHECK: gpu.launch
// CHECK: memref.store %{{.*}}, %[[COUNT]][%{{.*}}] : memref<?xi32>
// CHECK: gpu.launch
// CHECK: memref.load %[[COUNT]][%{{.*}}] : memref<?xi32>
// CHECK: memref.load %[[LIST]][%{{.*}}] : memref<?xi32>
// CHECK: memref.load %{{.*}}[%{{.*}}] : memref<100xi32>
// CHECK: memref.load %{{.*}}[%{{.*}}] : memref<100xi32>
// CHECK: arith.cmpi eq, %{{.*}}, %{{.*}} : i32
// PTX-LABEL: .entry document_f32
func.func @document_f32(%q: tensor<1x2x100x32xf32>, %k: tensor<1x2x100x32xf32>,
                        %v: tensor<1x2x100x32xf32>, %doc: tensor<100xi32>) -> tensor<1x2x100x32xf32> {
  %o = tx.attention %q, %k, %v mask_mod(%doc : tensor<100xi32>) {
      ^bb0(%b: index, %h: index, %i: index, %j: index, %d: tensor<100xi32>):
        %di = tensor.extract %d[%i] : tensor<100xi32>
        %dj = tensor.extract %d[%j] : tensor<100xi32>
        %same = arith.cmpi eq, %di, %dj : i32
        tx.yield %same : i1
      }
      : tensor<1x2x100x32xf32>, tensor<1x2x100x32xf32>, tensor<1x2x100x32xf32> -> tensor<1x2x100x32xf32>
  return %o : tensor<1x2x100x32xf32>
}

// The tensor-core kernels skip the mask function in full key tiles: the
// classifier also ANDs "every pair shown" across the CTA (bar.red.and)
// into a dense full[row, kt] array, and the kernel evaluates the mask of a
// tile under one scf.if on that flag.
// CHECK-LABEL: func.func @document_f16
// CHECK: %[[LIST16:.*]] = memref.alloc(%{{.*}}) : memref<?xi32>
// CHECK: memref.alloc(%{{.*}}) : memref<?xi32>
// CHECK: %[[FULL:.*]] = memref.alloc(%{{.*}}) : memref<?xi32>
// CHECK: gpu.launch
// CHECK: %[[ANY16:.*]] = nvvm.barrier #nvvm.reduction<or> %{{.*}} -> i32
// CHECK: %[[ALL:.*]] = nvvm.barrier #nvvm.reduction<and> %{{.*}} -> i32
// CHECK: memref.store %[[ANY16]], %[[LIST16]][%[[AT:.*]]] : memref<?xi32>
// CHECK: memref.store %[[ALL]], %[[FULL]][%[[AT]]] : memref<?xi32>
// CHECK: gpu.launch
// CHECK: gpu.launch
// CHECK: %[[F:.*]] = memref.load %[[FULL]][%{{.*}}] : memref<?xi32>
// CHECK: %[[ISFULL:.*]] = arith.cmpi ne, %[[F]], %{{.*}} : i32
// CHECK: %[[PARTIAL:.*]] = arith.xori %[[ISFULL]], %{{.*}} : i1
// CHECK: scf.if %[[PARTIAL]] -> (f32, f32
// CHECK: memref.load %{{.*}}[%{{.*}}] : memref<200xi32>
// CHECK: arith.cmpi eq, %{{.*}}, %{{.*}} : i32
// CHECK: } else {
// PTX-LABEL: .entry document_f16
func.func @document_f16(%q: tensor<1x2x200x64xf16>, %k: tensor<1x2x200x64xf16>,
                        %v: tensor<1x2x200x64xf16>, %doc: tensor<200xi32>) -> tensor<1x2x200x64xf16> {
  %o = tx.attention %q, %k, %v mask_mod(%doc : tensor<200xi32>) {
      ^bb0(%b: index, %h: index, %i: index, %j: index, %d: tensor<200xi32>):
        %di = tensor.extract %d[%i] : tensor<200xi32>
        %dj = tensor.extract %d[%j] : tensor<200xi32>
        %same = arith.cmpi eq, %di, %dj : i32
        tx.yield %same : i1
      }
      : tensor<1x2x200x64xf16>, tensor<1x2x200x64xf16>, tensor<1x2x200x64xf16> -> tensor<1x2x200x64xf16>
  return %o : tensor<1x2x200x64xf16>
}

// The split-KV decode (its CUDA-core form: the tensor-core form is not
// chosen for ops with regions).
// CHECK-LABEL: func.func @decode_alibi
// CHECK: gpu.launch
// CHECK: memref.load %{{.*}}[%{{.*}}] : memref<32xf32>
// PTX-LABEL: .entry decode_alibi
func.func @decode_alibi(%q: tensor<4x32x1x128xf16>, %k: tensor<4x8x4096x128xf16>,
                        %v: tensor<4x8x4096x128xf16>, %slopes: tensor<32xf32>) -> tensor<4x32x1x128xf16> {
  %o = tx.attention %q, %k, %v score_mod(%slopes : tensor<32xf32>) {
      ^bb0(%s: f32, %b: index, %h: index, %i: index, %j: index, %sl: tensor<32xf32>):
        %m = tensor.extract %sl[%h] : tensor<32xf32>
        %ji = arith.index_cast %j : index to i64
        %df = arith.sitofp %ji : i64 to f32
        %bias = arith.mulf %m, %df : f32
        %r = arith.subf %s, %bias : f32
        tx.yield %r : f32
      }
      : tensor<4x32x1x128xf16>, tensor<4x8x4096x128xf16>, tensor<4x8x4096x128xf16> -> tensor<4x32x1x128xf16>
  return %o : tensor<4x32x1x128xf16>
}

// Fast math in the kernels of f16/bf16 inputs (ModRegions.h): the score
// function's f32 tanh is PTX tanh.approx.f32 (the softcap attribute's
// form), a division by a constant a multiply by its reciprocal, a division
// by a variable div.full.f32; in an f32 kernel both stay exact.
// CHECK-LABEL: func.func @softcap_bias_f16
// CHECK: gpu.launch
// CHECK-NOT: math.tanh
// CHECK-NOT: arith.divf
// CHECK: arith.constant 0.0333333351 : f32
// CHECK: llvm.inline_asm asm_dialect = att "tanh.approx.f32 $0, $1;", "=f,f"
// CHECK: llvm.inline_asm asm_dialect = att "div.full.f32 $0, $1, $2;", "=f,f,f"
// CHECK: gpu.terminator
// PTX-LABEL: .entry softcap_bias_f16
// PTX: tanh.approx.f32
// PTX: div.full.f32
func.func @softcap_bias_f16(%q: tensor<1x2x128x64xf16>, %k: tensor<1x2x256x64xf16>,
                            %v: tensor<1x2x256x64xf16>) -> tensor<1x2x128x64xf16> {
  %o = tx.attention %q, %k, %v score_mod {
      ^bb0(%s: f32, %b: index, %h: index, %i: index, %j: index):
        %c = arith.constant 30.0 : f32
        %x = arith.divf %s, %c : f32
        %t = math.tanh %x : f32
        %r = arith.mulf %c, %t : f32
        %one = arith.constant 1.0 : f32
        %ji = arith.index_cast %j : index to i64
        %jf = arith.sitofp %ji : i64 to f32
        %den = arith.addf %jf, %one : f32
        %bias = arith.divf %one, %den : f32
        %y = arith.addf %r, %bias : f32
        tx.yield %y : f32
      }
      : tensor<1x2x128x64xf16>, tensor<1x2x256x64xf16>, tensor<1x2x256x64xf16> -> tensor<1x2x128x64xf16>
  return %o : tensor<1x2x128x64xf16>
}

// CHECK-LABEL: func.func @softcap_f32
// CHECK: gpu.launch
// CHECK: arith.divf %{{.*}}, %{{.*}} : f32
// CHECK: math.tanh %{{.*}} : f32
// CHECK-NOT: tanh.approx.f32
// CHECK: gpu.terminator
// PTX-LABEL: .entry softcap_f32
func.func @softcap_f32(%q: tensor<1x2x64x32xf32>, %k: tensor<1x2x96x32xf32>,
                       %v: tensor<1x2x96x32xf32>) -> tensor<1x2x64x32xf32> {
  %o = tx.attention %q, %k, %v score_mod {
      ^bb0(%s: f32, %b: index, %h: index, %i: index, %j: index):
        %c = arith.constant 30.0 : f32
        %x = arith.divf %s, %c : f32
        %t = math.tanh %x : f32
        %r = arith.mulf %c, %t : f32
        tx.yield %r : f32
      }
      : tensor<1x2x64x32xf32>, tensor<1x2x96x32xf32>, tensor<1x2x96x32xf32> -> tensor<1x2x64x32xf32>
  return %o : tensor<1x2x64x32xf32>
}
