#include "harness/runtime/mpi_errors.h"

#include <mpi.h>


#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/strip.h"

namespace gh {

std::string MpiErrorClassName(int error_class) {
  switch (error_class) {
#define GH_MPI_CLASS(name) \
  case name:               \
    return #name;
    GH_MPI_CLASS(MPI_SUCCESS)
    GH_MPI_CLASS(MPI_ERR_BUFFER)
    GH_MPI_CLASS(MPI_ERR_COUNT)
    GH_MPI_CLASS(MPI_ERR_TYPE)
    GH_MPI_CLASS(MPI_ERR_TAG)
    GH_MPI_CLASS(MPI_ERR_COMM)
    GH_MPI_CLASS(MPI_ERR_RANK)
    GH_MPI_CLASS(MPI_ERR_REQUEST)
    GH_MPI_CLASS(MPI_ERR_ROOT)
    GH_MPI_CLASS(MPI_ERR_GROUP)
    GH_MPI_CLASS(MPI_ERR_OP)
    GH_MPI_CLASS(MPI_ERR_TOPOLOGY)
    GH_MPI_CLASS(MPI_ERR_DIMS)
    GH_MPI_CLASS(MPI_ERR_ARG)
    GH_MPI_CLASS(MPI_ERR_UNKNOWN)
    GH_MPI_CLASS(MPI_ERR_TRUNCATE)
    GH_MPI_CLASS(MPI_ERR_OTHER)
    GH_MPI_CLASS(MPI_ERR_INTERN)
    GH_MPI_CLASS(MPI_ERR_IN_STATUS)
    GH_MPI_CLASS(MPI_ERR_PENDING)
    GH_MPI_CLASS(MPI_ERR_ACCESS)
    GH_MPI_CLASS(MPI_ERR_AMODE)
    GH_MPI_CLASS(MPI_ERR_ASSERT)
    GH_MPI_CLASS(MPI_ERR_BAD_FILE)
    GH_MPI_CLASS(MPI_ERR_BASE)
    GH_MPI_CLASS(MPI_ERR_CONVERSION)
    GH_MPI_CLASS(MPI_ERR_DISP)
    GH_MPI_CLASS(MPI_ERR_DUP_DATAREP)
    GH_MPI_CLASS(MPI_ERR_FILE_EXISTS)
    GH_MPI_CLASS(MPI_ERR_FILE_IN_USE)
    GH_MPI_CLASS(MPI_ERR_FILE)
    GH_MPI_CLASS(MPI_ERR_INFO_KEY)
    GH_MPI_CLASS(MPI_ERR_INFO_NOKEY)
    GH_MPI_CLASS(MPI_ERR_INFO_VALUE)
    GH_MPI_CLASS(MPI_ERR_INFO)
    GH_MPI_CLASS(MPI_ERR_IO)
    GH_MPI_CLASS(MPI_ERR_KEYVAL)
    GH_MPI_CLASS(MPI_ERR_LOCKTYPE)
    GH_MPI_CLASS(MPI_ERR_NAME)
    GH_MPI_CLASS(MPI_ERR_NO_MEM)
    GH_MPI_CLASS(MPI_ERR_NOT_SAME)
    GH_MPI_CLASS(MPI_ERR_NO_SPACE)
    GH_MPI_CLASS(MPI_ERR_NO_SUCH_FILE)
    GH_MPI_CLASS(MPI_ERR_PORT)
    GH_MPI_CLASS(MPI_ERR_QUOTA)
    GH_MPI_CLASS(MPI_ERR_READ_ONLY)
    GH_MPI_CLASS(MPI_ERR_RMA_CONFLICT)
    GH_MPI_CLASS(MPI_ERR_RMA_SYNC)
    GH_MPI_CLASS(MPI_ERR_SERVICE)
    GH_MPI_CLASS(MPI_ERR_SIZE)
    GH_MPI_CLASS(MPI_ERR_SPAWN)
    GH_MPI_CLASS(MPI_ERR_UNSUPPORTED_DATAREP)
    GH_MPI_CLASS(MPI_ERR_UNSUPPORTED_OPERATION)
    GH_MPI_CLASS(MPI_ERR_WIN)
    GH_MPI_CLASS(MPI_ERR_RMA_RANGE)
    GH_MPI_CLASS(MPI_ERR_RMA_ATTACH)
    GH_MPI_CLASS(MPI_ERR_RMA_SHARED)
    GH_MPI_CLASS(MPI_ERR_RMA_FLAVOR)
#undef GH_MPI_CLASS
    default:
      return "MPI_ERR_UNKNOWN";
  }
}

std::string MpiErrorSignature(int error_code) {
  int error_class = MPI_ERR_UNKNOWN;
  if (MPI_Error_class(error_code, &error_class) != MPI_SUCCESS) error_class = MPI_ERR_UNKNOWN;
  char text[MPI_MAX_ERROR_STRING] = {};
  int length = 0;
  if (MPI_Error_string(error_code, text, &length) != MPI_SUCCESS) length = 0;
  const std::string name = MpiErrorClassName(error_class);
  absl::string_view message(text, static_cast<size_t>(length));
  if (absl::ConsumePrefix(&message, name)) {
    absl::ConsumePrefix(&message, ":");
    message = absl::StripLeadingAsciiWhitespace(message);
  }
  if (message.empty()) return name;
  return absl::StrCat(name, ": ", message);
}

}  // namespace gh
