#include "harness/core/build_info.h"

#include "absl/strings/str_cat.h"
#include "gh_build_info_values.h"  // generated: GH_BUILD_* (cmake/GhWriteBuildInfo.cmake)

namespace gh {

const BuildInfo& ThisBuild() {
  static const BuildInfo* build = new BuildInfo{GH_BUILD_VERSION, GH_BUILD_COMMIT,     GH_BUILD_BUILD_TYPE,
                                                GH_BUILD_CUDA,    GH_BUILD_NCCL,       GH_BUILD_CUDA_ARCHS,
                                                GH_BUILD_MPI,     GH_BUILD_COMPILER,   GH_BUILD_SYSTEM};
  return *build;
}

std::string BuildInfoText(const BuildInfo& build) {
  const bool cuda = !build.cuda.empty();
  return absl::StrCat("gpuharness ", build.version, "\n",                                      //
                      "commit:             ", build.commit, "\n",                              //
                      "build type:         ", build.build_type, "\n",                          //
                      "cuda:               ", cuda ? build.cuda : "none (CPU-only build)", "\n",  //
                      "nccl:               ", cuda ? build.nccl : "none", "\n",                //
                      "cuda architectures: ", cuda ? build.cuda_architectures : "none", "\n",  //
                      "mpi:                ", build.mpi, "\n",                                 //
                      "compiler:           ", build.compiler, " (", build.system, ")\n");
}

nlohmann::json BuildInfoJson(const BuildInfo& build) {
  return {{"version", build.version}, {"commit", build.commit},
          {"build_type", build.build_type}, {"cuda", build.cuda},
          {"nccl", build.nccl}, {"cuda_architectures", build.cuda_architectures},
          {"mpi", build.mpi}, {"compiler", build.compiler},
          {"system", build.system}};
}

std::string MpiFlavour(const std::string& mpi) {
  for (const char* flavour : {"Open MPI", "Intel MPI", "MVAPICH", "MPICH"}) {
    if (mpi.rfind(flavour, 0) == 0) return flavour;
  }
  return "";
}

}  // namespace gh
