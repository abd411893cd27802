#include "store_view.h"

#include <gtest/gtest.h>

#include "daemon_process.h"

namespace optrace::testing {

std::string StoredSession::Text(daemon::StringId id) const {
  auto it = strings.find(id);
  return it != strings.end() ? it->second : "";
}

std::vector<const daemon::Span*> StoredSession::SpansNamed(const std::string& name) const {
  std::vector<const daemon::Span*> out;
  for (const daemon::Span& s : spans) {
    if (Text(s.name) == name) out.push_back(&s);
  }
  return out;
}

const daemon::Span& StoredSession::SpanNamed(const std::string& name) const {
  static const daemon::Span kNone;
  const auto found = SpansNamed(name);
  EXPECT_EQ(found.size(), 1u) << "spans named " << name;
  return found.size() == 1 ? *found[0] : kNone;
}

std::vector<const daemon::Instant*> StoredSession::InstantsNamed(const std::string& name) const {
  std::vector<const daemon::Instant*> out;
  for (const daemon::Instant& i : instants) {
    if (Text(i.name) == name) out.push_back(&i);
  }
  return out;
}

bool StoreView::Open() {
  if (reader_) return true;
  auto opened = daemon::SpanReader::Open(db_path_);
  if (!opened.ok()) return false;
  reader_ = std::move(opened).value();
  return true;
}

std::vector<daemon::SessionRecord> StoreView::Sessions() {
  if (!Open()) return {};
  auto sessions = reader_->ListSessions();
  return sessions.ok() ? std::move(sessions).value() : std::vector<daemon::SessionRecord>{};
}

std::optional<daemon::SessionRecord> StoreView::SessionByPid(uint32_t pid) {
  for (daemon::SessionRecord& r : Sessions()) {
    if (r.pid == pid) return std::move(r);
  }
  return std::nullopt;
}

std::optional<daemon::SessionRecord> StoreView::WaitForEnd(uint32_t pid,
                                                           std::chrono::milliseconds timeout) {
  std::optional<daemon::SessionRecord> record;
  WaitUntil(
      [&] {
        record = SessionByPid(pid);
        return record && record->state != daemon::SessionState::kRunning;
      },
      timeout);
  if (record && record->state == daemon::SessionState::kRunning) return std::nullopt;
  return record;
}

void StoreView::ForEachSpan(daemon::SessionId session,
                            const std::function<void(const daemon::Span&)>& visit) {
  if (!Open()) {
    ADD_FAILURE() << "cannot open " << db_path_;
    return;
  }
  const Status status =
      reader_->ForEachSpan(session, INT64_MIN, INT64_MAX, [&](const daemon::Span& s) {
        visit(s);
        return true;
      });
  EXPECT_TRUE(status.ok()) << "spans of session " << session << ": " << status.message();
}

void StoreView::ForEachInstant(daemon::SessionId session,
                               const std::function<void(const daemon::Instant&)>& visit) {
  if (!Open()) {
    ADD_FAILURE() << "cannot open " << db_path_;
    return;
  }
  const Status status = reader_->ForEachInstant(session, [&](const daemon::Instant& i) {
    visit(i);
    return true;
  });
  EXPECT_TRUE(status.ok()) << "instants of session " << session << ": " << status.message();
}

StoredSession StoreView::Read(const daemon::SessionRecord& record) {
  StoredSession out;
  out.record = record;
  ForEachSpan(record.id, [&](const daemon::Span& s) { out.spans.push_back(s); });
  ForEachInstant(record.id, [&](const daemon::Instant& i) { out.instants.push_back(i); });
  if (!Open()) return out;
  auto strings = reader_->LoadStrings();
  EXPECT_TRUE(strings.ok()) << "strings of " << db_path_ << ": " << strings.status().message();
  if (strings.ok()) {
    for (const auto& [id, text] : strings.value()) out.strings[id] = text;
  }
  return out;
}

std::optional<StoredSession> WaitForStoredSession(const std::string& db_path, uint32_t pid,
                                                  std::chrono::milliseconds timeout) {
  StoreView store(db_path);
  const std::optional<daemon::SessionRecord> record = store.WaitForEnd(pid, timeout);
  if (!record) return std::nullopt;
  return store.Read(*record);
}

uint64_t DroppedEvents(const daemon::SessionRecord& s) {
  return s.dropped_ring_full + s.dropped_no_ring + s.dropped_shed + s.dropped_daemon_restart +
         s.dropped_invalid;
}

}  // namespace optrace::testing
