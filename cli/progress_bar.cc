#include "progress_bar.h"

#include <fmt/core.h>

#include <algorithm>

#include "bar.h"
#include "text_width.h"

namespace optrace::cli {

std::string FormatProgress(std::string_view label, uint64_t done, uint64_t total,
                           std::string_view unit) {
  if (total == 0) return fmt::format("{}  {} {}", label, done, unit);
  const double fraction = std::min(1.0, static_cast<double>(done) / static_cast<double>(total));
  const std::string bar = RenderBar(fraction, kProgressBarWidth);
  const std::string padding(kProgressBarWidth - DisplayWidth(bar), ' ');
  return fmt::format("{}  {}{}  {:3.0f}%  {} / {} {}", label, bar, padding, fraction * 100.0, done,
                     total, unit);
}

ProgressBar::ProgressBar(std::FILE* out, bool enabled, std::string label, std::string unit)
    : out_(out), enabled_(enabled), label_(std::move(label)), unit_(std::move(unit)) {}

ProgressBar::~ProgressBar() { Clear(); }

void ProgressBar::Update(uint64_t done, uint64_t total) {
  if (!enabled_) return;
  const auto now = std::chrono::steady_clock::now();
  if (drawn_ && now - last_draw_ < kProgressRedrawInterval && done < total) return;
  last_draw_ = now;
  drawn_ = true;
  // "\x1b[K" erases what a longer previous line left behind.
  fmt::print(out_, "\r{}\x1b[K", FormatProgress(label_, done, total, unit_));
  std::fflush(out_);
}

void ProgressBar::Clear() {
  if (!drawn_) return;
  fmt::print(out_, "\r\x1b[K");
  std::fflush(out_);
  drawn_ = false;
}

}  // namespace optrace::cli
