#pragma once

namespace errand::bailey::launcher {

// `errand-bailey doctor [--machine]`: what this host lets bailey enforce. The human form is for
// operators; --machine is the key=value form the plugin's probe reads. Always exits 0: a
// missing feature is a finding, not a failure of the doctor.
int run_doctor(bool machine);

}  // namespace errand::bailey::launcher
