//===- ImageInfo.cpp - kernel parameter counts read from GPU images ------===//
//
// See ImageInfo.h. Formats, as produced by CUDA 12/13 ptxas and fatbinary
// (checked on sm_90, sm_100 and sm_120 cubins):
//  - cubin: ELF64 little-endian. Each kernel has a section
//    `.nv.info.<kernel>` holding attribute records, each a 4-byte header
//    {u8 format, u8 attribute, u16 value-or-size} followed, for format
//    EIFMT_SVAL (4), by `size` bytes. EIATTR_KPARAM_INFO (0x17) records are
//    {u32 index, u16 ordinal, u16 offset, u32 flags/size}, one per
//    parameter; newer toolkits may emit EIATTR_KPARAM_INFO_V2 (0x45) instead,
//    which is counted per record. A kernel without parameters has no such
//    record.
//  - fatbin: a header {u32 magic 0xBA55ED50, u16 version, u16 header size,
//    u64 size of the entries} followed by entries {u16 kind (1 PTX, 2 ELF),
//    u16, u32 entry-header size, u64 payload size, ...} and their payloads.
//    fatbinary compresses PTX (and, when asked, ELF) payloads; a compressed
//    payload does not start with the ELF magic / PTX text and is skipped.
//  - PTX: `.entry <name> ( .param ..., .param ... )`; a kernel without
//    parameters may omit the parentheses.
//
//===----------------------------------------------------------------------===//

#include "ImageInfo.h"

#include <cstdint>
#include <cstring>

