// The host's CPU model, for the environment fingerprint: host-backend numbers measured on
// different CPUs do not compare.
#ifndef GPUHARNESS_RUNTIME_CPU_MODEL_H_
#define GPUHARNESS_RUNTIME_CPU_MODEL_H_

#include <string>

namespace gh {

// The first "model name" of `cpuinfo` (/proc/cpuinfo's text), spaces trimmed; "" without one.
std::string ParseCpuModel(const std::string& cpuinfo);

// ParseCpuModel of this machine's /proc/cpuinfo; "" where it cannot be read.
std::string HostCpuModel();

}  // namespace gh

#endif  // GPUHARNESS_RUNTIME_CPU_MODEL_H_
