#include "test_producer.h"

namespace optrace::testing {

std::string TestProducerPath() { return OPTRACE_TEST_PRODUCER; }

std::unique_ptr<Subprocess> StartTestProducer(const std::vector<std::string>& args,
                                              std::map<std::string, std::string> env) {
  std::vector<std::string> argv = {TestProducerPath()};
  argv.insert(argv.end(), args.begin(), args.end());
  env.emplace("OPTRACE_LEVEL", "trace");
  env.emplace("OPTRACE_RING_CAPACITY", "65536");
  return std::make_unique<Subprocess>(std::move(argv), std::move(env));
}

}  // namespace optrace::testing
