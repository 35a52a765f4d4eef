// The raw baselines' command lines (no flag library): the value that follows a flag.
#ifndef GPUHARNESS_BENCH_FLAG_VALUE_H_
#define GPUHARNESS_BENCH_FLAG_VALUE_H_

#include <cstdio>
#include <cstdlib>
#include <string>

// The value after the flag argv[*i], advancing *i past it; where none follows, prints
// "PROGRAM: FLAG needs a value" to stderr and exits 2.
inline std::string FlagValue(const char* program, int argc, char** argv, int* i) {
  if (*i + 1 >= argc) {
    std::fprintf(stderr, "%s: %s needs a value\n", program, argv[*i]);
    std::exit(2);
  }
  return argv[++*i];
}

#endif  // GPUHARNESS_BENCH_FLAG_VALUE_H_
