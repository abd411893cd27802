#include "query/call_tree.h"

#include <algorithm>
#include <limits>
#include <span>
#include <string>
#include <unordered_map>
#include <vector>

#include "model/hash_mix.h"
#include "query/duration_math.h"
#include "query/session_steps.h"
#include "query/span_filter.h"
#include "storage/op_aggregate.h"
#include "wire/string_cache.h"

namespace optrace::daemon {
namespace {

constexpr uint32_t kNoNode = std::numeric_limits<uint32_t>::max();

// What the tree needs of one OK span.
struct TreeSpan {
  uint64_t op_id = 0;
  uint64_t parent_op_id = 0;
  uint64_t duration_ns = 0;
  uint64_t self_ns = 0;
  StringId name = 0;
  StringId tag = 0;
};

// One node: the spans of one name (and tag) under one parent node.
struct Node {
  uint32_t parent = kNoNode;
  uint32_t depth = 0;
  StringId name = 0;
  StringId tag = 0;
  uint64_t count = 0;
  uint64_t total_ns = 0;
  uint64_t self_ns = 0;
  std::vector<uint32_t> children;
};

// A node's identity: its parent node and its key.
struct NodeKey {
  uint32_t parent;
  StringId name;
  StringId tag;
  bool operator==(const NodeKey&) const = default;
};
struct NodeKeyHash {
  size_t operator()(const NodeKey& key) const {
    return static_cast<size_t>(MixBits((static_cast<uint64_t>(key.parent) << 32 | key.name) ^
                                       (static_cast<uint64_t>(key.tag) * 0x9e3779b97f4a7c15ULL)));
  }
};

// The spans of the request that began in `range`, or an error.
Result<std::vector<TreeSpan>> ReadTreeSpans(SpanReader& reader, const v1::GetTreeRequest& request,
                                            SpanFilter& filter, const StepStartRange& range) {
  std::vector<TreeSpan> spans;
  bool too_many = false;
  const span_page::ColumnSet columns =
      span_page::kOpId | span_page::kParentOpId | span_page::kName | span_page::kStatus |
      span_page::kDurationNs | span_page::kChildrenNs | filter.Columns() |
      (request.by_tag() ? span_page::ColumnSet{span_page::kTag} : span_page::ColumnSet{0});
  Status scanned = reader.ForEachSpanPage(
      request.session_id(), range.min_start_ns, range.max_start_ns,
      [&](std::span<const Span> page) {
        for (const Span& span : page) {
          if (span.status != SpanStatus::kOk || !filter.Matches(span)) continue;
          if (spans.size() == kMaxTreeSpans) {
            too_many = true;
            return false;
          }
          spans.push_back({span.op_id, span.parent_op_id,
                           std::min(span.duration_ns, kMaxAggregateNs),
                           std::min(SelfNs(span), kMaxAggregateNs), span.name,
                           request.by_tag() ? span.tag : StringId{0}});
        }
        return true;
      },
      columns, PageShare{0, 1});
  if (!scanned.ok()) return scanned;
  if (too_many) {
    return Status::ResourceExhausted(
        "session " + std::to_string(request.session_id()) + " has more than " +
        std::to_string(kMaxTreeSpans) +
        " spans that pass the filter, more than one tree reads: narrow it with a time range "
        "(--since/--until) or a name");
  }
  return spans;
}

// The nodes of `spans` (sorted here by op id); nodes[i].parent < i.
std::vector<Node> BuildNodes(std::vector<TreeSpan>& spans) {
  std::sort(spans.begin(), spans.end(),
            [](const TreeSpan& a, const TreeSpan& b) { return a.op_id < b.op_id; });
  std::vector<Node> nodes;
  std::unordered_map<NodeKey, uint32_t, NodeKeyHash> index;
  std::vector<uint32_t> node_of(spans.size());
  for (size_t i = 0; i < spans.size(); ++i) {
    const TreeSpan& span = spans[i];
    uint32_t parent = kNoNode;
    // Only links to an earlier op are followed: no loop can form.
    if (span.parent_op_id != 0 && span.parent_op_id < span.op_id) {
      const auto begin = spans.begin();
      const auto end = begin + static_cast<std::ptrdiff_t>(i);
      const auto it = std::lower_bound(begin, end, span.parent_op_id,
                                       [](const TreeSpan& s, uint64_t id) { return s.op_id < id; });
      if (it != end && it->op_id == span.parent_op_id) {
        parent = node_of[static_cast<size_t>(it - begin)];
      }
    }
    const NodeKey key{parent, span.name, span.tag};
    auto [slot, added] = index.try_emplace(key, static_cast<uint32_t>(nodes.size()));
    if (added) {
      Node& node = nodes.emplace_back();
      node.parent = parent;
      node.depth = parent == kNoNode ? 0 : nodes[parent].depth + 1;
      node.name = span.name;
      node.tag = span.tag;
      if (parent != kNoNode) nodes[parent].children.push_back(slot->second);
    }
    Node& node = nodes[slot->second];
    ++node.count;
    node.total_ns = AddCapped(node.total_ns, span.duration_ns);
    node.self_ns = AddCapped(node.self_ns, span.self_ns);
    node_of[i] = slot->second;
  }
  return nodes;
}

// How many nodes each node's subtree holds, itself included.
std::vector<uint64_t> SubtreeSizes(const std::vector<Node>& nodes) {
  std::vector<uint64_t> sizes(nodes.size(), 1);
  for (size_t i = nodes.size(); i-- > 0;) {
    if (nodes[i].parent != kNoNode) sizes[nodes[i].parent] += sizes[i];
  }
  return sizes;
}

}  // namespace

Status GetTree(SpanReader& reader, const v1::GetTreeRequest& request,
               v1::GetTreeResponse* response) {
  const v1::SpanStatus status = request.filter().status();
  if (status != v1::SPAN_STATUS_UNSPECIFIED && status != v1::SPAN_STATUS_OK) {
    return Status::InvalidArgument(
        "filter.status: a tree holds OK spans only (the others have no duration)");
  }
  if (!(request.min_share() >= 0 && request.min_share() <= 1)) {
    return Status::InvalidArgument("min_share " + std::to_string(request.min_share()) +
                                   " is not a fraction between 0 and 1");
  }
  StringCache strings(reader);
  Result<SpanFilter> filter = SpanFilter::Compile(request.filter(), "filter", strings);
  if (!filter.ok()) return filter.status();
  Result<SqliteTransaction> snapshot = reader.Snapshot();
  if (!snapshot.ok()) return snapshot.status();
  StepStartRange range{filter->min_start_ns(), filter->max_start_ns()};
  if (request.has_step()) {
    Result<StepStartRange> step =
        FindStepStartRange(reader, request.session_id(), request.step(), strings);
    if (!step.ok()) return step.status();
    range.min_start_ns = std::max(range.min_start_ns, step->min_start_ns);
    range.max_start_ns = std::min(range.max_start_ns, step->max_start_ns);
  }
  response->Clear();
  if (range.max_start_ns < range.min_start_ns) return Status::Ok();  // no span can pass
  Result<std::vector<TreeSpan>> spans = ReadTreeSpans(reader, request, filter.value(), range);
  if (!spans.ok()) return spans.status();
  std::vector<Node> nodes = BuildNodes(spans.value());
  const std::vector<uint64_t> subtree = SubtreeSizes(nodes);

  uint64_t total = 0;
  std::vector<uint32_t> roots;
  for (uint32_t i = 0; i < nodes.size(); ++i) {
    if (nodes[i].parent != kNoNode) continue;
    roots.push_back(i);
    total = AddCapped(total, nodes[i].total_ns);
  }
  // Largest total first; ties by name, then tag, so that the order is stable.
  auto larger = [&](uint32_t a, uint32_t b) {
    const Node& x = nodes[a];
    const Node& y = nodes[b];
    if (x.total_ns != y.total_ns) return x.total_ns > y.total_ns;
    if (x.name != y.name) return strings.Get(x.name) < strings.Get(y.name);
    return strings.Get(x.tag) < strings.Get(y.tag);
  };

  response->set_total_ns(total);
  response->set_spans(spans->size());
  uint64_t left_out = 0;
  const double min_total = request.min_share() * static_cast<double>(total);
  // Depth first, without recursion (a hostile chain of links can be
  // millions deep): the stack holds the nodes still to visit, the next on top.
  std::sort(roots.begin(), roots.end(), larger);
  std::vector<uint32_t> stack(roots.rbegin(), roots.rend());
  while (!stack.empty()) {
    const uint32_t i = stack.back();
    stack.pop_back();
    Node& node = nodes[i];
    const bool too_deep = request.max_depth() != 0 && node.depth >= request.max_depth();
    if (too_deep || static_cast<double>(node.total_ns) < min_total ||
        static_cast<size_t>(response->nodes_size()) == kMaxTreeNodes) {
      left_out += subtree[i];
      continue;
    }
    v1::TreeNode* out = response->add_nodes();
    out->set_depth(node.depth);
    out->set_name(strings.Get(node.name));
    out->set_tag(strings.Get(node.tag));
    out->set_count(node.count);
    out->set_total_ns(node.total_ns);
    out->set_self_ns(node.self_ns);
    out->set_share(Ratio(static_cast<double>(node.total_ns), static_cast<double>(total)));
    out->set_self_share(Ratio(static_cast<double>(node.self_ns), static_cast<double>(total)));
    std::sort(node.children.begin(), node.children.end(), larger);
    stack.insert(stack.end(), node.children.rbegin(), node.children.rend());
  }
  response->set_nodes_left_out(left_out);
  return strings.status();
}

}  // namespace optrace::daemon
