// fake-provider: the test model provider as a program, for tests that drive the daemon from the
// outside. It prints one JSON line on stdout, {"http": ..., "https": ..., "caFile": ...}, then
// serves until SIGTERM or SIGINT.
//
//   --answer TEXT      queue a text answer (repeatable; with none queued a default answer is used)
//   --expect-key KEY   answer 401 to a call that does not carry KEY in its dialect's header
//   --ca-file PATH     where to write the test CA (default: $TMPDIR/fake-provider-ca-<pid>.pem)
//   --record PATH      append every request to PATH as one JSON line
//   --shell-command C  play the model for a real agent: have it run C with its shell tool
//
// While it runs, POST /_fake/answers {"kind": "text"|"tool_use"|"rate_limited"|"failure"|"cut",
// ...} queues an answer and GET /_fake/requests lists the requests recorded so far.

#include "tests/fakes/provider/fake_provider.hpp"

#include <unistd.h>
#include <boost/json/serialize.hpp>
#include <csignal>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <mutex>

namespace json = boost::json;

int main(int argc, char** argv) {
  errand::fakes::FakeProvider::Options options;
  std::vector<std::string> answers;
  std::filesystem::path ca_file = std::filesystem::temp_directory_path() /
                                  ("fake-provider-ca-" + std::to_string(::getpid()) + ".pem");
  std::string record_path;
  std::string shell_command;
  for (int i = 1; i < argc; ++i) {
    const std::string arg = argv[i];
    const bool has_value = i + 1 < argc;
    if (arg == "--answer" && has_value) {
      answers.emplace_back(argv[++i]);
    } else if (arg == "--expect-key" && has_value) {
      options.expected_key = argv[++i];
    } else if (arg == "--ca-file" && has_value) {
      ca_file = argv[++i];
    } else if (arg == "--record" && has_value) {
      record_path = argv[++i];
    } else if (arg == "--shell-command" && has_value) {
      shell_command = argv[++i];
    } else {
      std::cerr << "fake-provider: unknown or incomplete argument " << arg << "\n";
      return 2;
    }
  }
  auto record_mutex = std::make_shared<std::mutex>();
  if (!record_path.empty())
    options.on_request = [record_path, record_mutex](const errand::fakes::RecordedRequest& r) {
      json::array headers;
      for (const auto& [name, value] : r.headers) headers.push_back(json::array{name, value});
      std::lock_guard lock(*record_mutex);
      std::ofstream(record_path, std::ios::app)
          << json::serialize(json::object{{"method", r.method},
                                          {"target", r.target},
                                          {"headers", std::move(headers)},
                                          {"body", r.body},
                                          {"tls", r.tls}})
          << "\n";
    };

  // Block the stop signals before the server thread starts, so only sigwait sees them.
  sigset_t stop_signals;
  sigemptyset(&stop_signals);
  sigaddset(&stop_signals, SIGTERM);
  sigaddset(&stop_signals, SIGINT);
  pthread_sigmask(SIG_BLOCK, &stop_signals, nullptr);

  errand::fakes::FakeProvider provider(std::move(options));
  if (!shell_command.empty()) provider.drive_shell_command(shell_command);
  for (auto& text : answers) provider.push(errand::fakes::ScriptedAnswer::answer(std::move(text)));
  std::ofstream(ca_file) << provider.ca_pem();
  std::cout << json::serialize(json::object{{"http", provider.http_url()},
                                            {"https", provider.https_url()},
                                            {"caFile", ca_file.string()}})
            << std::endl;
  int received = 0;
  sigwait(&stop_signals, &received);
  return 0;
}
