// Where the files gpuharness ships live, found relative to the running binary so that an
// installed prefix (or an unpacked TGZ) works with no checkout anywhere:
//   <prefix>/bin/gpuharness  ->  <prefix>/share/gpuharness/{scenarios,matrices,launchers,ci}
// A build tree has the same shape: <build>/share/gpuharness/* are links into the checkout
// (cmake/GhInstall.cmake). GH_DATA_DIR, when set, names the directory instead.
#ifndef GPUHARNESS_CORE_SHIPPED_DATA_H_
#define GPUHARNESS_CORE_SHIPPED_DATA_H_

#include <string>

#include "harness/core/enum_names.h"

namespace gh {

// Each kind's directory under the data directory.
enum class ShippedKind { kScenario, kMatrix, kLauncher };
GH_ENUM_NAMES(ShippedKind, {ShippedKind::kScenario, "scenarios"}, {ShippedKind::kMatrix, "matrices"},
              {ShippedKind::kLauncher, "launchers"});

// <dir of this binary>/../share/gpuharness (normalized), or $GH_DATA_DIR; "" when this binary's path cannot
// be read. The directory need not exist.
std::string ShippedDataDir();

// The file a user means by `value` on a command line or in a matrix: `value` itself when a
// file exists there, else the shipped file <data>/<scenarios|matrices|launchers>/<value>, with
// ".yaml" appended when `value` has no such ending ("ring_shift_bandwidth",
// "frameworks/jax/dsf_ring_shift"). When neither exists, `value` unchanged, so the caller's
// own "cannot read" error names what the user wrote. `data_dir` "" means ShippedDataDir().
std::string ResolveShippedFile(ShippedKind kind, const std::string& value,
                               const std::string& data_dir = "");

}  // namespace gh

#endif  // GPUHARNESS_CORE_SHIPPED_DATA_H_
