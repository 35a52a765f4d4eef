#include "harness/scenarios/background_capture.h"

#include <climits>
#include <memory>

#include "harness/core/registry.h"
#include "harness/runtime/point_context.h"

namespace gh {

BackgroundCaptureParams ParseBackgroundCaptureParams(const Point& point) {
  BackgroundCaptureParams p;
  const std::string& ops = point.GetString("ops");
  if (ops == "pinned_h2d") p.ops = CaptureOps::kPinnedH2d;
  else if (ops == "pageable_h2d") p.ops = CaptureOps::kPageableH2d;
  else if (ops == "count_kernel") p.ops = CaptureOps::kCountKernel;
  else if (ops == "event_record") p.ops = CaptureOps::kEventRecord;
  else if (ops == "dus_kernel") p.ops = CaptureOps::kDusKernel;
  else p.ops = CaptureOps::kMixed;
  p.background = point.GetBool("background");
  p.stream = point.GetString("stream") == "private" ? CaptureStream::kPrivate
                                                    : CaptureStream::kShared;
  const std::string& mode = point.GetString("mode");
  p.mode = mode == "global"         ? CaptureMode::kGlobal
           : mode == "thread_local" ? CaptureMode::kThreadLocal
                                    : CaptureMode::kRelaxed;
  p.check_capturing = point.GetBool("check_capturing");
  p.hold_ms = static_cast<int>(point.GetInt("hold_ms"));
  p.ops_count = static_cast<int>(point.GetInt("ops_count"));
  p.capture_kernels = static_cast<int>(point.GetInt("capture_kernels"));
  return p;
}

namespace {

class BackgroundCapture : public Scenario {
 public:
  RankOutcome Run(PointContext& ctx) override {
    const BackgroundCaptureParams params = ParseBackgroundCaptureParams(ctx.point());
    ctx.SetStep("capture race");
#if defined(GH_HAVE_CUDA)
    if (ctx.backend() == Backend::kCuda) return RunBackgroundCaptureTrial(params);
#endif
    RankOutcome out;  // the planner skips other backends before Run; kept for direct callers
    out.outcome = Outcome::kSkip;
    out.signature = "background_capture needs the cuda backend (a CUDA stream capture)";
    return out;
  }
};

KindInfo DescribeBackgroundCapture() {
  KindInfo info;
  info.name = "background_capture";
  info.description =
      "a host thread enqueues work on a stream while another captures it (seed 001): every "
      "operation must run exactly once";
  info.params = {
      {"ops", ParamType::kEnum, std::string("mixed"),
       "what the background thread enqueues (mixed: all five in turn)",
       {"mixed", "pinned_h2d", "pageable_h2d", "count_kernel", "event_record", "dus_kernel"},
       {}, {}},
      {"background", ParamType::kBool, true, "run the background thread at all", {}, {}, {}},
      {"stream", ParamType::kEnum, std::string("shared"),
       "capture on the background thread's stream, or on a private non-blocking one",
       {"shared", "private"}, {}, {}},
      {"mode", ParamType::kEnum, std::string("relaxed"), "cudaStreamCaptureMode",
       {"global", "thread_local", "relaxed"}, {}, {}},
      {"check_capturing", ParamType::kBool, false,
       "the background thread waits while cudaStreamIsCapturing says the stream captures", {},
       {}, {}},
      {"hold_ms", ParamType::kInt, int64_t{0}, "extra time the capture is held open (ms)", {},
       0.0, 10000.0},
      {"ops_count", ParamType::kInt, int64_t{200}, "operations the background thread enqueues",
       {}, 1.0, 100000.0},
      {"capture_kernels", ParamType::kInt, int64_t{4}, "kernels launched into the capture", {},
       1.0, 1000.0},
  };
#if defined(GH_HAVE_CUDA)
  info.backends = {Backend::kCuda};
#endif
  info.ranks = {1, INT_MAX};  // rank-local: every rank races on its own GPU
  info.isolate_trials = true;
  info.make = [] { return std::unique_ptr<Scenario>(new BackgroundCapture()); };
  return info;
}

}  // namespace

GH_REGISTER_SCENARIO(background_capture, DescribeBackgroundCapture);

}  // namespace gh
