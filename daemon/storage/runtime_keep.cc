#include "storage/runtime_keep.h"

#include <algorithm>
#include <limits>

#include "optrace/abi.h"

namespace optrace::daemon {
namespace {

constexpr auto kMark = static_cast<uint8_t>(abi::EventKind::kMark);

// `ts_ns` moved by `delta_ns`, held at the ends of int64_t.
int64_t Moved(int64_t ts_ns, int64_t delta_ns) {
  int64_t moved = 0;
  if (!__builtin_add_overflow(ts_ns, delta_ns, &moved)) return moved;
  return delta_ns > 0 ? std::numeric_limits<int64_t>::max() : std::numeric_limits<int64_t>::min();
}

}  // namespace

Result<std::unique_ptr<RuntimeKeeps>> RuntimeKeeps::Create(SqliteConnection& db,
                                                           int64_t keep_before_ns,
                                                           int64_t keep_after_ns) {
  Result<KnownStringIds> name = KnownStringIds::Load(db, {std::string(kRuntimeKeepName)});
  if (!name.ok()) return name.status();
  Result<SqliteStatement> select_text = db.Prepare("SELECT text FROM strings WHERE id = ?");
  if (!select_text.ok()) return select_text.status();
  return std::unique_ptr<RuntimeKeeps>(new RuntimeKeeps(
      keep_before_ns, keep_after_ns, std::move(name).value(), std::move(select_text).value()));
}

std::string RuntimeKeeps::Reason(StringId tag) {
  std::string reason(kRuntimeKeepReasonPrefix);
  if (tag == 0) return reason + "keep";
  select_text_.BindUint64(1, tag);
  ScopedStatementReset reset(select_text_);
  Result<bool> row = select_text_.Step();
  if (!row.ok() || !row.value()) return "runtime";
  return reason.append(select_text_.ColumnText(0));
}

std::vector<KeepRequest> RuntimeKeeps::Keeps(const StoreBatch& batch) {
  name_.Note(batch.new_strings);
  std::vector<KeepRequest> keeps;
  const StringId name_id = name_.id(0);
  if (name_id == 0) return keeps;
  std::vector<StringId> tags;  // tags[i]: the tag of keeps[i]
  for (const SessionInstants& entry : batch.instants) {
    const size_t first_of_session = keeps.size();
    for (const Instant& instant : entry.instants) {
      if (instant.name != name_id || instant.kind != kMark) [[likely]]
        continue;
      const int64_t first_ns = Moved(instant.ts_ns, -keep_before_ns_);
      const int64_t last_ns = Moved(instant.ts_ns, keep_after_ns_);
      // A request of this session with the same tag that the range meets.
      const auto joins = [&](size_t i) {
        return tags[i] == instant.tag && first_ns <= keeps[i].last_ns &&
               keeps[i].first_ns <= last_ns;
      };
      size_t same = first_of_session;
      while (same < keeps.size() && !joins(same)) ++same;
      if (same < keeps.size()) {
        keeps[same].first_ns = std::min(keeps[same].first_ns, first_ns);
        keeps[same].last_ns = std::max(keeps[same].last_ns, last_ns);
        continue;
      }
      keeps.push_back({.session = entry.session,
                       .first_ns = first_ns,
                       .last_ns = last_ns,
                       .last_duration_ns = 0,
                       .reason = Reason(instant.tag)});
      tags.push_back(instant.tag);
    }
  }
  return keeps;
}

}  // namespace optrace::daemon
