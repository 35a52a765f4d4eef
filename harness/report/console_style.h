// How the console is written to, decided once from the environment: live progress (one line
// redrawn in place with carriage returns) only on a terminal that is not a CI log, and colour
// only on such a terminal when NO_COLOR (https://no-color.org) is unset or empty. Everything
// else gets plain lines: no carriage returns, no escape sequences.
#ifndef GPUHARNESS_REPORT_CONSOLE_STYLE_H_
#define GPUHARNESS_REPORT_CONSOLE_STYLE_H_

#include <cstdio>
#include <string>

namespace gh {

struct ConsoleStyle {
  bool live = false;   // a terminal, CI not "true"/"1", TERM not "dumb"
  bool color = false;  // live, and NO_COLOR unset or empty

  // The rule above over its inputs (each null when unset).
  static ConsoleStyle For(bool is_terminal, const char* ci, const char* no_color, const char* term);
  // For(isatty(out), $CI, $NO_COLOR, $TERM).
  static ConsoleStyle Detect(std::FILE* out);

  // `text` in bold red / green when colour is on; as it is otherwise.
  std::string Red(const std::string& text) const;
  std::string Green(const std::string& text) const;
};

}  // namespace gh

#endif  // GPUHARNESS_REPORT_CONSOLE_STYLE_H_
