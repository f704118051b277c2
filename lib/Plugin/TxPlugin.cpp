//===- TxPlugin.cpp - tx as a plugin of upstream mlir-opt ------------------===//
//
//   mlir-opt --load-dialect-plugin=lib/TxPlugin.so \
//            --load-pass-plugin=lib/TxPlugin.so \
//            --pass-pipeline='builtin.module(tx-gpu-pipeline{format=isa})'
//
// Both entry points register the dialect, the passes and the pipelines, so
// either flag alone is enough. (mlir-opt parses its command line before it
// loads plugins: tx passes work inside --pass-pipeline, not as flags.)
//
//===----------------------------------------------------------------------===//
#include "Transformer/Registration.h"
#include "Transformer/TxDialect.h"

#include "mlir/Tools/Plugins/DialectPlugin.h"
#include "mlir/Tools/Plugins/PassPlugin.h"
#include "llvm/Config/llvm-config.h"
#include "llvm/Support/Compiler.h"

using namespace mlir;

extern "C" LLVM_ATTRIBUTE_WEAK DialectPluginLibraryInfo
mlirGetDialectPluginInfo() {
  return {MLIR_PLUGIN_API_VERSION, "TxDialect", LLVM_VERSION_STRING,
          [](DialectRegistry *registry) {
            tx::registerTxDialect(*registry);
            tx::registerTxPassesAndPipelines();
          }};
}

extern "C" LLVM_ATTRIBUTE_WEAK PassPluginLibraryInfo mlirGetPassPluginInfo() {
  return {MLIR_PLUGIN_API_VERSION, "TxPasses", LLVM_VERSION_STRING,
          []() { tx::registerTxPassesAndPipelines(); }};
}
