//===- WgmmaOps.cpp - sm_90a warpgroup-MMA building blocks -----------------===//
//
// See WgmmaOps.h.
//
//===----------------------------------------------------------------------===//
#include "GPU/Kernels/Common/WgmmaOps.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/Dialect/LLVMIR/NVVMDialect.h"

using namespace mlir;
using namespace mlir::tx;

static Value i64c(OpBuilder &b, Location loc, int64_t v) {
  return arith::ConstantIntOp::create(b, loc, b.getI64Type(), v);
}

Value wgmma::descriptor(OpBuilder &b, Location loc, Value addr) {
  int64_t hi = (int64_t(1) << 62) | (int64_t(1024 >> 4) << 32) |
               (int64_t(16 >> 4) << 16);
  Value a = arith::AndIOp::create(
      b, loc, arith::ShRUIOp::create(b, loc, addr, i64c(b, loc, 4)),
      i64c(b, loc, 0x3FFF));
  return arith::OrIOp::create(b, loc, a, i64c(b, loc, hi));
}

Value wgmma::descriptorPlus(OpBuilder &b, Location loc, Value desc,
                            int64_t bytes) {
  return bytes == 0
             ? desc
             : arith::AddIOp::create(b, loc, desc, i64c(b, loc, bytes >> 4))
                   .getResult();
}

SmallVector<Value> wgmma::inlinePtx(OpBuilder &b, Location loc,
                                    StringRef text, StringRef constraints,
                                    ValueRange operands, int64_t nOut) {
  MLIRContext *ctx = b.getContext();
  Type resTy = nOut ? LLVM::LLVMStructType::getLiteral(
                          ctx, SmallVector<Type>(nOut, b.getF32Type()))
                    : Type();
  auto asmOp = LLVM::InlineAsmOp::create(
      b, loc, resTy, operands, text, constraints, /*has_side_effects=*/true,
      /*is_align_stack=*/false, LLVM::tailcallkind::TailCallKind::None,
      LLVM::AsmDialectAttr::get(ctx, LLVM::AsmDialect::AD_ATT), ArrayAttr());
  SmallVector<Value> res;
  for (int64_t i = 0; i < nOut; ++i)
    res.push_back(
        LLVM::ExtractValueOp::create(b, loc, asmOp.getRes(), i).getResult());
  return res;
}

std::string wgmma::regList(int64_t first, int64_t n) {
  std::string r = "{";
  for (int64_t i = 0; i < n; ++i)
    r += (i ? ", $" : "$") + std::to_string(first + i);
  return r + "}";
}

void wgmma::fenceProxyAsync(OpBuilder &b, Location loc) {
  MLIRContext *ctx = b.getContext();
  NVVM::FenceProxyOp::create(
      b, loc, NVVM::ProxyKindAttr::get(ctx, NVVM::ProxyKind::async_shared),
      NVVM::SharedSpaceAttr::get(ctx, NVVM::SharedSpace::shared_cta));
}

int64_t wgmma::WgmmaStatement::accumulator(int64_t n, ArrayRef<Value> init) {
  accs.push_back({n, SmallVector<Value>(init.begin(), init.end())});
  return accs.size() - 1;
}

void wgmma::WgmmaStatement::sharedA(int64_t acc, Value aDesc, Value bDesc,
                                    bool transA, bool transB) {
  bool zero = accs[acc].init.empty() && !accs[acc].written;
  accs[acc].written = true;
  products.push_back({acc, {aDesc}, bDesc, transA, transB, zero});
}

void wgmma::WgmmaStatement::registerA(int64_t acc, ArrayRef<Value> aRegs,
                                      Value bDesc, bool transB) {
  bool zero = accs[acc].init.empty() && !accs[acc].written;
  accs[acc].written = true;
  products.push_back({acc,
                      SmallVector<Value>(aRegs.begin(), aRegs.end()), bDesc,
                      false, transB, zero});
}

SmallVector<SmallVector<Value>> wgmma::WgmmaStatement::emit() {
  // Operands: every accumulator's outputs, the tied inputs of those with an
  // initial value, each product's A and B, the constant 0 (predicates).
  SmallVector<int64_t> outAt;
  int64_t nOut = 0;
  for (const Acc &a : accs) {
    outAt.push_back(nOut);
    nOut += a.n / 2;
  }
  std::string cons;
  for (int64_t i = 0; i < nOut; ++i)
    cons += "=f,";
  SmallVector<Value> ops;
  for (auto [i, a] : llvm::enumerate(accs))
    for (auto [j, v] : llvm::enumerate(a.init)) {
      cons += std::to_string(outAt[i] + j) + ",";
      ops.push_back(v);
    }
  int64_t next = nOut + ops.size();
  const std::string ab = elt.isBF16() ? "bf16.bf16" : "f16.f16";
  std::string body;
  for (const Product &p : products) {
    const Acc &a = accs[p.acc];
    std::string aText;
    if (p.a.size() == 1) {
      aText = "$" + std::to_string(next++);
      cons += "l,";
    } else {
      aText = regList(next, 4);
      next += 4;
      cons += "r,r,r,r,";
    }
    ops.append(p.a.begin(), p.a.end());
    std::string bText = "$" + std::to_string(next++);
    cons += "l,";
    ops.push_back(p.bDesc);
    body += "wgmma.mma_async.sync.aligned.m64n" + std::to_string(a.n) +
            "k16.f32." + ab + " " + regList(outAt[p.acc], a.n / 2) + ", " +
            aText + ", " + bText + (p.zero ? ", p" : ", q") + ", 1, 1, " +
            (p.a.size() == 1 ? std::string(p.transA ? "1, " : "0, ") : "") +
            (p.transB ? "1" : "0") + ";\n";
  }
  std::string z = std::to_string(next);
  cons += "r";
  ops.push_back(arith::ConstantIntOp::create(b, loc, b.getI32Type(), 0));
  std::string text = "{\n.reg .pred p, q;\nsetp.ne.b32 p, $" + z +
                     ", 0;\nsetp.eq.b32 q, $" + z +
                     ", 0;\nwgmma.fence.sync.aligned;\n" + body +
                     "wgmma.commit_group.sync.aligned;\n"
                     "wgmma.wait_group.sync.aligned 0;\n}";
  SmallVector<Value> res = inlinePtx(b, loc, text, cons, ops, nOut);
  SmallVector<SmallVector<Value>> out;
  for (auto [i, a] : llvm::enumerate(accs))
    out.emplace_back(res.begin() + outAt[i], res.begin() + outAt[i] + a.n / 2);
  return out;
}
