#include "service/systemd_notifier.h"

#include <systemd/sd-daemon.h>

namespace optrace::daemon {

SystemdNotifier::SystemdNotifier() {
  uint64_t usec = 0;
  if (sd_watchdog_enabled(0, &usec) > 0) watchdog_interval_ns_ = usec * 1000 / 2;
}

void SystemdNotifier::Ready(const std::string& status) const {
  sd_notifyf(0, "READY=1\nSTATUS=%s", status.c_str());
}

void SystemdNotifier::Stopping() const { sd_notify(0, "STOPPING=1\nSTATUS=draining and flushing"); }

void SystemdNotifier::Watchdog() const { sd_notify(0, "WATCHDOG=1"); }

}  // namespace optrace::daemon
