// optrace-demo from the outside: run the built binary with the stderr sink
// on and check its op lines, its checksum and its crash behaviour.
#include <gtest/gtest.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cmath>
#include <cstdlib>
#include <filesystem>
#include <map>
#include <optional>
#include <sstream>
#include <string>
#include <string_view>
#include <vector>

#include "subprocess.h"

namespace optrace::kernels {
namespace {

using namespace std::chrono_literals;

// What one run of the demo printed and how it ended.
struct ChildResult {
  optrace::testing::ExitStatus status;
  std::string out;
  std::string err;
};

// One "[OP] LAUNCH name [id=N] target=kind:device" line of the sink.
struct OpLine {
  std::string event;
  std::string name;
  uint64_t id = 0;
  std::string target;
};

// Runs the demo with op tracing to stderr, in a namespace of its own so it
// meets no daemon, and removes the segment a crashed run leaves behind.
class DemoTest : public ::testing::Test {
 protected:
  ChildResult RunDemo(const std::vector<std::string>& args) {
    std::vector<std::string> argv = {OPTRACE_DEMO_PATH};
    argv.insert(argv.end(), args.begin(), args.end());
    optrace::testing::Subprocess demo(
        argv, {{"OPTRACE_LEVEL", "trace"}, {"OPTRACE_SINK", "stderr"}, {"OPTRACE_NAMESPACE", ns_}});
    const auto status = demo.Wait(120s);
    EXPECT_TRUE(status.has_value()) << "optrace-demo did not finish";
    return {status.value_or(optrace::testing::ExitStatus{}), demo.stdout_text(),
            demo.stderr_text()};
  }

  void TearDown() override {
    std::error_code ec;
    for (const auto& entry : std::filesystem::directory_iterator("/dev/shm", ec)) {
      if (entry.path().filename().string().rfind(ns_ + ".", 0) == 0) {
        std::filesystem::remove(entry.path(), ec);
      }
    }
  }

