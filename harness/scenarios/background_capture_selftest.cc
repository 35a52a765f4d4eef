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
#include <thread>

#include "absl/strings/str_cat.h"
#include "harness/core/registry.h"
#include "harness/runtime/point_context.h"

namespace gh {
namespace {

class IsolationSelftest : public Scenario {
 public:
  RankOutcome Run(PointContext& ctx) override {
    const std::string& fault = ctx.point().GetString("fault");
    const int64_t fault_trial = ctx.point().GetInt("fault_trial");
    RankOutcome out;
    out.metrics = {{"worker_pid", static_cast<double>(getpid()), "count"}};
    if (fault == "none" || (fault_trial >= 0 && fault_trial != ctx.trial())) return out;
    ctx.SetStep("planted fault");
    if (fault == "crash") std::raise(SIGSEGV);
    if (fault == "exit") _exit(7);
    if (fault == "hang") {
      for (;;) std::this_thread::sleep_for(std::chrono::seconds(1));
    }
    out.outcome = Outcome::kFail;
    out.signature = absl::StrCat("planted failure in trial ", ctx.trial());
    out.step = "planted fault";
    return out;
  }
};

KindInfo DescribeIsolationSelftest() {
  KindInfo info;
  info.name = "isolation_selftest";
  info.description = "self-test of isolated trials: one trial crashes, hangs, exits or fails";
  info.params = {
      {"fault", ParamType::kEnum, std::string("none"), "what the chosen trial does",
       {"none", "crash", "hang", "exit", "fail"}, {}, {}},
      {"fault_trial", ParamType::kInt, int64_t{0}, "the trial that faults (-1: every trial)", {},
       -1.0, 10000.0},
  };
  info.backends = {Backend::kHost};
#if defined(GH_HAVE_CUDA)
  info.backends.push_back(Backend::kCuda);
#endif
  info.ranks = {1, INT_MAX};
  info.isolate_trials = true;
  info.make = [] { return std::unique_ptr<Scenario>(new IsolationSelftest()); };
  return info;
}

}  // namespace

GH_REGISTER_SCENARIO(isolation_selftest, DescribeIsolationSelftest);

}  // namespace gh
