#include "harness/core/process_table.h"

#include <dirent.h>
#include <signal.h>

#include <fstream>
#include <set>
#include <sstream>

#include "absl/strings/ascii.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_split.h"

namespace gh {

std::optional<ProcessStat> ReadProcessStat(int pid) {
  std::ifstream in(absl::StrCat("/proc/", pid, "/stat"));
  std::stringstream text;
  text << in.rdbuf();
  const std::string line = text.str();
  // "pid (comm) state ppid pgrp session ... starttime(22)"; comm may hold spaces and ')'.
  const size_t close = line.rfind(')');
  if (!in || close == std::string::npos) return std::nullopt;
  std::vector<std::string> fields = absl::StrSplit(line.substr(close + 1), ' ', absl::SkipEmpty());
  // fields[0] is field 3 (state); field N is fields[N - 3].
  if (fields.size() < 20) return std::nullopt;
  ProcessStat stat;
  stat.pid = pid;
  stat.state = fields[0].empty() ? '?' : fields[0][0];
  if (!absl::SimpleAtoi(fields[1], &stat.ppid) || !absl::SimpleAtoi(fields[2], &stat.pgid) || !absl::SimpleAtoi(fields[3], &stat.sid) ||
      !absl::SimpleAtoi(fields[19], &stat.start_ticks)) {
    return std::nullopt;
  }
  return stat;
}

std::vector<ProcessStat> SessionMembers(int sid) {
  std::vector<ProcessStat> members;
  if (sid <= 0) return members;
  DIR* proc = opendir("/proc");
  if (proc == nullptr) return members;
  while (dirent* entry = readdir(proc)) {
    int pid = 0;
    if (!absl::SimpleAtoi(entry->d_name, &pid) || pid <= 0) continue;
    std::optional<ProcessStat> stat = ReadProcessStat(pid);
    if (stat && stat->sid == sid && stat->state != 'Z') members.push_back(*stat);
  }
  closedir(proc);
  return members;
}

int SignalSession(int sid, int signal) {
  if (sid <= 0) return 0;
  int signalled = kill(-sid, signal) == 0 ? 1 : 0;
  std::set<int> groups = {sid};
  for (const ProcessStat& p : SessionMembers(sid)) {
    if (kill(p.pid, signal) == 0) ++signalled;
    if (groups.insert(p.pgid).second && p.pgid > 0) kill(-p.pgid, signal);
  }
  return signalled;
}

std::string BootId() {
  std::ifstream in("/proc/sys/kernel/random/boot_id");
  std::string id;
  std::getline(in, id);
  return std::string(absl::StripAsciiWhitespace(id));
}

}  // namespace gh
