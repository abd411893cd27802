#include "drops_text.h"

#include <fmt/core.h>

#include <array>
#include <utility>

namespace optrace::cli {

std::string DescribeDrops(const v1::Drops& drops) {
  const std::array<std::pair<const char*, uint64_t>, 5> causes = {{
      {"ring_full", drops.ring_full()},
      {"no_ring", drops.no_ring()},
      {"shed", drops.shed()},
      {"daemon_restart", drops.daemon_restart()},
      {"invalid", drops.invalid()},
  }};
  std::string text;
  if (drops.total() == 0) {
    text = "none";
  } else {
    std::string listed;
    for (const auto& [cause, count] : causes) {
      if (count == 0) continue;
      if (!listed.empty()) listed += ", ";
      listed += fmt::format("{} {}", cause, count);
    }
    text = fmt::format("{} events ({})", drops.total(), listed);
  }
  return text + DescribeNameLosses(drops);
}

std::string DescribeNameLosses(const v1::Drops& drops) {
  std::string text;
  if (drops.strings() > 0) text += fmt::format("; {} strings not interned", drops.strings());
  if (drops.names_capped() > 0) text += fmt::format("; {} names capped", drops.names_capped());
  return text;
}

}  // namespace optrace::cli
