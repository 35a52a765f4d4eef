// Raw NCCL baseline for ring_shift at one rank: a self send/recv (ncclGroupStart; ncclSend to 0;
// ncclRecv from 0; ncclGroupEnd) timed exactly as the harness times it, so that the two can be
// compared in the same device run (docs/performance.md). Per size: warm-ups, then timed
// iterations each bracketed by CUDA events on a non-blocking stream (nothing else between the
// events); prints the median, the spread, the loop of those iterations (first start to last
// stop) and a bare loop (the iterations again with no event between them: nccl-tests'
// statistic, as the harness's time_loop_mean_us). One process, no MPI.
//
// Usage: nccl_sendrecv_baseline [--sizes 1K,4K,...] [--warmup N] [--iters N] [--device D]
#include <cuda_runtime.h>
#include <nccl.h>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <vector>

#include "bench_check.h"
#include "flag_value.h"

namespace {

std::string CudaWhy(cudaError_t e) {
  return std::string(cudaGetErrorName(e)) + ": " + cudaGetErrorString(e);
}
std::string NcclWhy(ncclResult_t r) {
  return std::string(ncclGetErrorString(r)) + ": " + ncclGetLastError(nullptr);
}
#define CHECK_CUDA(expr) BENCH_CHECK(expr, cudaSuccess, CudaWhy)
#define CHECK_NCCL(expr) BENCH_CHECK(expr, ncclSuccess, NcclWhy)

// "4K" -> 4096, "2G" -> 2^31 (powers of 1024, like the harness's byte sizes).
bool ParseSize(const std::string& text, size_t* bytes) {
  char* end = nullptr;
  unsigned long long value = std::strtoull(text.c_str(), &end, 10);
  if (end == text.c_str()) return false;
  std::string suffix(end);
  size_t scale = 1;
  if (suffix == "K") scale = size_t{1} << 10;
  else if (suffix == "M") scale = size_t{1} << 20;
  else if (suffix == "G") scale = size_t{1} << 30;
  else if (!suffix.empty()) return false;
  *bytes = value * scale;
  return *bytes > 0;
}

std::string FormatSize(size_t bytes) {
  const char* units[] = {"", "K", "M", "G"};
  int unit = 0;
  while (unit < 3 && bytes % 1024 == 0 && bytes >= 1024) bytes /= 1024, ++unit;
  return std::to_string(bytes) + units[unit];
}

double Quantile(std::vector<double> sorted, double q) {
  std::sort(sorted.begin(), sorted.end());
  double pos = q * (sorted.size() - 1);
  size_t lo = static_cast<size_t>(pos);
  size_t hi = std::min(lo + 1, sorted.size() - 1);
  return sorted[lo] + (sorted[hi] - sorted[lo]) * (pos - lo);
}

__global__ void FillKernel(uint32_t* data, size_t count, uint32_t salt) {
  for (size_t i = blockIdx.x * size_t(blockDim.x) + threadIdx.x; i < count;
       i += size_t(gridDim.x) * blockDim.x) {
    data[i] = static_cast<uint32_t>(i * 2654435761u) ^ salt;
  }
}

}  // namespace

