// IR/ including from GPU/: an arrow the layering forbids.
#include "GPU/Kernel.h"

namespace mlir {
struct Holder {
  // A short member function: not reported.
  int get() const { return 1; }
};

// "braces { in a string" and '{' in a char do not open scopes.
const char *text = "{{{";
} // namespace mlir
