# Warnings for C and C++ sources of the project (not for generated code
# compiled by other targets' rules), and the sanitizer builds.
set(OPTRACE_WARNING_FLAGS -Wall -Wextra -Wshadow -Wnon-virtual-dtor -Wpointer-arith)
if(OPTRACE_WERROR)
  list(APPEND OPTRACE_WARNING_FLAGS -Werror)
endif()
add_compile_options("$<$<COMPILE_LANGUAGE:C,CXX>:${OPTRACE_WARNING_FLAGS}>")

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
