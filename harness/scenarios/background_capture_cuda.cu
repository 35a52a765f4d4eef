// The CUDA body of background_capture (see background_capture.h): one trial on the current
// device. Every CUDA return code is kept; the first failure names the trial's error.
#include <cuda_runtime.h>

#include <atomic>
#include <chrono>
#include <cstdint>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

#include "harness/scenarios/background_capture.h"

namespace gh {
namespace {

constexpr int kDusWidth = 16;  // elements the dynamic-update-slice kernel writes per operation

// Counts its own execution: counts[op] must end at exactly 1.
__global__ void CountKernel(unsigned int* counts, int op) { atomicAdd(&counts[op], 1u); }

// A small dynamic-update-slice into the resident buffer, counting itself too.
__global__ void DusKernel(int* resident, unsigned int* counts, int op) {
  resident[op * kDusWidth + threadIdx.x] = op + 1;
  if (threadIdx.x == 0) atomicAdd(&counts[op], 1u);
}

// The "initialize stage" kernels launched into the capture.
__global__ void StageKernel(int* scratch, int k) { scratch[threadIdx.x] += k; }

// Every CUDA call's return code, from both threads; the first failure is the trial's error.
class CallLog {
 public:
  // Returns true when the call succeeded.
  bool Check(cudaError_t err, const char* call, const char* thread) {
    if (err == cudaSuccess) return true;
    std::lock_guard<std::mutex> lock(mu_);
    ++failures_;
    if (first_.empty()) {
      first_ = std::string(cudaGetErrorName(err)) + " in " + call + " (" + thread + ")";
    }
    return false;
  }
  int failures() const { return failures_; }
  const std::string& first() const { return first_; }

