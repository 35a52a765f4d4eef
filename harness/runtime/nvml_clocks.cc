#include "harness/runtime/nvml_clocks.h"

#include <dlfcn.h>

namespace gh {
namespace {

// NVML's ABI, as its header declares it: status 0 is NVML_SUCCESS; clock types SM = 1, MEM = 2.
using NvmlDevice = void*;
using InitFn = int (*)();
using HandleFn = int (*)(const char*, NvmlDevice*);
using ClockFn = int (*)(NvmlDevice, int, unsigned int*);
constexpr int kClockSm = 1;
constexpr int kClockMem = 2;

int Clock(ClockFn fn, NvmlDevice device, int type) {
  unsigned int mhz = 0;
  return fn != nullptr && fn(device, type, &mhz) == 0 ? static_cast<int>(mhz) : 0;
}

}  // namespace

void FillNvmlClocks(GpuInfo& gpu) {
  if (gpu.pci_bus_id.empty()) return;
  void* lib = dlopen("libnvidia-ml.so.1", RTLD_NOW | RTLD_LOCAL);
  if (lib == nullptr) return;
  auto init = reinterpret_cast<InitFn>(dlsym(lib, "nvmlInit_v2"));
  auto shutdown = reinterpret_cast<InitFn>(dlsym(lib, "nvmlShutdown"));
  auto handle = reinterpret_cast<HandleFn>(dlsym(lib, "nvmlDeviceGetHandleByPciBusId_v2"));
  auto current = reinterpret_cast<ClockFn>(dlsym(lib, "nvmlDeviceGetClockInfo"));
  auto maximum = reinterpret_cast<ClockFn>(dlsym(lib, "nvmlDeviceGetMaxClockInfo"));
  if (init != nullptr && shutdown != nullptr && handle != nullptr && init() == 0) {
    NvmlDevice device = nullptr;
    if (handle(gpu.pci_bus_id.c_str(), &device) == 0) {
      gpu.sm_clock_mhz = Clock(current, device, kClockSm);
      gpu.mem_clock_mhz = Clock(current, device, kClockMem);
      gpu.sm_clock_max_mhz = Clock(maximum, device, kClockSm);
      gpu.mem_clock_max_mhz = Clock(maximum, device, kClockMem);
    }
    shutdown();
  }
  dlclose(lib);
}

}  // namespace gh
