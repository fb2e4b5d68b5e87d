#include "core/plugins/plugin_catalogue.hpp"

#include <boost/json/array.hpp>
#include <boost/json/object.hpp>
#include <string>
#include <string_view>

namespace errand::plugins {

namespace json = boost::json;

namespace {

// The catalogue's form, raised whenever what a record carries changes.
constexpr int kForm = 1;

json::array array_of(const std::vector<std::string>& texts) {
  json::array out;
  for (const auto& text : texts) out.emplace_back(text);
  return out;
}

// Reads one record, naming the first field that is not what catalogue_of writes.
class RecordReader {
 public:
  RecordReader(const json::value& value, std::string at) : at_(std::move(at)) {
    object_ = value.if_object();
    if (object_ == nullptr) problem_ = at_ + " is not an object";
  }

  std::string text(std::string_view key) {
    const auto* found = field(key);
    if (found == nullptr) return {};
    if (!found->is_string()) return wrong(key, "a string"), std::string{};
    return std::string(found->as_string());
  }
  bool flag(std::string_view key) {
    const auto* found = field(key);
    if (found == nullptr) return false;
    if (!found->is_bool()) return wrong(key, "true or false"), false;
    return found->as_bool();
  }
  int number(std::string_view key) {
    const auto* found = field(key);
    if (found == nullptr) return -1;
    if (!found->is_int64()) return wrong(key, "a whole number"), -1;
    return static_cast<int>(found->as_int64());
  }
  std::vector<std::string> texts(std::string_view key) {
    std::vector<std::string> out;
    const auto* found = field(key);
    if (found == nullptr) return out;
    const auto* items = found->if_array();
    if (items == nullptr) return wrong(key, "a list of strings"), out;
    for (const auto& item : *items) {
      if (!item.is_string()) return wrong(key, "a list of strings"), out;
      out.emplace_back(item.as_string());
    }
    return out;
  }
  const std::string& problem() const { return problem_; }

 private:
  const json::value* field(std::string_view key) {
    if (!problem_.empty()) return nullptr;
    const auto* found = object_->if_contains(key);
    if (found == nullptr) problem_ = at_ + "." + std::string(key) + " is missing";
    return found;
  }
  void wrong(std::string_view key, std::string_view what) {
    problem_ = at_ + "." + std::string(key) + " is not " + std::string(what);
  }

  const json::object* object_ = nullptr;
  std::string at_;
  std::string problem_;
};

}  // namespace

json::value catalogue_of(const std::vector<PluginRecord>& records) {
  json::array rows;
  for (const auto& record : records) {
    rows.emplace_back(json::object{{"path", record.path.string()},
                                   {"name", record.name},
                                   {"kind", record.kind},
                                   {"version", record.version},
                                   {"abi_major", record.abi_major},
                                   {"abi_minor", record.abi_minor},
                                   {"loaded", record.loaded},
                                   {"refusal", record.refusal},
                                   {"own_keys", array_of(record.config_keys.own)},
                                   {"read_keys", array_of(record.config_keys.reads)},
                                   {"config_schema", record.config_schema},
                                   {"validates_config", record.validates_config},
                                   {"validates_policy", record.validates_policy}});
  }
  return json::object{{"form", kForm}, {"records", std::move(rows)}};
}

sdk::Result<std::vector<PluginRecord>> records_of_catalogue(const json::value& catalogue) {
  const auto* top = catalogue.if_object();
  const auto* form = top != nullptr ? top->if_contains("form") : nullptr;
  if (form == nullptr || !form->is_int64() || form->as_int64() != kForm)
    return sdk::make_error("it is not a plugin catalogue of form " + std::to_string(kForm));
  const auto* rows = top->if_contains("records");
  if (rows == nullptr || !rows->is_array())
    return sdk::make_error("its records are missing or not a list");
  std::vector<PluginRecord> records;
  for (std::size_t i = 0; i < rows->as_array().size(); ++i) {
    RecordReader read(rows->as_array()[i], "records[" + std::to_string(i) + "]");
    PluginRecord record;
    record.path = read.text("path");
    record.name = read.text("name");
    record.kind = read.text("kind");
    record.version = read.text("version");
    record.abi_major = read.number("abi_major");
    record.abi_minor = read.number("abi_minor");
    record.loaded = read.flag("loaded");
    record.refusal = read.text("refusal");
    record.config_keys.own = read.texts("own_keys");
    record.config_keys.reads = read.texts("read_keys");
    record.config_schema = read.text("config_schema");
    record.validates_config = read.flag("validates_config");
    record.validates_policy = read.flag("validates_policy");
    if (!read.problem().empty()) return sdk::make_error(read.problem());
    records.push_back(std::move(record));
  }
  return records;
}

}  // namespace errand::plugins
