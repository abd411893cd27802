// GetTree over a real database: nodes merged by name under their parents,
// self time, order, depth and share cuts, broken parent links, hostile
// depth, and bad requests.
#include "query/call_tree.h"

#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "api_test_store.h"
#include "query/step_detection.h"
#include "store_test_data.h"

namespace optrace::daemon {
namespace {

using testing::ApiTestStore;
using testing::MakeSession;

constexpr SessionId kSession = 1;

// An ok span of op `op_id` under `parent`, named `name`, lasting
// `duration`, of which `children` in its children.
Span Op(ApiTestStore& store, uint64_t op_id, uint64_t parent, const std::string& name,
        uint64_t duration, uint64_t children = 0, const std::string& tag = "") {
  Span s =
      testing::MakeSpan(op_id, static_cast<int64_t>(op_id) * 1000, store.Intern(name), duration);
  s.parent_op_id = parent;
  s.children_ns = children;
  s.tag = tag.empty() ? 0 : store.Intern(tag);
  return s;
}

// "name count total self" per node, indented two spaces per level.
std::vector<std::string> Lines(const v1::GetTreeResponse& tree) {
  std::vector<std::string> lines;
  for (const v1::TreeNode& n : tree.nodes()) {
    lines.push_back(std::string(2 * n.depth(), ' ') + n.name() + (n.tag().empty() ? "" : "/") +
                    n.tag() + " " + std::to_string(n.count()) + " " + std::to_string(n.total_ns()) +
                    " " + std::to_string(n.self_ns()));
  }
  return lines;
}

class CallTreeTest : public ::testing::Test {
 protected:
  // Two steps of: step > forward (> matmul, relu), backward (> matmul);
  // then a lone op.
  void SetUp() override {
    std::vector<Span> spans;
    for (uint64_t base : {100, 200}) {
      spans.push_back(Op(store_, base, 0, "step", 1000, 900));
      spans.push_back(Op(store_, base + 1, base, "forward", 500, 450));
      spans.push_back(Op(store_, base + 2, base + 1, "matmul", 400));
      spans.push_back(Op(store_, base + 3, base + 1, "relu", 50, 0, "relu_8"));
      spans.push_back(Op(store_, base + 4, base, "backward", 400, 300));
      spans.push_back(Op(store_, base + 5, base + 4, "matmul", 300, 0, "mm_t"));
    }
    spans.push_back(Op(store_, 300, 0, "save", 100));
    store_.AddSession(MakeSession(kSession), spans);
  }

  v1::GetTreeResponse Tree(v1::GetTreeRequest request = {}) {
    request.set_session_id(kSession);
    v1::GetTreeResponse response;
    const Status status = GetTree(store_.reader(), request, &response);
    EXPECT_TRUE(status.ok()) << status.message();
    return response;
  }

  ApiTestStore store_;
};

TEST_F(CallTreeTest, Nested_MergedByNameUnderTheSameParents_LargestFirst) {
  const v1::GetTreeResponse tree = Tree();
  EXPECT_EQ(Lines(tree), (std::vector<std::string>{"step 2 2000 200", "  forward 2 1000 100",
                                                   "    matmul 2 800 800", "    relu 2 100 100",
                                                   "  backward 2 800 200", "    matmul 2 600 600",
                                                   "save 1 100 100"}));
  EXPECT_EQ(tree.total_ns(), 2100u);
  EXPECT_EQ(tree.spans(), 13u);
  EXPECT_EQ(tree.nodes_left_out(), 0u);
  EXPECT_DOUBLE_EQ(tree.nodes(0).share(), 2000.0 / 2100);
  // Self times add up to the time in ops: each nanosecond counted once.
  uint64_t self = 0;
  for (const v1::TreeNode& n : tree.nodes()) self += n.self_ns();
  EXPECT_EQ(self, tree.total_ns());
}

TEST_F(CallTreeTest, ByTag_NodesSplitByTag) {
  v1::GetTreeRequest request;
  request.set_by_tag(true);
  const std::vector<std::string> lines = Lines(Tree(request));
  EXPECT_EQ(lines[3], "    relu/relu_8 2 100 100");
  EXPECT_EQ(lines[5], "    matmul/mm_t 2 600 600");
}

TEST_F(CallTreeTest, DepthAndShare_LeaveOutSubtreesAndCountThem) {
  v1::GetTreeRequest request;
  request.set_max_depth(2);
  v1::GetTreeResponse tree = Tree(request);
  EXPECT_EQ(Lines(tree), (std::vector<std::string>{"step 2 2000 200", "  forward 2 1000 100",
                                                   "  backward 2 800 200", "save 1 100 100"}));
  EXPECT_EQ(tree.nodes_left_out(), 3u);
  request.set_max_depth(0);
  request.set_min_share(0.1);  // 210 ns: relu (100) and save (100) go
  tree = Tree(request);
  EXPECT_EQ(tree.nodes_size(), 5);
  EXPECT_EQ(tree.nodes_left_out(), 2u);
}

TEST_F(CallTreeTest, Filter_OpsWhoseParentIsLeftOutAreRoots) {
  v1::GetTreeRequest request;
  request.mutable_filter()->set_name_pattern("^(matmul|relu)$");
  EXPECT_EQ(Lines(Tree(request)),
            (std::vector<std::string>{"matmul 4 1400 1400", "relu 2 100 100"}));
}

TEST_F(CallTreeTest, Malicious_BrokenParentLinks_RootsNeverLoops) {
  ApiTestStore store;
  // 2 claims 3 as its parent and 3 claims 2: the link to a later op is
  // not followed. 4 claims itself; 5 a parent that was never stored.
  store.AddSession(MakeSession(kSession), {Op(store, 2, 3, "a", 10), Op(store, 3, 2, "b", 10),
                                           Op(store, 4, 4, "c", 10), Op(store, 5, 99, "d", 10)});
  v1::GetTreeRequest request;
  request.set_session_id(kSession);
  v1::GetTreeResponse tree;
  ASSERT_TRUE(GetTree(store.reader(), request, &tree).ok());
  EXPECT_EQ(Lines(tree),
            (std::vector<std::string>{"a 1 10 10", "  b 1 10 10", "c 1 10 10", "d 1 10 10"}));
}

TEST_F(CallTreeTest, Malicious_ChainOfOneHundredThousand_CappedNoRecursion) {
  ApiTestStore store;
  std::vector<Span> spans;
  constexpr uint64_t kDepth = 100'000;
  for (uint64_t i = 1; i <= kDepth; ++i)
    spans.push_back(Op(store, i, i - 1, "nest", kDepth - i + 1, kDepth - i));
  store.AddSession(MakeSession(kSession), spans);
  v1::GetTreeRequest request;
  request.set_session_id(kSession);
  v1::GetTreeResponse tree;
  ASSERT_TRUE(GetTree(store.reader(), request, &tree).ok());
  ASSERT_EQ(static_cast<size_t>(tree.nodes_size()), kMaxTreeNodes);
  EXPECT_EQ(tree.nodes(tree.nodes_size() - 1).depth(), kMaxTreeNodes - 1);
  EXPECT_EQ(tree.nodes_left_out(), kDepth - kMaxTreeNodes);
}

// Two explicit steps (op ids 10 and 20, 5 us each) with their ops, an op
// between them and one after them.
class CallTreeStepTest : public ::testing::Test {
 protected:
  void SetUp() override {
    const std::string step(kExplicitStepName);
    store_.AddSession(MakeSession(kSession),
                      {Op(store_, 10, 0, step, 5000, 2000), Op(store_, 11, 10, "a", 1000),
                       Op(store_, 12, 10, "b", 1000), Op(store_, 16, 0, "between", 1000),
                       Op(store_, 20, 0, step, 5000, 3000), Op(store_, 21, 20, "a", 1000),
                       Op(store_, 23, 20, "c", 2000), Op(store_, 30, 0, "after", 1000)});
  }

