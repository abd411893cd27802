// `optrace diff` of an op-by-op run against a fused one, through a real
// optraced: each fused op of B beside the ops of A it replaced, with A's
// totals checked against the spans QueryOps returns (`optrace ops`), and
// malformed fused tags from a producer shown as data.
#include <gtest/gtest.h>

#include <map>
#include <set>
#include <string>
#include <vector>

#include "cli_harness.h"

namespace optrace::cli::testing {
namespace {

using namespace std::chrono_literals;

// Spans of one tag: how many, and the sum of their durations.
struct TagSum {
  uint64_t count = 0;
  uint64_t total_ns = 0;
};

// The '+'-separated parts of `tag`, empty ones included.
std::vector<std::string> Split(const std::string& tag) {
  std::vector<std::string> parts(1);
  for (char c : tag) {
    if (c == '+') {
      parts.emplace_back();
    } else {
      parts.back() += c;
    }
  }
  return parts;
}

class FusionDiffTest : public CliTest {
 protected:
  // Runs optrace-demo in `mode` traced, labelled `label`; its ended session.
  uint64_t RunDemo(const std::string& mode, const std::string& label) {
    optrace::testing::Subprocess demo(
        {OPTRACE_DEMO, "--mode", mode, "--layers", "2", "--steps", "3", "--hidden", "64"},
        {{"OPTRACE_LEVEL", "trace"},
         {"OPTRACE_SESSION", label},
         {"OPTRACE_RING_CAPACITY", "65536"}});
    EXPECT_TRUE(demo.Wait(120s).has_value()) << label;
    const nlohmann::json session = WaitForSession(static_cast<uint32_t>(demo.pid()), true);
    return session.is_object() ? session["id"].get<uint64_t>() : 0;
  }

  // Every span of `session`, as `optrace ops --json` (QueryOps) returns them.
  nlohmann::json Spans(uint64_t session) {
    const CliRun ops = Cli({"ops", std::to_string(session), "--limit", "0", "--json"});
    EXPECT_EQ(ops.exit_code, 0) << ops.err;
    return JsonMember(ops.out, "spans");
  }

  // Count and total duration per tag of `session`'s spans, from QueryOps.
  std::map<std::string, TagSum> SumsByTag(uint64_t session) {
    std::map<std::string, TagSum> sums;
    for (const auto& span : Spans(session)) {
      TagSum& sum = sums[span["tag"].get<std::string>()];
      ++sum.count;
      if (span["status"] == "ok") sum.total_ns += span["duration_ns"].get<uint64_t>();
    }
    return sums;
  }

  // `optrace diff a b --json`.
  nlohmann::json DiffJson(uint64_t a, uint64_t b) {
    const CliRun diff = Cli({"diff", std::to_string(a), std::to_string(b), "--json"});
    EXPECT_EQ(diff.exit_code, 0) << diff.err;
    return nlohmann::json::parse(diff.out);
  }

