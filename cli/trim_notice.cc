#include "trim_notice.h"

#include <fmt/format.h>

#include <cstdio>

#include "human_format.h"

namespace optrace::cli {

bool WasTrimmed(const v1::Session& session) {
  return session.trimmed_before_unix_ns() != 0 || session.spans_trimmed() != 0 ||
         session.instants_trimmed() != 0;
}

std::string TrimNotice(const v1::Session& session) {
  if (!WasTrimmed(session)) return "";
  const std::string but_kept =
      session.keeps_before_trim() == 0
          ? std::string()
          : fmt::format(" but for {} kept range{} (optrace keeps {})", session.keeps_before_trim(),
                        session.keeps_before_trim() == 1 ? "" : "s", session.id());
  return fmt::format(
      "session {} trimmed before {}: spans older than that are not stored{} ({} spans trimmed)",
      session.id(), FormatWallTime(session.trimmed_before_unix_ns()), but_kept,
      session.spans_trimmed());
}

void PrintTrimNotice(const v1::Session& session) {
  const std::string notice = TrimNotice(session);
  if (!notice.empty()) fmt::print(stderr, "optrace: {}\n", notice);
}

void PrintTrimNoticeOf(Connection& connection, uint64_t session_id) {
  v1::GetSessionRequest request;
  request.set_session_id(session_id);
  v1::GetSessionResponse session;
  const auto context = connection.NewContext();
  if (connection.stub().GetSession(context.get(), request, &session).ok()) {
    PrintTrimNotice(session.session());
  }
}

}  // namespace optrace::cli
