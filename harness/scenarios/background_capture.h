// background_capture: the stream-capture race of seed 001. A background host thread keeps
// enqueuing work on a stream (H2D copies from pinned and pageable memory, a kernel that counts
// its own executions, event records, a small dynamic-update-slice kernel into a resident
// buffer) while the main thread runs an "initialize stage": begin a capture, launch kernels into
// it, hold it open `hold_ms`, end it and destroy the graph. When the capture is on the stream
// the background thread uses and the mode lets other threads in (relaxed), their work goes into
// the graph and never runs. Each trial checks that every operation the background thread
// enqueued without an error ran exactly once (device-side counts and data, read after
// synchronising) and records every CUDA return code.
//
// Outcome per trial: pass; fail "swallowed N/M" (and "duplicated N/M") when work was silently
// lost or repeated; error "<cudaError name> in <call> (<thread>)" for the first failing call.
// Trials run isolated (KindInfo::isolate_trials): a poisoned context or a crash stays in its
// child process. Plain C++ view; the CUDA body is background_capture_cuda.cu.
#ifndef GPUHARNESS_SCENARIOS_BACKGROUND_CAPTURE_H_
#define GPUHARNESS_SCENARIOS_BACKGROUND_CAPTURE_H_

#include <span>
#include <string>

#include "harness/core/outcome.h"
#include "harness/core/enum_names.h"
#include "harness/core/param.h"
#include "harness/core/point.h"

namespace gh {

enum class CaptureOps { kMixed, kPinnedH2d, kPageableH2d, kCountKernel, kEventRecord, kDusKernel };
GH_ENUM_NAMES(CaptureOps, {CaptureOps::kMixed, "mixed"}, {CaptureOps::kPinnedH2d, "pinned_h2d"},
    {CaptureOps::kPageableH2d, "pageable_h2d"}, {CaptureOps::kCountKernel, "count_kernel"},
    {CaptureOps::kEventRecord, "event_record"}, {CaptureOps::kDusKernel, "dus_kernel"});

enum class CaptureStream { kShared, kPrivate };
GH_ENUM_NAMES(CaptureStream, {CaptureStream::kShared, "shared"},
    {CaptureStream::kPrivate, "private"});

enum class CaptureMode { kGlobal, kThreadLocal, kRelaxed };
GH_ENUM_NAMES(CaptureMode, {CaptureMode::kGlobal, "global"},
    {CaptureMode::kThreadLocal, "thread_local"}, {CaptureMode::kRelaxed, "relaxed"});

struct BackgroundCaptureParams {
  CaptureOps ops = CaptureOps::kMixed;  // mixed: the five kinds in turn
  bool background = true;               // false: no background thread at all
  CaptureStream stream = CaptureStream::kShared;
  CaptureMode mode = CaptureMode::kRelaxed;
  bool check_capturing = false;         // background thread waits while the stream captures
  int hold_ms = 0;                      // capture held open this much longer
  int ops_count = 200;                  // operations the background thread enqueues
  int capture_kernels = 4;              // kernels the "initialize stage" launches into it
};

BackgroundCaptureParams ParseBackgroundCaptureParams(const Point& point);

#if defined(GH_HAVE_CUDA)
// One trial on the current CUDA device (background_capture_cuda.cu). Never throws.
RankOutcome RunBackgroundCaptureTrial(const BackgroundCaptureParams& params);
#endif

}  // namespace gh

#endif  // GPUHARNESS_SCENARIOS_BACKGROUND_CAPTURE_H_
