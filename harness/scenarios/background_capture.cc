#include "harness/scenarios/background_capture.h"

#include <climits>
#include <memory>

#include "harness/core/registry.h"
#include "harness/runtime/point_context.h"

namespace gh {

BackgroundCaptureParams ParseBackgroundCaptureParams(const Point& point) {
  BackgroundCaptureParams p;
  p.ops = point.GetEnum<CaptureOps>("ops");
  p.background = point.GetBool("background");
  p.stream = point.GetEnum<CaptureStream>("stream");
  p.mode = point.GetEnum<CaptureMode>("mode");
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
    ctx.SetStep("capture race", "cudaStreamBeginCapture", 0);
#if defined(GH_HAVE_CUDA)
    if (ctx.backend() == Backend::kCuda) return RunBackgroundCaptureTrial(params);
#endif
    // The planner skips other backends before Run; kept for direct callers.
    return RankOutcome::Skip("background_capture needs the cuda backend (a CUDA stream capture)");
  }
};

KindInfo DescribeBackgroundCapture() {
  KindInfo info;
  info.name = "background_capture";
  info.description =
      "a host thread enqueues work on a stream while another captures it (the TransformerEngine "
      "stream-capture race): every operation must run exactly once";
  info.params =
      ParamsBuilder()
          .Enum("ops", CaptureOps::kMixed,
                "what the background thread enqueues (mixed: all five in turn)")
          .Bool("background", true, "run the background thread at all")
          .Enum("stream", CaptureStream::kShared,
                "capture on the background thread's stream, or on a private non-blocking one")
          .Enum("mode", CaptureMode::kRelaxed, "cudaStreamCaptureMode")
          .Bool("check_capturing", false,
                "the background thread waits while cudaStreamIsCapturing says the stream "
                "captures")
          .Int("hold_ms", 0, "extra time the capture is held open (ms)").Range(0.0, 10000.0)
          .Int("ops_count", 200, "operations the background thread enqueues").Range(1.0, 100000.0)
          .Int("capture_kernels", 4, "kernels launched into the capture").Range(1.0, 1000.0)
          .Build();
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
