// Names that carry a counter: PyTorch names some user scopes by a number
// that grows with the run ("ProfilerStep#17"). Interning each such name
// would spend one of the tracer's 2,048 name slots per step, so the tracer
// interns the stem ("ProfilerStep#") once and records the number as a
// counter sample of the span (docs/pytorch.md, "User scopes"). Knows
// nothing of libtorch.
#ifndef OPTRACE_TORCH_NUMBERED_NAME_H_
#define OPTRACE_TORCH_NUMBERED_NAME_H_

#include <cstdint>
#include <optional>
#include <string_view>

namespace optrace::torch_ops {

// A name split into the stem it is interned as and the number it carries.
struct NumberedName {
  std::string_view stem;  // up to and including the last '#'
  int64_t number;         // what followed that '#'
};

// Splits `name` when it ends in '#' and a decimal number: "ProfilerStep#17"
// gives {"ProfilerStep#", 17}, "a#b#3" gives {"a#b#", 3}. The split is
// lossless: the stem followed by the number in decimal is `name` again, so
// a number with a leading zero ("Step#07") or beyond INT64_MAX (what a
// counter sample holds) does not split. Returns nullopt (the name is kept
// whole) for those, for a name without '#', for "#" or "x#" (no digits),
// and for "Optimizer.step#SGD.step" or "#12a" (not only digits after the
// last '#'). `stem` borrows from `name`. Thread-safe, allocates nothing.
std::optional<NumberedName> SplitNumberedName(std::string_view name);

}  // namespace optrace::torch_ops

#endif  // OPTRACE_TORCH_NUMBERED_NAME_H_
