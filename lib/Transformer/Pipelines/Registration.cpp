//===- Registration.cpp - registering tx's dialect, passes and pipelines --===//
//
// The dialect with a DialectRegistry, and the named pipelines
// (tx-gpu-pipeline, tx-cpu-pipeline; built in Pipelines.cpp) with their
// options checked when a pipeline is parsed.
//
//===----------------------------------------------------------------------===//
#include "Transformer/Registration.h"
#include "Transformer/Passes.h"
#include "Transformer/TxDialect.h"

#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Pass/PassRegistry.h"
#include "llvm/Support/raw_ostream.h"
#include <mutex>

using namespace mlir;
using namespace mlir::tx;

void mlir::tx::registerTxDialect(DialectRegistry &registry) {
  registry.insert<TxDialect>();
  // Wherever the gpu dialect is loaded, load tx too: its canonicalization
  // turns memref.dim with a negative constant index into ub.poison before
  // the gpu dialect's SimplifyDimOfAllocOp reads out of bounds on it (LLVM
  // 22; see TxDialect.cpp). So a plain `tx-opt --canonicalize` of IR without
  // tx ops does not crash either.
  registry.addExtension(+[](MLIRContext *ctx, gpu::GPUDialect *) {
    ctx->getOrLoadDialect<TxDialect>();
  });
}

namespace {
/// The option names a pipeline's options print (`{name=value ...}`).
SmallVector<std::string> optionNames(const detail::PassOptions &options) {
  std::string text;
  llvm::raw_string_ostream os(text);
  options.print(os);
  SmallVector<std::string> names;
  StringRef rest(text);
  while (!rest.empty()) {
    size_t eq = rest.find('=');
    if (eq == StringRef::npos)
      break;
    StringRef head = rest.take_front(eq);
    size_t start = head.find_last_of(" {");
    names.push_back(head.drop_front(start == StringRef::npos ? 0 : start + 1).str());
    rest = rest.drop_front(eq + 1);
  }
  return names;
}

/// A pipeline's option error as one line naming the pipeline: for an
/// unknown option, the nearest valid name.
std::string describeOptionError(StringRef pipeline, StringRef parserMessage,
                                const detail::PassOptions &options) {
  StringRef msg = StringRef(parserMessage).trim();
  msg.consume_front("<Pass-Options-Parser>: ");
  std::string out = (pipeline + ": ").str();
  StringRef name = msg;
  if (!name.consume_front("no such option "))
    return out + msg.str();
  out += "unknown option '" + name.str() + "'";
  std::string best;
  unsigned bestDist = ~0u;
  for (const std::string &o : optionNames(options)) {
    unsigned d = name.edit_distance(o);
    if (d < bestDist)
      best = o, bestDist = d;
  }
  if (!best.empty() && bestDist <= std::max<size_t>(2, name.size() / 3))
    out += "; did you mean '" + best + "'?";
  return out + " (tx-opt --help lists " + pipeline.str() + "'s options)";
}

/// Registers a named pipeline whose options are all checked when the
/// pipeline is parsed, before any pass runs: an unknown option names the
/// pipeline and the nearest valid option; `build` reports a bad value
/// through its error callback.
template <typename Options>
void registerCheckedPipeline(
    StringRef name, StringRef description,
    std::function<LogicalResult(OpPassManager &, const Options &,
                                function_ref<LogicalResult(const Twine &)>)>
        build) {
  std::string pipeline = name.str();
  registerPassPipeline(
      name, description,
      [pipeline, build](OpPassManager &pm, StringRef optionsStr,
                        function_ref<LogicalResult(const Twine &)> error) {
        Options options;
        std::string message;
        llvm::raw_string_ostream os(message);
        if (failed(options.parseFromString(optionsStr, os)))
          return error(describeOptionError(pipeline, message, options));
        return build(pm, options, error);
      },
      [](function_ref<void(const detail::PassOptions &)> handler) {
        handler(Options());
      });
}
} // namespace

void mlir::tx::registerTxPipelines() {
  registerCheckedPipeline<GPUPipelineOptions>(
      "tx-gpu-pipeline",
      "Compile tx (and linalg) to NVIDIA GPU code: tx -> linalg -> bufferize "
      "-> parallel loops -> GPU mapping -> NVVM -> gpu.binary, host code in "
      "the LLVM dialect",
      [](OpPassManager &pm, const GPUPipelineOptions &options,
         function_ref<LogicalResult(const Twine &)> error) {
        if (options.optLevel < 0 || options.optLevel > 3)
          return error("tx-gpu-pipeline: opt-level must be 0, 1, 2 or 3, got " +
                       Twine(options.optLevel));
        (void)buildTxGPUPipeline(pm, options);
        return success();
      });
  registerCheckedPipeline<CPUPipelineOptions>(
      "tx-cpu-pipeline",
      "Compile tx (and linalg) to LLVM dialect CPU code (loops), runnable "
      "with mlir-runner -e main (the module needs a @main)",
      [](OpPassManager &pm, const CPUPipelineOptions &options,
         function_ref<LogicalResult(const Twine &)>) {
        buildTxCPUPipeline(pm, options);
        return success();
      });
}

void mlir::tx::registerTxPassesAndPipelines() {
  static std::once_flag once;
  std::call_once(once, [] {
    registerTxPasses();
    registerTxPipelines();
  });
}
