#include "core/remote/serve/request_digest.hpp"

#include <string_view>

#include "core/remote/snapshot/sha256.hpp"

namespace errand::remote {

namespace {

// "<decimal length>:<bytes>;" so a field's end is never guessed from its content.
void append_digest_field(std::string& out, std::string_view field) {
  out += std::to_string(field.size());
  out += ':';
  out += field;
  out += ';';
}

}  // namespace

std::string admit_request_digest(const wire::Admit& admit,
                                 const std::optional<std::string>& manifest_hash) {
  std::string canonical = "errand-admit-v1;";
  append_digest_field(canonical, std::to_string(admit.argv.size()));
  for (const auto& arg : admit.argv) append_digest_field(canonical, arg);
  append_digest_field(canonical, std::to_string(admit.env.size()));
  for (const auto& [name, value] : admit.env) {
    append_digest_field(canonical, name);
    append_digest_field(canonical, value);
  }
  append_digest_field(canonical, admit.workdir);
  append_digest_field(canonical, admit.snapshot ? "snapshot" : "empty");
  append_digest_field(canonical, manifest_hash.value_or(""));
  return sha256_hex(canonical);
}

}  // namespace errand::remote
