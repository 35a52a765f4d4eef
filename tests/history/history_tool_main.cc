// `gpuharness history` alone, for the whole-binary tests until the command is dispatched from
// harness/main.cc: gh_history_tool ARGS... runs HistoryCommand({"history", ARGS...}).
#include <vector>

#include "harness/history/history_command.h"

int main(int argc, char** argv) {
  std::vector<char*> args = {const_cast<char*>("history")};
  for (int i = 1; i < argc; ++i) args.push_back(argv[i]);
  return gh::HistoryCommand(static_cast<int>(args.size()), args.data());
}
