// Fake device-API plugins for nccl_device_plugin_test.cc, one per GH_FAKE_* definition: a good
// table (NCCL 2.30.7 headers), a wrong ABI stamp, a short table, a missing function, and no
// entry symbol at all. No CUDA: the loader checks only the table.
#include "harness/runtime/nccl_device_abi.h"

namespace {

int Create(void*, int, GhNcclDeviceComm**, int*, int*) { return 5; }  // ncclInvalidUsage
int Destroy(GhNcclDeviceComm*) { return 0; }
int RingShift(const GhNcclDeviceComm*, int, void*, size_t, const void*, size_t, const int64_t*,
              size_t, void*) {
  return 0;
}
int Barrier(const GhNcclDeviceComm*, void*) { return 0; }
int RightPointer(const GhNcclDeviceComm*, void*, size_t, void**, void*) { return 0; }

#if defined(GH_FAKE_WRONG_ABI)
constexpr uint32_t kAbi = 99;
#else
constexpr uint32_t kAbi = GH_NCCL_DEVICE_ABI_VERSION;
#endif
#if defined(GH_FAKE_SHORT_TABLE)
constexpr uint32_t kBytes = sizeof(GhNcclDeviceApi) - sizeof(void*);
#else
constexpr uint32_t kBytes = sizeof(GhNcclDeviceApi);
#endif

const GhNcclDeviceApi kTable = {kAbi,      kBytes,  23007, Create,
                                Destroy,   RingShift,
#if defined(GH_FAKE_MISSING_FUNCTION)
                                nullptr,
#else
                                Barrier,
#endif
                                RightPointer};

}  // namespace

#if !defined(GH_FAKE_NO_ENTRY)
extern "C" const GhNcclDeviceApi* gh_nccl_device_plugin(void) { return &kTable; }
#else
extern "C" const GhNcclDeviceApi* some_other_symbol(void) { return &kTable; }
#endif
