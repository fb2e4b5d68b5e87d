#include "core/config/schema_validator.hpp"

#include <boost/json/serialize.hpp>
#include <regex>
#include <unordered_set>

#include "core/config/formats.hpp"
#include "core/config/schema_type_names.hpp"
#include "core/config/suggest.hpp"

namespace errand::config {

namespace json = boost::json;

std::string subject_of(const std::string& path) {
  return path.empty() ? "the configuration" : "`" + path + "`";
}

std::string child_path(const std::string& path, std::string_view key) {
  return path.empty() ? std::string(key) : path + "." + std::string(key);
}

namespace {

std::string_view string_keyword(const json::object& schema, std::string_view keyword) {
  const auto* found = schema.if_contains(keyword);
  return found != nullptr && found->is_string() ? std::string_view(found->as_string())
                                                : std::string_view{};
}

std::optional<double> number_keyword(const json::object& schema, std::string_view keyword) {
  const auto* found = schema.if_contains(keyword);
  if (found == nullptr || !found->is_number()) return std::nullopt;
  return found->to_number<double>();
}

std::string shown(double number) {
  return number_text(number);
}

std::size_t characters_in(std::string_view text) {
  std::size_t count = 0;
  for (const char c : text)
    if ((static_cast<unsigned char>(c) & 0xC0) != 0x80) ++count;
  return count;
}

// Keys that errand once read and now reads elsewhere; a plain "not a setting" would hide where.
std::optional<std::string> moved_key_message(const std::string& path) {
  if (path == "agent.credential" || path == "agent.credentialName")
    return "`" + path + "` is not a setting any more: a credential belongs to its provider now; " +
           "move it to `agent.providers.<name>." + path.substr(6) + "`";
  return std::nullopt;
}

class Validator {
 public:
  explicit Validator(std::vector<Problem>& problems) : problems_(problems) {}

  void validate(const json::value& value, const json::object& schema, const std::string& path) {
    if (const auto* type = schema.if_contains("type"); type != nullptr) {
      if (!matches_type(value, *type)) {
        report(schema, path,
               "must be " + describe_expected(*type) + ", not " + describe_actual(value));
        return;
      }
    }
    if (const auto* any_of = schema.if_contains("anyOf"); any_of && any_of->is_array()) {
      if (!validate_any_of(value, any_of->as_array(), schema, path)) return;
    }
    if (const auto* allowed = schema.if_contains("enum"); allowed && allowed->is_array())
      check_enum(value, allowed->as_array(), schema, path);
    if (value.is_number()) check_number(value.to_number<double>(), schema, path);
    if (value.is_string()) check_string(value.as_string(), schema, path);
    if (const auto format = string_keyword(schema, "format"); !format.empty()) {
      if (auto complaint = check_format(format, value)) report(schema, path, *complaint);
    }
    if (value.is_array()) check_array(value.as_array(), schema, path);
    if (value.is_object()) check_object(value.as_object(), schema, path);
  }

 private:
  void report(const json::object& schema, const std::string& path, const std::string& complaint) {
    std::string message = subject_of(path) + " " + complaint;
    if (const auto hint = string_keyword(schema, "x-errand-hint"); !hint.empty())
      message += ". " + std::string(hint);
    problems_.push_back({path, std::move(message)});
  }

  // True when one branch holds; otherwise reports the branch the value was evidently meant for.
  bool validate_any_of(const json::value& value, const json::array& branches,
                       const json::object& schema, const std::string& path) {
    const json::object* meant = nullptr;
    std::vector<Problem> meant_problems;
    std::string expected;
    for (const auto& branch : branches) {
      if (!branch.is_object()) continue;
      const auto& node = branch.as_object();
      std::vector<Problem> scratch;
      Validator(scratch).validate(value, node, path);
      if (scratch.empty()) return true;
      const auto* type = node.if_contains("type");
      if (meant == nullptr && (type == nullptr || matches_type(value, *type))) {
        meant = &node;
        meant_problems = std::move(scratch);
      }
      if (!expected.empty()) expected += " or ";
      expected += describe_branch(node);
    }
    if (meant != nullptr) {
      problems_.insert(problems_.end(), meant_problems.begin(), meant_problems.end());
    } else {
      report(schema, path, "must be " + expected + ", not " + describe_actual(value));
    }
    return false;
  }

  void check_enum(const json::value& value, const json::array& allowed, const json::object& schema,
                  const std::string& path) {
    std::string listed;
    std::vector<std::string> names;
    for (const auto& option : allowed) {
      if (option == value) return;
      if (!listed.empty()) listed += ", ";
      listed += json::serialize(option);
      if (option.is_string()) names.emplace_back(option.as_string());
    }
    std::string complaint = allowed.size() == 1 ? "must be " + listed : "must be one of " + listed;
    complaint += ", not " + json::serialize(value);
    if (value.is_string()) {
      if (auto near = closest_name(value.as_string(), names))
        complaint += "; did you mean \"" + *near + "\"?";
    }
    report(schema, path, complaint);
  }

  void check_number(double number, const json::object& schema, const std::string& path) {
    if (auto minimum = number_keyword(schema, "minimum"); minimum && number < *minimum)
      report(schema, path, "must be at least " + shown(*minimum) + ", not " + shown(number));
    if (auto maximum = number_keyword(schema, "maximum"); maximum && number > *maximum)
      report(schema, path, "must be at most " + shown(*maximum) + ", not " + shown(number));
    if (auto above = number_keyword(schema, "exclusiveMinimum"); above && number <= *above)
      report(schema, path, "must be more than " + shown(*above) + ", not " + shown(number));
  }

