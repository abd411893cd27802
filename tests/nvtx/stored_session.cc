#include "stored_session.h"

#include <gtest/gtest.h>

#include <memory>
#include <sstream>

#include "daemon_process.h"
#include "storage/span_reader.h"

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

std::optional<StoredSession> WaitForStoredSession(const std::string& db_path, uint32_t pid,
                                                  std::chrono::milliseconds timeout) {
  std::unique_ptr<daemon::SpanReader> reader;
  std::optional<daemon::SessionRecord> record;
  WaitUntil(
      [&] {
        if (!reader) {
          auto opened = daemon::SpanReader::Open(db_path);
          if (!opened.ok()) return false;
          reader = std::move(opened).value();
        }
        auto sessions = reader->ListSessions();
        if (!sessions.ok()) return false;
        for (const daemon::SessionRecord& r : sessions.value()) {
          if (r.pid == pid && r.state != daemon::SessionState::kRunning) record = r;
        }
        return record.has_value();
      },
      timeout);
  if (!record) return std::nullopt;
  StoredSession out;
  out.record = *record;
  const Status spans =
      reader->ForEachSpan(record->id, INT64_MIN, INT64_MAX, [&](const daemon::Span& s) {
        out.spans.push_back(s);
        return true;
      });
  EXPECT_TRUE(spans.ok()) << spans.message();
  const Status instants = reader->ForEachInstant(record->id, [&](const daemon::Instant& i) {
    out.instants.push_back(i);
    return true;
  });
  EXPECT_TRUE(instants.ok()) << instants.message();
  auto strings = reader->LoadStrings();
  EXPECT_TRUE(strings.ok());
  if (strings.ok()) {
    for (const auto& [id, text] : strings.value()) out.strings[id] = text;
  }
  return out;
}

std::map<std::string, std::string> ParseKeyValueLines(const std::string& text) {
  std::map<std::string, std::string> out;
  std::istringstream in(text);
  std::string line;
  while (std::getline(in, line)) {
    const size_t eq = line.find('=');
    if (eq != std::string::npos) out[line.substr(0, eq)] = line.substr(eq + 1);
  }
  return out;
}

}  // namespace optrace::testing
