//===- ImageInfoTool.cpp - prints what ImageInfo reads from GPU images ---===//
//
//   tx-runtime-imageinfo FILE...
//
// For each file (PTX, cubin or fatbin, e.g. written by ptxas/fatbinary or
// extracted from a gpu.binary) prints its format and, sorted by name, every
// kernel with the parameter count the runtime will check launches against:
//   <file>: <format>[, incomplete]
//     kernel <name> params <count>
//
//===----------------------------------------------------------------------===//

#include "ImageInfo.h"

#include <algorithm>
#include <cstdio>
#include <fstream>
#include <iterator>
#include <vector>

int main(int argc, char **argv) {
  int status = 0;
  for (int i = 1; i < argc; ++i) {
    std::ifstream in(argv[i], std::ios::binary);
    if (!in) {
      std::fprintf(stderr, "tx-runtime-imageinfo: cannot read %s\n", argv[i]);
      status = 1;
      continue;
    }
    std::vector<char> bytes((std::istreambuf_iterator<char>(in)),
                            std::istreambuf_iterator<char>());
    txrt::ImageInfo info = txrt::inspectImage(bytes.data(), bytes.size());
    std::sort(info.kernels.begin(), info.kernels.end(),
              [](const txrt::KernelParamInfo &a,
                 const txrt::KernelParamInfo &b) { return a.name < b.name; });
    std::printf("%s: %s%s\n", argv[i], txrt::imageFormatName(info.format),
                info.complete ? "" : ", incomplete");
    for (const txrt::KernelParamInfo &kernel : info.kernels)
      std::printf("  kernel %s params %d\n", kernel.name.c_str(),
                  kernel.paramCount);
  }
  return status;
}
