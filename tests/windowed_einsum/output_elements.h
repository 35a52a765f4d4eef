// What the windowed_einsum whole-binary tests (host MPI and GPU) expect a rank to have checked.
#ifndef GPUHARNESS_TESTS_WINDOWED_EINSUM_OUTPUT_ELEMENTS_H_
#define GPUHARNESS_TESTS_WINDOWED_EINSUM_OUTPUT_ELEMENTS_H_

#include <cstdint>

#include "harness/core/record.h"

namespace gh::testing {

// Elements of the verified output on one rank: layer 1's [tp * m_shard x n_shard], or the
// chained layer's [m_shard x k].
inline int64_t OutputElements(const Record& record) {
  const int64_t m = record.params.value("m_shard", int64_t{0});
  const int64_t n = record.params.value("n_shard", int64_t{0});
  const int64_t k = record.params.value("k", int64_t{0});
  return record.params.value("layers", int64_t{1}) == 2 ? m * k : record.nranks * m * n;
}

}  // namespace gh::testing

#endif  // GPUHARNESS_TESTS_WINDOWED_EINSUM_OUTPUT_ELEMENTS_H_
