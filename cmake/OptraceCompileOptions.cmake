# Warnings for C and C++ sources of the project (not for generated code
# compiled by other targets' rules), and the sanitizer builds.
set(OPTRACE_WARNING_FLAGS -Wall -Wextra -Wshadow -Wnon-virtual-dtor -Wpointer-arith)
if(OPTRACE_WERROR)
  list(APPEND OPTRACE_WARNING_FLAGS -Werror)
endif()
add_compile_options("$<$<COMPILE_LANGUAGE:CXX>:${OPTRACE_WARNING_FLAGS}>")
# C sources (the benchmark's LTTng-UST probe provider) get the same flags but
# the C++-only -Wnon-virtual-dtor, which GCC warns about for C.
set(OPTRACE_C_WARNING_FLAGS ${OPTRACE_WARNING_FLAGS})
list(REMOVE_ITEM OPTRACE_C_WARNING_FLAGS -Wnon-virtual-dtor)
add_compile_options("$<$<COMPILE_LANGUAGE:C>:${OPTRACE_C_WARNING_FLAGS}>")
# GCC 12 at -O3 (Release) reports a false -Wrestrict inside libstdc++'s
# `const char* + std::string` (GCC bug 105329, fixed in GCC 13), which breaks
# Release builds with -Werror. Other build types (-O2) do not need it.
if(CMAKE_CXX_COMPILER_ID STREQUAL "GNU" AND CMAKE_CXX_COMPILER_VERSION VERSION_LESS 13)
  add_compile_options("$<$<AND:$<COMPILE_LANGUAGE:CXX>,$<CONFIG:Release>>:-Wno-restrict>")
endif()

if(OPTRACE_SANITIZE STREQUAL "address")
  add_compile_options(-fsanitize=address,undefined -fno-omit-frame-pointer
                      -fno-sanitize-recover=undefined)
  add_link_options(-fsanitize=address,undefined)
elseif(OPTRACE_SANITIZE STREQUAL "thread")
  add_compile_options(-fsanitize=thread -fno-omit-frame-pointer)
  add_link_options(-fsanitize=thread)
elseif(NOT OPTRACE_SANITIZE STREQUAL "")
  message(FATAL_ERROR "OPTRACE_SANITIZE must be '', 'address' or 'thread', not '${OPTRACE_SANITIZE}'")
endif()
# GCC's flow analysis under the sanitizers reports uninitialised reads inside
# libstdc++ (std::regex, std::function) that plain builds do not; the
# sanitizer run itself catches real ones at run time.
if(NOT OPTRACE_SANITIZE STREQUAL "" AND CMAKE_CXX_COMPILER_ID STREQUAL "GNU")
  add_compile_options(-Wno-maybe-uninitialized)
endif()

# Fuzzing build (clang): every object instrumented for libFuzzer and the
# sanitizers; the fuzz targets link the libFuzzer driver.
option(OPTRACE_FUZZ "Build the fuzz targets as libFuzzer binaries (needs clang)" OFF)
if(OPTRACE_FUZZ)
  if(NOT CMAKE_CXX_COMPILER_ID STREQUAL "Clang")
    message(FATAL_ERROR "OPTRACE_FUZZ needs clang: CC=clang-14 CXX=clang++-14")
  endif()
  add_compile_options(-fsanitize=fuzzer-no-link,address,undefined -fno-omit-frame-pointer)
  add_link_options(-fsanitize=address,undefined)
endif()
