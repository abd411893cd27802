// libFuzzer target: arbitrary bytes as optraced's TOML config file, then
// validation and level-rule compilation, as a config reload would do.
#include <unistd.h>

#include <cstdint>
#include <cstdio>
#include <string>

#include "config/daemon_config.h"
#include "levels/level_policy.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  using namespace optrace::daemon;
  static const std::string path =
      "/tmp/optrace-config-fuzz-" + std::to_string(::getpid()) + ".toml";
  FILE* f = std::fopen(path.c_str(), "wb");
  if (f == nullptr) return 0;
  std::fwrite(data, 1, size, f);
  std::fclose(f);
  DaemonConfig config = DefaultConfig();
  if (ApplyConfigFile(path, &config).ok() && ValidateConfig(config).ok()) {
    LevelPolicy::Create(config.level, config.level_rules);
  }
  return 0;
}
