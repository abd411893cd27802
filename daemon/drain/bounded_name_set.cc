#include "drain/bounded_name_set.h"

namespace optrace::daemon {

bool BoundedNameSet::Insert(const std::string& name) {
  if (Contains(name)) return false;
  bool forgot = false;
  if (index_.size() >= capacity_) {
    index_.erase(order_.front());
    order_.pop_front();
    forgot = true;
  }
  order_.push_back(name);
  index_.emplace(name, std::prev(order_.end()));
  return forgot;
}

void BoundedNameSet::EraseIf(const std::function<bool(const std::string&)>& gone) {
  for (auto it = order_.begin(); it != order_.end();) {
    if (gone(*it)) {
      index_.erase(*it);
      it = order_.erase(it);
    } else {
      ++it;
    }
  }
}

}  // namespace optrace::daemon
