#include "test_certificates.h"

#include <chrono>
#include <fstream>
#include <sstream>

#include "subprocess.h"

namespace optrace::testing {

std::string MakeTestCertificates(const std::string& folder) {
  Subprocess openssl({"/bin/sh", OPTRACE_TEST_CERTIFICATES_SCRIPT, folder});
  const auto status = openssl.Wait(std::chrono::seconds(60));
  if (status && status->exited && status->code == 0) return "";
  return "make_test_certificates.sh failed: " + openssl.stderr_text() + openssl.stdout_text();
}

std::string ReadWholeFile(const std::string& path) {
  std::ifstream in(path);
  std::stringstream text;
  text << in.rdbuf();
  return text.str();
}

}  // namespace optrace::testing
