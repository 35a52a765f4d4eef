// The raw baselines' one error path (they have no Status plumbing): BENCH_CHECK(CALL, SUCCESS,
// WHY) runs CALL and, when it returns anything but SUCCESS, prints "FILE:LINE: CALL: WHY(result)"
// to stderr and exits 3. WHY names the failure (a function of the result, returning a string).
#ifndef GPUHARNESS_BENCH_BENCH_CHECK_H_
#define GPUHARNESS_BENCH_BENCH_CHECK_H_

#include <cstdio>
#include <cstdlib>
#include <string>

#define BENCH_CHECK(expr, success, why)                                                    \
  do {                                                                                     \
    const auto result_ = (expr);                                                           \
    if (result_ != (success)) {                                                            \
      std::fprintf(stderr, "%s:%d: %s: %s\n", __FILE__, __LINE__, #expr,                   \
                   std::string(why(result_)).c_str());                                     \
      std::exit(3);                                                                        \
    }                                                                                      \
  } while (0)

#endif  // GPUHARNESS_BENCH_BENCH_CHECK_H_
