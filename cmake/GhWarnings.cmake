# One interface target carrying the project's warning flags (nvbench's model). C++ only: nvcc
# gets its own defaults.
set(GH_CXX_WARNINGS -Wall -Wextra -Wno-unused-parameter
    # GCC 12 reports std::variant<..., std::string> members as maybe-uninitialized at -O2
    # (false positives inside libstdc++'s variant storage).
    -Wno-maybe-uninitialized)
add_library(gh_warnings INTERFACE)
target_compile_options(gh_warnings INTERFACE "$<$<COMPILE_LANGUAGE:CXX>:${GH_CXX_WARNINGS}>")
