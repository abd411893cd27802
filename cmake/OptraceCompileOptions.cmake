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
