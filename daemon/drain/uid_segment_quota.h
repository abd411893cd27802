// The per-uid bound on attached segments (max_segments_per_uid): how many
// segments each uid has attached, and the names of its segments that wait
// for one of them to end. Each attached segment holds file descriptors (a
// pidfd, the liveness lock's probe) and a mapping; without the bound one
// uid that makes thousands of segments would spend the daemon's open-file
// limit, and other uids' producers would no longer attach.
#ifndef OPTRACE_DAEMON_DRAIN_UID_SEGMENT_QUOTA_H_
#define OPTRACE_DAEMON_DRAIN_UID_SEGMENT_QUOTA_H_

#include <cstddef>
#include <cstdint>
#include <functional>
#include <map>
#include <set>
#include <string>
#include <unordered_map>
#include <vector>

namespace optrace::daemon {

// Thread rules: one thread.
class UidSegmentQuota {
 public:
  // REQUIRES: max_per_uid >= 1.
  explicit UidSegmentQuota(uint32_t max_per_uid) : max_per_uid_(max_per_uid) {}

  // Whether `uid` has fewer than max_per_uid segments attached.
  bool HasRoom(uint32_t uid) const { return Attached(uid) < max_per_uid_; }
  uint32_t Attached(uint32_t uid) const;

  // A segment of `uid` attached / ended.
  void Take(uint32_t uid) { ++attached_[uid]; }
  void Give(uint32_t uid);

  // Remembers segment `name` of `uid` as waiting for room. Returns true
  // when it was not waiting already.
  bool Defer(uint32_t uid, const std::string& name);
  bool Waiting(const std::string& name) const { return waiting_uid_.count(name) != 0; }
  size_t waiting() const { return waiting_uid_.size(); }
  size_t WaitingOf(uint32_t uid) const;

  // Stops remembering the waiting names that `uid` has room for now (as
  // many of each uid as it has room for, in name order) and returns them,
  // to be tried again.
  std::vector<std::string> TakeWaitingWithRoom();

  // Forgets every waiting name for which `gone` returns true.
  void ForgetWaitingIf(const std::function<bool(const std::string&)>& gone);

 private:
  const uint32_t max_per_uid_;
  std::unordered_map<uint32_t, uint32_t> attached_;  // uids with a segment attached
  std::map<uint32_t, std::set<std::string>> waiting_;
  std::unordered_map<std::string, uint32_t> waiting_uid_;  // the uid of each waiting name
};

}  // namespace optrace::daemon

#endif  // OPTRACE_DAEMON_DRAIN_UID_SEGMENT_QUOTA_H_
