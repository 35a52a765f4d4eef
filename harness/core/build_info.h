// What this binary was built from and for, as CMake saw it (cmake/GhBuildInfo.cmake):
// `gpuharness --version` prints it, every environment.json carries it under "build", and
// `gpuharness doctor` compares the machine's CUDA, NCCL and MPI with it.
#ifndef GPUHARNESS_CORE_BUILD_INFO_H_
#define GPUHARNESS_CORE_BUILD_INFO_H_

#include <string>

#include "nlohmann/json.hpp"

namespace gh {

struct BuildInfo {
  std::string version;             // "0.1.0"
  std::string commit;              // "24999dbabc8a" ("-dirty" when tracked files had changed), "unknown"
  std::string build_type;          // "Release", "RelWithDebInfo"
  std::string cuda;                // the CUDA toolkit compiled against, "13.0.88"; "" CPU-only
  std::string nccl;                // the NCCL headers compiled against, "2.28.9"; "" CPU-only
  std::string cuda_architectures;  // "90" or "90,100"; "" CPU-only
  std::string mpi;                 // "Open MPI 4.1.4 (MPI 3.1)"
  std::string compiler;            // "GNU 12.2.0"
  std::string system;              // "Linux x86_64"
};

// This binary's facts.
const BuildInfo& ThisBuild();

// `gpuharness --version`: "gpuharness 0.1.0" then one "name: value" line per fact.
std::string BuildInfoText(const BuildInfo& build);

// {"version", "commit", "build_type", "cuda", "nccl", "cuda_architectures", "mpi", "compiler",
// "system"}, "" where a CPU-only build has none.
nlohmann::json BuildInfoJson(const BuildInfo& build);

// The MPI flavour of an "Open MPI 4.1.4 (MPI 3.1)" text: "Open MPI"; "" when it names none.
std::string MpiFlavour(const std::string& mpi);

}  // namespace gh

#endif  // GPUHARNESS_CORE_BUILD_INFO_H_
