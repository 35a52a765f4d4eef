// The backends a kind that runs on both can offer in this build: a kind's KindInfo::backends.
#ifndef GPUHARNESS_SCENARIOS_KIND_BACKENDS_H_
#define GPUHARNESS_SCENARIOS_KIND_BACKENDS_H_

#include <vector>

#include "harness/core/registry.h"

namespace gh {

// Host always; cuda where this build has CUDA (GH_HAVE_CUDA, from gh_runtime).
inline std::vector<Backend> HostAndCudaBackends() {
  std::vector<Backend> backends = {Backend::kHost};
#if defined(GH_HAVE_CUDA)
  backends.push_back(Backend::kCuda);
#endif
  return backends;
}

}  // namespace gh

#endif  // GPUHARNESS_SCENARIOS_KIND_BACKENDS_H_
