// A GPU's clocks from NVML, loaded with dlopen (linking NVML would make the binary unloadable
// on machines without a driver; no CUDA or NVML header is needed).
#ifndef GPUHARNESS_RUNTIME_NVML_CLOCKS_H_
#define GPUHARNESS_RUNTIME_NVML_CLOCKS_H_

#include <string>

#include "harness/core/fingerprint.h"

namespace gh {

// Fills gpu.sm_clock_mhz, mem_clock_mhz and their maxima for the GPU at gpu.pci_bus_id; leaves
// them 0 where NVML is absent or does not answer.
void FillNvmlClocks(GpuInfo& gpu);

}  // namespace gh

#endif  // GPUHARNESS_RUNTIME_NVML_CLOCKS_H_
