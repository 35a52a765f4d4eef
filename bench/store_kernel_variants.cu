// The device transport's store loop at one GPU, in variants, against the copy engine in the same
// run (docs/performance.md, "The store loop's steady state"): is the 4 GiB gap to the copy a
// shape we have not tried, or the SMs' steady-state rate? No NCCL: at one rank the neighbour is
// the GPU itself, so the loop's stores go to local memory, as cudaMemcpyAsync's do.
//
// "current" is CopyGridStride of harness/scenarios/ring_shift_device_kernels.cu (warp tiles of
// 8 float4 per lane, 256 threads, one CTA per SM, launched as a programmatic dependent); the
// others change one thing each. The tmaCKxSxPxN/SM rows are bulk copies through shared memory
// (C KiB chunks, S stages, P pipelines per CTA, N CTAs per SM); tma32Kx4x1x1/SM is the kernel's
// BulkCopyThroughShared, which the kernel has used on sm_90 since 2026-12-06. At the end, the
// current loop and the copy with the destination moved against the source. Every variant is first checked element by element (ring_shift's
// own pattern kernels) at a size that is no multiple of its tile; a wrong element exits 1. Then per pass and size: 5 launches to
// warm up, then 5 repeats of 20 back-to-back launches between two events; the median repeat /
// 20 is the time per copy; ratio = cudaMemcpyAsync time / variant time (>= 1: as fast as the copy).
//
// Usage: store_kernel_variants [--passes N] [--dst cudaMalloc|vmm] [--device D]
//   --dst vmm: the destination is cuMemCreate'd and mapped (recommended granularity), as
//   ncclMemAlloc's windows are.
#include <cuda.h>
#include <cuda_runtime.h>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <vector>

#include "bench_check.h"
#include "harness/scenarios/ring_shift_kernels_cuda.h"

