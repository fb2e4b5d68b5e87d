// fake-github: the fake GitHub as a program, for tests that drive errand from the outside. It
// prints one JSON line on stdout, {"api": ..., "git": ..., "caFile": ..., "repositories":
// {"owner/repo": "<bare path>"}}, then serves until SIGTERM or SIGINT.
//
//   --app ID=PEM_FILE           an App whose JWTs PEM_FILE's RSA key verifies (repeatable)
//   --installation ID=APP_ID    an installation of that App (repeatable)
//   --repository OWNER/REPO     a bare repository to serve (repeatable)
//   --static-token TOKEN        a personal token the API and git accept (repeatable)
//   --token-lifetime SECONDS    how long a minted installation token lives (default 3600)
//   --ca-file PATH              where to write the CA (default: the fake's own directory)
//   --api-prefix PATH           serve the API beneath PATH, as GitHub Enterprise does /api/v3

#include "tests/fakes/github/fake_github.hpp"

#include <pthread.h>

#include <boost/json/serialize.hpp>
#include <csignal>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <optional>
#include <sstream>

namespace json = boost::json;

namespace {

struct Pair {
  std::string name, value;
};

bool split(const std::string& text, char separator, Pair& out) {
  const auto at = text.find(separator);
  if (at == std::string::npos || at == 0 || at + 1 == text.size()) return false;
  out = {text.substr(0, at), text.substr(at + 1)};
  return true;
}

}  // namespace

int main(int argc, char** argv) {
  std::vector<Pair> apps, installations, repositories;
  std::vector<std::string> static_tokens;
  std::optional<long> lifetime;
  std::filesystem::path ca_file;
  errand::fakes::FakeGithub::Options options;
  for (int i = 1; i < argc; ++i) {
    const std::string arg = argv[i];
    if (i + 1 >= argc) {
      std::cerr << "fake-github: " << arg << " needs a value\n";
      return 2;
    }
    const std::string value = argv[++i];
    Pair pair;
    if (arg == "--app" && split(value, '=', pair)) {
      apps.push_back(pair);
    } else if (arg == "--installation" && split(value, '=', pair)) {
      installations.push_back(pair);
    } else if (arg == "--repository" && split(value, '/', pair)) {
      repositories.push_back(pair);
    } else if (arg == "--static-token") {
      static_tokens.push_back(value);
    } else if (arg == "--token-lifetime") {
      lifetime = std::stol(value);
    } else if (arg == "--ca-file") {
      ca_file = value;
    } else if (arg == "--api-prefix") {
      options.api_path_prefix = value;
    } else {
      std::cerr << "fake-github: unknown or malformed argument " << arg << " " << value << "\n";
      return 2;
    }
  }

  // Block the stop signals before the server thread starts, so only sigwait sees them.
  sigset_t stop_signals;
  sigemptyset(&stop_signals);
  sigaddset(&stop_signals, SIGTERM);
  sigaddset(&stop_signals, SIGINT);
  pthread_sigmask(SIG_BLOCK, &stop_signals, nullptr);

  try {
    errand::fakes::FakeGithub github(options);
    for (const auto& app : apps) {
      std::ifstream file(app.value);
      std::stringstream pem;
      pem << file.rdbuf();
      if (!file) throw std::invalid_argument("cannot read the App key " + app.value);
      github.add_app(app.name, pem.str());
    }
    for (const auto& installation : installations)
      github.add_installation(installation.name, installation.value);
    for (const auto& token : static_tokens) github.accept_static_token(token);
    if (lifetime) github.set_token_lifetime(std::chrono::seconds(*lifetime));
    json::object served;
    for (const auto& repository : repositories)
      served[repository.name + "/" + repository.value] =
          github.create_repository(repository.name, repository.value).string();
    if (ca_file.empty()) {
      ca_file = github.ca_file();
    } else if (!(std::ofstream(ca_file) << github.ca_pem())) {
      throw std::invalid_argument("cannot write the CA to " + ca_file.string());
    }
    std::cout << json::serialize(
                     json::object{{"api", github.api_url()},
                                  {"git", "http://127.0.0.2:" + std::to_string(github.git_port())},
                                  {"caFile", ca_file.string()},
                                  {"repositories", std::move(served)}})
              << std::endl;
    int received = 0;
    sigwait(&stop_signals, &received);
  } catch (const std::exception& e) {
    std::cerr << "fake-github: " << e.what() << "\n";
    return 1;
  }
  return 0;
}
