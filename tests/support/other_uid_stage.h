// Programs of this build run as another uid (65534, nobody). A checkout
// may sit in a folder other users cannot enter (CI clones into a 0700
// folder): the kernel still starts a program there through setpriv, but
// the program cannot load liboptrace.so.0 from the build folder. A stage
// copies the program and the client library into a folder every user can
// read, and runs it from there.
#ifndef OPTRACE_TESTS_SUPPORT_OTHER_UID_STAGE_H_
#define OPTRACE_TESTS_SUPPORT_OTHER_UID_STAGE_H_

#include <cstdint>
#include <string>
#include <vector>

#include "temp_folder.h"

namespace optrace::testing {

// The uid (and gid) that Command runs programs as.
inline constexpr uint32_t kOtherUid = 65534;

class OtherUidStage {
 public:
  // Creates the folder (mode 0755) holding a copy of liboptrace.so.0;
  // throws std::runtime_error when it cannot.
  OtherUidStage();

  // The command line that runs a copy of `program` (a path in this build,
  // copied in at the first call for it) with `args` as uid and gid
  // kOtherUid, no supplementary groups, loading the staged library.
  std::vector<std::string> Command(const std::string& program,
                                   const std::vector<std::string>& args);

 private:
  TempFolder folder_;
};

}  // namespace optrace::testing

#endif  // OPTRACE_TESTS_SUPPORT_OTHER_UID_STAGE_H_
