// isolation_selftest: a rank-local kind whose trials fault on purpose, so that trial isolation
// (harness/runtime/trial_isolation.h) is tested on the host backend, without a GPU: the chosen
// trial crashes (SIGSEGV), hangs, exits without an outcome, or fails; the other trials must
// still be recorded as they ran. It exists for background_capture, whose real faults need a GPU.
#include <signal.h>
#include <unistd.h>

#include <chrono>
#include <climits>
#include <csignal>
#include <memory>
#include <span>
#include <thread>

#include "absl/strings/str_cat.h"
#include "harness/core/enum_names.h"
#include "harness/core/param.h"
#include "harness/core/registry.h"
#include "harness/runtime/point_context.h"
#include "harness/scenarios/kind_backends.h"

namespace gh {
namespace {

enum class PlantedFault { kNone, kCrash, kHang, kExit, kFail };
GH_ENUM_NAMES(PlantedFault, {PlantedFault::kNone, "none"}, {PlantedFault::kCrash, "crash"},
    {PlantedFault::kHang, "hang"}, {PlantedFault::kExit, "exit"}, {PlantedFault::kFail, "fail"});

class IsolationSelftest : public Scenario {
 public:
  RankOutcome Run(PointContext& ctx) override {
    const PlantedFault fault = ctx.point().GetEnum<PlantedFault>("fault");
    const int64_t fault_trial = ctx.point().GetInt("fault_trial");
    RankOutcome out;
    out.metrics = {{"worker_pid", static_cast<double>(getpid()), "count"}};
    if (fault == PlantedFault::kNone || (fault_trial >= 0 && fault_trial != ctx.trial())) return out;
    ctx.SetStep("planted fault");
    if (fault == PlantedFault::kCrash) std::raise(SIGSEGV);
    if (fault == PlantedFault::kExit) _exit(7);
    if (fault == PlantedFault::kHang) {
      for (;;) std::this_thread::sleep_for(std::chrono::seconds(1));
    }
    RankOutcome failed =
        RankOutcome::Fail(absl::StrCat("planted failure in trial ", ctx.trial()), "planted fault");
    failed.metrics = std::move(out.metrics);
    return failed;
  }
};

KindInfo DescribeIsolationSelftest() {
  KindInfo info;
  info.name = "isolation_selftest";
  info.description = "self-test of isolated trials: one trial crashes, hangs, exits or fails";
  info.params = ParamsBuilder()
                    .Enum("fault", PlantedFault::kNone, "what the chosen trial does")
                    .Int("fault_trial", 0, "the trial that faults (-1: every trial)")
                    .Range(-1.0, 10000.0)
                    .Build();
  info.backends = HostAndCudaBackends();
  info.ranks = {1, INT_MAX};
  info.isolate_trials = true;
  info.make = [] { return std::unique_ptr<Scenario>(new IsolationSelftest()); };
  return info;
}

}  // namespace

GH_REGISTER_SCENARIO(isolation_selftest, DescribeIsolationSelftest);

}  // namespace gh
