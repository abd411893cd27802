# optrace_discover_tests(<target> LABELS <label>... [TIMEOUT <s>] [PREFIX <p>]
#                        [SERIAL])
# Registers a GoogleTest binary's tests with ctest, with several labels;
# SERIAL tests run alone (ctest -j runs nothing beside them).
# gtest_discover_tests of CMake 3.25 flattens a list given in PROPERTIES
# ("unit;daemon" arrives as LABELS unit plus a stray property), so the
# labels are set again once ctest has read the discovered tests.
function(optrace_discover_tests target)
  cmake_parse_arguments(ARG "SERIAL" "TIMEOUT;PREFIX" "LABELS" ${ARGN})
  if(NOT ARG_TIMEOUT)
    set(ARG_TIMEOUT 120)
  endif()
  gtest_discover_tests(${target} DISCOVERY_TIMEOUT 60 TEST_PREFIX "${ARG_PREFIX}"
                       PROPERTIES TIMEOUT ${ARG_TIMEOUT})
  set(serial "")
  if(ARG_SERIAL)
    set(serial " RUN_SERIAL TRUE")
  endif()
  set(labels_file ${CMAKE_CURRENT_BINARY_DIR}/${target}_labels.cmake)
  file(WRITE ${labels_file}
       "if(DEFINED ${target}_TESTS)\n"
       "  set_tests_properties(\${${target}_TESTS} PROPERTIES LABELS \"${ARG_LABELS}\"${serial})\n"
       "endif()\n")
  set_property(DIRECTORY APPEND PROPERTY TEST_INCLUDE_FILES ${labels_file})
endfunction()