 private:
  std::mutex mu_;
  int failures_ = 0;
  std::string first_;
};

cudaStreamCaptureMode ModeOf(CaptureMode mode) {
  switch (mode) {
    case CaptureMode::kGlobal: return cudaStreamCaptureModeGlobal;
    case CaptureMode::kThreadLocal: return cudaStreamCaptureModeThreadLocal;
    case CaptureMode::kRelaxed: return cudaStreamCaptureModeRelaxed;
  }
  return cudaStreamCaptureModeRelaxed;
}

// Which operation the background thread enqueues as its op-th.
CaptureOps OpKind(CaptureOps ops, int op) {
  if (ops != CaptureOps::kMixed) return ops;
  constexpr CaptureOps kCycle[] = {CaptureOps::kPinnedH2d, CaptureOps::kCountKernel,
                                   CaptureOps::kPageableH2d, CaptureOps::kEventRecord,
                                   CaptureOps::kDusKernel};
  return kCycle[op % 5];
}

struct Buffers {
  unsigned int* counts = nullptr;  // device, per op
  int* h2d_dst = nullptr;          // device, per op
  int* resident = nullptr;         // device, ops * kDusWidth
  int* scratch = nullptr;          // device, the stage kernels' output
  int* pinned = nullptr;           // host pinned, per op: op + 1
  std::vector<int> pageable;       // host pageable, per op: op + 1
  cudaStream_t shared = nullptr;   // the background thread's stream
  cudaStream_t capture_private = nullptr;
  std::vector<cudaEvent_t> events;
};

void Release(Buffers& b) {
  for (cudaEvent_t e : b.events) cudaEventDestroy(e);
  if (b.shared != nullptr) cudaStreamDestroy(b.shared);
  if (b.capture_private != nullptr) cudaStreamDestroy(b.capture_private);
  cudaFree(b.counts);
  cudaFree(b.h2d_dst);
  cudaFree(b.resident);
  cudaFree(b.scratch);
  cudaFreeHost(b.pinned);
}

// Streams, device buffers, pinned and pageable sources (op + 1 each) and events for `n` ops;
// false, with the first failure in `setup`, when a call failed.
bool SetUp(size_t n, CallLog& setup, Buffers& b) {
  bool ok = setup.Check(cudaStreamCreateWithFlags(&b.shared, cudaStreamNonBlocking),
                        "cudaStreamCreateWithFlags", "setup") &&
            setup.Check(cudaStreamCreateWithFlags(&b.capture_private, cudaStreamNonBlocking),
                        "cudaStreamCreateWithFlags", "setup") &&
            setup.Check(cudaMalloc(&b.counts, n * sizeof(unsigned int)), "cudaMalloc", "setup") &&
            setup.Check(cudaMalloc(&b.h2d_dst, n * sizeof(int)), "cudaMalloc", "setup") &&
            setup.Check(cudaMalloc(&b.resident, n * kDusWidth * sizeof(int)), "cudaMalloc",
                        "setup") &&
            setup.Check(cudaMalloc(&b.scratch, 32 * sizeof(int)), "cudaMalloc", "setup") &&
            setup.Check(cudaMallocHost(&b.pinned, n * sizeof(int)), "cudaMallocHost", "setup") &&
            setup.Check(cudaMemset(b.counts, 0, n * sizeof(unsigned int)), "cudaMemset", "setup") &&
            setup.Check(cudaMemset(b.h2d_dst, 0, n * sizeof(int)), "cudaMemset", "setup") &&
            setup.Check(cudaMemset(b.resident, 0, n * kDusWidth * sizeof(int)), "cudaMemset",
                        "setup") &&
            setup.Check(cudaMemset(b.scratch, 0, 32 * sizeof(int)), "cudaMemset", "setup");
  b.events.assign(n, nullptr);
  for (size_t i = 0; ok && i < n; ++i) {
    ok = setup.Check(cudaEventCreateWithFlags(&b.events[i], cudaEventDisableTiming),
                     "cudaEventCreateWithFlags", "setup");
  }
  if (ok) ok = setup.Check(cudaDeviceSynchronize(), "cudaDeviceSynchronize", "setup");
  if (!ok) return false;
  b.pageable.resize(n);
  for (size_t i = 0; i < n; ++i) b.pinned[i] = b.pageable[i] = static_cast<int>(i) + 1;
  return true;
}

// What a careful library does: never enqueue into someone else's open capture.
void WaitWhileCapturing(cudaStream_t stream, CallLog& calls) {
  for (;;) {
    cudaStreamCaptureStatus status = cudaStreamCaptureStatusNone;
    if (!calls.Check(cudaStreamIsCapturing(stream, &status), "cudaStreamIsCapturing",
                     "background") ||
        status == cudaStreamCaptureStatusNone) {
      return;
    }
    std::this_thread::sleep_for(std::chrono::microseconds(20));
  }
}

// Enqueues the background thread's op-th operation on the shared stream; false when a call
// refused it.
bool EnqueueOp(CaptureOps ops, int op, Buffers& b, CallLog& calls) {
  bool op_ok = true;
  switch (OpKind(ops, op)) {
    case CaptureOps::kPinnedH2d:
      op_ok = calls.Check(cudaMemcpyAsync(b.h2d_dst + op, b.pinned + op, sizeof(int),
                                          cudaMemcpyHostToDevice, b.shared),
                          "cudaMemcpyAsync(pinned)", "background");
      break;
    case CaptureOps::kPageableH2d:
      op_ok = calls.Check(cudaMemcpyAsync(b.h2d_dst + op, b.pageable.data() + op, sizeof(int),
                                          cudaMemcpyHostToDevice, b.shared),
                          "cudaMemcpyAsync(pageable)", "background");
      break;
    case CaptureOps::kEventRecord:
      op_ok = calls.Check(cudaEventRecord(b.events[op], b.shared), "cudaEventRecord", "background");
      break;
    case CaptureOps::kDusKernel:
      DusKernel<<<1, kDusWidth, 0, b.shared>>>(b.resident, b.counts, op);
      op_ok = calls.Check(cudaGetLastError(), "DusKernel launch", "background");
      break;
    case CaptureOps::kCountKernel:
    case CaptureOps::kMixed:
      break;
  }
  // Every op but the DUS kernel is followed by its counter, so that each is seen to run.
  if (OpKind(ops, op) != CaptureOps::kDusKernel) {
    CountKernel<<<1, 1, 0, b.shared>>>(b.counts, op);
    op_ok = calls.Check(cudaGetLastError(), "CountKernel launch", "background") && op_ok;
  }
  return op_ok;
}

// The "initialize stage": capture, launch, hold, end, destroy. Returns its duration in ms.
double CaptureStage(const BackgroundCaptureParams& p, cudaStream_t capture, int* scratch,
                    CallLog& calls) {
  const auto capture_start = std::chrono::steady_clock::now();
  bool captured = calls.Check(cudaStreamBeginCapture(capture, ModeOf(p.mode)),
                              "cudaStreamBeginCapture", "main");
  for (int k = 0; captured && k < p.capture_kernels; ++k) {
    StageKernel<<<1, 32, 0, capture>>>(scratch, k + 1);
    calls.Check(cudaGetLastError(), "StageKernel launch", "main");
  }
  if (p.hold_ms > 0) std::this_thread::sleep_for(std::chrono::milliseconds(p.hold_ms));
  if (captured) {
    cudaGraph_t graph = nullptr;
    calls.Check(cudaStreamEndCapture(capture, &graph), "cudaStreamEndCapture", "main");
    if (graph != nullptr) calls.Check(cudaGraphDestroy(graph), "cudaGraphDestroy", "main");
  }
  return std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() -
                                                   capture_start)
      .count();
}

// How the background thread's ops fared, as read back once everything ran.
struct OpTally {
  int swallowed = 0, duplicated = 0, refused = 0;
};

// Reads back what each op wrote: an op that is not refused must have run exactly once.
OpTally TallyOps(CaptureOps ops, int m, size_t n, const Buffers& b,
                 const std::vector<char>& refused, CallLog& calls) {
  std::vector<unsigned int> counts(n, 0);
  std::vector<int> h2d(n, 0), resident(n * kDusWidth, 0);
  const bool read = calls.Check(cudaMemcpy(counts.data(), b.counts, n * sizeof(unsigned int),
                                           cudaMemcpyDeviceToHost), "cudaMemcpy(counts)", "verify") &&
                    calls.Check(cudaMemcpy(h2d.data(), b.h2d_dst, n * sizeof(int),
                                           cudaMemcpyDeviceToHost), "cudaMemcpy(h2d)", "verify") &&
                    calls.Check(cudaMemcpy(resident.data(), b.resident,
                                           n * kDusWidth * sizeof(int), cudaMemcpyDeviceToHost),
                                "cudaMemcpy(resident)", "verify");
  OpTally tally;
  for (int op = 0; read && op < m; ++op) {
    if (refused[op]) {
      ++tally.refused;
      continue;
    }
    bool ran = counts[op] >= 1;
    const CaptureOps kind = OpKind(ops, op);
    if (kind == CaptureOps::kPinnedH2d || kind == CaptureOps::kPageableH2d) {
      ran = ran && h2d[op] == op + 1;
    } else if (kind == CaptureOps::kDusKernel) {
      for (int j = 0; j < kDusWidth; ++j) ran = ran && resident[op * kDusWidth + j] == op + 1;
    }
    if (!ran) ++tally.swallowed;
    if (counts[op] > 1) ++tally.duplicated;
  }
  return tally;
}

// An error when a call failed, a failure when an op was lost, else a pass; with the counts.
RankOutcome TrialOutcome(const OpTally& tally, int m, const CallLog& calls, double capture_ms) {
  std::string lost;
  if (tally.swallowed > 0) {
    lost = "swallowed " + std::to_string(tally.swallowed) + "/" + std::to_string(m);
  }
  if (tally.duplicated > 0) {
    lost += (lost.empty() ? "" : ", ") + std::string("duplicated ") +
            std::to_string(tally.duplicated) + "/" + std::to_string(m);
  }
  RankOutcome out;
  if (calls.failures() > 0) {
    out = RankOutcome::Error(calls.first() + (lost.empty() ? "" : "; " + lost), "capture race");
  } else if (!lost.empty()) {
    out = RankOutcome::Fail(lost, "verify");
  }
  out.metrics = {{"swallowed_ops", static_cast<double>(tally.swallowed), "count"},
                 {"duplicated_ops", static_cast<double>(tally.duplicated), "count"},
                 {"refused_ops", static_cast<double>(tally.refused), "count"},
                 {"failed_calls", static_cast<double>(calls.failures()), "count"},
                 {"capture_ms", capture_ms, "ms"}};
  return out;
}

}  // namespace