namespace {

const char* CudaWhy(cudaError_t e) { return cudaGetErrorString(e); }
std::string DriverWhy(CUresult r) {
  const char* s = nullptr;
  cuGetErrorString(r, &s);
  return s != nullptr ? s : "unknown CUresult " + std::to_string(int(r));
}

enum class Access {
  kPlain, kPipelined, kDynamic, kBlocked, kL2Prefetch256, kStoreStreaming, kStreaming,
  kLoadNoAllocate,    // ld.global.nc.L1::no_allocate: the source never enters L1
  kLoadEvictFirst,    // loads with an L2 evict_first policy: the source is read once
  kBothEvictFirst,    // loads and stores with it
};

// The dynamic variant's chunk counter: never reset, each launch offsets it (Launch).
__device__ unsigned long long g_next_chunk;

__device__ __forceinline__ float4 LoadL2Prefetch256(const float4* p) {
  float4 v;
  asm volatile("ld.global.L2::256B.v4.f32 {%0,%1,%2,%3}, [%4];"
               : "=f"(v.x), "=f"(v.y), "=f"(v.z), "=f"(v.w)
               : "l"(p));
  return v;
}

__device__ __forceinline__ float4 LoadNoAllocate(const float4* p) {
  float4 v;
  asm volatile("ld.global.nc.L1::no_allocate.v4.f32 {%0,%1,%2,%3}, [%4];"
               : "=f"(v.x), "=f"(v.y), "=f"(v.z), "=f"(v.w)
               : "l"(p));
  return v;
}

__device__ __forceinline__ uint64_t EvictFirstPolicy() {
  uint64_t policy;
  asm volatile("createpolicy.fractional.L2::evict_first.b64 %0, 1.0;" : "=l"(policy));
  return policy;
}

__device__ __forceinline__ float4 LoadEvictFirst(const float4* p) {
  float4 v;
  asm volatile("ld.global.L1::no_allocate.L2::cache_hint.v4.f32 {%0,%1,%2,%3}, [%4], %5;"
               : "=f"(v.x), "=f"(v.y), "=f"(v.z), "=f"(v.w)
               : "l"(p), "l"(EvictFirstPolicy()));
  return v;
}

__device__ __forceinline__ void StoreEvictFirst(float4* p, float4 v) {
  asm volatile("st.global.L2::cache_hint.v4.f32 [%0], {%1,%2,%3,%4}, %5;"
               :: "l"(p), "f"(v.x), "f"(v.y), "f"(v.z), "f"(v.w), "l"(EvictFirstPolicy())
               : "memory");
}

template <Access A>
__device__ __forceinline__ float4 Load(const float4* p) {
  if constexpr (A == Access::kL2Prefetch256) return LoadL2Prefetch256(p);
  if constexpr (A == Access::kLoadNoAllocate) return LoadNoAllocate(p);
  if constexpr (A == Access::kLoadEvictFirst || A == Access::kBothEvictFirst) return LoadEvictFirst(p);
  if constexpr (A == Access::kStreaming) return __ldcs(p);
  return *p;
}

template <Access A>
__device__ __forceinline__ void Store(float4* p, float4 v) {
  if constexpr (A == Access::kStoreStreaming || A == Access::kStreaming) {
    __stcs(p, v);
  } else if constexpr (A == Access::kBothEvictFirst) {
    StoreEvictFirst(p, v);
  } else {
    *p = v;
  }
}

// One warp tile: lane l moves float4 base + u*32 + l for u < U.
template <int U, Access A>
__device__ __forceinline__ void CopyTile(float4* d, const float4* s, size_t base) {
  float4 r[U];
#pragma unroll
  for (int u = 0; u < U; ++u) r[u] = Load<A>(s + base + u * 32);
#pragma unroll
  for (int u = 0; u < U; ++u) Store<A>(d + base + u * 32, r[u]);
}

// T threads per CTA as launch bounds: a looser bound would cap registers for the wide variants.
template <int U, Access A, int T>
__global__ void __launch_bounds__(T)
    StoreLoop(float4* d, const float4* s, size_t n, unsigned long long chunk_base) {
  cudaGridDependencySynchronize();
  const size_t thread = size_t(blockIdx.x) * blockDim.x + threadIdx.x;
  const size_t stride = size_t(gridDim.x) * blockDim.x;
  const size_t lane = threadIdx.x % 32;
  const size_t warps = blockDim.x / 32;
  constexpr size_t kTile = 32 * U;
  const size_t tiles = n / kTile;
  if constexpr (A == Access::kPipelined) {
    // The next tile's loads are issued before this tile's stores.
    size_t t = thread / 32;
    float4 r[U];
    if (t < tiles) {
#pragma unroll
      for (int u = 0; u < U; ++u) r[u] = s[t * kTile + lane + u * 32];
    }
    while (t < tiles) {
      const size_t next = t + stride / 32;
      float4 q[U];
      if (next < tiles) {
#pragma unroll
        for (int u = 0; u < U; ++u) q[u] = s[next * kTile + lane + u * 32];
      }
#pragma unroll
      for (int u = 0; u < U; ++u) d[t * kTile + lane + u * 32] = r[u];
#pragma unroll
      for (int u = 0; u < U; ++u) r[u] = q[u];
      t = next;
    }
  } else if constexpr (A == Access::kDynamic) {
    // A CTA claims `warps` tiles at a time from a global counter, so no CTA runs ahead.
    __shared__ unsigned long long claimed;
    const size_t chunks = (tiles + warps - 1) / warps;
    for (;;) {
      if (threadIdx.x == 0) claimed = atomicAdd(&g_next_chunk, 1ull) - chunk_base;
      __syncthreads();
      const size_t c = claimed;
      __syncthreads();
      if (c >= chunks) break;
      const size_t t = c * warps + threadIdx.x / 32;
      if (t < tiles) CopyTile<U, Access::kPlain>(d, s, t * kTile + lane);
    }
  } else if constexpr (A == Access::kBlocked) {
    // Each CTA one contiguous range of tiles.
    const size_t per = (tiles + gridDim.x - 1) / gridDim.x;
    const size_t first = blockIdx.x * per;
    const size_t last = tiles < first + per ? tiles : first + per;
    for (size_t t = first + threadIdx.x / 32; t < last; t += warps) {
      CopyTile<U, Access::kPlain>(d, s, t * kTile + lane);
    }
  } else {
    for (size_t t = thread / 32; t < tiles; t += stride / 32) CopyTile<U, A>(d, s, t * kTile + lane);
  }
  for (size_t i = tiles * kTile + thread; i < n; i += stride) d[i] = s[i];
  cudaTriggerProgrammaticLaunchCompletion();
}


// Bulk copies through shared memory (cp.async.bulk, the copy engine of each SM): in each of P
// pipelines per CTA one thread keeps S chunks of C bytes in flight, global -> shared completing on
// an mbarrier, then shared -> global; a stage is refilled once its store has read it. Pipeline
// p of CTA b takes chunks (b * P + p) + i * gridDim.x * P; the rest (< one chunk per pipeline
// round) goes float4 by float4 over every thread.
__device__ __forceinline__ uint32_t SharedAddress(const void* p) {
  return static_cast<uint32_t>(__cvta_generic_to_shared(p));
}

__device__ __forceinline__ void BulkLoad(uint32_t smem, const void* global, uint32_t bytes, uint32_t bar) {
  asm volatile("mbarrier.arrive.expect_tx.shared::cta.b64 _, [%0], %1;" :: "r"(bar), "r"(bytes) : "memory");
  asm volatile("cp.async.bulk.shared::cluster.global.mbarrier::complete_tx::bytes [%0], [%1], %2, [%3];"
               :: "r"(smem), "l"(global), "r"(bytes), "r"(bar) : "memory");
}

__device__ __forceinline__ void WaitPhase(uint32_t bar, uint32_t parity) {
  uint32_t done = 0;
  do {
    asm volatile("{ .reg .pred p; mbarrier.try_wait.parity.shared::cta.b64 p, [%1], %2; selp.u32 %0, 1, 0, p; }"
                 : "=r"(done) : "r"(bar), "r"(parity) : "memory");
  } while (!done);
}

__device__ __forceinline__ void BulkStore(void* global, uint32_t smem, uint32_t bytes) {
  asm volatile("cp.async.bulk.global.shared::cta.bulk_group [%0], [%1], %2;"
               :: "l"(global), "r"(smem), "r"(bytes) : "memory");
  asm volatile("cp.async.bulk.commit_group;" ::: "memory");
}

template <int C, int S, int P>
__global__ void __launch_bounds__(128)
    TmaLoop(float4* d, const float4* s, size_t n, unsigned long long) {
  static_assert(P <= 4, "one pipeline per warp of 128 threads");
  extern __shared__ __align__(128) unsigned char stages[];
  __shared__ __align__(8) uint64_t bars[P][S];
  const int warp = threadIdx.x / 32;
  const bool producer = threadIdx.x % 32 == 0 && warp < P;
  if (producer) {
    for (int i = 0; i < S; ++i) {
      asm volatile("mbarrier.init.shared::cta.b64 [%0], 1;" :: "r"(SharedAddress(&bars[warp][i])) : "memory");
    }
    asm volatile("fence.mbarrier_init.release.cluster;" ::: "memory");
  }
  __syncthreads();
  cudaGridDependencySynchronize();
  const size_t bytes = n * 16;
  const size_t chunks = bytes / C;
  const size_t step = size_t(gridDim.x) * P;
  if (producer) {
    const unsigned char* src = reinterpret_cast<const unsigned char*>(s);
    unsigned char* dst = reinterpret_cast<unsigned char*>(d);
    const uint32_t base = SharedAddress(stages + size_t(warp) * S * C);
    const size_t first = size_t(blockIdx.x) * P + warp;
    for (int i = 0; i < S; ++i) {
      const size_t c = first + i * step;
      if (c < chunks) BulkLoad(base + i * C, src + c * C, C, SharedAddress(&bars[warp][i]));
    }
    size_t k = 0;
    for (size_t c = first; c < chunks; c += step, ++k) {
      const int stage = int(k % S);
      WaitPhase(SharedAddress(&bars[warp][stage]), uint32_t((k / S) & 1));
      BulkStore(dst + c * C, base + stage * C, C);
      if (k >= 1) {
        const size_t refill = c + (S - 1) * step;  // chunk k - 1 + S, into stage (k - 1) % S
        if (refill < chunks) {
          asm volatile("cp.async.bulk.wait_group.read 1;" ::: "memory");
          const int free_stage = int((k - 1) % S);
          BulkLoad(base + free_stage * C, src + refill * C, C, SharedAddress(&bars[warp][free_stage]));
        }
      }
    }
    asm volatile("cp.async.bulk.wait_group 0;" ::: "memory");
  }
  const size_t thread = size_t(blockIdx.x) * blockDim.x + threadIdx.x;
  for (size_t i = chunks * (C / 16) + thread; i < n; i += size_t(gridDim.x) * blockDim.x) d[i] = s[i];
  cudaTriggerProgrammaticLaunchCompletion();
}

struct Device {
  int sms = 0;
  int smem_per_sm = 0;
};

struct Variant {
  std::string name;
  void (*kernel)(float4*, const float4*, size_t, unsigned long long);
  int unroll = 8;
  int threads = 256;
  int ctas_per_sm = 1;
  bool dynamic = false;
  unsigned long long chunk_base = 0;  // the dynamic variant's offset into g_next_chunk
  int stage_bytes = 0;                // the TMA variants' shared memory, used

