#include "harness/driver/job_pool.h"

#include <algorithm>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"

namespace gh::driver {

JobPool::JobPool(Resources resources, JobPoolOptions options, Clock& clock, PoolClient& client)
    : pool_(std::move(resources)), options_(options), clock_(clock), client_(client) {}

JobPool::~JobPool() { StopAll(); }

void JobPool::Add(size_t unit, int ranks, bool share_gpu) {
  Unit u;
  u.id = unit;
  u.ranks = ranks;
  u.share_gpu = share_gpu;
  waiting_.push_back(std::move(u));
}

std::string JobPool::NoLiveNode(int ranks) const {
  const Resources& r = pool_.resources();
  return absl::StrCat("no node of the ", r.slurm ? r.slurm->ToString() : std::string("machine"), " left alive for ",
                      ranks, " ranks (dead: ", absl::StrJoin(pool_.DeadNodes(), ","), ")");
}

absl::Status JobPool::Run(const std::function<bool()>& until) {
  while (!Idle()) {
    if (options_.stop != nullptr && options_.stop->load()) {
      StopAll();
      return absl::CancelledError("stopped; its running jobs were ended");
    }
    client_.Tick(clock_.Now());
    unit_ended_ = false;
    absl::StatusOr<bool> started = StartWaiting();
    absl::StatusOr<bool> ended = started.ok() ? PollRunning() : started;
    if (!ended.ok()) {
      StopAll();
      return ended.status();
    }
    if (until && unit_ended_ && until()) return absl::OkStatus();
    if (!*started && !*ended) clock_.SleepFor(options_.poll_interval);
  }
  return absl::OkStatus();
}

absl::StatusOr<bool> JobPool::StartWaiting() {
  bool any = false;
  for (auto it = waiting_.begin(); it != waiting_.end();) {
    absl::StatusOr<PoolClient::Readiness> ready = client_.Ready(it->id);
    if (!ready.ok()) return ready.status();
    if (*ready == PoolClient::Readiness::kEnded) {
      it = waiting_.erase(it);
      unit_ended_ = any = true;
      continue;
    }
    if (*ready == PoolClient::Readiness::kWait) {
      ++it;
      continue;
    }
    if (!pool_.FitsLiveNodes(it->ranks, it->share_gpu)) {  // nodes died: it never will start
      if (absl::Status st = client_.Strand(it->id, NoLiveNode(it->ranks)); !st.ok()) return st;
      it = waiting_.erase(it);
      unit_ended_ = any = true;
      continue;
    }
    std::optional<Allocation> allocation = pool_.TryAcquireCell(it->ranks, it->share_gpu);
    if (!allocation) {
      ++it;
      continue;
    }
    Unit unit = std::move(*it);
    it = waiting_.erase(it);
    unit.allocation = *std::move(allocation);
    running_.push_back(std::move(unit));
    if (absl::Status st = StartJob(running_.back()); !st.ok()) return st;
    any = true;
  }
  return any;
}

absl::Status JobPool::StartJob(Unit& unit) {
  absl::StatusOr<RunningJob> job = client_.StartJob(unit.id, unit.allocation, unit.attempt);
  if (!job.ok()) return job.status();
  unit.job = *std::move(job);
  return absl::OkStatus();
}

absl::StatusOr<bool> JobPool::PollRunning() {
  bool any = false;
  for (size_t i = 0; i < running_.size();) {
    std::optional<JobEnd> end = running_[i].job->Poll(options_.kill_grace);
    if (!end) {
      client_.StillRunning(running_[i].id);
      ++i;
      continue;
    }
    any = true;
    absl::StatusOr<bool> over = Ended(running_[i], *end);
    if (!over.ok()) return over.status();
    if (!*over) {
      ++i;
      continue;
    }
    running_.erase(running_.begin() + static_cast<std::ptrdiff_t>(i));
    unit_ended_ = true;
  }
  return any;
}

absl::StatusOr<bool> JobPool::Ended(Unit& unit, const JobEnd& end) {
  PooledJobEnd ended{end, unit.attempt, std::nullopt};
  if (pool_.resources().slurm) ended.lost = FindSlurmNodeFailure(end.log_path);
  for (const std::string& node : ended.lost ? ended.lost->nodes : std::vector<std::string>{}) {
    pool_.ExcludeNode(node);  // first: a dead node's share is not given back
  }
  absl::StatusOr<PoolClient::After> after = client_.JobEnded(unit.id, ended);
  if (!after.ok()) return after.status();
  if (ended.lost && after->kind != PoolClient::After::kInfra) {
    *after = {PoolClient::After::kInfra, ended.lost->line};
  }
  if (after->kind == PoolClient::After::kNextJob) {
    if (absl::Status st = StartJob(unit); !st.ok()) return st;
    return false;
  }
  pool_.Release(unit.allocation);
  if (after->kind == PoolClient::After::kDone) return true;
  if (unit.attempt >= options_.max_attempts || !pool_.FitsLiveNodes(unit.ranks, unit.share_gpu)) {
    if (absl::Status st = client_.EndInfra(unit.id); !st.ok()) return st;
    return true;
  }
  const std::vector<std::string> dead = pool_.DeadNodes();
  ++unit.attempt;
  client_.Retry(unit.id, unit.attempt,
                absl::StrCat(client_.Label(unit.id), ": ", after->why, ": running it again",
                             dead.empty() ? "" : " on the live nodes", " (attempt ", unit.attempt, " of ",
                             options_.max_attempts, dead.empty() ? "" : "; " + absl::StrJoin(dead, ",") + " left out",
                             ")"));
  Unit again;
  again.id = unit.id;
  again.ranks = unit.ranks;
  again.share_gpu = unit.share_gpu;
  again.attempt = unit.attempt;
  waiting_.push_front(std::move(again));
  return true;
}

void JobPool::StopAll() {
  for (Unit& u : running_) {
    if (u.job) u.job->Terminate();
  }
  for (bool any = true; any;) {
    any = false;
    for (Unit& u : running_) any = (u.job && !u.job->Poll(options_.kill_grace)) || any;
    if (any) clock_.SleepFor(options_.poll_interval);
  }
  for (Unit& u : running_) pool_.Release(u.allocation);
  running_.clear();
}

}  // namespace gh::driver
