//===- TxDialect.cpp - the tx dialect -------------------------------------===//
#include "Transformer/TxDialect.h"
#include "Transformer/TxOps.h"

using namespace mlir;
using namespace mlir::tx;

#include "Transformer/TxOpsDialect.cpp.inc"

void TxDialect::initialize() {
  addOperations<
#define GET_OP_LIST
#include "Transformer/TxOps.cpp.inc"
      >();
}
