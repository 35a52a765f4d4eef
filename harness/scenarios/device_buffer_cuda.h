// Device memory for one point of a cuda scenario, freed on every way out of it (cuda builds
// only: the kinds' *_cuda.cc and *.cu files).
#ifndef GPUHARNESS_SCENARIOS_DEVICE_BUFFER_CUDA_H_
#define GPUHARNESS_SCENARIOS_DEVICE_BUFFER_CUDA_H_

#include <cuda_runtime_api.h>

#include <algorithm>
#include <cstddef>

#include "absl/status/status.h"
#include "harness/runtime/cuda_errors_cuda.h"

namespace gh {

class DeviceBuffer {
 public:
  DeviceBuffer() = default;
  DeviceBuffer(const DeviceBuffer&) = delete;
  DeviceBuffer& operator=(const DeviceBuffer&) = delete;
  ~DeviceBuffer() {
    if (ptr_ != nullptr) cudaFree(ptr_);
  }
  // Once per buffer. At least 16 bytes are allocated, so an empty point still has a pointer.
  absl::Status Allocate(size_t bytes) {
    bytes_ = bytes;
    GH_CUDA_RETURN_IF_ERROR(cudaMalloc(&ptr_, std::max<size_t>(bytes, 16)));
    return absl::OkStatus();
  }
  void* get() const { return ptr_; }
  char* bytes_ptr() const { return static_cast<char*>(ptr_); }
  float* f32() const { return static_cast<float*>(ptr_); }
  size_t bytes() const { return bytes_; }  // as asked for

 private:
  void* ptr_ = nullptr;
  size_t bytes_ = 0;
};

}  // namespace gh

#endif  // GPUHARNESS_SCENARIOS_DEVICE_BUFFER_CUDA_H_