RankOutcome RunBackgroundCaptureTrial(const BackgroundCaptureParams& p) {
  CallLog setup;
  Buffers b;
  const int m = p.background ? p.ops_count : 0;
  const size_t n = static_cast<size_t>(m > 0 ? m : 1);
  int device = 0;
  if (!setup.Check(cudaGetDevice(&device), "cudaGetDevice", "setup") || !SetUp(n, setup, b)) {
    Release(b);
    return RankOutcome::Error(setup.first(), "setup");
  }

  CallLog calls;
  std::vector<char> refused(n, 0);  // the op's enqueue returned an error: not silent
  std::atomic<int> enqueued{0};
  std::atomic<bool> go{false};
  cudaStream_t capture = p.stream == CaptureStream::kShared ? b.shared : b.capture_private;

  std::thread background;
  if (p.background) {
    background = std::thread([&] {
      calls.Check(cudaSetDevice(device), "cudaSetDevice", "background");
      while (!go.load()) std::this_thread::yield();
      for (int op = 0; op < m; ++op) {
        if (p.check_capturing) WaitWhileCapturing(b.shared, calls);
        if (!EnqueueOp(p.ops, op, b, calls)) refused[op] = 1;
        enqueued.store(op + 1);
      }
    });
  }

  // The capture starts once the background thread has work in flight.
  go.store(true);
  while (p.background && enqueued.load() < 1) std::this_thread::yield();
  const double capture_ms = CaptureStage(p, capture, b.scratch, calls);
  if (background.joinable()) background.join();

  // Everything that was going to run has run once both streams drain.
  calls.Check(cudaStreamSynchronize(b.shared), "cudaStreamSynchronize(shared)", "main");
  calls.Check(cudaStreamSynchronize(b.capture_private), "cudaStreamSynchronize(private)", "main");
  calls.Check(cudaDeviceSynchronize(), "cudaDeviceSynchronize", "main");
  (void)cudaGetLastError();  // a capture error is reported above; do not leave it sticky

  const OpTally tally = TallyOps(p.ops, m, n, b, refused, calls);
  Release(b);
  return TrialOutcome(tally, m, calls, capture_ms);
}

}  // namespace gh
