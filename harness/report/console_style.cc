#include "harness/report/console_style.h"

#include <unistd.h>

#include <cstdlib>
#include <cstring>

namespace gh {

ConsoleStyle ConsoleStyle::For(bool is_terminal, const char* ci, const char* no_color,
                               const char* term) {
  const bool in_ci = ci != nullptr && (std::strcmp(ci, "true") == 0 || std::strcmp(ci, "1") == 0);
  const bool dumb = term != nullptr && std::strcmp(term, "dumb") == 0;
  ConsoleStyle style;
  style.live = is_terminal && !in_ci && !dumb;
  style.color = style.live && (no_color == nullptr || no_color[0] == '\0');
  return style;
}

ConsoleStyle ConsoleStyle::Detect(std::FILE* out) {
  return For(isatty(fileno(out)) != 0, std::getenv("CI"), std::getenv("NO_COLOR"),
             std::getenv("TERM"));
}

std::string ConsoleStyle::Red(const std::string& text) const {
  return color ? "\033[1;31m" + text + "\033[0m" : text;
}

std::string ConsoleStyle::Green(const std::string& text) const {
  return color ? "\033[32m" + text + "\033[0m" : text;
}

}  // namespace gh
