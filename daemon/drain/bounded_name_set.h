// A set of segment names that holds at most a fixed number: adding to a
// full set forgets the oldest name. The daemon remembers the segments it
// rejected this way, so that a uid that makes names without end cannot
// grow the daemon's memory without end.
#ifndef OPTRACE_DAEMON_DRAIN_BOUNDED_NAME_SET_H_
#define OPTRACE_DAEMON_DRAIN_BOUNDED_NAME_SET_H_

#include <cstddef>
#include <functional>
#include <list>
#include <string>
#include <unordered_map>

namespace optrace::daemon {

// Thread rules: one thread.
class BoundedNameSet {
 public:
  // REQUIRES: capacity >= 1.
  explicit BoundedNameSet(size_t capacity) : capacity_(capacity) {}

  // Adds `name` (nothing when it is held already). Returns true when the
  // set was full and forgot its oldest name to make room.
  bool Insert(const std::string& name);

  bool Contains(const std::string& name) const { return index_.count(name) != 0; }
  size_t size() const { return index_.size(); }

  // Forgets every name for which `gone` returns true.
  void EraseIf(const std::function<bool(const std::string&)>& gone);

 private:
  const size_t capacity_;
  std::list<std::string> order_;  // oldest first
  std::unordered_map<std::string, std::list<std::string>::iterator> index_;
};

}  // namespace optrace::daemon

#endif  // OPTRACE_DAEMON_DRAIN_BOUNDED_NAME_SET_H_
