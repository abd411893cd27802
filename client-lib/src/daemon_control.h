// What a producer learns from the daemons of its namespace before any of
// them has attached to it, through their read-only control segments.
#ifndef OPTRACE_CLIENT_DAEMON_CONTROL_H_
#define OPTRACE_CLIENT_DAEMON_CONTROL_H_

#include <optional>
#include <string_view>

#include "optrace/abi.h"

namespace optrace::client {

// What the live daemons serving this process publish: the daemon of our own
// uid, or one running as a system account (uid below 1000: root, or the
// dedicated `optrace` user of the service).
struct LiveDaemons {
  abi::LevelValue default_level = abi::LevelValue::kOff;  // the most verbose one
  bool attach_handshake = false;  // one of them signals attach_word (ABI minor >= 1)
};

// nullopt when no such daemon runs. The control segment is untrusted: it
// must be owned by the uid in its name, have the right size and magic, and
// its level is clamped.
std::optional<LiveDaemons> ReadLiveDaemons(std::string_view ns);

// True when a daemon serves this namespace and would pick up our segment:
// its control segment exists, even if that daemon died without removing it
// (a service manager restarts it; a cleanly stopped daemon removes it).
bool DaemonServesNamespace(std::string_view ns);

// The control block of daemon `daemon_pid` (the one attached to our segment)
// among those a producer listens to, mapped read-only for the rest of the
// process's life, when it carries the drain wake fields (ABI minor >= 1).
// nullptr otherwise. Cold: a directory listing and a few system calls.
const abi::ControlBlock* MapWakeBlockOf(std::string_view ns, uint32_t daemon_pid);

}  // namespace optrace::client

#endif  // OPTRACE_CLIENT_DAEMON_CONTROL_H_
