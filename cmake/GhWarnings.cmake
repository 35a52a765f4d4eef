# One interface target carrying the project's warning flags (nvbench's model).
add_library(gh_warnings INTERFACE)
target_compile_options(gh_warnings INTERFACE
  $<$<COMPILE_LANGUAGE:CXX>:-Wall -Wextra -Wno-unused-parameter
    # GCC 12 reports std::variant<..., std::string> members as maybe-uninitialized at -O2
    # (false positives in libstdc++'s variant storage).
    -Wno-maybe-uninitialized>)