  void Launch(const Device& dev, float4* d, const float4* s, size_t bytes, cudaStream_t stream) {
    cudaLaunchConfig_t config = {};
    config.gridDim = dim3(unsigned(dev.sms * ctas_per_sm));
    config.blockDim = dim3(unsigned(threads));
    config.stream = stream;
    // Unused shared memory that caps the kernel at ctas_per_sm CTAs per SM.
    config.dynamicSmemBytes = size_t(std::max(stage_bytes, dev.smem_per_sm / (ctas_per_sm + 1) + 1024));
    cudaLaunchAttribute dependent = {};
    dependent.id = cudaLaunchAttributeProgrammaticStreamSerialization;
    dependent.val.programmaticStreamSerializationAllowed = 1;
    config.attrs = &dependent;
    config.numAttrs = 1;
    const size_t n = bytes / 16;
    BENCH_CHECK(cudaLaunchKernelEx(&config, kernel, d, s, n, chunk_base), cudaSuccess, CudaWhy);
    if (dynamic) {
      // Every CTA makes exactly one claim past the end.
      const size_t warps = size_t(threads) / 32;
      const size_t tiles = n / (32 * size_t(unroll));
      chunk_base += (tiles + warps - 1) / warps + size_t(dev.sms * ctas_per_sm);
    }
  }
};

template <int U, Access A, int T = 256>
Variant Make(const Device& dev, std::string name, int ctas_per_sm = 1) {
  Variant v{std::move(name), StoreLoop<U, A, T>, U, T, ctas_per_sm, A == Access::kDynamic};
  BENCH_CHECK(cudaFuncSetAttribute(StoreLoop<U, A, T>, cudaFuncAttributeMaxDynamicSharedMemorySize,
                                   dev.smem_per_sm / 2 + 1024),
              cudaSuccess, CudaWhy);
  return v;
}

template <int C, int S, int P>
Variant MakeTma(const Device& dev, int ctas_per_sm) {
  char name[32];
  std::snprintf(name, sizeof name, "tma%dKx%dx%dx%d/SM", C >> 10, S, P, ctas_per_sm);
  Variant v{name, TmaLoop<C, S, P>, 8, 128, ctas_per_sm, false};
  v.stage_bytes = C * S * P;
  const int reserve = std::max(v.stage_bytes, dev.smem_per_sm / (ctas_per_sm + 1) + 1024);
  BENCH_CHECK(cudaFuncSetAttribute(TmaLoop<C, S, P>, cudaFuncAttributeMaxDynamicSharedMemorySize, reserve),
              cudaSuccess, CudaWhy);
  return v;
}

void* MapDeviceMemory(int device, size_t bytes) {
  CUmemAllocationProp prop = {};
  prop.type = CU_MEM_ALLOCATION_TYPE_PINNED;
  prop.location.type = CU_MEM_LOCATION_TYPE_DEVICE;
  prop.location.id = device;
  size_t granularity = 0;
  BENCH_CHECK(cuMemGetAllocationGranularity(&granularity, &prop, CU_MEM_ALLOC_GRANULARITY_RECOMMENDED),
              CUDA_SUCCESS, DriverWhy);
  const size_t size = (bytes + granularity - 1) / granularity * granularity;
  CUmemGenericAllocationHandle handle;
  BENCH_CHECK(cuMemCreate(&handle, size, &prop, 0), CUDA_SUCCESS, DriverWhy);
  CUdeviceptr ptr;
  BENCH_CHECK(cuMemAddressReserve(&ptr, size, granularity, 0, 0), CUDA_SUCCESS, DriverWhy);
  BENCH_CHECK(cuMemMap(ptr, size, 0, handle, 0), CUDA_SUCCESS, DriverWhy);
  CUmemAccessDesc access = {};
  access.location = prop.location;
  access.flags = CU_MEM_ACCESS_FLAGS_PROT_READWRITE;
  BENCH_CHECK(cuMemSetAccess(ptr, size, &access, 1), CUDA_SUCCESS, DriverWhy);
  return reinterpret_cast<void*>(ptr);
}

[[noreturn]] void Usage(const char* why) {
  std::fprintf(stderr, "store_kernel_variants: %s\nusage: store_kernel_variants [--passes N] "
                       "[--dst cudaMalloc|vmm] [--device D]\n", why);
  std::exit(2);
}

}  // namespace

