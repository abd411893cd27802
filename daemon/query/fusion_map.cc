#include "query/fusion_map.h"

#include <algorithm>
#include <string_view>
#include <unordered_map>
#include <unordered_set>
#include <utility>

#include "query/duration_math.h"
#include "query/fused_tag.h"

namespace optrace::daemon {
namespace {

// A fused tag of B, split.
struct FusedTagOfB {
  size_t index = 0;  // in the input tags
  std::vector<std::string_view> parts;
};

// The sides of a group, summed tag by tag.
struct GroupSides {
  ComparisonSide side[2];
  void Add(const TagSides& tag) {
    for (int s = 0; s < 2; ++s) {
      side[s].Add(tag.side[s].count, tag.side[s].ok_count, tag.side[s].total_ns);
    }
  }
};

// Difference of two totals capped at kMaxAggregateNs = INT64_MAX: it fits.
int64_t Change(uint64_t a, uint64_t b) {
  return static_cast<int64_t>(std::min(b, kMaxAggregateNs)) -
         static_cast<int64_t>(std::min(a, kMaxAggregateNs));
}

// Difference of two span counts, saturated to int64.
int64_t CountChange(uint64_t a, uint64_t b) {
  const auto capped = [](uint64_t v) {
    return static_cast<int64_t>(std::min<uint64_t>(v, static_cast<uint64_t>(INT64_MAX)));
  };
  return capped(a) - capped(b);
}

}  // namespace

FusionMap MapFusions(const std::vector<TagSides>& tags) {
  FusionMap map;
  map.involved.assign(tags.size(), false);
  std::unordered_map<std::string_view, size_t> index;  // tag -> index in tags
  index.reserve(tags.size());
  for (size_t i = 0; i < tags.size(); ++i) index.emplace(tags[i].tag, i);

  // B's fused tags, and how many of them name each part (distinct per tag).
  std::vector<FusedTagOfB> fused;
  std::unordered_map<std::string_view, uint32_t> claims;
  for (size_t i = 0; i < tags.size(); ++i) {
    if (tags[i].side[1].count == 0 || !IsFusedTag(tags[i].tag)) continue;
    FusedTagOfB f{i, SplitFusedTag(tags[i].tag)};
    std::unordered_set<std::string_view> seen;
    for (std::string_view part : f.parts) {
      if (!part.empty() && seen.insert(part).second) ++claims[part];
    }
    fused.push_back(std::move(f));
  }

  for (const FusedTagOfB& f : fused) {
    const TagSides& own = tags[f.index];
    v1::Fusion out;
    out.set_name(own.name[1]);
    out.set_tag(own.tag);
    out.set_part_count(static_cast<uint32_t>(f.parts.size()));
    out.set_count_b(own.side[1].count);
    out.set_total_b_ns(own.side[1].total_ns);
    out.set_fused_count_a(own.side[0].count);
    out.set_fused_total_a_ns(own.side[0].total_ns);
    GroupSides group;
    group.Add(own);
    map.involved[f.index] = true;

    std::unordered_set<std::string_view> seen;
    uint32_t empty = 0, missing = 0;
    bool shares = false;
    for (size_t p = 0; p < f.parts.size(); ++p) {
      const std::string_view part = f.parts[p];
      const bool is_empty = part.empty();
      const bool repeated = !is_empty && !seen.insert(part).second;
      const auto found = is_empty ? index.end() : index.find(part);
      const TagSides* totals = found == index.end() ? nullptr : &tags[found->second];
      const bool shared = !is_empty && claims[part] > 1;
      const bool missing_in_a = !is_empty && (totals == nullptr || totals->side[0].count == 0);
      if (!repeated) {
        empty += is_empty;
        missing += missing_in_a;
        shares = shares || shared;
        if (totals != nullptr) {
          group.Add(*totals);
          map.involved[found->second] = true;
        }
      }
      if (p >= kMaxListedFusionParts) continue;
      v1::FusionPart* listed = out.add_parts();
      listed->set_tag(std::string(part));
      listed->set_missing_in_a(missing_in_a);
      listed->set_shared(shared);
      listed->set_empty(is_empty);
      listed->set_repeated(repeated);
      if (totals == nullptr) continue;
      listed->set_name(totals->name[0].empty() ? totals->name[1] : totals->name[0]);
      listed->set_count_a(totals->side[0].count);
      listed->set_total_a_ns(totals->side[0].total_ns);
      listed->set_count_b(totals->side[1].count);
      listed->set_total_b_ns(totals->side[1].total_ns);
    }
    out.set_parts_not_listed(static_cast<uint32_t>(f.parts.size() - out.parts_size()));
    out.set_empty_parts(empty);
    out.set_parts_missing_in_a(missing);
    out.set_shares_parts(shares);
    const ComparisonSide& a = group.side[0];
    const ComparisonSide& b = group.side[1];
    out.set_group_count_a(a.count);
    out.set_group_total_a_ns(a.total_ns);
    out.set_group_count_b(b.count);
    out.set_group_total_b_ns(b.total_ns);
    out.set_total_change_ns(Change(a.total_ns, b.total_ns));
    out.set_total_ratio(Ratio(static_cast<double>(b.total_ns), static_cast<double>(a.total_ns)));
    out.set_ops_saved(CountChange(a.count, b.count));
    map.fusions.push_back(std::move(out));
  }

  for (size_t i = 0; i < tags.size(); ++i) {
    if (!map.involved[i]) continue;
    for (int s = 0; s < 2; ++s) {
      map.fused_total_ns[s] = AddCapped(map.fused_total_ns[s], tags[i].side[s].total_ns);
    }
  }
  std::sort(map.fusions.begin(), map.fusions.end(), [](const v1::Fusion& x, const v1::Fusion& y) {
    return ComesFirstByChange(x.total_change_ns(), x.tag(), y.total_change_ns(), y.tag());
  });
  return map;
}

}  // namespace optrace::daemon
