#include "harness/driver/stop_signals.h"

#include <signal.h>

#include <cstring>

namespace gh::driver {
namespace {

std::atomic<bool> g_stop{false};

void OnStopSignal(int) { g_stop.store(true); }

}  // namespace

void InstallStopSignalHandlers() {
  struct sigaction action;
  std::memset(&action, 0, sizeof action);
  action.sa_handler = OnStopSignal;
  sigemptyset(&action.sa_mask);
  for (int sig : {SIGINT, SIGTERM, SIGHUP}) sigaction(sig, &action, nullptr);
}

const std::atomic<bool>& StopFlag() { return g_stop; }

}  // namespace gh::driver
