// optrace-demo under a real optraced: every op of every step is stored with
// its name, tag, target and pairing, and --crash-after leaves exactly that
// op incomplete in a crashed session.
#include <gtest/gtest.h>

#include <algorithm>
#include <fstream>
#include <map>
#include <regex>
#include <set>
#include <string>

#include "daemon_process.h"
#include "model/span.h"
#include "optrace/abi.h"
#include "store_view.h"
#include "subprocess.h"
#include "temp_folder.h"

namespace optrace {
namespace {

using namespace std::chrono_literals;
using daemon::SessionState;
using daemon::Span;
using daemon::SpanStatus;
using testing::StoredSession;

// The ops of one step of a 2-layer model, in launch order.
const std::vector<std::string> kUnfusedStep = {
    "rms_norm", "matmul", "elementwise", "matmul", "elementwise",  // layer 1
    "rms_norm", "matmul", "elementwise", "matmul", "elementwise",  // layer 2
    "rms_norm", "matmul", "softmax"};                              // head
const std::vector<std::string> kFusedStep = {
    "rms_norm",    "fused_matmul_gelu", "matmul",
    "elementwise", "rms_norm",          "fused_matmul_gelu",
    "matmul",      "elementwise",       "fused_rms_norm_matmul",
    "softmax"};

class DemoTest : public ::testing::Test {
 protected:
  void SetUp() override { ASSERT_TRUE(daemon_.Start()) << daemon_.log(); }

  // Runs the demo traced and returns its stored session once ended, its
  // spans by op id (launch order on the one thread).
  std::optional<StoredSession> RunDemo(std::vector<std::string> args) {
    std::vector<std::string> argv = {OPTRACE_DEMO};
    argv.insert(argv.end(), args.begin(), args.end());
    testing::Subprocess demo(argv, {{"OPTRACE_LEVEL", "trace"}});
    if (!demo.Wait(60s)) return std::nullopt;
    checksum_line_ = demo.stdout_text();
    std::optional<StoredSession> stored =
        testing::WaitForStoredSession(daemon_.db_path(), static_cast<uint32_t>(demo.pid()), 20s);
    if (stored) {
      std::sort(stored->spans.begin(), stored->spans.end(),
                [](const Span& a, const Span& b) { return a.op_id < b.op_id; });
    }
    return stored;
  }

  void ExpectSteps(const StoredSession& s, const std::vector<std::string>& step, int steps) {
    ASSERT_EQ(s.spans.size(), step.size() * static_cast<size_t>(steps));
    const std::regex tag_format(R"(^[a-z_]+_[0-9x]+(_[0-9x]+)*_f32$)");
    for (size_t i = 0; i < s.spans.size(); ++i) {
      const Span& span = s.spans[i];
      const std::string name = s.strings.at(span.name);
      EXPECT_EQ(name, step[i % step.size()]) << "op " << i;
      EXPECT_EQ(span.status, SpanStatus::kOk);
      EXPECT_EQ(span.target, static_cast<uint8_t>(abi::TargetKind::kCpu));
      EXPECT_EQ(span.device, 0);
      EXPECT_EQ(span.launch_tid, span.complete_tid);
      const std::string tag = s.strings.at(span.tag);
      if (name.rfind("fused_", 0) == 0) {
        // A fused op's tag names its parts (docs/dispatch-names.md).
        const std::regex fused_format(R"(^[a-z_]+_[0-9x]+_f32(\+[a-z_]+_[0-9x]+_f32)+$)");
        EXPECT_TRUE(std::regex_match(tag, fused_format)) << tag;
        continue;
      }
      EXPECT_TRUE(std::regex_match(tag, tag_format)) << tag;
      EXPECT_EQ(tag.rfind(name == "elementwise" ? "elementwise_" : name + "_", 0), 0u) << tag;
    }
  }

