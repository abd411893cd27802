// When to try a segment again that could not be attached yet (still
// initialising, or unreadable for now): per name, a delay that starts short
// and doubles at each failed try up to a ceiling, so that a name that stays
// unready costs one open every few seconds instead of one every pass.
#ifndef OPTRACE_DAEMON_DRAIN_RETRY_SCHEDULE_H_
#define OPTRACE_DAEMON_DRAIN_RETRY_SCHEDULE_H_

#include <cstddef>
#include <cstdint>
#include <functional>
#include <map>
#include <string>
#include <vector>

namespace optrace::daemon {

// Thread rules: one thread.
class RetrySchedule {
 public:
  struct Delays {
    uint64_t first_ns = 100'000'000;   // after the first failed try
    uint64_t most_ns = 3'200'000'000;  // the ceiling of the doubling
  };

  explicit RetrySchedule(Delays delays) : delays_(delays) {}

  // A try of `name` failed at `now_ns`: it is due again `first_ns` later
  // when it was not scheduled, else after twice its previous delay (at most
  // `most_ns`). Returns true when `name` was not scheduled before.
  bool Failed(const std::string& name, uint64_t now_ns);

  // The scheduled names whose delay has passed at `now_ns`, in name order.
  // They stay scheduled until Failed or Remove.
  std::vector<std::string> Due(uint64_t now_ns) const;

  bool Contains(const std::string& name) const { return entries_.count(name) != 0; }
  void Remove(const std::string& name) { entries_.erase(name); }
  size_t size() const { return entries_.size(); }

  // Removes every name for which `gone` returns true.
  void RemoveIf(const std::function<bool(const std::string&)>& gone);

 private:
  struct Entry {
    uint64_t due_ns = 0;
    uint64_t delay_ns = 0;
  };
  const Delays delays_;
  std::map<std::string, Entry> entries_;
};

}  // namespace optrace::daemon

#endif  // OPTRACE_DAEMON_DRAIN_RETRY_SCHEDULE_H_
