#include "core/plugins/plugin_helper.hpp"

#include <unistd.h>

#include <spdlog/logger.h>
#include <spdlog/sinks/null_sink.h>
#include <boost/json/parse.hpp>
#include <boost/json/serialize.hpp>
#include <cstdio>
#include <iostream>
#include <iterator>

#include "common/program_exchange.hpp"
#include "core/plugins/plugin_catalogue.hpp"
#include "core/plugins/registry.hpp"

namespace errand::plugins {

namespace json = boost::json;

namespace {

constexpr int kAnswered = 0;
constexpr int kUnreadableRequest = 2;

// Runs the helper and returns its answer as JSON; or why there is none, as a sentence.
sdk::Result<json::value> ask(const PluginHelper& helper, std::vector<std::string> args,
                             std::string input) {
  const std::string asked = helper.program.string() + " plugins " + args.front();
  args.insert(args.begin(), "plugins");
  // Its stderr is errand's own: whatever a plugin or a sanitizer says while the helper has the
  // plugins mapped reaches errand's log whole, as it did when errand mapped them itself.
  auto answer = common::exchange_with_program({.program = helper.program.string(),
                                               .args = std::move(args),
                                               .input = std::move(input),
                                               .deadline = helper.deadline,
                                               .share_stderr = true});
  if (!answer) return sdk::make_error(answer.error().message);
  if (answer->exit_code != 0) {
    return sdk::make_error(asked + " exited with " + std::to_string(answer->exit_code) +
                           " (what it wrote to stderr, just before this, says why)");
  }
  boost::system::error_code ec;
  auto parsed = json::parse(answer->out, ec);
  if (ec) return sdk::make_error(asked + " answered with something that is not JSON");
  return parsed;
}

void collect_problem(void* ctx, const char* path, const char* message) {
  static_cast<sdk::ConfigProblems*>(ctx)->add(path != nullptr ? path : "",
                                              message != nullptr ? message : "");
}

// One check, run here: the file loaded with every check of the scan, then its validator.
json::object run_check(const json::value& check) {
  const auto* fields = check.if_object();
  const auto* path = fields != nullptr ? fields->if_contains("path") : nullptr;
  const auto* name = fields != nullptr ? fields->if_contains("name") : nullptr;
  const auto* config = fields != nullptr ? fields->if_contains("config") : nullptr;
  if (path == nullptr || !path->is_string() || name == nullptr || !name->is_string() ||
      config == nullptr || !config->is_object())
    throw std::invalid_argument("a check is not {\"path\", \"name\", \"config\"}");
  const auto record = load_plugin_file(std::string(path->as_string()));
  if (!record.loaded) return {{"refusal", record.refusal}};
  if (record.name != name->as_string() || record.entry->validate_config == nullptr)
    return {{"refusal", record.path.string() + " is no longer the plugin " +
                            std::string(name->as_string()) +
                            " with configuration checks that errand read at start"}};
  sdk::ConfigProblems problems;
  const std::string text = json::serialize(config->as_object());
  record.entry->validate_config(text.c_str(), &collect_problem, &problems);
  json::array found;
  for (const auto& problem : problems.all())
    found.emplace_back(json::object{{"path", problem.path}, {"message", problem.message}});
  return {{"problems", std::move(found)}};
}

json::value answer_check_config(const std::string& request) {
  const auto parsed = json::parse(request);
  const auto* checks = parsed.is_object() ? parsed.as_object().if_contains("checks") : nullptr;
  if (checks == nullptr || !checks->is_array())
    throw std::invalid_argument("the request has no list of checks");
  json::array verdicts;
  for (const auto& check : checks->as_array()) verdicts.emplace_back(run_check(check));
  return json::object{{"verdicts", std::move(verdicts)}};
}

json::value answer_describe(const std::vector<std::string>& args) {
  std::vector<std::filesystem::path> dirs(args.begin(), args.end());
  // The records carry every refusal; the daemon logs them.
  spdlog::logger quiet("plugins", std::make_shared<spdlog::sinks::null_sink_mt>());
  return catalogue_of(PluginRegistry::scan(dirs, quiet).records());
}

bool write_all(int fd, const std::string& text) {
  std::size_t done = 0;
  while (done < text.size()) {
    const auto n = ::write(fd, text.data() + done, text.size() - done);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) return false;
    done += static_cast<std::size_t>(n);
  }
  return true;
}

}  // namespace