  testing::TempFolder folder_;
  testing::DaemonProcess daemon_{folder_.path()};
  std::string checksum_line_;
};

TEST_F(DemoTest, Unfused_TwoLayersThreeSteps_EveryOpStoredNamedTaggedPaired) {
  const auto s = RunDemo({"--mode", "unfused", "--layers", "2", "--steps", "3"});
  ASSERT_TRUE(s.has_value()) << daemon_.log();
  EXPECT_EQ(s->record.state, SessionState::kExited);
  ExpectSteps(*s, kUnfusedStep, 3);
  // Dynamic shapes are in the tags: hidden 256 -> 1024 on a batch of 16.
  EXPECT_EQ(s->strings.at(s->spans[1].tag), "matmul_16x1024x256_f32");
}

// The line `n` (1-based) of the source file `path` of this checkout.
std::string SourceLine(const std::string& path, size_t n) {
  std::ifstream in(std::string(OPTRACE_SOURCE_DIR) + "/" + path);
  std::string line;
  for (size_t i = 0; i < n && std::getline(in, line); ++i) {
  }
  return line;
}

// Issue 16: every op carried the line where the backend built its sites.
TEST_F(DemoTest, Issue16_SourceLocations_TheModelLinesThatIssuedEachOp) {
  const auto s = RunDemo({"--mode", "unfused", "--layers", "2", "--steps", "2"});
  ASSERT_TRUE(s.has_value()) << daemon_.log();
  ASSERT_EQ(s->spans.size(), kUnfusedStep.size() * 2);
  // The backend entry point each op name can come from.
  const std::map<std::string, std::vector<std::string>> calls = {
      {"rms_norm", {"RmsNorm("}},
      {"matmul", {"Matmul("}},
      {"softmax", {"Softmax("}},
      {"elementwise", {"Gelu(", "Add(", "Mul("}},
  };
  const std::regex model_line(R"(^(.*/)?(kernels/demo/mlp_model\.cc):([0-9]+)$)");
  std::set<std::string> distinct;
  for (size_t i = 0; i < s->spans.size(); ++i) {
    const std::string name = s->strings.at(s->spans[i].name);
    const std::string src = s->strings.at(s->spans[i].srcloc);
    std::smatch m;
    ASSERT_TRUE(std::regex_match(src, m, model_line)) << "op " << i << " " << name << ": " << src;
    const std::string code = SourceLine(m[2], std::stoul(m[3]));
    const auto& methods = calls.at(name);
    EXPECT_TRUE(
        code.find("backend_.") != std::string::npos &&
        std::any_of(methods.begin(), methods.end(),
                    [&](const std::string& c) { return code.find(c) != std::string::npos; }))
        << "op " << i << " " << name << " at " << src << ": '" << code << "'";
    distinct.insert(src);
  }
  // Layer 2 runs the lines of layer 1; the head has lines of its own: 5
  // layer call sites and 3 head call sites.
  EXPECT_EQ(distinct.size(), 8u);
  EXPECT_EQ(s->spans[0].srcloc, s->spans[5].srcloc);
  EXPECT_NE(s->spans[0].srcloc, s->spans[10].srcloc);
}

TEST_F(DemoTest, Fused_SameChecksumFewerOps) {
  const auto unfused = RunDemo({"--mode", "unfused", "--layers", "2", "--steps", "2"});
  const std::string unfused_checksum = checksum_line_;
  const auto fused = RunDemo({"--mode", "fused", "--layers", "2", "--steps", "2"});
  ASSERT_TRUE(unfused && fused) << daemon_.log();
  ExpectSteps(*fused, kFusedStep, 2);
  EXPECT_EQ(checksum_line_, unfused_checksum);
  EXPECT_LT(fused->spans.size(), unfused->spans.size());
  // Each fused op names the op-by-op ops it replaced, in compute order.
  std::set<std::string> unfused_tags;
  for (const Span& span : unfused->spans) unfused_tags.insert(unfused->strings.at(span.tag));
  EXPECT_EQ(fused->strings.at(fused->spans[1].tag),
            "matmul_16x1024x256_f32+elementwise_gelu_16384_f32");
  EXPECT_EQ(fused->strings.at(fused->spans[8].tag).rfind("rms_norm_16x256_f32+matmul_16x", 0), 0u);
  for (const size_t i : {size_t{1}, size_t{8}}) {
    const std::string tag = fused->strings.at(fused->spans[i].tag);
    for (size_t begin = 0, end = 0; end != std::string::npos; begin = end + 1) {
      end = tag.find('+', begin);
      EXPECT_TRUE(unfused_tags.count(tag.substr(begin, end - begin))) << tag;
    }
  }
}

TEST_F(DemoTest, CrashAfter5_SessionCrashedWithExactlyTheFifthOpIncomplete) {
  const auto s =
      RunDemo({"--mode", "unfused", "--layers", "2", "--steps", "2", "--crash-after", "5"});
  ASSERT_TRUE(s.has_value()) << daemon_.log();
  EXPECT_EQ(s->record.state, SessionState::kCrashed);
  ASSERT_EQ(s->spans.size(), 5u);
  for (size_t i = 0; i < 4; ++i) EXPECT_EQ(s->spans[i].status, SpanStatus::kOk);
  EXPECT_EQ(s->spans[4].status, SpanStatus::kIncomplete);
  EXPECT_EQ(s->strings.at(s->spans[4].name), kUnfusedStep[4]);
  EXPECT_EQ(s->record.open_ops, 1u);
}

}  // namespace
}  // namespace optrace
