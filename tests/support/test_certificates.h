// TLS certificates for tests of optraced's TCP listener, made at test
// time by make_test_certificates.sh (beside this file), which the Python
// tests run too.
#ifndef OPTRACE_TESTS_SUPPORT_TEST_CERTIFICATES_H_
#define OPTRACE_TESTS_SUPPORT_TEST_CERTIFICATES_H_

#include <string>

namespace optrace::testing {

// Runs make_test_certificates.sh in `folder` (which must exist; the
// script says what it makes). Returns "" when made, else openssl's output.
std::string MakeTestCertificates(const std::string& folder);

// The whole content of file `path` ("" when it cannot be read).
std::string ReadWholeFile(const std::string& path);

}  // namespace optrace::testing

#endif  // OPTRACE_TESTS_SUPPORT_TEST_CERTIFICATES_H_