int main(int argc, char** argv) {
  std::string sizes_text = "1K,4K,16K,64K,256K,1M,4M,16M,64M,256M,1G,2G,4G";
  int warmup = 10, iters = 50, device = 0;
  for (int i = 1; i < argc; ++i) {
    std::string arg = argv[i];
    auto next = [&] { return FlagValue("nccl_sendrecv_baseline", argc, argv, &i); };
    if (arg == "--sizes") sizes_text = next();
    else if (arg == "--warmup") warmup = std::atoi(next().c_str());
    else if (arg == "--iters") iters = std::atoi(next().c_str());
    else if (arg == "--device") device = std::atoi(next().c_str());
    else {
      std::fprintf(stderr, "usage: %s [--sizes 1K,4K,...] [--warmup N] [--iters N] [--device D]\n", argv[0]);
      return 2;
    }
  }
  std::vector<size_t> sizes;
  for (size_t start = 0; start <= sizes_text.size();) {
    size_t comma = sizes_text.find(',', start);
    if (comma == std::string::npos) comma = sizes_text.size();
    size_t bytes = 0;
    if (!ParseSize(sizes_text.substr(start, comma - start), &bytes) || bytes % 4 != 0) {
      std::fprintf(stderr, "bad size '%s' (want e.g. 4K, a multiple of 4 bytes)\n",
                   sizes_text.substr(start, comma - start).c_str());
      return 2;
    }
    sizes.push_back(bytes);
    start = comma + 1;
  }
  if (warmup < 0 || iters < 1) {
    std::fprintf(stderr, "--warmup >= 0 and --iters >= 1\n");
    return 2;
  }
  const size_t max_bytes = *std::max_element(sizes.begin(), sizes.end());

  CHECK_CUDA(cudaSetDevice(device));
  cudaDeviceProp prop{};
  CHECK_CUDA(cudaGetDeviceProperties(&prop, device));
  int nccl_version = 0;
  CHECK_NCCL(ncclGetVersion(&nccl_version));
  ncclComm_t comm = nullptr;
  CHECK_NCCL(ncclCommInitAll(&comm, 1, &device));
  cudaStream_t stream = nullptr;
  CHECK_CUDA(cudaStreamCreateWithFlags(&stream, cudaStreamNonBlocking));
  void *send = nullptr, *recv = nullptr;
  CHECK_CUDA(cudaMalloc(&send, max_bytes));
  CHECK_CUDA(cudaMalloc(&recv, max_bytes));
  std::vector<cudaEvent_t> events(2 * static_cast<size_t>(iters));
  for (cudaEvent_t& event : events) CHECK_CUDA(cudaEventCreate(&event));

  std::printf("# nccl_sendrecv_baseline: %s, NCCL %d (compiled %d), 1 rank self send/recv, "
              "warmup %d, iters %d, ncclFloat32\n",
              prop.name, nccl_version, NCCL_VERSION_CODE, warmup, iters);
  std::printf("%10s %12s %12s %12s %12s %12s %12s %12s %s\n", "bytes", "median_us", "min_us",
              "p90_us", "loop_us", "bare_us", "GB/s_median", "GB/s_bare", "check");
  for (size_t bytes : sizes) {
    const size_t count = bytes / 4;
    const uint32_t salt = static_cast<uint32_t>(bytes * 40503u);
    FillKernel<<<4096, 256, 0, stream>>>(static_cast<uint32_t*>(send), count, salt);
    CHECK_CUDA(cudaGetLastError());
    CHECK_CUDA(cudaMemsetAsync(recv, 0xA5, bytes, stream));
    auto exchange = [&] {
      CHECK_NCCL(ncclGroupStart());
      CHECK_NCCL(ncclSend(send, count, ncclFloat32, 0, comm, stream));
      CHECK_NCCL(ncclRecv(recv, count, ncclFloat32, 0, comm, stream));
      CHECK_NCCL(ncclGroupEnd());
    };
    for (int i = 0; i < warmup; ++i) exchange();
    for (int i = 0; i < iters; ++i) {
      CHECK_CUDA(cudaEventRecord(events[2 * i], stream));
      exchange();
      CHECK_CUDA(cudaEventRecord(events[2 * i + 1], stream));
    }
    CHECK_CUDA(cudaStreamSynchronize(stream));
    std::vector<double> us(iters);
    for (int i = 0; i < iters; ++i) {
      float ms = 0;
      CHECK_CUDA(cudaEventElapsedTime(&ms, events[2 * i], events[2 * i + 1]));
      us[i] = ms * 1e3;
    }
    float loop_ms = 0;
    CHECK_CUDA(cudaEventElapsedTime(&loop_ms, events[0], events[2 * iters - 1]));
    const double loop_us = loop_ms * 1e3 / iters;
    // The same iterations with no event between them (an event between two NCCL kernels costs
    // them ~3 us): the statistic nccl-tests prints, and the harness's time_loop_mean_us.
    CHECK_CUDA(cudaEventRecord(events[0], stream));
    for (int i = 0; i < iters; ++i) exchange();
    CHECK_CUDA(cudaEventRecord(events[1], stream));
    CHECK_CUDA(cudaStreamSynchronize(stream));
    float bare_ms = 0;
    CHECK_CUDA(cudaEventElapsedTime(&bare_ms, events[0], events[1]));
    const double bare_us = bare_ms * 1e3 / iters;
    // The received block must equal the sent one (first and last word at least).
    uint32_t first = 0, last = 0;
    CHECK_CUDA(cudaMemcpy(&first, recv, 4, cudaMemcpyDeviceToHost));
    CHECK_CUDA(cudaMemcpy(&last, static_cast<char*>(recv) + bytes - 4, 4, cudaMemcpyDeviceToHost));
    const bool ok = first == (0u ^ salt) &&
                    last == (static_cast<uint32_t>((count - 1) * 2654435761u) ^ salt);
    const double median = Quantile(us, 0.5);
    std::printf("%10s %12.2f %12.2f %12.2f %12.2f %12.2f %12.1f %12.1f %s\n",
                FormatSize(bytes).c_str(), median, Quantile(us, 0.0), Quantile(us, 0.9), loop_us,
                bare_us, bytes / (median * 1e3), bytes / (bare_us * 1e3), ok ? "ok" : "WRONG");
    if (!ok) return 1;
  }
  for (cudaEvent_t event : events) cudaEventDestroy(event);
  cudaFree(send);
  cudaFree(recv);
  cudaStreamDestroy(stream);
  ncclCommDestroy(comm);
  return 0;
}
