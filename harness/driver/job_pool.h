// The one scheduler of the driver's jobs, shared by `sweep` (a unit of work is a cell: its jobs
// one after another in one allocation) and by the trials of `bisect` and `minimize` (a unit is
// one trial's job). The pool owns:
//  - the waiting units, started in the order they were added as soon as the client says they
//    are ready (their version's set-up is over) and their resources fit (a smaller unit may
//    pass a larger one that waits for devices);
//  - the resources (ResourcePool: disjoint GPUs, CPU slots, a Slurm allocation's nodes);
//  - polling the running jobs (RunningJob: the deadline, SIGTERM, SIGKILL after the grace);
//  - dead nodes: a node srun says died under a job ("Node failure on X") takes no job again,
//    and a unit the live nodes can no longer hold ends at once ("no node ... left alive");
//  - infrastructure retries: an attempt that says nothing about the code under test (the
//    launcher refused, a step could not start, a node died) starts the unit again from scratch,
//    up to kMaxJobAttempts attempts, saying so; only infra on every attempt stands;
//  - stop-all: once `stop` is set every job gets SIGTERM, then SIGKILL after the grace, and Run
//    returns Cancelled.
// What a unit's jobs are and what their ends mean is the client's (PoolClient).
#ifndef GPUHARNESS_DRIVER_JOB_POOL_H_
#define GPUHARNESS_DRIVER_JOB_POOL_H_

#include <atomic>
#include <deque>
#include <functional>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "absl/time/time.h"
#include "harness/driver/cell_job.h"
#include "harness/driver/clock.h"
#include "harness/driver/resource_pool.h"
#include "harness/driver/slurm_node_failure.h"

namespace gh::driver {

// How many times one unit starts when the infrastructure fails under it. An infrastructure
// failure says nothing about the code under test; only one that persists through every attempt
// is reported.
inline constexpr int kMaxJobAttempts = 3;

// How a job of a unit ended, as the pool saw it.
struct PooledJobEnd {
  const JobEnd& end;
  int attempt = 1;
  // srun said a node of the job's step died (its nodes are out of the pool now): the attempt
  // counts as infrastructure whatever the client says, and nothing of it runs on there again.
  std::optional<SlurmNodeFailure> lost = {};
};

class PoolClient {
 public:
  virtual ~PoolClient() = default;

  enum class Readiness { kReady, kWait, kEnded };
  // Before each try to start `unit`: kWait while its set-up runs; kEnded when it ends without a
  // job (the client has recorded why: a set-up that failed).
  virtual absl::StatusOr<Readiness> Ready(size_t unit) { return Readiness::kReady; }
  // Starts the unit's next job in `where` (the same allocation for every job of an attempt).
  virtual absl::StatusOr<RunningJob> StartJob(size_t unit, const Allocation& where, int attempt) = 0;

  // A job of `unit` ended: the client records it and says what follows: another job of the unit
  // in the same allocation, the unit's end, or an attempt that ended infra (the pool runs the
  // unit again when it can, then calling Retry, else EndInfra).
  struct After {
    enum Kind { kNextJob, kDone, kInfra } kind = kDone;
    std::string why = {};  // kInfra: what the attempt ended with, for the retry line
  };
  virtual absl::StatusOr<After> JobEnded(size_t unit, const PooledJobEnd& ended) = 0;
  // Before attempt `attempt` of `unit` starts again from scratch; `line` says so for the console.
  virtual void Retry(size_t unit, int attempt, const std::string& line) = 0;
  // The unit's last attempt ended infra and no other follows: what it recorded stands.
  virtual absl::Status EndInfra(size_t unit) = 0;
  // No live node can hold `unit` any more (`why`: "no node of ... left alive ..."); it ends.
  virtual absl::Status Strand(size_t unit, const std::string& why) = 0;
  // Once per round of the pool's loop (progress lines, set-ups), and for each unit still running.
  virtual void Tick(absl::Time now) {}
  virtual void StillRunning(size_t unit) {}
  // The unit's name in the retry line ("v05 trial 0", a cell's id).
  virtual std::string Label(size_t unit) const = 0;
};

struct JobPoolOptions {
  absl::Duration kill_grace = absl::Seconds(10);
  absl::Duration poll_interval = absl::Milliseconds(20);
  const std::atomic<bool>* stop = nullptr;
  int max_attempts = kMaxJobAttempts;
};

class JobPool {
 public:
  JobPool(Resources resources, JobPoolOptions options, Clock& clock, PoolClient& client);
  ~JobPool();

  // Queues `unit` (an id of the client's) needing `ranks` ranks (on one GPU when `share_gpu`).
  void Add(size_t unit, int ranks, bool share_gpu);
  // Runs until no unit waits or runs, or until `until()` holds (checked after every unit that
  // ends). Errors: the client's (the running jobs are stopped first), Cancelled once `stop` was
  // set (every job stopped: SIGTERM, SIGKILL after the grace).
  absl::Status Run(const std::function<bool()>& until = nullptr);
  bool Idle() const { return waiting_.empty() && running_.empty(); }
  // Ends every running job (SIGTERM, SIGKILL after the grace) and drops the waiting units.
  void Stop() {
    StopAll();
    waiting_.clear();
  }

  const ResourcePool& resources() const { return pool_; }
  // "no node of the Slurm job 7: ... left alive for 4 ranks (dead: ghnode2)".
  std::string NoLiveNode(int ranks) const;

 private:
  struct Unit {
    size_t id = 0;
    int ranks = 1;
    bool share_gpu = false;
    int attempt = 1;
    Allocation allocation;
    std::optional<RunningJob> job;
  };
  // Starts the waiting units that are ready and fit; true when any started or ended.
  absl::StatusOr<bool> StartWaiting();
  // Polls the running units; true when any ended.
  absl::StatusOr<bool> PollRunning();
  // After a job of `unit` ended; false while the unit runs on (its next job started).
  absl::StatusOr<bool> Ended(Unit& unit, const JobEnd& end);
  absl::Status StartJob(Unit& unit);
  void StopAll();

  ResourcePool pool_;
  JobPoolOptions options_;
  Clock& clock_;
  PoolClient& client_;
  std::deque<Unit> waiting_;
  std::vector<Unit> running_;
  bool unit_ended_ = false;
};

}  // namespace gh::driver

#endif  // GPUHARNESS_DRIVER_JOB_POOL_H_
