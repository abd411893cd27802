// optrace-test-producer (tests/helpers/test_producer.cc) started as a real
// child process: the one launcher every test that needs a producer uses.
#ifndef OPTRACE_TESTS_SUPPORT_TEST_PRODUCER_H_
#define OPTRACE_TESTS_SUPPORT_TEST_PRODUCER_H_

#include <map>
#include <memory>
#include <string>
#include <vector>

#include "subprocess.h"

namespace optrace::testing {

// The path of optrace-test-producer in this build: for tests that start it
// through something else (`optrace run`, a shell command line).
std::string TestProducerPath();

// Starts optrace-test-producer with `args`. `env` is added to this
// process's environment; unless it names them, the producer traces at
// OPTRACE_LEVEL=trace into rings of OPTRACE_RING_CAPACITY=65536 events,
// large enough that a test drops nothing. A value of "" unsets the
// variable: {"OPTRACE_LEVEL", ""} is a producer that asks for no level
// (off, unless a daemon's default level says otherwise), and
// {"OPTRACE_RING_CAPACITY", ""} keeps the library's default ring size.
std::unique_ptr<Subprocess> StartTestProducer(const std::vector<std::string>& args,
                                              std::map<std::string, std::string> env = {});

}  // namespace optrace::testing

#endif  // OPTRACE_TESTS_SUPPORT_TEST_PRODUCER_H_
