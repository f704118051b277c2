// GPU/ including from Transforms/, which includes GPU/: a cycle.
#include "Transforms/Tile.h"
int kernel();
