#pragma once

// Resident memory as the kernel reports it in /proc, in KiB.

#include <cstddef>
#include <string>
#include <vector>

namespace errand::bench {

long resident_kib(int pid);       // VmRSS; 0 when the process is gone
long peak_resident_kib(int pid);  // VmHWM
// The summed VmRSS of every process descended from pid, pid itself excluded.
long descendants_resident_kib(int pid);

// VmRSS split the way /proc/<pid>/status splits it, with the thread count.
struct ResidentParts {
  long total_kib = 0;  // VmRSS
  long anon_kib = 0;   // RssAnon: heap, malloc arenas, thread stacks, writable data
  long file_kib = 0;   // RssFile: pages of mapped files (program and libraries)
  long shmem_kib = 0;  // RssShmem
  // Pss from smaps_rollup: each page divided by the processes mapping it, so the libraries'
  // pages other processes share count in part; what the daemon adds to a machine.
  long proportional_kib = 0;
  long threads = 0;
};
ResidentParts resident_parts(int pid);

// One line of /proc/<pid>/smaps, or every mapping of one file summed.
struct Mapping {
  std::string name;  // the file, [heap], [stack], or empty for an anonymous mapping
  long size_kib = 0;
  long resident_kib = 0;
  int count = 0;  // mappings summed into this one
};
// The mappings holding the most resident memory, largest first: a file's mappings summed
// (text, data and relocations alike), anonymous ones each on their own.
std::vector<Mapping> largest_mappings(int pid, std::size_t how_many);

}  // namespace errand::bench
