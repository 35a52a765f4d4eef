// Where `gpuharness repro DIR POINT` finds the arms of its script: in a bisect's output (the
// first bad version's job, the last good one's as the workaround), a minimize's (the failing
// cell's job, the one with the minimal change reverted), or a sweep's (the cell whose record of
// POINT failed, and as the workaround the passing cell that differs from it in fewest labels).
#ifndef GPUHARNESS_BISECT_REPRO_FINDER_H_
#define GPUHARNESS_BISECT_REPRO_FINDER_H_

#include <optional>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "harness/bisect/repro_script.h"

namespace gh {

struct ReproArms {
  std::string kind;    // "bisect", "minimize", "sweep"
  std::string source;  // "the sweep in DIR"
  ReproArm failing;
  std::optional<ReproArm> workaround;
  // A sweep's other cells that recorded POINT, "labels (worst outcome)", in label order: the
  // command says which cell it chose and lists these.
  std::vector<std::string> other_cells;
};

// InvalidArgument (exit 2) naming DIR or POINT when DIR is no results directory, POINT has no
// failing record there, or a job's description is missing or malformed.
absl::StatusOr<ReproArms> FindReproArms(const std::string& dir, const std::string& point);

}  // namespace gh

#endif  // GPUHARNESS_BISECT_REPRO_FINDER_H_
