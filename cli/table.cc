#include "table.h"

#include <algorithm>
#include <cassert>
#include <numeric>

#include "text_width.h"

namespace optrace::cli {

Table::Table(std::vector<Column> columns) : columns_(std::move(columns)) {}

void Table::AddRow(std::vector<Cell> cells) {
  assert(cells.size() == columns_.size());
  rows_.push_back(std::move(cells));
}

std::vector<size_t> Table::Widths(size_t max_width) const {
  std::vector<size_t> widths(columns_.size());
  for (size_t c = 0; c < columns_.size(); ++c) {
    widths[c] = DisplayWidth(columns_[c].header);
    for (const auto& row : rows_) widths[c] = std::max(widths[c], DisplayWidth(row[c].text));
  }
  if (max_width == 0 || columns_.empty()) return widths;
  const size_t gaps = kColumnGap * (columns_.size() - 1);
  size_t total = std::accumulate(widths.begin(), widths.end(), gaps);
  while (total > max_width) {
    // Narrow the widest shrinkable column by one: long names give way first.
    size_t widest = columns_.size();
    for (size_t c = 0; c < columns_.size(); ++c) {
      if (!columns_[c].shrinkable || widths[c] <= kMinShrunkWidth) continue;
      if (widest == columns_.size() || widths[c] > widths[widest]) widest = c;
    }
    if (widest == columns_.size()) break;
    --widths[widest];
    --total;
  }
  return widths;
}

std::string Table::Render(size_t max_width, const Palette& palette) const {
  const std::vector<size_t> widths = Widths(max_width);
  std::string out;
  auto append_row = [&](const std::vector<Cell>& cells) {
    std::string line;
    for (size_t c = 0; c < cells.size(); ++c) {
      const std::string text = FitToWidth(cells[c].text, widths[c]);
      const std::string padding(widths[c] - DisplayWidth(text), ' ');
      if (c > 0) line.append(kColumnGap, ' ');
      if (columns_[c].align == Align::kRight) line.append(padding);
      line.append(palette.Paint(text, cells[c].tone));
      if (columns_[c].align == Align::kLeft) line.append(padding);
    }
    while (!line.empty() && line.back() == ' ') line.pop_back();
    out.append(line).append("\n");
  };
  std::vector<Cell> header;
  header.reserve(columns_.size());
  for (const Column& column : columns_) header.emplace_back(column.header, Tone::kHeader);
  append_row(header);
  for (const auto& row : rows_) append_row(row);
  return out;
}

}  // namespace optrace::cli
