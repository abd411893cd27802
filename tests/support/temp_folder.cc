#include "temp_folder.h"

#include <stdlib.h>

#include <filesystem>
#include <stdexcept>

namespace optrace::testing {

TempFolder::TempFolder() {
  char tmpl[] = "/tmp/optrace-test-XXXXXX";
  if (::mkdtemp(tmpl) == nullptr) throw std::runtime_error("mkdtemp failed");
  path_ = tmpl;
}

TempFolder::~TempFolder() {
  std::error_code ec;
  std::filesystem::remove_all(path_, ec);
}

}  // namespace optrace::testing
