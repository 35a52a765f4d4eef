// A repro that travels: `gpuharness repro DIR POINT --bundle OUTDIR` writes a directory that
// reproduces POINT on another machine, with neither DIR nor the scenario's checkout there:
//   OUTDIR/run.sh              the repro script (repro_script.h), run from anywhere: it cds to
//                              its own directory and names every place it uses relative to it
//   OUTDIR/scenario/...        the scenario file(s) that define POINT and the files of the exec
//                              command that lie in the scenario's directory, at the same places
//                              (a second scenario directory is scenario2/, and so on)
//   OUTDIR/files/...           other files the exec command names (a script or data file given
//                              by an absolute path), the scenario's copy pointing at them, and
//                              those a version's set-up command names by an absolute path
//   OUTDIR/versions/<label>/   made by run.sh: the version's set-up, run again there
// The variables in force at the recorded run (core/fingerprint.h IsReproducedEnvVar) and the
// configuration's are exported as recorded, paths into DIR or the scenario's directory made
// relative to the bundle. gpuharness itself is not carried: run.sh finds it on PATH or in
// $GPUHARNESS. Programs of the system or of a version's set-up are not carried either.
#ifndef GPUHARNESS_BISECT_REPRO_BUNDLE_H_
#define GPUHARNESS_BISECT_REPRO_BUNDLE_H_

#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "harness/bisect/repro_finder.h"

namespace gh {

// Writes the bundle of `arms` (FindReproArms(dir, point)) to `out_dir`, which must not exist
// or be empty (InvalidArgument otherwise: nothing of it is overwritten); built beside it and
// renamed into place, so a failure leaves nothing half-written (any other error: exit 3).
// Returns the bundle's files, relative to it, in order.
absl::StatusOr<std::vector<std::string>> WriteReproBundle(const std::string& dir, const std::string& point,
                                                          const ReproArms& arms, const std::string& out_dir);

}  // namespace gh

#endif  // GPUHARNESS_BISECT_REPRO_BUNDLE_H_
