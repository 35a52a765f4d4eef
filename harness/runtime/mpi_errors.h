// Signatures for MPI errors. Every communicator of the job has MPI_ERRORS_RETURN, so a failing
// MPI call returns here instead of aborting the job, and the point ends as an `error`.
#ifndef GPUHARNESS_RUNTIME_MPI_ERRORS_H_
#define GPUHARNESS_RUNTIME_MPI_ERRORS_H_

#include <string>

namespace gh {

// The error class's name ("MPI_ERR_TRUNCATE", "MPI_ERR_UNKNOWN" for classes MPI-3 does not
// name).
std::string MpiErrorClassName(int error_class);

// "<class name>: <MPI_Error_string>", e.g. "MPI_ERR_TRUNCATE: message truncated". When the
// library's text already starts with the class name it is not repeated.
std::string MpiErrorSignature(int error_code);

}  // namespace gh

#endif  // GPUHARNESS_RUNTIME_MPI_ERRORS_H_