  Status TreeOf(uint64_t step, v1::GetTreeResponse* tree, const std::string& name = "") {
    v1::GetTreeRequest request;
    request.set_session_id(kSession);
    request.set_step(step);
    request.set_has_step(true);
    request.mutable_filter()->set_name_pattern(name);
    return GetTree(store_.reader(), request, tree);
  }

  ApiTestStore store_;
};

TEST_F(CallTreeStepTest, Step_OnlyTheSpansBegunInIt) {
  const std::string step(kExplicitStepName);
  v1::GetTreeResponse tree;
  ASSERT_TRUE(TreeOf(1, &tree).ok());
  EXPECT_EQ(Lines(tree), (std::vector<std::string>{step + " 1 5000 3000", "  a 1 1000 1000",
                                                   "  b 1 1000 1000"}));
  EXPECT_EQ(tree.spans(), 3u);
  EXPECT_EQ(tree.total_ns(), 5000u);
  ASSERT_TRUE(TreeOf(2, &tree).ok());
  EXPECT_EQ(Lines(tree), (std::vector<std::string>{step + " 1 5000 2000", "  c 1 2000 2000",
                                                   "  a 1 1000 1000"}));
  // With a filter: its conditions and the step's time range both apply.
  ASSERT_TRUE(TreeOf(2, &tree, "^a$").ok());
  EXPECT_EQ(Lines(tree), (std::vector<std::string>{"a 1 1000 1000"}));
}

TEST_F(CallTreeStepTest, NoSuchStep_NotFoundNamingTheSteps) {
  v1::GetTreeResponse tree;
  const Status status = TreeOf(3, &tree);
  EXPECT_EQ(status.code(), Status::Code::kNotFound);
  EXPECT_NE(status.message().find("has no step 3 (its steps are numbered 1 to 2)"),
            std::string::npos)
      << status.message();
}

TEST_F(CallTreeTest, StepOfASessionWithoutSteps_NotFoundSayingHowToRecordThem) {
  v1::GetTreeRequest request;
  request.set_session_id(kSession);
  request.set_has_step(true);
  request.set_step(1);
  v1::GetTreeResponse tree;
  const Status status = GetTree(store_.reader(), request, &tree);
  EXPECT_EQ(status.code(), Status::Code::kNotFound);
  EXPECT_NE(status.message().find("has no steps: record them"), std::string::npos)
      << status.message();
}

TEST_F(CallTreeTest, BadRequests_InvalidArgumentNamingTheField) {
  v1::GetTreeRequest request;
  request.set_session_id(kSession);
  request.mutable_filter()->set_status(v1::SPAN_STATUS_INCOMPLETE);
  v1::GetTreeResponse tree;
  Status status = GetTree(store_.reader(), request, &tree);
  EXPECT_EQ(status.code(), Status::Code::kInvalidArgument);
  EXPECT_NE(status.message().find("filter.status"), std::string::npos) << status.message();
  request.mutable_filter()->clear_status();
  request.set_min_share(1.5);
  status = GetTree(store_.reader(), request, &tree);
  EXPECT_EQ(status.code(), Status::Code::kInvalidArgument);
  EXPECT_NE(status.message().find("min_share 1.5"), std::string::npos) << status.message();
  request.set_min_share(0);
  request.mutable_filter()->set_name_pattern("(");
  EXPECT_EQ(GetTree(store_.reader(), request, &tree).code(), Status::Code::kInvalidArgument);
}

}  // namespace
}  // namespace optrace::daemon
