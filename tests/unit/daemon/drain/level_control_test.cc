// Level control over real producer processes: the live level word it
// writes into their segments, from the policy, SetLevel overrides and
// tails, and the counters that show its writes and foreign writes.
#include "drain/level_control.h"

#include <gtest/gtest.h>

#include "held_producer.h"

namespace optrace::daemon {
namespace {

using abi::LevelValue;

// What live tails need, set by the test.
class FixedTails : public TailLevelSource {
 public:
  LevelValue LevelFor(const SessionRecord&) const override { return level; }
  LevelValue LevelForNewProducers() const override { return level; }
  LevelValue level = LevelValue::kOff;
};

std::shared_ptr<const LevelPolicy> Policy(LevelValue default_level,
                                          const std::vector<LevelRule>& rules = {}) {
  auto policy = LevelPolicy::Create(default_level, rules);
  EXPECT_TRUE(policy.ok()) << policy.status().message();
  return policy.ok() ? policy.value() : nullptr;
}

// A SetLevel for `label` ("" = global), or clearing it.
LevelChange ForLabel(const std::string& label, LevelValue level, bool clear = false) {
  LevelChange change;
  change.label = label;
  change.level = level;
  change.clear = clear;
  return change;
}

class LevelControlTest : public ::testing::Test {
 protected:
  // A producer asking for `requested`, labelled `label`, as session `id`.
  ProducerSession& Add(SessionId id, const std::string& requested, const std::string& label) {
    producers_.push_back(std::make_unique<HeldProducer>(
        id, 1, &dictionary_,
        std::map<std::string, std::string>{{"OPTRACE_LEVEL", requested},
                                           {"OPTRACE_SESSION", label}}));
    EXPECT_TRUE(producers_.back()->ok());
    sessions_[id] = producers_.back()->TakeSession();
    return *sessions_[id];
  }
  static std::optional<uint32_t> Word(ProducerSession& s) { return s.segment().ReadLevelWord(); }

