/* host-calls.test: calls the C entry points of host-calls*.mlir, compiled
 * for the GPU, against a fake runtime that prints every runtime call instead
 * of touching a GPU. It shows what the host code of a call does, call by
 * call: no result allocation/copy/free, run-time checks that report through
 * txRuntimeFail and return, the _on_stream entry points.
 *
 * Device pointers are host memory here; no kernel runs. */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* ---- the fake runtime (the mgpu* ABI and the tx call API) ---------------- */

static void *const kPoolStream = (void *)0x5000; /* "a stream of the runtime" */
static void *callStream;
static int inCall, callErrors;

static const char *streamName(void *s) {
  static char buf[32];
  if (s == kPoolStream)
    return "pool";
  snprintf(buf, sizeof buf, "%p", s);
  return buf;
}

void *mgpuModuleLoad(void *data, size_t size) { return (void *)0x10; }
void *mgpuModuleLoadJIT(void *data, int opt) { return (void *)0x10; }
void mgpuModuleUnload(void *module) {}
void *mgpuModuleGetFunction(void *module, const char *name) {
  printf("  mgpuModuleGetFunction %s\n", name);
  return (void *)0x20;
}
void mgpuLaunchKernel(void *f, intptr_t gx, intptr_t gy, intptr_t gz,
                      intptr_t bx, intptr_t by, intptr_t bz, int32_t smem,
                      void *stream, void **params, void **extra,
                      size_t nparams) {
  printf("  mgpuLaunchKernel grid (%ld, %ld, %ld) block (%ld, %ld, %ld) "
         "stream %s\n",
         (long)gx, (long)gy, (long)gz, (long)bx, (long)by, (long)bz,
         streamName(stream));
}
void *mgpuStreamCreate(void) {
  void *s = inCall ? callStream : kPoolStream;
  printf("  mgpuStreamCreate -> %s\n", streamName(s));
  return s;
}
void mgpuStreamSynchronize(void *s) {
  printf("  mgpuStreamSynchronize %s\n", streamName(s));
}
void mgpuStreamDestroy(void *s) {
  printf("  mgpuStreamDestroy %s\n", streamName(s));
}
void *mgpuMemAlloc(uint64_t bytes, void *stream, uint8_t shared) {
  printf("  mgpuMemAlloc %llu bytes stream %s\n", (unsigned long long)bytes,
         streamName(stream));
  return aligned_alloc(256, bytes ? (bytes + 255) / 256 * 256 : 256);
}
void mgpuMemFree(void *p, void *stream) {
  printf("  mgpuMemFree stream %s\n", streamName(stream));
  free(p);
}
void mgpuMemcpy(void *dst, void *src, size_t bytes, void *stream) {
  printf("  mgpuMemcpy %zu bytes stream %s\n", bytes, streamName(stream));
}
void mgpuMemset32(void *dst, unsigned v, size_t n, void *stream) {
  printf("  mgpuMemset32\n");
}
void mgpuMemset16(void *dst, unsigned short v, size_t n, void *stream) {
  printf("  mgpuMemset16\n");
}
void txRuntimeBeginCall(void *stream) {
  printf("  txRuntimeBeginCall %s\n", streamName(stream));
  inCall = 1;
  callStream = stream;
  callErrors = 0;
}
int32_t txRuntimeEndCall(void) {
  printf("  txRuntimeEndCall\n");
  inCall = 0;
  return callErrors;
}
void txRuntimeLaunchProgrammaticNext(void) {
  printf("  txRuntimeLaunchProgrammaticNext\n");
}
void txRuntimeFail(const char *message) {
  printf("  txRuntimeFail \"%s\"\n", message);
  ++callErrors;
}

/* ---- the caller ----------------------------------------------------------- */

typedef struct {
  void *allocated, *aligned;
  int64_t offset, sizes[2], strides[2];
} MemRef2D;
typedef struct {
  void *allocated, *aligned;
  int64_t offset, sizes[4], strides[4];
} MemRef4D;

static MemRef2D m2(int64_t a, int64_t b, size_t elt) {
  MemRef2D m;
  m.allocated = m.aligned = aligned_alloc(256, (a * b * elt + 255) / 256 * 256 + 256);
  m.offset = 0;
  m.sizes[0] = a, m.sizes[1] = b;
  m.strides[0] = b, m.strides[1] = 1;
  return m;
}
static MemRef4D m4(int64_t a, int64_t b, int64_t c, int64_t d, size_t elt) {
  MemRef4D m;
  m.allocated = m.aligned =
      aligned_alloc(256, (a * b * c * d * elt + 255) / 256 * 256 + 256);
  m.offset = 0;
  m.sizes[0] = a, m.sizes[1] = b, m.sizes[2] = c, m.sizes[3] = d;
  m.strides[3] = 1, m.strides[2] = d, m.strides[1] = c * d,
  m.strides[0] = b * c * d;
  return m;
}