  // The fusion of `diff` named `name`; null JSON when there is none.
  static nlohmann::json FusionNamed(const nlohmann::json& diff, const std::string& name) {
    for (const auto& fusion : diff["fusions"]) {
      if (fusion["name"] == name) return fusion;
    }
    return nullptr;
  }
};

TEST_F(FusionDiffTest, DemoUnfusedVsFused_EveryFusedOpMapsToItsPartsWithExactTotals) {
  const uint64_t a = RunDemo("unfused", "unfused");
  const uint64_t b = RunDemo("fused", "fused");
  ASSERT_NE(a, 0u) << daemon_.log();
  ASSERT_NE(b, 0u) << daemon_.log();
  const std::map<std::string, TagSum> sums_a = SumsByTag(a);
  const std::map<std::string, TagSum> sums_b = SumsByTag(b);
  const nlohmann::json diff = DiffJson(a, b);

  // Every fused tag of B is a fusion, and nothing else is.
  std::set<std::string> fused_tags_b, fusion_tags;
  for (const auto& [tag, sum] : sums_b) {
    if (tag.find('+') != std::string::npos) fused_tags_b.insert(tag);
  }
  for (const auto& fusion : diff["fusions"]) fusion_tags.insert(fusion["tag"]);
  EXPECT_EQ(fusion_tags, fused_tags_b);
  EXPECT_EQ(fusion_tags.size(), 2u) << diff.dump(2);

  uint64_t fused_total_a = 0;
  std::set<std::string> involved;
  for (const auto& fusion : diff["fusions"]) {
    const std::string tag = fusion["tag"];
    const std::vector<std::string> parts = Split(tag);
    ASSERT_EQ(fusion["parts"].size(), parts.size()) << tag;
    EXPECT_EQ(fusion["count_b"], sums_b.at(tag).count) << tag;
    EXPECT_EQ(fusion["total_b_ns"], sums_b.at(tag).total_ns) << tag;
    TagSum group_a, group_b = sums_b.at(tag);
    involved.insert(tag);
    for (size_t i = 0; i < parts.size(); ++i) {
      const auto& part = fusion["parts"][i];
      EXPECT_EQ(part["tag"], parts[i]);
      EXPECT_FALSE(part["missing_in_a"].get<bool>()) << parts[i];
      ASSERT_TRUE(sums_a.count(parts[i])) << parts[i] << " not in A";
      // Exactly the sums over A's spans with the part's tag.
      EXPECT_EQ(part["count_a"], sums_a.at(parts[i]).count) << parts[i];
      EXPECT_EQ(part["total_a_ns"], sums_a.at(parts[i]).total_ns) << parts[i];
      const TagSum still_in_b = sums_b.count(parts[i]) ? sums_b.at(parts[i]) : TagSum{};
      EXPECT_EQ(part["count_b"], still_in_b.count) << parts[i];
      group_a.count += sums_a.at(parts[i]).count;
      group_a.total_ns += sums_a.at(parts[i]).total_ns;
      group_b.count += still_in_b.count;
      group_b.total_ns += still_in_b.total_ns;
      if (involved.insert(parts[i]).second) fused_total_a += sums_a.at(parts[i]).total_ns;
    }
    EXPECT_EQ(fusion["group_count_a"], group_a.count) << tag;
    EXPECT_EQ(fusion["group_total_a_ns"], group_a.total_ns) << tag;
    EXPECT_EQ(fusion["group_count_b"], group_b.count) << tag;
    EXPECT_EQ(fusion["group_total_b_ns"], group_b.total_ns) << tag;
    EXPECT_EQ(fusion["ops_saved"].get<int64_t>(),
              static_cast<int64_t>(group_a.count) - static_cast<int64_t>(group_b.count));
  }
  // Two layers and three steps: one matmul + gelu pair fused per layer and
  // step, one rms_norm + head matmul per step.
  EXPECT_EQ(FusionNamed(diff, "fused_matmul_gelu")["ops_saved"], 6);
  EXPECT_EQ(FusionNamed(diff, "fused_rms_norm_matmul")["ops_saved"], 3);

  // Session totals count every span once: the fused part plus the rest.
  EXPECT_EQ(diff["fused_total_a_ns"], fused_total_a);
  uint64_t unfused_a = 0;
  for (const auto& row : diff["unfused_rows"]) unfused_a += row["total_a_ns"].get<uint64_t>();
  EXPECT_EQ(diff["fused_total_a_ns"].get<uint64_t>() + unfused_a, diff["total_a_ns"]);
  uint64_t all_a = 0;
  for (const auto& [tag, sum] : sums_a) all_a += sum.total_ns;
  EXPECT_EQ(diff["total_a_ns"], all_a);

  // The text: the fusions first, each with its parts, then the other ops.
  const CliRun text = Cli({"diff", std::to_string(a), std::to_string(b)});
  ASSERT_EQ(text.exit_code, 0) << text.err;
  const auto lines = optrace::testing::SplitLines(text.out);
  ASSERT_GE(lines.size(), 4u) << text.out;
  EXPECT_EQ(lines[2].rfind("FUSED IN B / PARTS", 0), 0u) << text.out;
  for (const std::string& tag : fusion_tags) {
    for (const std::string& part : Split(tag)) {
      EXPECT_NE(text.out.find("  " + part + " "), std::string::npos) << part << "\n" << text.out;
    }
  }
  EXPECT_NE(text.out.find("\nNAME "), std::string::npos) << text.out;
  EXPECT_EQ(lines.back().rfind("total: A ", 0), 0u) << text.out;
}

TEST_F(FusionDiffTest, FusedTagWithPartsMissingInA_ReportedAsSuch) {
  const ProducerRun a = Produce({"--ops", "16"}, "a");
  const ProducerRun b = Produce({"--ops", "0", "--tagged", "fused", "shape_1+nowhere"}, "b");
  ASSERT_NE(a.session_id, 0u);
  ASSERT_NE(b.session_id, 0u);
  const nlohmann::json fusion = FusionNamed(DiffJson(a.session_id, b.session_id), "fused");
  ASSERT_TRUE(fusion.is_object());
  ASSERT_EQ(fusion["parts"].size(), 2u);
  EXPECT_EQ(fusion["parts"][0]["tag"], "shape_1");
  EXPECT_FALSE(fusion["parts"][0]["missing_in_a"].get<bool>());
  EXPECT_EQ(fusion["parts"][0]["count_a"], SumsByTag(a.session_id).at("shape_1").count);
  EXPECT_EQ(fusion["parts"][1]["tag"], "nowhere");
  EXPECT_TRUE(fusion["parts"][1]["missing_in_a"].get<bool>());
  EXPECT_EQ(fusion["parts"][1]["count_a"], 0);
  EXPECT_EQ(fusion["parts_missing_in_a"], 1);

  const CliRun text = Cli({"diff", std::to_string(a.session_id), std::to_string(b.session_id)});
  ASSERT_EQ(text.exit_code, 0) << text.err;
  EXPECT_NE(text.out.find("missing in A"), std::string::npos) << text.out;
}

TEST_F(FusionDiffTest, Malicious_MalformedFusedTags_ShownCountedDaemonFine) {
  std::string many_parts = "p0";
  for (int i = 1; i < 10000; ++i) many_parts += "+p" + std::to_string(i);
  const ProducerRun a =
      Produce({"--ops", "16", "--tagged", "already_fused", "shape_2+shape_3"}, "a");
  const ProducerRun b = Produce({"--ops", "0",                                //
                                 "--tagged", "empty_parts", "+shape_1++",     //
                                 "--tagged", "many_parts", many_parts,        //
                                 "--tagged", "bad_utf8", "shape_1+\xff\xfe",  //
                                 "--tagged", "repeated", "shape_4+shape_4",   //
                                 "--tagged", "already_fused", "shape_2+shape_3"},
                                "b");
  ASSERT_NE(a.session_id, 0u);
  ASSERT_NE(b.session_id, 0u);
  const std::map<std::string, TagSum> sums_a = SumsByTag(a.session_id);
  const nlohmann::json diff = DiffJson(a.session_id, b.session_id);
  EXPECT_EQ(diff["fusions"].size(), 5u) << diff.dump(2);

  const nlohmann::json empty = FusionNamed(diff, "empty_parts");
  ASSERT_TRUE(empty.is_object());
  EXPECT_EQ(empty["part_count"], 4);
  EXPECT_EQ(empty["empty_parts"], 3);
  EXPECT_TRUE(empty["parts"][0]["empty"].get<bool>());
  EXPECT_EQ(empty["group_count_a"], sums_a.at("shape_1").count);

  // The producer's tag was cut at the string table's 4096 bytes.
  std::string stored;
  for (const auto& span : Spans(b.session_id)) {
    if (span["name"] == "many_parts") stored = span["tag"];
  }
  ASSERT_FALSE(stored.empty());
  const std::vector<std::string> parts = Split(stored);
  std::set<std::string> distinct(parts.begin(), parts.end());
  distinct.erase("");  // a cut right after a '+'
  const nlohmann::json many = FusionNamed(diff, "many_parts");
  ASSERT_TRUE(many.is_object());
  EXPECT_EQ(many["part_count"], parts.size());
  EXPECT_EQ(many["parts"].size(), 64u);
  EXPECT_EQ(many["parts_not_listed"], parts.size() - 64);
  EXPECT_EQ(many["parts_missing_in_a"], distinct.size());

  // Invalid UTF-8 became U+FFFD before storage: a part of no span in A.
  const nlohmann::json bad = FusionNamed(diff, "bad_utf8");
  ASSERT_TRUE(bad.is_object());
  ASSERT_EQ(bad["parts"].size(), 2u);
  EXPECT_EQ(bad["parts"][0]["count_a"], sums_a.at("shape_1").count);
  EXPECT_TRUE(bad["parts"][1]["missing_in_a"].get<bool>());

  const nlohmann::json repeated = FusionNamed(diff, "repeated");
  ASSERT_TRUE(repeated.is_object());
  EXPECT_TRUE(repeated["parts"][1]["repeated"].get<bool>());
  EXPECT_EQ(repeated["group_count_a"], sums_a.at("shape_4").count) << "counted once";

  // A's spans of the fused tag itself are the fusion's own, not a part.
  const nlohmann::json already = FusionNamed(diff, "already_fused");
  ASSERT_TRUE(already.is_object());
  EXPECT_EQ(already["fused_count_a"], 1);
  EXPECT_EQ(already["group_count_a"], 1 + sums_a.at("shape_2").count + sums_a.at("shape_3").count);

  // The shape_1 spans of A are in two fusions: flagged, counted once.
  EXPECT_TRUE(empty["shares_parts"].get<bool>());
  EXPECT_TRUE(bad["shares_parts"].get<bool>());
  uint64_t unfused_a = 0;
  for (const auto& row : diff["unfused_rows"]) unfused_a += row["total_a_ns"].get<uint64_t>();
  EXPECT_EQ(diff["fused_total_a_ns"].get<uint64_t>() + unfused_a, diff["total_a_ns"]);

  const CliRun text = Cli({"diff", std::to_string(a.session_id), std::to_string(b.session_id)});
  ASSERT_EQ(text.exit_code, 0) << text.err;
  EXPECT_NE(text.out.find("empty part"), std::string::npos) << text.out;
  EXPECT_NE(text.out.find("more parts"), std::string::npos) << text.out;
  const CliRun status = Cli({"status", "--json"});
  EXPECT_EQ(status.exit_code, 0) << status.err;
}

TEST_F(FusionDiffTest, NarrowTerminal_FusionTableFitsTheWidth) {
  const std::string long_part = "shape_" + std::string(150, 'x');
  const ProducerRun a = Produce({"--ops", "16"}, "a");
  const ProducerRun b = Produce({"--ops", "0", "--tagged", "fused_long", "shape_1+" + long_part});
  ASSERT_NE(a.session_id, 0u);
  ASSERT_NE(b.session_id, 0u);
  const std::string diff =
      CliCommandLine({"diff", std::to_string(a.session_id), std::to_string(b.session_id)});
  const CliRun narrow = RunInTerminal(diff, 80, {{"NO_COLOR", "1"}});
  ASSERT_EQ(narrow.exit_code, 0) << narrow.out;
  EXPECT_NE(narrow.out.find("OPS SAVED"), std::string::npos) << narrow.out;
  EXPECT_NE(narrow.out.find("missing in A"), std::string::npos) << narrow.out;
  EXPECT_NE(narrow.out.find("…"), std::string::npos) << narrow.out;
  for (std::string line : optrace::testing::SplitLines(narrow.out)) {
    if (!line.empty() && line.back() == '\r') line.pop_back();
    size_t columns = 0;  // code points: the table's text is one column each
    for (unsigned char c : line) columns += (c & 0xC0) != 0x80;
    EXPECT_LE(columns, 80u) << line;
  }
  const CliRun piped = Cli({"diff", std::to_string(a.session_id), std::to_string(b.session_id)});
  EXPECT_NE(piped.out.find(long_part), std::string::npos) << "no truncation into a pipe";
}

}  // namespace
}  // namespace optrace::cli::testing
