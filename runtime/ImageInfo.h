//===- ImageInfo.h - kernel parameter counts read from GPU images --------===//
//
// Reads the parameter count of every kernel from a GPU image as handed to
// cuModuleLoadData: PTX text (the `.entry name(.param ...)` lists), a cubin
// (ELF: the EIATTR_KPARAM_INFO records of each `.nv.info.<kernel>` section)
// or a fatbin (the uncompressed cubin/PTX entries it wraps; compressed entries
// are skipped). The runtime uses it to check MLIR's paramsCount at launch
// without probing the driver past the last parameter; the fake driver
// (runtime/test/FakeCuda.cpp) uses it to know the kernels of an image.
//
// No CUDA dependency; every read is bounds-checked, so malformed images give
// an empty result, never a crash.
//
//===----------------------------------------------------------------------===//

#ifndef TX_RUNTIME_IMAGEINFO_H
#define TX_RUNTIME_IMAGEINFO_H

#include <cstddef>
#include <string>
#include <vector>

namespace txrt {

enum class ImageFormat { Unknown, Ptx, Cubin, Fatbin };

struct KernelParamInfo {
  std::string name;
  int paramCount = 0;
};

struct ImageInfo {
  ImageFormat format = ImageFormat::Unknown;
  /// Kernels whose parameter count could be read. For a fatbin whose entries
  /// are all compressed this is empty although the image has kernels.
  std::vector<KernelParamInfo> kernels;
  /// True when `kernels` lists every kernel of the image (false for fatbins
  /// without a readable entry and for unknown formats).
  bool complete = false;

  /// The parameter count of kernel `name`, or -1 if unknown.
  int paramCount(const char *name) const;
};

/// Inspects `size` bytes at `data`. `size` == 0 means unknown (as for
/// cuModuleLoadData): it is then taken from the image's own headers (ELF,
/// fatbin) or NUL terminator (PTX), see imageSize().
ImageInfo inspectImage(const void *data, size_t size);

/// The size of an image whose size was not given: from the ELF header and
/// section table, the fatbin header, or up to the NUL of PTX text. Trusts
/// the headers (as the driver must).
size_t imageSize(const void *data);

const char *imageFormatName(ImageFormat format);

} // namespace txrt

#endif // TX_RUNTIME_IMAGEINFO_H
