// Aligned text tables: a header row and data rows, columns separated by two
// spaces, numbers right-aligned; when the table is wider than the output,
// the columns marked `shrinkable` (names, tags, paths) are cut with an
// ellipsis until it fits.
#ifndef OPTRACE_CLI_TABLE_H_
#define OPTRACE_CLI_TABLE_H_

#include <cstddef>
#include <string>
#include <vector>

#include "palette.h"

namespace optrace::cli {

enum class Align { kLeft, kRight };

struct Column {
  std::string header;
  Align align = Align::kLeft;
  // May be cut to fit the output width (never below kMinShrunkWidth).
  bool shrinkable = false;
};

// One cell: its text and the tone it is painted in on a terminal. Implicit
// from text, so that a plain row reads {"matmul", "12"}.
struct Cell {
  Cell(std::string cell_text) : text(std::move(cell_text)) {}
  Cell(const char* cell_text) : text(cell_text) {}
  Cell(std::string cell_text, Tone cell_tone) : text(std::move(cell_text)), tone(cell_tone) {}
  std::string text;
  Tone tone = Tone::kPlain;
};

// Columns never shrink below this many columns (header included).
inline constexpr size_t kMinShrunkWidth = 8;
// Spaces between two columns.
inline constexpr size_t kColumnGap = 2;

class Table {
 public:
  explicit Table(std::vector<Column> columns);

  // REQUIRES: cells.size() == the number of columns.
  void AddRow(std::vector<Cell> cells);

  // The table, one line per row (header first), each ending in '\n'; no
  // trailing spaces. `max_width` 0 means no limit; otherwise shrinkable
  // columns are narrowed, widest first, until lines fit or every shrinkable
  // column is at kMinShrunkWidth (then lines may still be wider).
  std::string Render(size_t max_width, const Palette& palette) const;

 private:
  // Column widths after fitting into `max_width`.
  std::vector<size_t> Widths(size_t max_width) const;

  std::vector<Column> columns_;
  std::vector<std::vector<Cell>> rows_;
};

}  // namespace optrace::cli

#endif  // OPTRACE_CLI_TABLE_H_
