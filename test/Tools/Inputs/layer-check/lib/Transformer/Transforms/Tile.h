#include "GPU/Kernel.h"
int tile();
