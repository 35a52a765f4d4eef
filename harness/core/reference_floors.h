// Reference floors ("is my number right for this GPU?"): a table, shipped as data
// (results/reference/collective_busbw.yaml), of bandwidths a collective should reach on a given
// machine, each row with where it comes from and how far below it a result may still be right.
// A scenario names it in a metric bound, `busbw_GBps: {min: reference}`, and the bound becomes
// the row's floor for the point's GPU model, rank and node count, op, dtype and size; the
// missed bound then says "below the reference for ...". Plain C++ (core).
//
// File format (docs/scenarios/collective.md):
//   references:
//     - gpu: "NVIDIA H100 80GB HBM3"      # glob on the job's GPU model (the `gpu` fact)
//       interconnect: "NVLink4, NV18"     # what links the ranks (shown, not matched)
//       ranks: 8                          # ranks of the job; nodes: 1 (default); gpu_shared: false
//       op: all_reduce                    # the point's `op`; dtype: float (optional)
//       bytes: 1G                         # the point's `bytes`
//       metric: busbw_GBps                # optional, default busbw_GBps
//       env: {NCCL_NVLS_ENABLE: "0"}      # optional: the job's environment must say so
//                                         # ("unset": the variable is not set)
//       value: 360                        # GB/s
//       tolerance: 0.1                    # the floor is value * (1 - tolerance)
//       source: {kind: measured, date: 2026-12-08, machine: "...", command: "..."}
//                                         # or {kind: published, link: "...", note: "..."}
//                                         # or {kind: inferred, note: "how"}
#ifndef GPUHARNESS_CORE_REFERENCE_FLOORS_H_
#define GPUHARNESS_CORE_REFERENCE_FLOORS_H_

#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "harness/core/expectation.h"

namespace gh {

struct Point;

struct ReferenceSource {
  std::string kind;  // "measured", "published", "inferred"
  std::string date, machine, command, link, note;
  // "measured 2026-12-08 on <machine>: <command>", "published: <link> (<note>)",
  // "inferred: <note>".
  std::string ToString() const;
};

struct ReferenceRow {
  std::string gpu;           // glob
  std::string interconnect;  // descriptive
  int ranks = 1;
  int nodes = 1;
  bool gpu_shared = false;
  std::string op;
  std::string dtype;  // "" = any dtype
  int64_t bytes = 0;
  std::string metric = "busbw_GBps";
  std::map<std::string, std::string> env;  // NAME -> value, or "unset"
  double value = 0;      // GB/s
  double tolerance = 0;  // fraction
  ReferenceSource source;
  std::string where;  // "file:line" of the row, for messages

  double floor() const { return value * (1 - tolerance); }
  // "NVIDIA H100* x8 (NVLink4, NV18) all_reduce float at 1G: 360 GB/s less 10 %, measured ...".
  std::string Describe() const;
};

struct ReferenceTable {
  std::string path;
  std::vector<ReferenceRow> rows;
};

// Reads a table; InvalidArgument "file:line:col: references[3].value: ..." on bad input.
absl::StatusOr<ReferenceTable> LoadReferenceTable(const std::string& path);

// The row for metric `metric` of `point` (its `op`, `bytes` and `dtype` parameters) in the job
// `facts` describe (`gpu`, `nranks`, `nodes`, `gpu_shared`, `env.NAME`), or nullptr. Of the
// rows that match, the one that names the most (its dtype, each env variable) wins.
const ReferenceRow* FindReference(const ReferenceTable& table, const std::string& metric,
                                  const Point& point, const EnvironmentFacts& facts);

// Where `min: reference` finds its table when the bound names none: the first
// <dir>/results/reference/collective_busbw.yaml from the scenario file's directory upwards, up
// to the first directory holding `scenarios/` or `.git` (the scenario tree's root); "" when
// there is none.
std::string DefaultReferenceTablePath(const std::string& scenario_file);

}  // namespace gh

#endif  // GPUHARNESS_CORE_REFERENCE_FLOORS_H_
