// A folder of the test's own under /tmp, removed with everything in it.
#ifndef OPTRACE_TESTS_SUPPORT_TEMP_FOLDER_H_
#define OPTRACE_TESTS_SUPPORT_TEMP_FOLDER_H_

#include <string>

namespace optrace::testing {

class TempFolder {
 public:
  TempFolder();   // mkdtemp("/tmp/optrace-test-XXXXXX")
  ~TempFolder();  // removes it recursively
  TempFolder(const TempFolder&) = delete;
  TempFolder& operator=(const TempFolder&) = delete;
  const std::string& path() const { return path_; }

 private:
  std::string path_;
};

}  // namespace optrace::testing

#endif  // OPTRACE_TESTS_SUPPORT_TEMP_FOLDER_H_