  StringDictionary dictionary_;
  DaemonCounters counters_;
  FixedTails tails_;
  std::vector<std::unique_ptr<HeldProducer>> producers_;
  SessionMap sessions_;
};

TEST_F(LevelControlTest, Update_PolicyAboveRequest_WritesThePolicyLevelOnce) {
  LevelControl levels(Policy(LevelValue::kDebug), &tails_, &counters_);
  ProducerSession& s = Add(1, "info", "");
  ASSERT_TRUE(producers_.back()->ok());
  const LiveProducer p = levels.LevelsOf(s);
  EXPECT_EQ(p.requested, LevelValue::kInfo);
  EXPECT_EQ(p.live, LevelValue::kDebug);
  levels.Update(s);
  EXPECT_EQ(Word(s), static_cast<uint32_t>(LevelValue::kDebug));
  EXPECT_EQ(counters_.level_writes.load(), 1u);
  levels.Update(s);
  EXPECT_EQ(counters_.level_writes.load(), 1u) << "unchanged: no second write";
  EXPECT_EQ(counters_.level_tampered.load(), 0u);
}

TEST_F(LevelControlTest, Update_WordWrittenBySomebodyElse_RewritesAndCountsTampering) {
  LevelControl levels(Policy(LevelValue::kDebug), &tails_, &counters_);
  ProducerSession& s = Add(1, "info", "");
  ASSERT_TRUE(producers_.back()->ok());
  levels.Update(s);
  ASSERT_TRUE(s.segment().WriteLevel(LevelValue::kOff));
  levels.Update(s);
  EXPECT_EQ(Word(s), static_cast<uint32_t>(LevelValue::kDebug));
  EXPECT_EQ(counters_.level_tampered.load(), 1u);
  EXPECT_EQ(counters_.level_writes.load(), 2u);
}

TEST_F(LevelControlTest, Update_ProducerRaisedWordToItsRequest_NotTamperingOverrideWins) {
  LevelControl levels(Policy(LevelValue::kOff), &tails_, &counters_);
  ProducerSession& s = Add(1, "trace", "");
  ASSERT_TRUE(producers_.back()->ok());
  s.override_level = LevelValue::kOff;  // an explicit SetLevel for this producer
  levels.Update(s);
  ASSERT_EQ(Word(s), static_cast<uint32_t>(LevelValue::kOff));
  // What the producer's SetLevel does while a daemon is attached.
  ASSERT_TRUE(s.segment().WriteLevel(LevelValue::kTrace));
  levels.Update(s);
  EXPECT_EQ(Word(s), static_cast<uint32_t>(LevelValue::kOff)) << "the override still wins";
  EXPECT_EQ(counters_.level_tampered.load(), 0u);
  EXPECT_EQ(counters_.level_writes.load(), 2u);
}

TEST_F(LevelControlTest, LevelsOf_LabelRuleAndTail_RaiseTheLiveLevel) {
  LevelControl levels(Policy(LevelValue::kOff, {{"train.*", LevelValue::kInfo}}), &tails_,
                      &counters_);
  ProducerSession& train = Add(1, "", "train-7");
  ProducerSession& eval = Add(2, "", "eval");
  ASSERT_TRUE(producers_[0]->ok() && producers_[1]->ok());
  EXPECT_EQ(levels.LevelsOf(train).live, LevelValue::kInfo);
  EXPECT_EQ(levels.LevelsOf(eval).live, LevelValue::kOff);
  tails_.level = LevelValue::kTrace;
  EXPECT_EQ(levels.LevelsOf(eval).tail, LevelValue::kTrace);
  EXPECT_EQ(levels.LevelsOf(eval).live, LevelValue::kTrace);
  EXPECT_EQ(levels.LevelForNewProducers(), LevelValue::kTrace);
}

TEST_F(LevelControlTest, Apply_LabelOverride_ReachesThatLabelOnlyUntilCleared) {
  LevelControl levels(Policy(LevelValue::kInfo), &tails_, &counters_);
  ProducerSession& a = Add(1, "", "a");
  ProducerSession& b = Add(2, "", "b");
  ASSERT_TRUE(producers_[0]->ok() && producers_[1]->ok());
  levels.Update(a);
  levels.Update(b);
  EXPECT_EQ(levels.Apply(ForLabel("a", LevelValue::kError), sessions_), 1u);
  EXPECT_EQ(Word(a), static_cast<uint32_t>(LevelValue::kError)) << "an override may lower it";
  EXPECT_EQ(Word(b), static_cast<uint32_t>(LevelValue::kInfo));
  EXPECT_EQ(levels.Apply(ForLabel("a", LevelValue::kOff, true), sessions_), 1u);
  EXPECT_EQ(Word(a), static_cast<uint32_t>(LevelValue::kInfo));
}

TEST_F(LevelControlTest, Apply_GlobalForAnotherUid_ReachesNobodyButSetsTheDefault) {
  LevelControl levels(Policy(LevelValue::kInfo), &tails_, &counters_);
  ProducerSession& s = Add(1, "", "");
  ASSERT_TRUE(producers_.back()->ok());
  levels.Update(s);
  LevelChange change = ForLabel("", LevelValue::kTrace);
  change.uid = s.record().uid + 1;
  EXPECT_EQ(levels.Apply(change, sessions_), 0u);
  EXPECT_EQ(Word(s), static_cast<uint32_t>(LevelValue::kInfo));
  EXPECT_EQ(levels.EffectiveDefaultLevel(), LevelValue::kTrace);
}

TEST_F(LevelControlTest, SetPolicy_TakesEffectAtAdoptPolicy) {
  LevelControl levels(Policy(LevelValue::kOff), &tails_, &counters_);
  ProducerSession& s = Add(1, "", "");
  ASSERT_TRUE(producers_.back()->ok());
  levels.SetPolicy(Policy(LevelValue::kWarning));
  EXPECT_EQ(levels.LevelsOf(s).live, LevelValue::kOff);
  levels.AdoptPolicy();
  EXPECT_EQ(levels.LevelsOf(s).live, LevelValue::kWarning);
  EXPECT_EQ(levels.EffectiveDefaultLevel(), LevelValue::kWarning);
}

}  // namespace
}  // namespace optrace::daemon
