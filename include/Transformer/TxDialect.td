//===- TxDialect.td - the tx dialect -----------------------*- tablegen -*-===//
//
// The tx dialect: softmax, scaled dot-product attention and the transformer
// primitives around them, as value-semantic tensor ops.
//
//===----------------------------------------------------------------------===//

#ifndef TRANSFORMER_TXDIALECT_TD
#define TRANSFORMER_TXDIALECT_TD

include "mlir/IR/OpBase.td"

def Tx_Dialect : Dialect {
  let name = "tx";
  let summary = "Transformer ops (softmax, attention) for GPU compilation";
  let description = [{
    The `tx` dialect expresses the numerically delicate core of a transformer
    layer (softmax and scaled dot-product attention) as high-level ops on
    ranked tensors. Every op is `Pure` and has value semantics; element types
    are `f16`, `bf16` or `f32`. Dynamic dimensions (`?`) are accepted
    everywhere; whatever can be checked statically is checked by the verifiers.

    The ops are lowered to `linalg` by `convert-tx-to-linalg` and from there to
    NVIDIA GPU code by the `tx-gpu-pipeline` named pipeline (or to CPU code by
    `tx-cpu-pipeline`).
  }];
  let cppNamespace = "::mlir::tx";
  // A safety net for an upstream crash (see TxDialect.cpp).
  let hasCanonicalizer = 1;
  // The GPU strategies (TxAttrs.td), and a check that `tx.gpu_strategy` on
  // any op is one of them.
  let useDefaultAttributePrinterParser = 1;
  let hasOperationAttrVerify = 1;
  let extraClassDeclaration = [{
    /// Registers the attributes of TxAttrs.td (IR/TxAttrs.cpp).
    void registerAttributes();
  }];
  let dependentDialects = ["::mlir::ub::UBDialect"];
}

class Tx_Op<string mnemonic, list<Trait> traits = []>
    : Op<Tx_Dialect, mnemonic, traits>;

#endif // TRANSFORMER_TXDIALECT_TD
