// libFuzzer target: arbitrary bytes as a daemon's control segment, read the
// way a producer reads it (client-lib/src/daemon_control.h): at start
// (ReadLiveDaemons: the default level, whether the daemon lives), at exit
// (DaemonServesNamespace) and when a ring fills (MapWakeBlockOf). The
// segment is written where the producer looks for its own uid's daemon, in
// a namespace of this process. Bits of the first byte:
//   1: fix the magic and ABI major, so that inputs get past those checks;
//   2: set daemon_pid to this process's, so that the daemon counts as alive;
//   4: keep the file at the input's size instead of the control size.
// A hostile block must change nothing but what it may: the level read is at
// most kMaxLevel, and a wake block is only handed out for the pid asked for.
#include <fcntl.h>
#include <sys/mman.h>
#include <unistd.h>

#include <algorithm>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <string>
#include <vector>

#include "common/segment_name.h"
#include "daemon_control.h"
#include "optrace/abi.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  using namespace optrace;
  if (size < 1 || size > 2 * abi::kControlBytes) return 0;
  const uint8_t flags = data[0];
  std::vector<uint8_t> bytes(data + 1, data + size);
  if ((flags & 4) == 0) bytes.resize(abi::kControlBytes, 0);
  abi::ControlBlock block{};
  std::memcpy(static_cast<void*>(&block), bytes.data(), std::min(sizeof block, bytes.size()));
  if ((flags & 1) != 0) {
    block.magic = abi::kControlMagic;
    block.abi_major = abi::kAbiMajor;
  }
  if ((flags & 2) != 0) block.daemon_pid = static_cast<uint32_t>(::getpid());
  std::memcpy(bytes.data(), static_cast<const void*>(&block), std::min(sizeof block, bytes.size()));

  static const std::string ns = "optfuzzctl-" + std::to_string(::getpid());
  const std::string path =
      std::string(kShmFolder) + "/" + ControlSegmentName(ns, static_cast<uint32_t>(::getuid()));
  const int fd = ::open(path.c_str(), O_RDWR | O_CREAT | O_TRUNC, 0600);
  if (fd < 0) return 0;
  const bool written =
      ::write(fd, bytes.data(), bytes.size()) == static_cast<ssize_t>(bytes.size());
  ::close(fd);
  if (written) {
    const auto daemons = client::ReadLiveDaemons(ns);
    if (daemons && static_cast<uint32_t>(daemons->default_level) > abi::kMaxLevel) std::abort();
    client::DaemonServesNamespace(ns);
    const abi::ControlBlock* wake = client::MapWakeBlockOf(ns, block.daemon_pid);
    if (wake != nullptr) {
      if (wake->daemon_pid != block.daemon_pid ||
          wake->control_bytes < abi::kControlBytesWithWake) {
        std::abort();
      }
      ::munmap(const_cast<abi::ControlBlock*>(wake), abi::kControlBytes);
    }
  }
  ::unlink(path.c_str());
  return 0;
}
