#include "producer_report.h"

#include <sstream>

namespace optrace::testing {

std::map<std::string, uint64_t> ParseCounts(const std::string& text) {
  std::map<std::string, uint64_t> out;
  std::istringstream in(text);
  std::string kv;
  while (in >> kv) {
    const size_t eq = kv.find('=');
    if (eq == std::string::npos) continue;
    try {
      out[kv.substr(0, eq)] = std::stoull(kv.substr(eq + 1));
    } catch (const std::exception&) {
      // not a number (e.g. seconds=1.5 is kept out of the counts)
    }
  }
  return out;
}

std::map<std::string, uint64_t> DoneCounts(const Subprocess& producer) {
  const std::string& out = producer.stdout_text();
  const size_t at = out.find("done ");
  if (at == std::string::npos) return {};
  return ParseCounts(out.substr(at, out.find('\n', at) - at));
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
