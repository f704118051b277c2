func.func private @shifted_exp(%x: f32, %m: f32) -> f32 {
  %d = arith.subf %x, %m : f32
  %e = math.exp %d : f32
  return %e : f32
}
func.func @use_helper(%in: memref<?xf32>, %out: memref<?xf32>, %m: f32) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %n = memref.dim %in, %c0 : memref<?xf32>
  scf.parallel (%i) = (%c0) to (%n) step (%c1) {
    %x = memref.load %in[%i] : memref<?xf32>
    %e = func.call @shifted_exp(%x, %m) : (f32, f32) -> f32
    memref.store %e, %out[%i] : memref<?xf32>
    scf.reduce
  }
  return
}
