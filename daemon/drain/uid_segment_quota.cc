#include "drain/uid_segment_quota.h"

namespace optrace::daemon {

uint32_t UidSegmentQuota::Attached(uint32_t uid) const {
  const auto it = attached_.find(uid);
  return it == attached_.end() ? 0 : it->second;
}

size_t UidSegmentQuota::WaitingOf(uint32_t uid) const {
  const auto it = waiting_.find(uid);
  return it == waiting_.end() ? 0 : it->second.size();
}

void UidSegmentQuota::Give(uint32_t uid) {
  auto it = attached_.find(uid);
  if (it == attached_.end()) return;
  if (--it->second == 0) attached_.erase(it);
}

bool UidSegmentQuota::Defer(uint32_t uid, const std::string& name) {
  if (!waiting_uid_.emplace(name, uid).second) return false;
  waiting_[uid].insert(name);
  return true;
}

std::vector<std::string> UidSegmentQuota::TakeWaitingWithRoom() {
  std::vector<std::string> names;
  for (auto it = waiting_.begin(); it != waiting_.end();) {
    const uint32_t attached = Attached(it->first);
    std::set<std::string>& queue = it->second;
    for (uint32_t room = attached < max_per_uid_ ? max_per_uid_ - attached : 0;
         room > 0 && !queue.empty(); --room) {
      names.push_back(std::move(queue.extract(queue.begin()).value()));
      waiting_uid_.erase(names.back());
    }
    it = queue.empty() ? waiting_.erase(it) : std::next(it);
  }
  return names;
}

void UidSegmentQuota::ForgetWaitingIf(const std::function<bool(const std::string&)>& gone) {
  for (auto it = waiting_.begin(); it != waiting_.end();) {
    std::erase_if(it->second, [&](const std::string& name) {
      if (!gone(name)) return false;
      waiting_uid_.erase(name);
      return true;
    });
    it = it->second.empty() ? waiting_.erase(it) : std::next(it);
  }
}

}  // namespace optrace::daemon
