#include "plugins/broker/admission/grant_store.hpp"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <fmt/format.h>
#include <boost/json.hpp>
#include <cerrno>
#include <cstdio>
#include <cstring>
#include <ctime>
#include <fstream>
#include <sstream>

#include "plugins/broker/admission/host_names.hpp"

namespace errand::broker {
namespace json = boost::json;
using TimePoint = GrantStore::TimePoint;

namespace {

const char* span_name(sdk::GrantSpan span) {
  switch (span) {
    case sdk::GrantSpan::once: return "once";
    case sdk::GrantSpan::until: return "until";
    case sdk::GrantSpan::always: return "always";
  }
  return "once";
}

std::optional<sdk::GrantSpan> span_of(std::string_view name) {
  if (name == "once") return sdk::GrantSpan::once;
  if (name == "until") return sdk::GrantSpan::until;
  if (name == "always") return sdk::GrantSpan::always;
  return std::nullopt;
}

std::string iso_time(TimePoint t) {
  const std::time_t secs = std::chrono::system_clock::to_time_t(t);
  std::tm tm{};
  ::gmtime_r(&secs, &tm);
  char buf[32];
  std::strftime(buf, sizeof buf, "%Y-%m-%dT%H:%M:%SZ", &tm);
  return buf;
}

std::optional<TimePoint> parse_iso(std::string_view text) {
  std::tm tm{};
  const std::string s(text);
  const char* rest = ::strptime(s.c_str(), "%Y-%m-%dT%H:%M:%SZ", &tm);
  if (rest == nullptr || *rest != '\0') return std::nullopt;
  return std::chrono::system_clock::from_time_t(::timegm(&tm));
}

bool lasting(const sdk::Grant& g, TimePoint now) {
  return g.span == sdk::GrantSpan::always || (g.span == sdk::GrantSpan::until && now < g.until);
}

}  // namespace

sdk::Result<std::string> grantable_host(std::string_view host) {
  const std::string_view trimmed = host;
  if (trimmed == "*")
    return sdk::make_error("a grant names one host or *.example.com; \"*\" would open every host",
                           sdk::Error::Kind::refused);
  const auto normal = normalise_host(trimmed, true);
  if (!normal)
    return sdk::make_error(
        fmt::format("\"{}\" is not a host name; a grant names a host alone, such as "
                    "api.example.com or *.example.com, never a port, path or URL",
                    host),
        sdk::Error::Kind::refused);
  if (normal->starts_with("*.") && normal->find('.', 2) == std::string::npos)
    return sdk::make_error(
        fmt::format("\"{}\" would open a whole top-level domain; grant the names beneath it",
                    *normal),
        sdk::Error::Kind::refused);
  return *normal;
}

GrantStore::GrantStore(std::filesystem::path file) : file_(std::move(file)) {}

sdk::Result<std::unique_ptr<GrantStore>> GrantStore::open(std::filesystem::path record_dir,
                                                          TimePoint now) {
  std::unique_ptr<GrantStore> store(new GrantStore(record_dir / "grants.json"));
  std::error_code ec;
  if (!std::filesystem::exists(store->file_, ec)) return store;
  std::ifstream in(store->file_);
  std::stringstream text;
  text << in.rdbuf();
  boost::system::error_code parse_ec;
  const auto doc = json::parse(text.str(), parse_ec);
  if (parse_ec || !doc.is_object())
    return sdk::make_error(
        fmt::format("{} is not valid JSON ({}); move it aside to start without "
                    "the session's grants",
                    store->file_.string(), parse_ec.message()));
  const auto* list = doc.as_object().if_contains("grants");
  if (list && list->is_array()) {
    for (const auto& item : list->as_array()) {
      if (!item.is_object()) continue;
      const auto& o = item.as_object();
      sdk::Grant g;
      const auto* host = o.if_contains("host");
      const auto* span = o.if_contains("span");
      if (!host || !host->is_string() || !span || !span->is_string()) continue;
      const auto parsed_span = span_of(span->as_string());
      if (!parsed_span) continue;
      g.host = std::string(host->as_string());
      g.span = *parsed_span;
      if (const auto* at = o.if_contains("grantedAt"); at && at->is_string())
        g.granted_at = parse_iso(at->as_string()).value_or(TimePoint{});
      if (const auto* until = o.if_contains("until"); until && until->is_string())
        g.until = parse_iso(until->as_string()).value_or(TimePoint{});
      if (const auto* by = o.if_contains("grantedBy"); by && by->is_string())
        g.granted_by = std::string(by->as_string());
      store->grants_.push_back(std::move(g));
    }
  }
  store->drop_expired(now);
  return store;
}

void GrantStore::drop_expired(TimePoint now) {
  std::erase_if(grants_, [&](const sdk::Grant& g) {
    return g.span == sdk::GrantSpan::until && now >= g.until;
  });
}

sdk::Result<void> GrantStore::save() {
  json::array list;
  for (const auto& g : grants_) {
    json::object o;
    o["host"] = g.host;
    o["span"] = span_name(g.span);
    o["grantedAt"] = iso_time(g.granted_at);
    if (g.span == sdk::GrantSpan::until) o["until"] = iso_time(g.until);
    o["grantedBy"] = g.granted_by;
    list.push_back(std::move(o));
  }
  json::object doc;
  doc["version"] = 1;
  doc["grants"] = std::move(list);
  const std::string text = json::serialize(doc) + "\n";
  const auto tmp = file_.string() + ".tmp";
  const int fd = ::open(tmp.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);
  if (fd < 0) return sdk::make_error(fmt::format("cannot write {}: {}", tmp, std::strerror(errno)));
  const ssize_t written = ::write(fd, text.data(), text.size());
  const bool synced = ::fsync(fd) == 0;
  ::close(fd);
  if (written != static_cast<ssize_t>(text.size()) || !synced ||
      ::rename(tmp.c_str(), file_.c_str()) != 0) {
    ::unlink(tmp.c_str());
    return sdk::make_error(
        fmt::format("cannot write {}: {}", file_.string(), std::strerror(errno)));
  }
  return {};
}

sdk::Result<sdk::Grant> GrantStore::add(sdk::GrantRequest request, TimePoint now) {
  auto host = grantable_host(request.host);
  if (!host) return host.error();
  if (request.span == sdk::GrantSpan::until && request.until <= now)
    return sdk::make_error("the grant's end time has already passed", sdk::Error::Kind::refused);
  sdk::Grant g;
  g.host = *host;
  g.span = request.span;
  g.granted_at = now;
  g.until = request.span == sdk::GrantSpan::until ? request.until : TimePoint{};
  g.granted_by = std::move(request.granted_by);
  std::lock_guard lock(mutex_);
  drop_expired(now);
  grants_.push_back(g);
  if (auto saved = save(); !saved) {
    grants_.pop_back();
    return saved.error();
  }
  return g;
}

std::vector<sdk::Grant> GrantStore::list(TimePoint now) {
  std::lock_guard lock(mutex_);
  drop_expired(now);
  return grants_;
}

GrantStore::Admission GrantStore::admit(std::string_view host, TimePoint now) {
  std::lock_guard lock(mutex_);
  for (const auto& g : grants_) {
    if (lasting(g, now) && host_pattern_matches(g.host, host)) return {g.host, {}};
  }
  for (auto it = grants_.begin(); it != grants_.end(); ++it) {
    if (it->span == sdk::GrantSpan::once && host_pattern_matches(it->host, host)) {
      Admission admitted{it->host, {}};
      grants_.erase(it);
      // A once grant that cannot be struck from the file would come back after a restart;
      // the caller logs that, but the connection it was given for goes through.
      if (auto saved = save(); !saved) admitted.unsaved = saved.error().message;
      return admitted;
    }
  }
  return {};
}

}  // namespace errand::broker
