// Entry points for host-calls.test, compiled with softmax=simple and
// attention=simple (reference lowerings, which need device temporaries).
func.func @softmax_simple(%x: tensor<?x?xf32>) -> tensor<?x?xf32> {
  %p = tx.softmax %x dim = -1 : tensor<?x?xf32>
  return %p : tensor<?x?xf32>
}
func.func @attn_simple(%q: tensor<?x?x?x?xf32>, %k: tensor<?x?x?x?xf32>, %v: tensor<?x?x?x?xf32>) -> tensor<?x?x?x?xf32> {
  %o = tx.attention %q, %k, %v : tensor<?x?x?x?xf32>, tensor<?x?x?x?xf32>, tensor<?x?x?x?xf32> -> tensor<?x?x?x?xf32>
  return %o : tensor<?x?x?x?xf32>
}
