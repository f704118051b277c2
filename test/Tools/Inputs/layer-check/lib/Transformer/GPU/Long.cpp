// One function of 152 lines (signature to closing brace), with a lambda
// and a raw string inside, in a file of 620 lines.
static int longFunction(int x,
                        int y) {
  auto f = [&](int z) { return z + 1; };
  const char *r = R"(} } })";
  x += f(y);
  x += f(y);
  x += f(y);
  x += f(y);
  x += f(y);
  x += f(y);
  x += f(y);
  x += f(y);
  x += f(y);
  x += f(y);
  x += f(y);
  x += f(y);
  x += f(y);
  x += f(y);
  x += f(y);
  x += f(y);
  x += f(y);
  x += f(y);
  x += f(y);
  x += f(y);
  x += f(y);
  x += f(y);
  x += f(y);
  x += f(y);
  x += f(y);
  x += f(y);
  x += f(y);
  x += f(y);
  x += f(y);
  x += f(y);
  x += f(y);
  x += f(y);
  x += f(y);
  x += f(y);
  x += f(y);
  x += f(y);
  x += f(y);
  x += f(y);
  x += f(y);
  x += f(y);
  x += f(y);
  x += f(y);
  x += f(y);
  x += f(y);
  x += f(y);
  x += f(y);
  x += f(y);
  x += f(y);
  x += f(y);
  x += f(y);
  x += f(y);
  x += f(y);
  x += f(y);
  x += f(y);
  x += f(y);
  x += f(y);
  x += f(y);
  x += f(y);
  x += f(y);
  x += f(y);
  x += f(y);
  x += f(y);
  x += f(y);
  x += f(y);
  x += f(y);
  x += f(y);
  x += f(y);
  x += f(y);
  x += f(y);
  x += f(y);
  x += f(y);
  x += f(y);
  x += f(y);
  x += f(y);
  x += f(y);
  x += f(y);
  x += f(y);
  x += f(y);
  x += f(y);
  x += f(y);
  x += f(y);
  x += f(y);
  x += f(y);
  x += f(y);
  x += f(y);
  x += f(y);
  x += f(y);
  x += f(y);
  x += f(y);
  x += f(y);
  x += f(y);
  x += f(y);
  x += f(y);
  x += f(y);
  x += f(y);
  x += f(y);
  x += f(y);
  x += f(y);
  x += f(y);
  x += f(y);
  x += f(y);
  x += f(y);
  x += f(y);
  x += f(y);
  x += f(y);
  x += f(y);
  x += f(y);
  x += f(y);
  x += f(y);
  x += f(y);
  x += f(y);
  x += f(y);
  x += f(y);
  x += f(y);
  x += f(y);
  x += f(y);
  x += f(y);
  x += f(y);
  x += f(y);
  x += f(y);
  x += f(y);
  x += f(y);
  x += f(y);
  x += f(y);
  x += f(y);
  x += f(y);
  x += f(y);
  x += f(y);
  x += f(y);
  x += f(y);
  x += f(y);
  x += f(y);
  x += f(y);
  x += f(y);
  x += f(y);
  x += f(y);
  x += f(y);
  x += f(y);
  x += f(y);
  x += f(y);
  x += f(y);
  x += f(y);
  x += f(y);
  x += f(y);
  x += f(y);
  x += f(y);
  return x;
}

