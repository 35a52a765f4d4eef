# One interface target carrying the project's warning flags (nvbench's model).
add_library(gh_warnings INTERFACE)
target_compile_options(gh_warnings INTERFACE
  $<$<COMPILE_LANGUAGE:CXX>:-Wall -Wextra -Wno-unused-parameter>)
