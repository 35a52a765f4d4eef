// NCCL's Inspector profiler plugin for the scenarios that ask for per-collective timings
// (`nccl_inspector: true`, docs/explanation/hangs.md). NCCL reads NCCL_PROFILER_PLUGIN when the job's
// communicator is created, once per job (runtime/cuda_resources.h), so the choice is the
// job's: when any scenario of it asks, every rank sets the plugin's variables before the
// communicator exists, with the dump directory DIR/nccl_inspector. Rank 0 then reads the
// lines the plugin appended to every rank's dump file after each point, and at a timeout.
// Plain files and environment: no NCCL header is needed.
#ifndef GPUHARNESS_RUNTIME_NCCL_INSPECTOR_H_
#define GPUHARNESS_RUNTIME_NCCL_INSPECTOR_H_

#include <cstddef>
#include <map>
#include <string>

#include "absl/time/time.h"
#include "harness/core/nccl_inspector_view.h"

namespace gh {

// Where the plugin comes from when `run --nccl-inspector PATH` does not say.
inline constexpr char kNcclInspectorPluginEnv[] = "GH_NCCL_INSPECTOR_PLUGIN";
// Under the job's results directory.
inline constexpr char kNcclInspectorDumpDir[] = "nccl_inspector";

struct NcclInspectorRequest {
  bool asked = false;        // some scenario of the job has `nccl_inspector: true`
  bool nccl_backend = false; // the job runs the cuda backend (NCCL)
  std::string plugin_flag;   // --nccl-inspector PATH; empty: GH_NCCL_INSPECTOR_PLUGIN
  std::string out_dir;       // the job's results directory
};

class NcclInspector {
 public:
  // Decides whether the job runs under the plugin and, when it does, creates the dump
  // directory and sets NCCL_PROFILER_PLUGIN (the plugin's absolute path),
  // NCCL_INSPECTOR_ENABLE=1, NCCL_INSPECTOR_DUMP_THREAD_INTERVAL_MICROSECONDS and
  // NCCL_INSPECTOR_DUMP_DIR in this process's environment, overriding any set before. When it
  // was asked for but cannot run, note() says why ("not available: host backend (no NCCL)",
  // no plugin named, the plugin file missing). Every rank calls it, before any communicator.
  static NcclInspector Start(const NcclInspectorRequest& request);

  bool running() const { return running_; }
  const std::string& dump_dir() const { return dump_dir_; }
  const std::string& note() const { return note_; }

  // Rank 0, after every point while running (so that each point reads only its own lines):
  // waits until the ranks' dump files have not grown for a short quiet time (bounded: the
  // plugin writes from its own thread), then summarizes the lines appended since the last call.
  // When nothing is there, or the job runs without the plugin, the view's note says why.
  // `settle` false (at a timeout) reads what is there at once.
  NcclInspectorView TakePoint(int nranks, bool settle = true);

  // The last collective each rank was seen to complete over the whole job so far
  // ("rank 0: AllReduce #17 (4K); rank 1: AllReduce #16 (4K)"), or why none is known.
  std::string LastCompletedLine(int nranks) const;

 private:
  struct DumpFile {
    size_t offset = 0;  // bytes parsed
    int lines = 0;      // lines parsed (for error messages)
    bool unreadable = false;
  };
  void WaitForQuiet() const;

  bool running_ = false;
  std::string dump_dir_;
  std::string note_;
  absl::Time started_;
  std::map<std::string, DumpFile> files_;      // by path
  std::map<int, InspectorLastCompleted> last_;  // by rank, over the job
};

}  // namespace gh

#endif  // GPUHARNESS_RUNTIME_NCCL_INSPECTOR_H_
