// NCCL's own view of a hung job (docs/explanation/hangs.md): the RAS service that NCCL 2.24 and later run
// inside every process, queried over its client socket the way NCCL's `ncclras` client does
// ("CLIENT PROTOCOL 2" / "SERVER PROTOCOL n", "TIMEOUT s" / "OK", then "STATUS" and the text
// report until the service closes the connection). Plain sockets: no NCCL header is needed.
#ifndef GPUHARNESS_RUNTIME_NCCL_RAS_H_
#define GPUHARNESS_RUNTIME_NCCL_RAS_H_

#include <cstddef>
#include <string>

#include "absl/time/time.h"

namespace gh {

inline constexpr char kNcclRasDefaultAddress[] = "localhost:28028";
// A RAS report longer than this is cut (it says so).
inline constexpr size_t kMaxNcclRasBytes = 16 * 1024;

// Where this process's RAS listens: NCCL_RAS_ADDR ("host:port") or localhost:28028.
std::string NcclRasAddress();

// The STATUS report of the RAS service at `address` ("host:port"), all of it within `bound`;
// "not available: <why>" when there is none (refused, timed out, not a RAS service).
std::string QueryNcclRas(const std::string& address, absl::Duration bound);

// What the timeout record says: "not available: ..." on the host backend, when the loaded
// NCCL (`nccl_version`, "2.28.9") predates RAS or NCCL_RAS_ENABLE=0 turned it off; otherwise
// QueryNcclRas(NcclRasAddress(), bound).
std::string NcclRasView(bool nccl_backend, const std::string& nccl_version, absl::Duration bound);

}  // namespace gh

#endif  // GPUHARNESS_RUNTIME_NCCL_RAS_H_
