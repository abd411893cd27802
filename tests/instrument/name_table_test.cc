// Capped interning of the dynamic names instrumentations hand us.
#include "instrument/name_table.h"

#include <gtest/gtest.h>

#include <string>
#include <thread>
#include <vector>

namespace optrace::instrument {
namespace {

TEST(NameTableTest, SameTextTwice_SameIdAsIntern) {
  LossCounter over_cap("test.names_over_cap");
  NameTable table(16, over_cap);
  const uint32_t id = table.Id("rms_norm");
  EXPECT_EQ(table.Id("rms_norm"), id);
  EXPECT_EQ(id, Intern("rms_norm"));
  EXPECT_NE(table.Id("softmax"), id);
  EXPECT_EQ(over_cap.value(), 0u);
}

TEST(NameTableTest, MoreDistinctTextsThanCap_LaterOnesShareGenericNameAndAreCounted) {
  LossCounter over_cap("test.names_over_cap");
  NameTable table(4, over_cap);
  for (int i = 0; i < 4; ++i) {
    EXPECT_EQ(table.Id("name_" + std::to_string(i)), Intern("name_" + std::to_string(i)));
  }
  const uint32_t generic = Intern("<too many names>");
  EXPECT_EQ(table.Id("name_4"), generic);
  EXPECT_EQ(table.Id("name_5"), generic);
  EXPECT_EQ(over_cap.value(), 2u);
  // Texts admitted before the cap keep their ids.
  EXPECT_EQ(table.Id("name_0"), Intern("name_0"));
}

TEST(NameTableTest, TwoTablesSameText_EachAnswersFromItsOwnEntries) {
  LossCounter over_cap("test.names_over_cap");
  NameTable full(0, over_cap);
  NameTable open(8, over_cap);
  EXPECT_EQ(open.Id("shared_text"), Intern("shared_text"));
  // The thread's cache holds open's entry; full must not answer from it.
  EXPECT_EQ(full.Id("shared_text"), Intern("<too many names>"));
}

TEST(NameTableTest, ManyThreadsSameTexts_AllGetTheSameIds) {
  LossCounter over_cap("test.names_over_cap");
  NameTable table(1024, over_cap);
  std::vector<std::thread> threads;
  std::vector<std::vector<uint32_t>> ids(4);
  for (int t = 0; t < 4; ++t) {
    threads.emplace_back([&, t] {
      for (int i = 0; i < 200; ++i) ids[t].push_back(table.Id("op_" + std::to_string(i % 50)));
    });
  }
  for (auto& thread : threads) thread.join();
  for (int t = 1; t < 4; ++t) EXPECT_EQ(ids[t], ids[0]);
  EXPECT_EQ(over_cap.value(), 0u);
}

TEST(NameTableTest, IsPlaceholder_TrueForTheCapsIdsOnly) {
  LossCounter over_cap("test.names_over_cap");
  NameTable table(1, over_cap);
  const uint32_t own = table.Id("kept_name");
  const uint32_t capped = table.Id("one_too_many");
  EXPECT_FALSE(table.IsPlaceholder(own));
  EXPECT_TRUE(table.IsPlaceholder(capped));
  EXPECT_TRUE(table.IsPlaceholder(abi::kStringTableFull));
}

}  // namespace
}  // namespace optrace::instrument
