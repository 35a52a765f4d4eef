// NCCL's Inspector profiler plugin's dump files, read back and summarized (docs/explanation/hangs.md).
// The plugin (NVIDIA/nccl ext-profiler/inspector, output format "v4.0") writes one file per
// process, `<host>-pid<pid>.log`: one compact JSON object per line, each the last collective
// a communicator completed since the plugin's previous dump tick —
//   {"header":{"id":"0x..","rank":0,"n_ranks":2,"nnodes":1},"metadata":{...},
//    "coll_perf":{"coll":"AllReduce","coll_sn":3,"coll_msg_size_bytes":4096,
//                 "coll_exec_time_us":12,"coll_timing_source":"kernel_gpu",
//                 "coll_algobw_gbs":0.341333,"coll_busbw_gbs":0.341333}}
// It is a sampler: collectives completing within one tick leave only the last one's line.
// coll_sn is NCCL's per-communicator, per-function sequence number (0 first). Pure parsing:
// no NCCL header, no file system.
#ifndef GPUHARNESS_CORE_NCCL_INSPECTOR_DUMP_H_
#define GPUHARNESS_CORE_NCCL_INSPECTOR_DUMP_H_

#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"

namespace gh {

// One line of a dump file: one completed collective on one rank.
struct InspectorEntry {
  std::string comm_id;     // header.id
  int rank = 0;            // header.rank, in that communicator
  int n_ranks = 0;         // header.n_ranks
  uint64_t dump_timestamp_us = 0;  // metadata.dump_timestamp_us
  std::string coll;        // coll_perf.coll: "AllReduce", "AllGather", ...
  uint64_t sn = 0;         // coll_perf.coll_sn
  uint64_t bytes = 0;      // coll_perf.coll_msg_size_bytes
  uint64_t exec_us = 0;    // coll_perf.coll_exec_time_us
  std::string timing_source;  // coll_perf.coll_timing_source ("kernel_gpu", ...); may be absent
  double algobw_gbs = 0;   // NaN where the plugin wrote "nan"
  double busbw_gbs = 0;
};

// The complete lines of `text` (a dump file's bytes from some offset on); `where` ("FILE")
// names them in errors, with the line number counted from `first_line`. A last line without
// its newline is still being written: it is left out and `*consumed` (bytes of `text` taken)
// stops before it. Blank lines are skipped. InvalidArgument "FILE:LINE: coll_perf.coll_sn:
// expected an integer, got string" for a line that is not one object of the format.
absl::StatusOr<std::vector<InspectorEntry>> ParseInspectorDump(absl::string_view text,
                                                               const std::string& where,
                                                               int first_line, size_t* consumed);

}  // namespace gh

#endif  // GPUHARNESS_CORE_NCCL_INSPECTOR_DUMP_H_
