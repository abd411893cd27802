// optraced's log: one line per message on stderr, in a form journald
// understands (a "<N>" syslog priority prefix when stderr is connected to
// the journal), plain "optraced: warning: ..." otherwise.
#ifndef OPTRACE_DAEMON_LOG_LOG_H_
#define OPTRACE_DAEMON_LOG_LOG_H_

#include <fmt/format.h>

#include <string_view>

namespace optrace::daemon {

enum class LogLevel { kError = 3, kWarning = 4, kInfo = 6, kDebug = 7 };

// Writes one line (thread-safe: a single write(2)). Control characters in
// `message` are replaced, so untrusted text cannot forge log lines.
void WriteLog(LogLevel level, std::string_view message);

// Messages below this level are skipped (default kInfo).
void SetLogThreshold(LogLevel level);
bool LogEnabled(LogLevel level);

template <typename... Args>
void LogError(fmt::format_string<Args...> f, Args&&... args) {
  WriteLog(LogLevel::kError, fmt::format(f, std::forward<Args>(args)...));
}
template <typename... Args>
void LogWarning(fmt::format_string<Args...> f, Args&&... args) {
  WriteLog(LogLevel::kWarning, fmt::format(f, std::forward<Args>(args)...));
}
template <typename... Args>
void LogInfo(fmt::format_string<Args...> f, Args&&... args) {
  WriteLog(LogLevel::kInfo, fmt::format(f, std::forward<Args>(args)...));
}
template <typename... Args>
void LogDebug(fmt::format_string<Args...> f, Args&&... args) {
  if (LogEnabled(LogLevel::kDebug)) WriteLog(LogLevel::kDebug, fmt::format(f, std::forward<Args>(args)...));
}

}  // namespace optrace::daemon

#endif  // OPTRACE_DAEMON_LOG_LOG_H_
