#pragma once

// The configuration `errand run` starts on when no file is found and the environment holds a
// key for a provider one of the bundled agents speaks (ANTHROPIC_API_KEY or OPENAI_API_KEY): the
// web interface on loopback and no chat service, the bailey backend with every default guarantee
// (limits, egress through the broker), the bundled agent of that provider's dialect, and the
// account's XDG directories for projects and state. The key is the provider's configured
// credential, so it is held, swapped and scrubbed like one written in a file. The result is a
// written configuration, validated afterwards exactly as a file's would be, and it is the file
// `errand run --save-config` writes.

#include <errand/sdk/result.hpp>

#include <boost/json/object.hpp>
#include <filesystem>
#include <map>
#include <optional>
#include <string>
#include <vector>

namespace errand::config {

// What the embedded default reads from the environment, gathered by the caller so tests need not
// set the real one. Variables are by name; only the *_API_KEY and *_BASE_URL ones matter, plus
// the XDG base directories.
struct EmbeddedDefaultInputs {
  std::map<std::string, std::string> variables;
  std::optional<std::string> home;

  // The variables of a process environment (environ) that this reads.
  static EmbeddedDefaultInputs from_process();
};

struct EmbeddedDefault {
  boost::json::object written;
  std::string key_variable;  // the variable the provider key came from
  std::string agent_kind;    // the bundled agent that runs
  // Things the operator should know about what was chosen ("OPENAI_API_KEY is set too; ...").
  std::vector<std::string> notes;
};

// The web interface's address under the embedded default.
inline constexpr std::string_view kEmbeddedWebHost = "127.0.0.1";
inline constexpr int kEmbeddedWebPort = 8787;

// The configuration for these inputs. A refusal (Error::Kind::refused) when no variable holds
// the key of a bundled agent's provider: its message says which keys would do and, when keys of
// other providers are set, that no bundled agent speaks to them. When both keys are set the
// Anthropic one is used and a note says so.
sdk::Result<EmbeddedDefault> embedded_default(const EmbeddedDefaultInputs& inputs);

// The variables that would start the embedded default, for messages: "ANTHROPIC_API_KEY
// (claude-agent-acp) or OPENAI_API_KEY (codex-acp)".
std::string embedded_default_variables();

// The embedded default as text, with its credential replaced by a note of the variable it came
// from: what `errand run` prints, so an operator sees the configuration without the key.
std::string describe_embedded_default(const EmbeddedDefault& chosen);

// Writes the embedded default, key included, to path: its directory made (0700) if missing, the
// file created 0600 and never over an existing one. The error names the path and the reason.
sdk::Result<void> save_embedded_default(const EmbeddedDefault& chosen,
                                        const std::filesystem::path& path);

}  // namespace errand::config
