# With GH_SPLIT_DEBUG_INFO every C++ file is compiled with -g (Release too), and
# gh_split_debug_info(TARGET) strips the target right after its link of its DWARF (inlined
# frames, file:line), which goes to <binary>.debug, named by the binary's .gnu_debuglink (where
# addr2line and gdb look). The symbol table stays: every stack names its functions, debug file
# or not. cmake/GhInstall.cmake installs the debug file as bin/.debug/<name>.debug (component
# debug).
if(GH_SPLIT_DEBUG_INFO)
  add_compile_options("$<$<COMPILE_LANGUAGE:CXX>:-g>")
endif()

function(gh_split_debug_info target)
  if(NOT GH_SPLIT_DEBUG_INFO)
    return()
  endif()
  if(NOT CMAKE_OBJCOPY)
    message(FATAL_ERROR "GH_SPLIT_DEBUG_INFO needs objcopy (binutils)")
  endif()
  add_custom_command(TARGET ${target} POST_BUILD
    COMMAND ${CMAKE_OBJCOPY} --only-keep-debug --compress-debug-sections=zlib
            $<TARGET_FILE:${target}> $<TARGET_FILE:${target}>.debug
    COMMAND ${CMAKE_OBJCOPY} --strip-debug --add-gnu-debuglink=$<TARGET_FILE:${target}>.debug
            $<TARGET_FILE:${target}>
    COMMENT "Splitting ${target}'s debug information into ${target}.debug" VERBATIM)
endfunction()