PluginHelper own_program_as_helper() {
  // The running file itself, even if a package upgrade has since replaced the one on disk.
  return {.program = "/proc/self/exe"};
}

sdk::Result<std::vector<PluginRecord>> describe_with(
    const PluginHelper& helper, const std::vector<std::filesystem::path>& dirs) {
  std::vector<std::string> args{"describe"};
  for (const auto& dir : dirs) args.push_back(dir.string());
  auto answer = ask(helper, std::move(args), "");
  if (!answer) return answer.error();
  auto records = records_of_catalogue(*answer);
  if (!records)
    return sdk::make_error(helper.program.string() + " plugins describe answered with a " +
                           "catalogue errand cannot read: " + records.error().message);
  return records;
}

sdk::Result<std::vector<CheckVerdict>> check_config_with(const PluginHelper& helper,
                                                         const std::vector<ConfigCheck>& checks) {
  json::array requested;
  for (const auto& check : checks)
    requested.emplace_back(json::object{{"path", check.record->path.string()},
                                        {"name", check.record->name},
                                        {"config", check.config}});
  auto answer = ask(helper, {"check-config"},
                    json::serialize(json::object{{"checks", std::move(requested)}}));
  if (!answer) return answer.error();
  const auto malformed = [&] {
    return sdk::make_error(helper.program.string() + " plugins check-config answered with " +
                           "verdicts errand cannot read");
  };
  const auto* verdicts =
      answer->is_object() ? answer->as_object().if_contains("verdicts") : nullptr;
  if (verdicts == nullptr || !verdicts->is_array() || verdicts->as_array().size() != checks.size())
    return malformed();
  std::vector<CheckVerdict> out;
  for (const auto& verdict : verdicts->as_array()) {
    CheckVerdict read;
    const auto* fields = verdict.if_object();
    if (fields == nullptr) return malformed();
    if (const auto* refusal = fields->if_contains("refusal"); refusal != nullptr) {
      if (!refusal->is_string()) return malformed();
      read.refusal = refusal->as_string();
    } else if (const auto* problems = fields->if_contains("problems");
               problems != nullptr && problems->is_array()) {
      for (const auto& problem : problems->as_array()) {
        const auto* p = problem.if_object();
        const auto* path = p != nullptr ? p->if_contains("path") : nullptr;
        const auto* message = p != nullptr ? p->if_contains("message") : nullptr;
        if (path == nullptr || !path->is_string() || message == nullptr || !message->is_string())
          return malformed();
        read.problems.push_back(
            {std::string(path->as_string()), std::string(message->as_string())});
      }
    } else {
      return malformed();
    }
    out.push_back(std::move(read));
  }
  return out;
}

int serve_helper_command(const std::string& command, const std::vector<std::string>& args) {
  // The answer goes to the stdout errand was given; a plugin printing while it is mapped reaches
  // stderr instead.
  std::fflush(stdout);
  const int answer_fd = ::dup(STDOUT_FILENO);
  if (answer_fd < 0 || ::dup2(STDERR_FILENO, STDOUT_FILENO) < 0) {
    std::cerr << "errand plugins " << command << ": cannot set its output aside\n";
    return kUnreadableRequest;
  }
  json::value answer;
  try {
    if (command == "describe") {
      answer = answer_describe(args);
    } else {
      if (!args.empty()) throw std::invalid_argument("it takes no arguments");
      answer = answer_check_config(
          std::string(std::istreambuf_iterator<char>(std::cin), std::istreambuf_iterator<char>()));
    }
  } catch (const std::exception& e) {
    std::cerr << "errand plugins " << command << ": " << e.what() << "\n";
    return kUnreadableRequest;
  }
  const bool sent = write_all(answer_fd, json::serialize(answer) + "\n");
  ::close(answer_fd);
  return sent ? kAnswered : kUnreadableRequest;
}

}  // namespace errand::plugins
