/* The C ABI between gpuharness and a device-API plugin (libgh_nccl_device.so): the device-API
 * code of the ring-shift transports (ncclDevCommCreate, LSA barriers, stores through
 * ncclGetLsaPointer) built against one NCCL's nccl_device headers. ncclDevComm's layout and
 * ncclDevCommCreate's checks change between NCCL releases, so an NCCL version axis builds this
 * code per release (harness/nccl_device_plugin/) and gpuharness loads it when
 * GH_NCCL_DEVICE_PLUGIN names it (harness/runtime/nccl_device_plugin.h); otherwise the same code,
 * compiled in, serves. Only C types and opaque pointers cross: ncclComm_t, ncclWindow_t and
 * cudaStream_t as void*, ncclResult_t and cudaError_t as int. Change anything here and bump
 * GH_NCCL_DEVICE_ABI_VERSION: a plugin with another stamp is refused at load. */
#ifndef GPUHARNESS_RUNTIME_NCCL_DEVICE_ABI_H_
#define GPUHARNESS_RUNTIME_NCCL_DEVICE_ABI_H_

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

#define GH_NCCL_DEVICE_ABI_VERSION 1u

/* The symbol a plugin exports: a function returning its table. */
#define GH_NCCL_DEVICE_PLUGIN_ENTRY "gh_nccl_device_plugin"

/* A device communicator with its NCCL communicator; owned by the table that created it. */
typedef struct GhNcclDeviceComm GhNcclDeviceComm;

typedef struct GhNcclDeviceApi {
  uint32_t abi_version;  /* GH_NCCL_DEVICE_ABI_VERSION the table was built with */
  uint32_t table_bytes;  /* sizeof(GhNcclDeviceApi) it was built with */
  int nccl_version_code; /* NCCL_VERSION_CODE of the headers it was built against */

  /* ncclDevCommCreate with one LSA barrier per CTA (`lsa_barrier_count`). Returns its
   * ncclResult_t; on success *out, *lsa_size and *n_ranks are set. */
  int (*create)(void* nccl_comm, int lsa_barrier_count, GhNcclDeviceComm** out, int* lsa_size,
                int* n_ranks);
  /* ncclDevCommDestroy, then frees `dev`. Returns the ncclResult_t. */
  int (*destroy)(GhNcclDeviceComm* dev);
  /* The launches of ring_shift_device_kernels_cuda.h; each returns the launch's cudaError_t. */
  int (*launch_ring_shift)(const GhNcclDeviceComm* dev, int ctas, void* window, size_t window_offset,
                           const void* src, size_t store_bytes, const int64_t* device_begin_row,
                           size_t row_bytes, void* stream);
  int (*launch_barrier)(const GhNcclDeviceComm* dev, void* stream);
  int (*launch_right_pointer)(const GhNcclDeviceComm* dev, void* window, size_t window_offset,
                              void** out, void* stream);
} GhNcclDeviceApi;

typedef const GhNcclDeviceApi* (*GhNcclDevicePluginEntry)(void);

#ifdef __cplusplus
}
#endif

#endif /* GPUHARNESS_RUNTIME_NCCL_DEVICE_ABI_H_ */
