#include "process_memory.hpp"

#include <algorithm>
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

// A "Name: value kB" line of /proc/<pid>/<file>, or 0.
long proc_field_kib(int pid, const std::string& file, const std::string& field) {
  std::ifstream in("/proc/" + std::to_string(pid) + "/" + file);
  std::string line;
  while (std::getline(in, line))
    if (line.rfind(field + ":", 0) == 0) return std::stol(line.substr(field.size() + 1));
  return 0;
}

long status_field_kib(int pid, const std::string& field) {
  return proc_field_kib(pid, "status", field);
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

ResidentParts resident_parts(int pid) {
  return {status_field_kib(pid, "VmRSS"),
          status_field_kib(pid, "RssAnon"),
          status_field_kib(pid, "RssFile"),
          status_field_kib(pid, "RssShmem"),
          proc_field_kib(pid, "smaps_rollup", "Pss"),
          status_field_kib(pid, "Threads")};
}

std::vector<Mapping> largest_mappings(int pid, std::size_t how_many) {
  std::ifstream in("/proc/" + std::to_string(pid) + "/smaps");
  std::vector<Mapping> anonymous;
  std::map<std::string, Mapping> by_file;
  Mapping* current = nullptr;
  std::string line;
  while (std::getline(in, line)) {
    std::istringstream words(line);
    std::string first;
    words >> first;
    if (first.find('-') != std::string::npos && first.back() != ':') {
      // A mapping's header: range, permissions, offset, device, inode, then the name if any.
      std::string skip, name;
      words >> skip >> skip >> skip >> skip;
      std::getline(words >> std::ws, name);
      const auto dash = first.find('-');
      const long size = static_cast<long>((std::stoull(first.substr(dash + 1), nullptr, 16) -
                                           std::stoull(first.substr(0, dash), nullptr, 16)) /
                                          1024);
      if (name.empty()) {
        current = &anonymous.emplace_back(Mapping{name, 0, 0, 0});
      } else {
        current = &by_file.try_emplace(name, Mapping{name, 0, 0, 0}).first->second;
      }
      current->size_kib += size;
      ++current->count;
    } else if (first == "Rss:" && current != nullptr) {
      long kib = 0;
      words >> kib;
      current->resident_kib += kib;
    }
  }
  std::vector<Mapping> all = std::move(anonymous);
  for (auto& [name, mapping] : by_file) all.push_back(std::move(mapping));
  std::sort(all.begin(), all.end(),
            [](const Mapping& a, const Mapping& b) { return a.resident_kib > b.resident_kib; });
  if (all.size() > how_many) all.resize(how_many);
  return all;
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