  const std::string ns_ = "optrace_kernels_test_" + std::to_string(getpid());
};

// Parses "[OP] <LAUNCH|COMPLETE> <name> [id=<N>] target=<target>" exactly.
std::optional<OpLine> ParseOpLine(const std::string& line) {
  std::istringstream in(line);
  std::string marker, event, name, id_field, target_field, extra;
  in >> marker >> event >> name >> id_field >> target_field;
  if (marker != "[OP]" || (event != "LAUNCH" && event != "COMPLETE") || (in >> extra)) {
    return std::nullopt;
  }
  constexpr std::string_view kIdPrefix = "[id=";
  constexpr std::string_view kTargetPrefix = "target=";
  if (id_field.rfind(kIdPrefix, 0) != 0 || id_field.back() != ']' ||
      target_field.rfind(kTargetPrefix, 0) != 0) {
    return std::nullopt;
  }
  const std::string digits =
      id_field.substr(kIdPrefix.size(), id_field.size() - kIdPrefix.size() - 1);
  if (digits.empty() || digits.find_first_not_of("0123456789") != std::string::npos) {
    return std::nullopt;
  }
  return OpLine{event, name, std::stoull(digits), target_field.substr(kTargetPrefix.size())};
}

// The op lines of `text`, in order; other lines are skipped. A line that
// starts like an op line but does not parse fails the test.
std::vector<OpLine> ParseOpLines(const std::string& text) {
  std::vector<OpLine> lines;
  std::istringstream in(text);
  for (std::string line; std::getline(in, line);) {
    if (line.rfind("[OP] ", 0) != 0) continue;
    if (std::optional<OpLine> parsed = ParseOpLine(line)) {
      lines.push_back(*parsed);
    } else {
      ADD_FAILURE() << "malformed op line: " << line;
    }
  }
  return lines;
}

// Checks that each op id has exactly one LAUNCH followed by exactly one
// COMPLETE of the same name and target `target`, and returns the op names
// in LAUNCH order.
std::vector<std::string> LaunchedNamesOfCompleteOps(const std::vector<OpLine>& lines,
                                                    const std::string& target) {
  std::vector<std::string> names;
  std::map<uint64_t, std::string> open;  // id -> name
  std::map<uint64_t, int> completes;
  for (const OpLine& line : lines) {
    EXPECT_EQ(line.target, target) << line.name << " id=" << line.id;
    if (line.event == "LAUNCH") {
      EXPECT_FALSE(open.count(line.id) || completes.count(line.id))
          << "second LAUNCH of id " << line.id;
      open[line.id] = line.name;
      names.push_back(line.name);
    } else {
      auto it = open.find(line.id);
      if (it == open.end()) {
        ADD_FAILURE() << "COMPLETE without an open LAUNCH: id " << line.id;
        continue;
      }
      EXPECT_EQ(it->second, line.name) << "id " << line.id;
      open.erase(it);
      ++completes[line.id];
    }
  }
  EXPECT_TRUE(open.empty()) << open.size() << " op(s) never completed";
  return names;
}

// The ops the model dispatches (kernels/demo/mlp_model.h), step by step.
std::vector<std::string> ExpectedOps(bool fused, int layers, int steps) {
  const std::vector<std::string> layer =
      fused
          ? std::vector<std::string>{"rms_norm", "fused_matmul_gelu", "matmul", "elementwise"}
          : std::vector<std::string>{"rms_norm", "matmul", "elementwise", "matmul", "elementwise"};
  const std::vector<std::string> head =
      fused ? std::vector<std::string>{"fused_rms_norm_matmul", "softmax"}
            : std::vector<std::string>{"rms_norm", "matmul", "softmax"};
  std::vector<std::string> ops;
  for (int s = 0; s < steps; ++s) {
    for (int l = 0; l < layers; ++l) ops.insert(ops.end(), layer.begin(), layer.end());
    ops.insert(ops.end(), head.begin(), head.end());
  }
  return ops;
}

// The value of stdout's one line, "checksum=<value with 4 decimals>";
// fails the test when stdout is anything else.
double Checksum(const ChildResult& result) {
  constexpr std::string_view kPrefix = "checksum=";
  const std::string& out = result.out;
  const size_t dot = out.find('.');
  const bool well_formed = out.rfind(kPrefix, 0) == 0 && out.back() == '\n' &&
                           dot != std::string::npos && out.size() == dot + 4 + 2;
  char* end = nullptr;
  const double value = well_formed ? std::strtod(out.c_str() + kPrefix.size(), &end) : NAN;
  if (!well_formed || end != out.c_str() + out.size() - 1) {
    ADD_FAILURE() << "stdout is not one checksum line: '" << out << "'";
    return NAN;
  }
  return value;
}

bool ExitedWith(const ChildResult& result, int code) {
  return result.status.exited && result.status.code == code;
}

TEST_F(DemoTest, Unfused_Traced_OneLaunchAndCompletePerOpInModelOrder) {
  const ChildResult result = RunDemo(
      {"--mode", "unfused", "--layers", "2", "--steps", "3", "--batch", "4", "--hidden", "32"});
  ASSERT_TRUE(ExitedWith(result, 0)) << result.err;
  const std::vector<OpLine> lines = ParseOpLines(result.err);
  EXPECT_EQ(LaunchedNamesOfCompleteOps(lines, "cpu:0"), ExpectedOps(false, 2, 3));
}

TEST_F(DemoTest, Fused_Traced_OneLaunchAndCompletePerOpInModelOrder) {
  const ChildResult result = RunDemo(
      {"--mode", "fused", "--layers", "3", "--steps", "2", "--batch", "5", "--hidden", "24"});
  ASSERT_TRUE(ExitedWith(result, 0)) << result.err;
  const std::vector<OpLine> lines = ParseOpLines(result.err);
  EXPECT_EQ(LaunchedNamesOfCompleteOps(lines, "cpu:0"), ExpectedOps(true, 3, 2));
}

TEST_F(DemoTest, FusedAndUnfused_SameSeed_ChecksumsAgree) {
  const std::vector<std::string> shape = {"--layers", "3",        "--steps", "4",      "--batch",
                                          "7",        "--hidden", "96",      "--seed", "1234"};
  std::vector<std::string> unfused_args = {"--mode", "unfused"};
  unfused_args.insert(unfused_args.end(), shape.begin(), shape.end());
  std::vector<std::string> fused_args = {"--mode", "fused"};
  fused_args.insert(fused_args.end(), shape.begin(), shape.end());
  const ChildResult unfused = RunDemo(unfused_args);
  const ChildResult fused = RunDemo(fused_args);
  ASSERT_TRUE(ExitedWith(unfused, 0)) << unfused.err;
  ASSERT_TRUE(ExitedWith(fused, 0)) << fused.err;
  const double a = Checksum(unfused);
  const double b = Checksum(fused);
  EXPECT_NEAR(a, b, 1e-4 * std::abs(a));
  EXPECT_GT(a, 0.0);
}

TEST_F(DemoTest, DifferentSeeds_SameShape_ChecksumsDiffer) {
  const ChildResult one = RunDemo({"--steps", "2", "--seed", "1"});
  const ChildResult two = RunDemo({"--steps", "2", "--seed", "2"});
  ASSERT_TRUE(ExitedWith(one, 0)) << one.err;
  ASSERT_TRUE(ExitedWith(two, 0)) << two.err;
  EXPECT_NE(Checksum(one), Checksum(two));
}

TEST_F(DemoTest, CrashAfter5_Traced_AbortsWithOnlyTheFifthOpOpen) {
  const ChildResult result = RunDemo({"--crash-after", "5", "--layers", "2", "--steps", "2"});
  ASSERT_EQ(result.status.signal, SIGABRT) << "exit code " << result.status.code;
  EXPECT_EQ(result.out, "");
  const std::vector<OpLine> lines = ParseOpLines(result.err);
  std::vector<uint64_t> launch_order;
  std::map<uint64_t, int> completes;
  for (const OpLine& line : lines) {
    if (line.event == "LAUNCH") launch_order.push_back(line.id);
    if (line.event == "COMPLETE") ++completes[line.id];
  }
  ASSERT_EQ(launch_order.size(), 5u) << result.err;
  std::vector<uint64_t> open;
  for (uint64_t id : launch_order) {
    if (completes[id] == 0) open.push_back(id);
  }
  EXPECT_EQ(open, std::vector<uint64_t>{launch_order[4]});
  // The fifth op of an unfused step is the first layer's residual add.
  EXPECT_EQ(lines.back().event, "LAUNCH");
  EXPECT_EQ(lines.back().name, "elementwise");
}

TEST_F(DemoTest, GpuRequested_NoDeviceOrDevice_RunsAndAgreesWithCpu) {
  const std::vector<std::string> shape = {"--layers", "2", "--steps",  "2",
                                          "--batch",  "8", "--hidden", "64"};
  std::vector<std::string> gpu_args = {"--device", "gpu"};
  gpu_args.insert(gpu_args.end(), shape.begin(), shape.end());
  const ChildResult gpu = RunDemo(gpu_args);
  const ChildResult cpu = RunDemo(shape);
  ASSERT_TRUE(ExitedWith(gpu, 0)) << gpu.err;
  ASSERT_TRUE(ExitedWith(cpu, 0)) << cpu.err;
  const bool fell_back = gpu.err.find("running on cpu instead") != std::string::npos;
  std::istringstream err(gpu.err);
  int non_op_lines = 0;
  for (std::string line; std::getline(err, line);) non_op_lines += line.rfind("[OP] ", 0) != 0;
  // Without a device: exactly the one fallback line, and CPU ops.
  EXPECT_EQ(non_op_lines, fell_back ? 1 : 0) << gpu.err;
  const std::vector<OpLine> lines = ParseOpLines(gpu.err);
  EXPECT_EQ(LaunchedNamesOfCompleteOps(lines, fell_back ? "cpu:0" : "gpu:0"),
            ExpectedOps(false, 2, 2));
  EXPECT_NEAR(Checksum(gpu), Checksum(cpu), 1e-4 * std::abs(Checksum(cpu)));
}

TEST_F(DemoTest, BadArguments_Rejected_ExitCode2WithMessage) {
  for (const std::vector<std::string>& args :
       {std::vector<std::string>{"--device", "tpu"}, std::vector<std::string>{"--layers", "0"},
        std::vector<std::string>{"--steps", "x"}, std::vector<std::string>{"--crash-after", "0"},
        std::vector<std::string>{"--no-such-flag"}}) {
    const ChildResult result = RunDemo(args);
    EXPECT_TRUE(ExitedWith(result, 2)) << args[0] << ": exit code " << result.status.code;
    EXPECT_NE(result.err, "") << args[0];
    EXPECT_EQ(result.out, "") << args[0];
  }
}

}  // namespace
}  // namespace optrace::kernels
