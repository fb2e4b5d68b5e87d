#pragma once

// Resident memory as the kernel reports it in /proc, in KiB.

namespace errand::bench {

long resident_kib(int pid);       // VmRSS; 0 when the process is gone
long peak_resident_kib(int pid);  // VmHWM
// The summed VmRSS of every process descended from pid, pid itself excluded.
long descendants_resident_kib(int pid);

}  // namespace errand::bench