void _mlir_ciface_softmax_dyn(MemRef2D *, MemRef2D *);
int32_t _mlir_ciface_softmax_dyn_on_stream(MemRef2D *, MemRef2D *, void *);
void _mlir_ciface_softmax_static(MemRef2D *, MemRef2D *);
int32_t _mlir_ciface_softmax_static_on_stream(MemRef2D *, MemRef2D *, void *);
void _mlir_ciface_attn_dyn(MemRef4D *, MemRef4D *, MemRef4D *, MemRef4D *);
int32_t _mlir_ciface_attn_dyn_on_stream(MemRef4D *, MemRef4D *, MemRef4D *,
                                        MemRef4D *, void *);
void _mlir_ciface_softmax_simple(MemRef2D *, MemRef2D *);
void _mlir_ciface_attn_simple(MemRef4D *, MemRef4D *, MemRef4D *, MemRef4D *);
int32_t _mlir_ciface_attn_simple_on_stream(MemRef4D *, MemRef4D *, MemRef4D *,
                                           MemRef4D *, void *);

int main(void) {
  void *stream = (void *)0xabc;
  int32_t rc;
  MemRef2D x = m2(4, 128, 4), y = m2(4, 128, 4), bad = m2(4, 127, 4);

  printf("softmax_dyn 4x128\n");
  _mlir_ciface_softmax_dyn(&x, &y);
  printf("softmax_dyn 4x128 into 4x127\n");
  _mlir_ciface_softmax_dyn(&x, &bad);
  printf("softmax_dyn_on_stream 4x128\n");
  rc = _mlir_ciface_softmax_dyn_on_stream(&x, &y, stream);
  printf("  -> %d\n", rc);
  printf("softmax_dyn_on_stream 4x128 into 4x127\n");
  rc = _mlir_ciface_softmax_dyn_on_stream(&x, &bad, stream);
  printf("  -> %d\n", rc);
  printf("softmax_static 4x128\n");
  _mlir_ciface_softmax_static(&x, &y);
  printf("softmax_static_on_stream 4x128\n");
  rc = _mlir_ciface_softmax_static_on_stream(&x, &y, stream);
  printf("  -> %d\n", rc);

  MemRef4D q = m4(2, 8, 100, 64, 2), k = m4(2, 2, 300, 64, 2),
           v = m4(2, 2, 300, 64, 2), o = m4(2, 8, 100, 64, 2),
           k3 = m4(3, 2, 300, 64, 2), o7 = m4(2, 7, 100, 64, 2);
  printf("attn_dyn\n");
  _mlir_ciface_attn_dyn(&q, &k, &v, &o);
  printf("attn_dyn_on_stream\n");
  rc = _mlir_ciface_attn_dyn_on_stream(&q, &k, &v, &o, stream);
  printf("  -> %d\n", rc);
  printf("attn_dyn batch 2 vs 3\n");
  _mlir_ciface_attn_dyn(&q, &k3, &v, &o);
  printf("attn_dyn_on_stream into 7 heads\n");
  rc = _mlir_ciface_attn_dyn_on_stream(&q, &k, &v, &o7, stream);
  printf("  -> %d\n", rc);
  MemRef4D q1 = m4(1, 2, 64, 64, 2), kl = m4(1, 2, 4096, 64, 2),
           vl = m4(1, 2, 4096, 64, 2), o1 = m4(1, 2, 64, 64, 2);
  printf("attn_dyn split-KV\n");
  rc = _mlir_ciface_attn_dyn_on_stream(&q1, &kl, &vl, &o1, stream);
  printf("  -> %d\n", rc);

  printf("softmax_simple 4x128\n");
  _mlir_ciface_softmax_simple(&x, &y);
  printf("softmax_simple 4x128 into 4x127\n");
  _mlir_ciface_softmax_simple(&x, &bad);

  MemRef4D qs = m4(2, 8, 100, 64, 4), ks = m4(2, 2, 300, 64, 4),
           vs = m4(2, 2, 300, 64, 4), os = m4(2, 8, 100, 64, 4),
           ks3 = m4(3, 2, 300, 64, 4);
  printf("attn_simple\n");
  _mlir_ciface_attn_simple(&qs, &ks, &vs, &os);
  printf("attn_simple_on_stream\n");
  rc = _mlir_ciface_attn_simple_on_stream(&qs, &ks, &vs, &os, stream);
  printf("  -> %d\n", rc);
  printf("attn_simple batch 2 vs 3\n");
  _mlir_ciface_attn_simple(&qs, &ks3, &vs, &os);
  printf("done\n");
  return 0;
}
