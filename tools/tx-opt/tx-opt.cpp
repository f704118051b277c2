//===- tx-opt.cpp - mlir-opt with tx built in ------------------------------===//
//
// Every upstream dialect, pass and extension, plus the tx dialect, its passes
// and the named pipelines tx-gpu-pipeline and tx-cpu-pipeline.
//
//===----------------------------------------------------------------------===//
#include "Transformer/Registration.h"

#include "mlir/IR/DialectRegistry.h"
#include "mlir/InitAllDialects.h"
#include "mlir/InitAllExtensions.h"
#include "mlir/InitAllPasses.h"
#include "mlir/Target/LLVMIR/Dialect/All.h"
#include "mlir/Tools/mlir-opt/MlirOptMain.h"

int main(int argc, char **argv) {
  mlir::registerAllPasses();
  mlir::tx::registerTxPassesAndPipelines();

  mlir::DialectRegistry registry;
  mlir::registerAllDialects(registry);
  // Without the extensions, transform.structured.* ops and the external
  // interface models (bufferization, tiling, NVVM target) are missing.
  mlir::registerAllExtensions(registry);
  // gpu-module-to-binary translates gpu.module bodies to LLVM IR.
  mlir::registerAllToLLVMIRTranslations(registry);
  mlir::tx::registerTxDialect(registry);

  return mlir::asMainReturnCode(
      mlir::MlirOptMain(argc, argv, "tx optimizer driver\n", registry));
}