  void check_string(std::string_view text, const json::object& schema, const std::string& path) {
    if (const auto pattern = string_keyword(schema, "pattern"); !pattern.empty())
      check_pattern(text, pattern, schema, path);
    const auto minimum = number_keyword(schema, "minLength");
    if (!minimum) return;
    // A secret's length matters in bytes, since that is what scrubbing compares.
    const bool secret = schema.contains("x-errand-secret");
    const std::size_t length = secret ? text.size() : characters_in(text);
    if (static_cast<double>(length) >= *minimum) return;
    if (*minimum == 1) {
      report(schema, path, "must not be empty");
    } else {
      report(schema, path,
             "must be at least " + shown(*minimum) + (secret ? " bytes" : " characters") +
                 " long, not " + std::to_string(length));
    }
  }

  // JSON Schema patterns are ECMAScript regular expressions, matched anywhere in the string.
  void check_pattern(std::string_view text, std::string_view pattern, const json::object& schema,
                     const std::string& path) {
    try {
      const std::regex expression(pattern.begin(), pattern.end(), std::regex::ECMAScript);
      if (std::regex_search(text.begin(), text.end(), expression)) return;
    } catch (const std::regex_error&) {
      report(schema, path,
             "cannot be checked: its schema's pattern " + json::serialize(json::value(pattern)) +
                 " is not a valid regular expression (a fault in the schema, not the value)");
      return;
    }
    report(schema, path,
           "must match " + json::serialize(json::value(pattern)) + ", and " +
               json::serialize(json::value(text)) + " does not");
  }

  void check_array(const json::array& items, const json::object& schema, const std::string& path) {
    if (auto minimum = number_keyword(schema, "minItems");
        minimum && static_cast<double>(items.size()) < *minimum) {
      report(schema, path,
             *minimum == 1 ? std::string("must not be an empty list")
                           : "must list at least " + shown(*minimum) + " entries");
    }
    if (const auto* unique = schema.if_contains("uniqueItems"); unique && *unique == true) {
      for (std::size_t i = 0; i < items.size(); ++i) {
        for (std::size_t j = 0; j < i; ++j) {
          if (items[i] == items[j]) {
            report(schema, path,
                   "lists " + json::serialize(items[i]) + " more than once; name each once");
            break;
          }
        }
      }
    }
    if (const auto* item = schema.if_contains("items"); item && item->is_object()) {
      for (std::size_t i = 0; i < items.size(); ++i)
        validate(items[i], item->as_object(), path + "[" + std::to_string(i) + "]");
    }
  }

  void check_object(const json::object& object, const json::object& schema,
                    const std::string& path) {
    static const json::object no_properties;
    const auto* declared = schema.if_contains("properties");
    const json::object& properties =
        declared && declared->is_object() ? declared->as_object() : no_properties;
    const json::value* additional = schema.if_contains("additionalProperties");
    const json::value* names = schema.if_contains("propertyNames");

    std::vector<std::string> known;
    for (const auto& property : properties) known.emplace_back(property.key());
    std::unordered_set<std::string> stood_in_for;

    for (const auto& [key, value] : object) {
      const std::string at = child_path(path, key);
      if (names != nullptr && names->is_object()) check_name(key, names->as_object(), at);
      if (const auto* property = properties.if_contains(key); property && property->is_object()) {
        if (const auto reason = string_keyword(property->as_object(), "x-errand-unsupported");
            !reason.empty()) {
          problems_.push_back({at, "`" + at + "` is not supported yet: " + std::string(reason)});
          continue;
        }
        validate(value, property->as_object(), at);
      } else if (additional != nullptr && additional->is_object()) {
        validate(value, additional->as_object(), at);
      } else if (additional != nullptr && *additional == false) {
        const auto near = closest_name(key, known);
        if (near) stood_in_for.insert(*near);
        report_unknown(at, path, near);
      }
    }
    if (const auto* required = schema.if_contains("required"); required && required->is_array()) {
      for (const auto& name : required->as_array()) {
        if (!name.is_string() || object.contains(name.as_string())) continue;
        // A misspelling already reported with this key as its suggestion says it all.
        if (stood_in_for.contains(std::string(name.as_string()))) continue;
        const auto* property = properties.if_contains(name.as_string());
        report(property && property->is_object() ? property->as_object() : no_properties,
               child_path(path, name.as_string()), "is required but missing");
      }
    }
    if (auto minimum = number_keyword(schema, "minProperties");
        minimum && static_cast<double>(object.size()) < *minimum)
      report(schema, path, "must not be empty");
  }

  // propertyNames: the key is checked as a string value, and each problem is reworded to be
  // about the name rather than the value under it.
  void check_name(std::string_view key, const json::object& names, const std::string& at) {
    std::vector<Problem> found;
    Validator(found).validate(json::value(key), names, at);
    const std::string subject = subject_of(at);
    for (auto& problem : found) {
      if (problem.message.starts_with(subject)) problem.message = "the name of " + problem.message;
      problems_.push_back(std::move(problem));
    }
  }

  void report_unknown(const std::string& at, const std::string& parent,
                      const std::optional<std::string>& near) {
    if (auto moved = moved_key_message(at)) {
      problems_.push_back({at, *moved});
    } else if (near) {
      problems_.push_back(
          {at, "`" + at + "` is not a setting; did you mean `" + child_path(parent, *near) + "`?"});
    } else {
      problems_.push_back({at, "`" + at +
                                   "` is not a setting of errand or of any loaded plugin; "
                                   "remove it, or check its spelling against "
                                   "docs/reference/configuration.md"});
    }
  }

  std::vector<Problem>& problems_;
};

}  // namespace

void validate_against_schema(const json::value& value, const json::object& schema,
                             const std::string& path, std::vector<Problem>& problems) {
  Validator(problems).validate(value, schema, path);
}

}  // namespace errand::config
