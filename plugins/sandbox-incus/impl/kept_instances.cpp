#include "plugins/sandbox-incus/impl/kept_instances.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <charconv>

#include "common/human_size.hpp"
#include "plugins/sandbox-incus/impl/host_documents.hpp"
#include "plugins/sandbox-incus/impl/launch_request.hpp"

namespace errand::incus {

namespace json = boost::json;

namespace {

std::int64_t number_or_zero(const std::optional<std::string>& text) {
  std::int64_t value = 0;
  if (text) std::from_chars(text->data(), text->data() + text->size(), value);
  return value;
}

}  // namespace

std::string kept_instance_name(const std::string& key) {
  // instance_name() holds an id to Incus's rules behind "errand-"; "kept-" marks the thread's.
  return instance_name("kept-" + key);
}

std::vector<KeptInstance> select_kept(const json::value& instances,
                                      const std::string& daemon_mark) {
  std::vector<KeptInstance> out;
  if (!instances.is_array()) return out;
  for (const auto& instance : instances.as_array()) {
    if (!config_value(instance, kSystemKey)) continue;
    if (config_value(instance, kDaemonKey) != daemon_mark) continue;
    auto key = config_value(instance, kKeepKey);
    if (!key) continue;
    out.push_back({text_at(instance, "name"), std::move(*key),
                   config_value(instance, kSessionKey).value_or(""),
                   number_or_zero(config_value(instance, kStoppedAtKey)),
                   text_at(instance, "status") != "Stopped"});
  }
  return out;
}

std::optional<std::string> refuse_reuse(const json::value& found, const std::string& daemon_mark,
                                        const std::string& key) {
  const auto name = text_at(found, "name");
  if (!config_value(found, kSystemKey) || config_value(found, kDaemonKey) != daemon_mark)
    return "an instance named " + name +
           " exists that this daemon did not make; errand never starts or deletes it";
  if (config_value(found, kKeepKey) != key)
    return "the instance " + name + " is kept for another thread";
  return std::nullopt;
}

std::optional<std::string> outdated(const json::value& found, const json::object& create) {
  const auto* wanted = create.at("config").as_object().if_contains(kSourceKey);
  if (wanted == nullptr || !wanted->is_string()) return std::nullopt;  // the probe could not say
  const auto had = config_value(found, kSourceKey).value_or("");
  if (had == wanted->as_string()) return std::nullopt;
  return "it was made from " + (had.empty() ? std::string("an unrecorded source") : had) +
         ", and sessions now start from " + std::string(wanted->as_string());
}

json::object restart_body(const json::value& found, const json::object& create) {
  json::object config = create.at("config").as_object();
  if (const auto* current = found.is_object() ? found.as_object().if_contains("config") : nullptr;
      current != nullptr && current->is_object())
    for (const auto& [key, value] : current->as_object())
      if (key.starts_with("volatile.")) config[key] = value;
  json::object body{{"config", std::move(config)},
                    {"devices", create.at("devices")},
                    {"profiles", create.at("profiles")},
                    {"ephemeral", false},
                    {"stateful", false}};
  if (const auto architecture = text_at(found, "architecture"); !architecture.empty())
    body["architecture"] = architecture;
  return body;
}

std::vector<KeptUsage> over_total(std::vector<KeptUsage> stopped, std::uint64_t total) {
  std::stable_sort(stopped.begin(), stopped.end(), [](const KeptUsage& a, const KeptUsage& b) {
    return a.instance.stopped_at < b.instance.stopped_at;
  });
  std::uint64_t held = 0;
  for (const auto& one : stopped) held += one.bytes;
  std::vector<KeptUsage> doomed;
  for (auto& one : stopped) {
    if (held <= total) break;
    held -= std::min(held, one.bytes);
    doomed.push_back(std::move(one));
  }
  return doomed;
}

std::string evicted_notice(const KeptUsage& evicted, std::uint64_t held, std::uint64_t total) {
  return fmt::format(
      "this thread's stopped instance {} ({}) was deleted to make room: the stopped instances "
      "of idle threads held {}, more than sandbox.incus.keptTotal ({}), and it was the one "
      "stopped longest ago. The next prompt here starts a new instance; /workspace and /state "
      "are kept, anything installed elsewhere is gone.",
      evicted.instance.name, common::human_size(evicted.bytes), common::human_size(held),
      common::config_size(total));
}

}  // namespace errand::incus
