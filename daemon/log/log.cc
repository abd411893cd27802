#include "log/log.h"

#include <unistd.h>

#include <atomic>
#include <cstdlib>
#include <string>

namespace optrace::daemon {
namespace {

std::atomic<int> g_threshold{static_cast<int>(LogLevel::kInfo)};

// journald sets JOURNAL_STREAM for services whose stderr it collects.
bool ToJournal() {
  static const bool journal = std::getenv("JOURNAL_STREAM") != nullptr;
  return journal;
}

std::string_view LevelWord(LogLevel level) {
  switch (level) {
    case LogLevel::kError: return "error";
    case LogLevel::kWarning: return "warning";
    case LogLevel::kInfo: return "info";
    case LogLevel::kDebug: return "debug";
  }
  return "info";
}

}  // namespace

void SetLogThreshold(LogLevel level) { g_threshold.store(static_cast<int>(level)); }

bool LogEnabled(LogLevel level) { return static_cast<int>(level) <= g_threshold.load(); }

void WriteLog(LogLevel level, std::string_view message) {
  if (!LogEnabled(level)) return;
  std::string line;
  line.reserve(message.size() + 32);
  if (ToJournal()) {
    line += "<" + std::to_string(static_cast<int>(level)) + ">";
  } else {
    line += "optraced: ";
    line += LevelWord(level);
    line += ": ";
  }
  for (char c : message) {
    const auto u = static_cast<unsigned char>(c);
    line.push_back(u < 0x20 || u == 0x7f ? '?' : c);
  }
  line.push_back('\n');
  [[maybe_unused]] const ssize_t n = ::write(STDERR_FILENO, line.data(), line.size());
}

}  // namespace optrace::daemon
