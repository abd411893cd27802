// A TCP port for a test's server to listen on.
#ifndef OPTRACE_TESTS_SUPPORT_FREE_PORT_H_
#define OPTRACE_TESTS_SUPPORT_FREE_PORT_H_

namespace optrace::testing {

// A TCP port on 127.0.0.1 that nothing listens on now (another process
// may take it before the test's server does: tests start their server at
// once).
int FreeLoopbackPort();

}  // namespace optrace::testing

#endif  // OPTRACE_TESTS_SUPPORT_FREE_PORT_H_
