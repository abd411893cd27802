// A one-line progress bar redrawn in place on a terminal ("\r"), for long
// transfers such as `optrace export`:
//   exporting  ██████████▌          52%  52113 / 100000 spans
// A disabled bar prints nothing, so callers need not test for a terminal.
#ifndef OPTRACE_CLI_PROGRESS_BAR_H_
#define OPTRACE_CLI_PROGRESS_BAR_H_

#include <chrono>
#include <cstdint>
#include <cstdio>
#include <string>

namespace optrace::cli {

// Columns of the bar itself.
inline constexpr size_t kProgressBarWidth = 30;
// Redraws closer together than this are skipped (the last one is not).
inline constexpr std::chrono::milliseconds kProgressRedrawInterval{100};

// The line for `done` of `total` items named `unit` ("spans"), without
// "\r" or newline. `total` 0 (unknown) draws no bar, only the count.
std::string FormatProgress(std::string_view label, uint64_t done, uint64_t total,
                           std::string_view unit);

class ProgressBar {
 public:
  // Borrows `out`, which must outlive the bar. `enabled` is usually
  // IsTerminal(fileno(out)).
  ProgressBar(std::FILE* out, bool enabled, std::string label, std::string unit);
  // Clears the bar's line if one was drawn.
  ~ProgressBar();
  ProgressBar(const ProgressBar&) = delete;
  ProgressBar& operator=(const ProgressBar&) = delete;

  // Draws `done` of `total`, unless the last draw is under
  // kProgressRedrawInterval old and `done` < `total`.
  void Update(uint64_t done, uint64_t total);

  // Erases the bar, leaving the cursor at the start of an empty line.
  void Clear();

 private:
  std::FILE* out_;
  bool enabled_;
  std::string label_;
  std::string unit_;
  bool drawn_ = false;
  std::chrono::steady_clock::time_point last_draw_{};
};

}  // namespace optrace::cli

#endif  // OPTRACE_CLI_PROGRESS_BAR_H_
