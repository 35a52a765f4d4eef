#include "harness/core/fingerprint.h"

#include "gtest/gtest.h"

namespace gh {
namespace {

EnvironmentFingerprint Sample() {
  EnvironmentFingerprint fp;
  fp.harness_version = "0.1.0";
  fp.build = {"0.1.0", "24999dbabc8a", "Release", "13.0.88", "2.28.9", "90", "Open MPI 4.1.6 (MPI 3.1)",
              "GNU 12.2.0", "Linux x86_64"};
  fp.backend = "cuda";
  fp.nranks = 2;
  fp.hosts = {"n1", "n1"};
  fp.local_ranks = {0, 1};
  fp.devices = {0, 1};
  fp.gpus = {{0, "NVIDIA H200", "0000:18:00.0", 9, 0, 150000000000, 1980, 3201, 1980, 3201}};
  fp.driver_version = "580.159.04";
  fp.cuda_driver_api = "13.0";
  fp.cuda_runtime = "13.0";
  fp.nccl_runtime = "2.28.9";
  fp.nccl_compiled = "2.28.9";
  fp.mpi_library = "Open MPI v4.1.6";
  fp.env = {{"NCCL_CUMEM_ENABLE", "0"}, {"XLA_FLAGS", "--xla_gpu_enable_nccl_user_buffers=true"}};
  fp.started_at = "2026-11-29T09:00:00Z";
  return fp;
}

TEST(FingerprintTest, ToJsonHasEveryField) {
  nlohmann::json j = Sample().ToJson();
  EXPECT_EQ(j["harness_version"], "0.1.0");
  EXPECT_EQ(j["build"], (nlohmann::json{{"version", "0.1.0"},
                                        {"commit", "24999dbabc8a"},
                                        {"build_type", "Release"},
                                        {"cuda", "13.0.88"},
                                        {"nccl", "2.28.9"},
                                        {"cuda_architectures", "90"},
                                        {"mpi", "Open MPI 4.1.6 (MPI 3.1)"},
                                        {"compiler", "GNU 12.2.0"},
                                        {"system", "Linux x86_64"}}));
  EXPECT_EQ(j["backend"], "cuda");
  EXPECT_EQ(j["nranks"], 2);
  EXPECT_EQ(j["hosts"], (nlohmann::json{"n1", "n1"}));
  EXPECT_EQ(j["local_ranks"], (nlohmann::json{0, 1}));
  EXPECT_EQ(j["devices"], (nlohmann::json{0, 1}));
  EXPECT_EQ(j["gpu_shared"], false);
  EXPECT_EQ(j["gpus"][0], (nlohmann::json{{"ordinal", 0},
                                          {"name", "NVIDIA H200"},
                                          {"pci_bus_id", "0000:18:00.0"},
                                          {"sm", "9.0"},
                                          {"memory_bytes", 150000000000},
                                          {"sm_clock_mhz", 1980},
                                          {"mem_clock_mhz", 3201},
                                          {"sm_clock_max_mhz", 1980},
                                          {"mem_clock_max_mhz", 3201}}));
  EXPECT_EQ(j["cpu_model"], "");
  EXPECT_EQ(j["driver_version"], "580.159.04");
  EXPECT_EQ(j["cuda_driver_api"], "13.0");
  EXPECT_EQ(j["cuda_runtime"], "13.0");
  EXPECT_EQ(j["nccl_runtime"], "2.28.9");
  EXPECT_EQ(j["nccl_compiled"], "2.28.9");
  EXPECT_EQ(j["mpi_library"], "Open MPI v4.1.6");
  EXPECT_EQ(j["env"]["NCCL_CUMEM_ENABLE"], "0");
  EXPECT_EQ(j["started_at"], "2026-11-29T09:00:00Z");
  EXPECT_EQ(j.size(), 18u);
}

TEST(FingerprintTest, Facts) {
  EnvironmentFacts facts = Sample().Facts();
  EXPECT_EQ(facts.values.at("backend"), "cuda");
  EXPECT_EQ(facts.values.at("nranks"), "2");
  EXPECT_EQ(facts.values.at("nccl_version"), "2.28.9");
  EXPECT_EQ(facts.values.at("env.NCCL_CUMEM_ENABLE"), "0");
  EXPECT_EQ(facts.values.at("env.XLA_FLAGS"), "--xla_gpu_enable_nccl_user_buffers=true");
  EXPECT_EQ(facts.values.at("gpu"), "NVIDIA H200");
  EXPECT_EQ(facts.values.at("hardware"), "NVIDIA H200");
  EXPECT_EQ(facts.values.at("nodes"), "1");  // two ranks on host n1
  EnvironmentFingerprint two_nodes = Sample();
  two_nodes.hosts = {"n1", "n2", "n1"};
  EXPECT_EQ(two_nodes.Facts().values.at("nodes"), "2");
  EnvironmentFingerprint host;
  host.backend = "host";
  EXPECT_EQ(host.Facts().values.count("nccl_version"), 0u);  // no NCCL: no fact
  EXPECT_EQ(host.Facts().values.count("hardware"), 0u);      // no CPU model known
  host.cpu_model = "AMD EPYC 9654 96-Core Processor";
  EXPECT_EQ(host.Facts().values.at("hardware"), "cpu: AMD EPYC 9654 96-Core Processor");
  EXPECT_EQ(host.Facts().values.count("gpu"), 0u);
}

TEST(FingerprintTest, FactsReadBackFromEnvironmentJsonAreTheJobsOwn) {
  EnvironmentFingerprint fp = Sample();
  fp.gpu_shared = true;
  absl::StatusOr<EnvironmentFacts> facts = FactsFromEnvironmentJson(fp.ToJson());
  ASSERT_TRUE(facts.ok()) << facts.status();
  EXPECT_EQ(facts->values, fp.Facts().values);
  EXPECT_EQ(facts->values.at("gpu_shared"), "true");
  EXPECT_EQ(facts->values.at("nodes"), "1");
  // Through text, as the driver reads it.
  facts = FactsFromEnvironmentJson(nlohmann::json::parse(Sample().ToJson().dump(2)));
  ASSERT_TRUE(facts.ok()) << facts.status();
  EXPECT_EQ(facts->values, Sample().Facts().values);
}

TEST(FingerprintTest, MalformedEnvironmentJsonNamesTheField) {
  auto error_of = [](nlohmann::json j) {
    absl::StatusOr<EnvironmentFacts> facts = FactsFromEnvironmentJson(j);
    EXPECT_EQ(facts.status().code(), absl::StatusCode::kInvalidArgument);
    return std::string(facts.status().message());
  };
  const nlohmann::json good = Sample().ToJson();
  EXPECT_EQ(error_of(nlohmann::json::array()), "environment: expected an object");
  nlohmann::json j = good;
  j.erase("backend");
  EXPECT_EQ(error_of(j), "backend: expected a string");
  j = good;
  j["nranks"] = "2";
  EXPECT_EQ(error_of(j), "nranks: expected an integer");
  j = good;
  j["gpu_shared"] = "no";
  EXPECT_EQ(error_of(j), "gpu_shared: expected true or false");
  j = good;
  j["nccl_runtime"] = 2.28;
  EXPECT_EQ(error_of(j), "nccl_runtime: expected a string");
  j = good;
  j["env"]["NCCL_CUMEM_ENABLE"] = 0;
  EXPECT_EQ(error_of(j), "env.NCCL_CUMEM_ENABLE: expected a string");
  j = good;
  j["hosts"] = nlohmann::json{"n1", 2};
  EXPECT_EQ(error_of(j), "hosts: expected an array of strings");
}

TEST(FingerprintTest, FingerprintedEnvVars) {
  for (const char* name : {"NCCL_DEBUG", "CUDA_VISIBLE_DEVICES", "XLA_FLAGS", "JAX_PLATFORMS", "PYTHONPATH",
                           "NVIDIA_TF32_OVERRIDE", "TF_CPP_MIN_LOG_LEVEL", "OMPI_MCA_btl", "UCX_TLS", "GH_SEED"}) {
    EXPECT_TRUE(IsFingerprintedEnvVar(name)) << name;
  }
  for (const char* name : {"PATH", "HOME", "OMPI_COMM_WORLD_RANK", "NCCL", "cuda_x", "MY_NCCL_X", "PYTHONPATHX",
                           "JAX", ""}) {
    EXPECT_FALSE(IsFingerprintedEnvVar(name)) << name;
  }
}

TEST(FingerprintTest, ReproducedEnvVars) {
  for (const char* name : {"NCCL_PROTO", "CUDA_HOME", "XLA_FLAGS", "JAX_PLATFORMS", "PYTHONPATH", "UCX_TLS"}) {
    EXPECT_TRUE(IsReproducedEnvVar(name)) << name;
  }
  for (const char* name : {"CUDA_VISIBLE_DEVICES", "OMPI_MCA_orte_hnp_uri", "GH_STACK_DUMP_DIR", "PATH", "HOME"}) {
    EXPECT_FALSE(IsReproducedEnvVar(name)) << name;
  }
}

}  // namespace
}  // namespace gh
