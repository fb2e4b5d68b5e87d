#include "process_memory.hpp"

#include <filesystem>
#include <fstream>
#include <map>
#include <set>
#include <sstream>
#include <string>
#include <vector>

namespace errand::bench {

namespace fs = std::filesystem;

namespace {

long status_field_kib(int pid, const std::string& field) {
  std::ifstream in("/proc/" + std::to_string(pid) + "/status");
  std::string line;
  while (std::getline(in, line))
    if (line.rfind(field + ":", 0) == 0) return std::stol(line.substr(field.size() + 1));
  return 0;
}

// The parent of pid from /proc/<pid>/stat, whose second field (the command) may hold spaces
// and parentheses, so the fields are read after its last ')'.
int parent_of(int pid) {
  std::ifstream in("/proc/" + std::to_string(pid) + "/stat");
  std::string stat((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  const auto close = stat.rfind(')');
  if (close == std::string::npos) return -1;
  std::istringstream rest(stat.substr(close + 1));
  char state = 0;
  int parent = -1;
  rest >> state >> parent;
  return parent;
}

}  // namespace

long resident_kib(int pid) {
  return status_field_kib(pid, "VmRSS");
}

long peak_resident_kib(int pid) {
  return status_field_kib(pid, "VmHWM");
}

long descendants_resident_kib(int pid) {
  std::multimap<int, int> children;
  std::error_code ec;
  for (const auto& entry : fs::directory_iterator("/proc", ec)) {
    const auto name = entry.path().filename().string();
    if (name.find_first_not_of("0123456789") != std::string::npos) continue;
    const int child = std::stoi(name);
    children.emplace(parent_of(child), child);
  }
  long total = 0;
  std::vector<int> pending{pid};
  std::set<int> seen{pid};
  while (!pending.empty()) {
    const int parent = pending.back();
    pending.pop_back();
    const auto [first, last] = children.equal_range(parent);
    for (auto it = first; it != last; ++it) {
      if (!seen.insert(it->second).second) continue;
      total += resident_kib(it->second);
      pending.push_back(it->second);
    }
  }
  return total;
}

}  // namespace errand::bench