int shortFunction() { return 0; }
// filler
// filler
// filler
// filler
// filler
// filler
// filler
// filler
// filler
// filler
// filler
// filler
// filler
// filler
// filler
// filler
// filler
// filler
// filler
// filler
// filler
// filler
// filler
// filler
// filler
// filler
// filler
// filler
// filler
// filler
// filler
// filler
// filler
// filler
// filler
// filler
// filler
// filler
// filler
// filler
// filler
// filler
// filler
// filler
// filler
// filler
// filler
// filler
// filler
// filler
// filler
// filler
// filler
// filler
// filler
// filler
// filler
// filler
// filler
// filler
// filler
// filler
// filler
// filler
// filler
// filler
// filler
// filler
// filler
// filler
// filler
// filler
// filler
// filler
// filler
// filler
// filler
// filler
// filler
// filler
// filler
// filler
// filler
// filler
// filler
// filler
// filler
// filler
// filler
// filler
// filler
// filler
// filler
// filler
// filler
// filler
// filler
// filler
// filler
// filler
// filler
// filler
// filler
// filler
// filler
// filler
// filler
// filler
// filler
// filler
// filler
// filler
// filler
// filler
// filler
// filler
// filler
// filler
// filler
// filler
// filler
// filler
// filler
// filler
// filler
// filler
// filler
// filler
// filler
// filler
// filler
// filler
// filler
// filler
// filler
// filler
// filler
// filler
// filler
// filler
// filler
// filler
// filler
// filler
// filler
// filler
// filler
// filler
// filler
// filler
// filler
// filler
// filler
// filler
// filler
// filler
// filler
// filler
// filler
// filler
// filler
// filler
// filler
// filler
// filler
// filler
// filler
// filler
// filler
// filler
// filler
// filler
// filler
// filler
// filler
// filler
// filler
// filler
// filler
// filler
// filler
// filler
// filler
// filler
// filler
// filler
// filler
// filler
// filler
// filler
// filler
// filler
// filler
// filler
// filler
// filler
// filler
// filler
// filler
// filler
// filler
// filler
// filler
// filler
// filler
// filler
// filler
// filler
// filler
// filler
// filler
// filler
// filler
// filler
// filler
// filler
// filler
// filler
// filler
// filler
// filler
// filler
// filler
// filler
// filler
// filler
// filler
// filler
// filler
// filler
// filler
// filler
// filler
// filler
// filler
// filler
// filler
// filler
// filler
// filler
// filler
// filler
// filler
// filler
// filler
// filler
// filler
// filler
// filler
// filler
// filler
// filler
// filler
// filler
// filler
// filler
// filler
// filler
// filler
// filler
// filler
// filler
// filler
// filler
// filler
// filler
// filler
// filler
// filler
// filler
// filler
// filler
// filler
// filler
// filler
// filler
// filler
// filler
// filler
// filler
// filler
// filler
// filler
// filler
// filler
// filler
// filler
// filler
// filler
// filler
// filler
// filler
// filler
// filler
// filler
// filler
// filler
// filler
// filler
// filler
// filler
// filler
// filler
// filler
// filler
// filler
// filler
// filler
// filler
// filler
// filler
// filler
// filler
// filler
// filler
// filler
// filler
// filler
// filler
// filler
// filler
// filler
// filler
// filler
// filler
// filler
// filler
// filler
// filler
// filler
// filler
// filler
// filler
// filler
// filler
// filler
// filler
// filler
// filler
// filler
// filler
// filler
// filler
// filler
// filler
// filler
// filler
// filler
// filler
// filler
// filler
// filler
// filler
// filler
// filler
// filler
// filler
// filler
// filler
// filler
// filler
// filler
// filler
// filler
// filler
// filler
// filler
// filler
// filler
// filler
// filler
// filler
// filler
// filler
// filler
// filler
// filler
// filler
// filler
// filler
// filler
// filler
// filler
// filler
// filler
// filler
// filler
// filler
// filler
// filler
// filler
// filler
// filler
// filler
// filler
// filler
// filler
// filler
// filler
// filler
// filler
// filler
// filler
// filler
// filler
// filler
// filler
// filler
// filler
// filler
// filler
// filler
// filler
// filler
// filler
// filler
// filler
// filler
// filler
// filler
// filler
// filler
// filler
// filler
// filler
// filler
// filler
// filler
// filler
// filler
// filler
// filler
// filler
// filler
// filler
// filler
// filler
// filler
// filler
// filler
// filler
// filler
// filler
// filler
// filler
// filler
// filler
// filler
// filler
// filler
// filler
// filler
// filler
// filler
// filler
// filler
// filler
// filler
// filler
// filler
// filler
// filler
// filler
// filler
