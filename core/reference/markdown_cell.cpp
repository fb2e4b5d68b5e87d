#include "core/reference/markdown_cell.hpp"

namespace errand::reference {

std::string markdown_cell(std::string_view text) {
  std::string escaped;
  escaped.reserve(text.size());
  bool in_code = false;
  for (const char c : text) {
    if (c == '`') in_code = !in_code;
    if (c == '|')
      escaped += "\\|";
    else if (c == '\n')
      escaped += ' ';
    else if (c == '<' && !in_code)
      escaped += "&lt;";
    else if (c == '*' && !in_code)
      escaped += "\\*";
    else
      escaped += c;
  }
  return escaped;
}

}  // namespace errand::reference
