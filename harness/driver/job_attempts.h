// How many times one unit of work starts when the infrastructure fails under it: a sweep's cell
// whose node died (started again on the live nodes, sweep_runner.cc), a bisect or minimize
// trial whose job ended infra (run again, bisect/infra_retry.h). An infrastructure failure says
// nothing about the code under test; only one that persists through every attempt is reported.
#ifndef GPUHARNESS_DRIVER_JOB_ATTEMPTS_H_
#define GPUHARNESS_DRIVER_JOB_ATTEMPTS_H_

namespace gh::driver {

inline constexpr int kMaxJobAttempts = 3;

}  // namespace gh::driver

#endif  // GPUHARNESS_DRIVER_JOB_ATTEMPTS_H_