namespace txrt {

namespace {

uint16_t rd16(const uint8_t *p) { return uint16_t(p[0] | (p[1] << 8)); }
uint32_t rd32(const uint8_t *p) {
  return uint32_t(p[0]) | (uint32_t(p[1]) << 8) | (uint32_t(p[2]) << 16) |
         (uint32_t(p[3]) << 24);
}
uint64_t rd64(const uint8_t *p) {
  return uint64_t(rd32(p)) | (uint64_t(rd32(p + 4)) << 32);
}

bool isIdentChar(char c) {
  return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') ||
         (c >= '0' && c <= '9') || c == '_' || c == '$' || c == '%';
}

/// Skips whitespace and comments starting at `i`; returns the new position.
size_t skipSpace(const char *text, size_t len, size_t i) {
  while (i < len) {
    char c = text[i];
    if (c == ' ' || c == '\t' || c == '\n' || c == '\r') {
      ++i;
    } else if (c == '/' && i + 1 < len && text[i + 1] == '/') {
      while (i < len && text[i] != '\n')
        ++i;
    } else if (c == '/' && i + 1 < len && text[i + 1] == '*') {
      i += 2;
      while (i + 1 < len && !(text[i] == '*' && text[i + 1] == '/'))
        ++i;
      i = i + 1 < len ? i + 2 : len;
    } else {
      break;
    }
  }
  return i;
}

/// True if the directive `word` (e.g. ".entry") starts at `i` as a token.
bool directiveAt(const char *text, size_t len, size_t i, const char *word) {
  size_t n = std::strlen(word);
  if (i + n > len || std::memcmp(text + i, word, n) != 0)
    return false;
  if (i > 0 && (isIdentChar(text[i - 1]) || text[i - 1] == '.'))
    return false;
  return i + n == len || !isIdentChar(text[i + n]);
}

void parsePtx(const char *text, size_t len,
              std::vector<KernelParamInfo> &kernels) {
  size_t i = 0;
  while (i < len) {
    char c = text[i];
    if (c == '/' && i + 1 < len && (text[i + 1] == '/' || text[i + 1] == '*')) {
      i = skipSpace(text, len, i);
      continue;
    }
    if (c == '"') { // string literal (e.g. in .file)
      ++i;
      while (i < len && text[i] != '"' && text[i] != '\n')
        ++i;
      ++i;
      continue;
    }
    if (c != '.' || !directiveAt(text, len, i, ".entry")) {
      ++i;
      continue;
    }
    i = skipSpace(text, len, i + 6);
    size_t nameBegin = i;
    while (i < len && isIdentChar(text[i]))
      ++i;
    if (i == nameBegin)
      continue;
    KernelParamInfo kernel;
    kernel.name.assign(text + nameBegin, i - nameBegin);
    i = skipSpace(text, len, i);
    if (i < len && text[i] == '(') {
      ++i;
      while (i < len && text[i] != ')') {
        size_t next = skipSpace(text, len, i);
        if (next != i) {
          i = next;
          continue;
        }
        if (text[i] == '.' && directiveAt(text, len, i, ".param")) {
          ++kernel.paramCount;
          i += 6;
        } else {
          ++i;
        }
      }
      if (i >= len)
        return; // Unterminated parameter list: not a usable image.
    }
    kernels.push_back(std::move(kernel));
  }
}

bool looksLikePtx(const uint8_t *data, size_t size) {
  size_t window = size < 4096 ? size : 4096;
  const char *text = reinterpret_cast<const char *>(data);
  for (size_t i = 0; i + 8 <= window; ++i)
    if (std::memcmp(text + i, ".version", 8) == 0)
      return true;
  return false;
}

bool isElf(const uint8_t *data, size_t size) {
  return size >= 4 && data[0] == 0x7f && data[1] == 'E' && data[2] == 'L' &&
         data[3] == 'F';
}

/// Parses the `.nv.info.<kernel>` sections of a cubin. Returns false if the
/// ELF structure itself is unreadable.
bool parseCubin(const uint8_t *d, size_t n,
                std::vector<KernelParamInfo> &kernels) {
  if (n < 64 || !isElf(d, n) || d[4] != 2 /*ELFCLASS64*/ ||
      d[5] != 1 /*little endian*/)
    return false;
  uint64_t shoff = rd64(d + 0x28);
  uint16_t shentsize = rd16(d + 0x3a);
  uint16_t shnum = rd16(d + 0x3c);
  uint16_t shstrndx = rd16(d + 0x3e);
  if (shentsize < 64 || shnum == 0 || shstrndx >= shnum || shoff > n ||
      uint64_t(shnum) * shentsize > n - shoff)
    return false;
  auto section = [&](unsigned index) { return d + shoff + index * shentsize; };
  const uint8_t *strtab = section(shstrndx);
  uint64_t strOffset = rd64(strtab + 24), strSize = rd64(strtab + 32);
  if (strOffset > n || strSize > n - strOffset)
    return false;
  const char *strings = reinterpret_cast<const char *>(d + strOffset);

  static const char kPrefix[] = ".nv.info.";
  const size_t prefixLen = sizeof(kPrefix) - 1;
  for (unsigned s = 0; s < shnum; ++s) {
    const uint8_t *header = section(s);
    uint32_t nameOffset = rd32(header);
    if (nameOffset >= strSize)
      continue;
    const char *name = strings + nameOffset;
    size_t nameLen = strnlen(name, strSize - nameOffset);
    if (nameLen == strSize - nameOffset || nameLen <= prefixLen ||
        std::memcmp(name, kPrefix, prefixLen) != 0)
      continue;
    uint64_t offset = rd64(header + 24), size = rd64(header + 32);
    if (offset > n || size > n - offset)
      continue;
    const uint8_t *p = d + offset, *end = p + size;
    int maxOrdinal = -1, v2Records = 0;
    bool readable = true;
    while (p < end) {
      if (end - p < 4) {
        readable = false;
        break;
      }
      uint8_t format = p[0], attribute = p[1];
      uint16_t value = rd16(p + 2);
      if (format == 4) { // EIFMT_SVAL: `value` bytes follow
        if (size_t(end - p - 4) < value) {
          readable = false;
          break;
        }
        if (attribute == 0x17 && value >= 8) { // EIATTR_KPARAM_INFO
          int ordinal = rd16(p + 4 + 4);
          if (ordinal > maxOrdinal)
            maxOrdinal = ordinal;
        } else if (attribute == 0x45) { // EIATTR_KPARAM_INFO_V2
          ++v2Records;
        }
        p += 4 + value;
      } else if (format >= 1 && format <= 3) { // NVAL, BVAL, HVAL
        p += 4;
      } else {
        readable = false;
        break;
      }
    }
    if (!readable)
      continue;
    KernelParamInfo kernel;
    kernel.name.assign(name + prefixLen, nameLen - prefixLen);
    kernel.paramCount = maxOrdinal + 1 > v2Records ? maxOrdinal + 1 : v2Records;
    kernels.push_back(std::move(kernel));
  }
  return true;
}

void mergeKernels(std::vector<KernelParamInfo> &into,
                  std::vector<KernelParamInfo> &&from) {
  for (KernelParamInfo &kernel : from) {
    bool known = false;
    for (const KernelParamInfo &existing : into)
      known = known || existing.name == kernel.name;
    if (!known)
      into.push_back(std::move(kernel));
  }
}

/// Parses the uncompressed ELF and PTX entries of a fatbin. Returns true if
/// at least one entry could be read.
bool parseFatbin(const uint8_t *d, size_t n,
                 std::vector<KernelParamInfo> &kernels) {
  bool readAny = false;
  size_t off = 0;
  while (n - off >= 16 && rd32(d + off) == 0xBA55ED50u) {
    uint16_t headerSize = rd16(d + off + 6);
    uint64_t fatSize = rd64(d + off + 8);
    if (headerSize < 16 || headerSize > n - off ||
        fatSize > n - off - headerSize)
      break;
    size_t entry = off + headerSize, end = entry + fatSize;
    while (end - entry >= 16) {
      uint16_t kind = rd16(d + entry);
      uint32_t entryHeaderSize = rd32(d + entry + 4);
      uint64_t payloadSize = rd64(d + entry + 8);
      if (entryHeaderSize < 16 || entryHeaderSize > end - entry ||
          payloadSize > end - entry - entryHeaderSize)
        break;
      const uint8_t *payload = d + entry + entryHeaderSize;
      std::vector<KernelParamInfo> found;
      if (kind == 2 && isElf(payload, payloadSize)) {
        if (parseCubin(payload, payloadSize, found)) {
          readAny = true;
          mergeKernels(kernels, std::move(found));
        }
      } else if (kind == 1 && looksLikePtx(payload, payloadSize)) {
        size_t len = strnlen(reinterpret_cast<const char *>(payload),
                             payloadSize);
        parsePtx(reinterpret_cast<const char *>(payload), len, found);
        readAny = true;
        mergeKernels(kernels, std::move(found));
      }
      entry += entryHeaderSize + payloadSize;
    }
    off = end;
    off = (off + 7) & ~size_t(7); // segments are 8-byte aligned
    if (off > n)
      break;
  }
  return readAny;
}

} // namespace

int ImageInfo::paramCount(const char *name) const {
  for (const KernelParamInfo &kernel : kernels)
    if (kernel.name == name)
      return kernel.paramCount;
  return -1;
}

size_t imageSize(const void *data) {
  const auto *d = static_cast<const uint8_t *>(data);
  if (d[0] == 0x7f && d[1] == 'E' && d[2] == 'L' && d[3] == 'F') {
    if (d[4] != 2)
      return 64;
    uint64_t shoff = rd64(d + 0x28);
    uint16_t shentsize = rd16(d + 0x3a), shnum = rd16(d + 0x3c);
    uint64_t end = shoff + uint64_t(shentsize) * shnum;
    for (unsigned s = 0; s < shnum && shentsize >= 64; ++s) {
      const uint8_t *header = d + shoff + uint64_t(s) * shentsize;
      if (rd32(header + 4) == 8) // SHT_NOBITS occupies no file space
        continue;
      uint64_t sectionEnd = rd64(header + 24) + rd64(header + 32);
      if (sectionEnd > end)
        end = sectionEnd;
    }
    return end > 64 ? end : 64;
  }
  if (rd32(d) == 0xBA55ED50u)
    return size_t(rd16(d + 6)) + rd64(d + 8);
  return std::strlen(static_cast<const char *>(data)) + 1;
}

ImageInfo inspectImage(const void *data, size_t size) {
  ImageInfo info;
  if (!data)
    return info;
  const auto *bytes = static_cast<const uint8_t *>(data);
  if (size == 0)
    size = imageSize(data);
  if (isElf(bytes, size)) {
    info.format = ImageFormat::Cubin;
    info.complete = parseCubin(bytes, size, info.kernels);
  } else if (size >= 16 && rd32(bytes) == 0xBA55ED50u) {
    info.format = ImageFormat::Fatbin;
    info.complete = parseFatbin(bytes, size, info.kernels);
  } else if (looksLikePtx(bytes, size)) {
    info.format = ImageFormat::Ptx;
    size_t len = strnlen(static_cast<const char *>(data), size);
    parsePtx(static_cast<const char *>(data), len, info.kernels);
    info.complete = true;
  }
  return info;
}

const char *imageFormatName(ImageFormat format) {
  switch (format) {
  case ImageFormat::Ptx:
    return "PTX text";
  case ImageFormat::Cubin:
    return "cubin (ELF)";
  case ImageFormat::Fatbin:
    return "fatbin";
  case ImageFormat::Unknown:
    break;
  }
  return "blob of unrecognized format (not cubin/fatbin/PTX)";
}

} // namespace txrt