int main(int argc, char** argv) {
  int passes = 2, device = 0;
  bool vmm = false;
  for (int i = 1; i < argc; ++i) {
    std::string arg = argv[i];
    if (i + 1 >= argc) Usage(("missing value after " + arg).c_str());
    std::string value = argv[++i];
    if (arg == "--passes") {
      passes = std::atoi(value.c_str());
      if (passes < 1) Usage("--passes wants a positive count");
    } else if (arg == "--device") {
      device = std::atoi(value.c_str());
    } else if (arg == "--dst" && (value == "vmm" || value == "cudaMalloc")) {
      vmm = value == "vmm";
    } else {
      Usage(("unknown option or value: " + arg + " " + value).c_str());
    }
  }
  BENCH_CHECK(cudaSetDevice(device), cudaSuccess, CudaWhy);
  BENCH_CHECK(cuInit(0), CUDA_SUCCESS, DriverWhy);
  Device dev;
  BENCH_CHECK(cudaDeviceGetAttribute(&dev.sms, cudaDevAttrMultiProcessorCount, device), cudaSuccess, CudaWhy);
  BENCH_CHECK(cudaDeviceGetAttribute(&dev.smem_per_sm, cudaDevAttrMaxSharedMemoryPerMultiprocessor, device),
              cudaSuccess, CudaWhy);
  unsigned long long zero = 0;
  BENCH_CHECK(cudaMemcpyToSymbol(g_next_chunk, &zero, sizeof zero), cudaSuccess, CudaWhy);

  std::vector<Variant> variants = {
      Make<8, Access::kPlain>(dev, "current"),
      Make<8, Access::kPipelined>(dev, "pipelined"),
      Make<8, Access::kDynamic>(dev, "dynamic_chunks"),
      Make<8, Access::kBlocked>(dev, "blocked"),
      Make<8, Access::kL2Prefetch256>(dev, "ld_L2_256B"),
      Make<8, Access::kStoreStreaming>(dev, "st_cs"),
      Make<8, Access::kStreaming>(dev, "ld_cs_st_cs"),
      Make<8, Access::kLoadNoAllocate>(dev, "ld_nc_noalloc"),
      Make<8, Access::kLoadEvictFirst>(dev, "ld_evict_first"),
      Make<8, Access::kBothEvictFirst>(dev, "ld_st_evict_first"),
      MakeTma<32 << 10, 4, 1>(dev, 1),
      MakeTma<64 << 10, 3, 1>(dev, 1),
      MakeTma<16 << 10, 8, 1>(dev, 1),
      MakeTma<16 << 10, 4, 2>(dev, 1),
      MakeTma<8 << 10, 6, 4>(dev, 1),
      MakeTma<4 << 10, 12, 4>(dev, 1),
      MakeTma<32 << 10, 3, 1>(dev, 2),
      MakeTma<16 << 10, 3, 2>(dev, 2),
      MakeTma<8 << 10, 6, 2>(dev, 2),
  };
  // Shapes of the current loop: threads per CTA x float4 per lane x CTAs per SM.
  auto add_shapes = [&]<int T>() {
    for (int per_sm : {1, 2}) {
      char name[32];
      std::snprintf(name, sizeof name, "u4x%dx%d/SM", T, per_sm);
      variants.push_back(Make<4, Access::kPlain, T>(dev, name, per_sm));
      std::snprintf(name, sizeof name, "u8x%dx%d/SM", T, per_sm);
      if (T != 256 || per_sm != 1) variants.push_back(Make<8, Access::kPlain, T>(dev, name, per_sm));
      std::snprintf(name, sizeof name, "u16x%dx%d/SM", T, per_sm);
      variants.push_back(Make<16, Access::kPlain, T>(dev, name, per_sm));
    }
  };
  add_shapes.operator()<128>();
  add_shapes.operator()<256>();
  add_shapes.operator()<512>();
  add_shapes.operator()<1024>();

  const size_t max_bytes = size_t(4) << 30;
  // Room to move the destination against the source (the offsets table at the end).
  const size_t max_offset = size_t(8) << 20;
  void* src = nullptr;
  void* dst = nullptr;
  BENCH_CHECK(cudaMalloc(&src, max_bytes), cudaSuccess, CudaWhy);
  if (vmm) {
    dst = MapDeviceMemory(device, max_bytes + max_offset);
  } else {
    BENCH_CHECK(cudaMalloc(&dst, max_bytes + max_offset), cudaSuccess, CudaWhy);
  }
  cudaStream_t stream;
  BENCH_CHECK(cudaStreamCreateWithFlags(&stream, cudaStreamNonBlocking), cudaSuccess, CudaWhy);
  gh::VerifyCounters* counters = nullptr;
  BENCH_CHECK(cudaMalloc(&counters, sizeof *counters), cudaSuccess, CudaWhy);
  auto* d = static_cast<float4*>(dst);
  auto* s = static_cast<const float4*>(src);

  // Exact data first: 64 MiB + 37 float4, no multiple of any tile.
  const size_t check_bytes = (size_t(64) << 20) + 16 * 37;
  const int64_t check_words = int64_t(check_bytes / 4);
  for (size_t v = 0; v < variants.size(); ++v) {
    const uint64_t seed = 11 + v;
    BENCH_CHECK(gh::LaunchFillPattern(src, check_words, 4, 0, seed, stream), cudaSuccess, CudaWhy);
    BENCH_CHECK(cudaMemsetAsync(dst, 0xab, check_bytes, stream), cudaSuccess, CudaWhy);
    variants[v].Launch(dev, d, s, check_bytes, stream);
    BENCH_CHECK(gh::LaunchVerifyPattern(dst, check_words, 4, 0, seed, counters, stream), cudaSuccess, CudaWhy);
    gh::VerifyCounters found{};
    BENCH_CHECK(cudaMemcpyAsync(&found, counters, sizeof found, cudaMemcpyDeviceToHost, stream), cudaSuccess, CudaWhy);
    BENCH_CHECK(cudaStreamSynchronize(stream), cudaSuccess, CudaWhy);
    if (found.wrong_elements != 0) {
      std::printf("FAIL %s: %llu of %lld words wrong, the first at %llu\n", variants[v].name.c_str(),
                  found.wrong_elements, static_cast<long long>(check_words), found.first_index);
      return 1;
    }
  }
  std::printf("# %zu variants exact at %zu bytes; dst %s; %d SMs\n", variants.size(), check_bytes,
              vmm ? "cuMemCreate+cuMemMap" : "cudaMalloc", dev.sms);

  cudaEvent_t start, stop;
  BENCH_CHECK(cudaEventCreate(&start), cudaSuccess, CudaWhy);
  BENCH_CHECK(cudaEventCreate(&stop), cudaSuccess, CudaWhy);
  auto time_us = [&](auto&& launch) {
    for (int i = 0; i < 5; ++i) launch();
    std::vector<double> repeats;
    for (int r = 0; r < 5; ++r) {
      BENCH_CHECK(cudaEventRecord(start, stream), cudaSuccess, CudaWhy);
      for (int i = 0; i < 20; ++i) launch();
      BENCH_CHECK(cudaEventRecord(stop, stream), cudaSuccess, CudaWhy);
      BENCH_CHECK(cudaEventSynchronize(stop), cudaSuccess, CudaWhy);
      float ms = 0;
      BENCH_CHECK(cudaEventElapsedTime(&ms, start, stop), cudaSuccess, CudaWhy);
      repeats.push_back(double(ms) * 1e3 / 20);
    }
    std::sort(repeats.begin(), repeats.end());
    return repeats[repeats.size() / 2];
  };
  std::printf("%-4s %-6s %-16s %10s %10s %7s\n", "pass", "bytes", "variant", "us", "copy_us", "ratio");
  for (int pass = 0; pass < passes; ++pass) {
    for (size_t bytes : {size_t(64) << 20, size_t(256) << 20, size_t(1) << 30, size_t(4) << 30}) {
      const double copy_us = time_us([&] {
        BENCH_CHECK(cudaMemcpyAsync(dst, src, bytes, cudaMemcpyDeviceToDevice, stream), cudaSuccess, CudaWhy);
      });
      for (Variant& v : variants) {
        const double us = time_us([&] { v.Launch(dev, d, s, bytes, stream); });
        std::printf("%-4d %-6s %-16s %10.1f %10.1f %7.3f\n", pass,
                    (std::to_string(bytes >> 20) + "M").c_str(), v.name.c_str(), us, copy_us, copy_us / us);
      }
    }
  }
  // Does where the destination lies against the source move either side (DRAM channel and bank
  // of reads and writes in flight together)? The current loop and the copy, the destination
  // moved by each offset.
  std::printf("\n%-8s %-6s %10s %10s %7s\n", "offset", "bytes", "current", "copy_us", "ratio");
  for (size_t offset : {size_t(0), size_t(2) << 10, size_t(64) << 10, (size_t(1) << 20) + 2048,
                        size_t(3) << 20, (size_t(5) << 20) + (size_t(96) << 10)}) {
    auto* moved = reinterpret_cast<float4*>(static_cast<char*>(dst) + offset);
    for (size_t bytes : {size_t(1) << 30, size_t(4) << 30}) {
      const double copy_us = time_us([&] {
        BENCH_CHECK(cudaMemcpyAsync(moved, src, bytes, cudaMemcpyDeviceToDevice, stream), cudaSuccess, CudaWhy);
      });
      const double us = time_us([&] { variants[0].Launch(dev, moved, s, bytes, stream); });
      std::printf("%-8zu %-6s %10.1f %10.1f %7.3f\n", offset, (std::to_string(bytes >> 20) + "M").c_str(), us,
                  copy_us, copy_us / us);
    }
  }
  return 0;
}
