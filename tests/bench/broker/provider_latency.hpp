#pragma once

// What a small provider call costs through the broker over https, with the broker's kept-alive
// provider connections and without them, against the same call made straight to the fake
// provider on a kept-alive TLS connection.

namespace errand::bench {

// Prints the medians, each broker figure's added latency over the direct call, and the ratio
// pooled / unpooled. io_threads: the threads running the broker's io_context. False when a call
// failed (the reason is printed).
bool print_provider_call_latency(int io_threads);

}  // namespace errand::bench
