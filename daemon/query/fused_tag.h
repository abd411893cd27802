// The fused-tag convention (docs/dispatch-names.md): a fused op's tag is
// the tags of the ops it replaces, in the order they compute, joined by
// '+' ("matmul_16x4096x1024_f32+elementwise_gelu_65536_f32"). A tag
// without '+' is an ordinary op's.
#ifndef OPTRACE_DAEMON_QUERY_FUSED_TAG_H_
#define OPTRACE_DAEMON_QUERY_FUSED_TAG_H_

#include <string_view>
#include <vector>

namespace optrace::daemon {

// The character that separates the parts of a fused tag.
inline constexpr char kFusedTagSeparator = '+';

// True when `tag` names parts, that is contains the separator.
bool IsFusedTag(std::string_view tag);

// The parts of `tag`, in its order, as written: a tag from a producer is
// untrusted, so empty parts ("a++b", "+a", "a+") and repeated ones are
// kept for the caller to show and count. A tag without the separator is
// its own single part. The views borrow `tag`. Cost: one pass over it.
std::vector<std::string_view> SplitFusedTag(std::string_view tag);

}  // namespace optrace::daemon

#endif  // OPTRACE_DAEMON_QUERY_FUSED_TAG_H_
