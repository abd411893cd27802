#include "live/published_strings.h"

#include <gtest/gtest.h>

#include <string>
#include <thread>
#include <vector>

namespace optrace::daemon {
namespace {

TEST(PublishedStringsTest, Append_IdsInOrderAndUnknownIdsEmpty) {
  PublishedStrings table;
  EXPECT_EQ(table.Append(""), 0u);
  EXPECT_EQ(table.Append("matmul"), 1u);
  EXPECT_EQ(table.Append("rms_norm"), 2u);
  EXPECT_EQ(table.size(), 3u);
  EXPECT_EQ(table.Text(1), "matmul");
  EXPECT_EQ(table.Text(2), "rms_norm");
  EXPECT_EQ(table.Text(3), "") << "not published yet";
  EXPECT_EQ(table.Text(0xFFFFFFFFu), "");
}

TEST(PublishedStringsTest, ManyChunks_ReferencesStayValid) {
  PublishedStrings table;
  table.Append("first");
  const std::string& first = table.Text(0);
  for (int i = 1; i < 100'000; ++i) table.Append("s" + std::to_string(i));
  EXPECT_EQ(&first, &table.Text(0)) << "a text never moves";
  EXPECT_EQ(first, "first");
  EXPECT_EQ(table.Text(99'999), "s99999");
  EXPECT_EQ(table.Text(256), "s256") << "first id of the second chunk";
  EXPECT_EQ(table.Text(255), "s255") << "last id of the first chunk";
}

// Readers resolve every id below size() while the writer appends: under
// ThreadSanitizer this checks that publishing needs no lock.
TEST(PublishedStringsTest, ConcurrentReaders_SeeEveryPublishedText) {
  PublishedStrings table;
  constexpr int kTexts = 50'000;
  std::atomic<bool> done{false};
  std::atomic<int> wrong{0};
  std::vector<std::thread> readers;
  for (int r = 0; r < 3; ++r) {
    readers.emplace_back([&] {
      while (!done.load(std::memory_order_acquire)) {
        const uint32_t n = table.size();
        if (n == 0) continue;
        const uint32_t id = n - 1;
        if (table.Text(id) != "t" + std::to_string(id)) wrong.fetch_add(1);
      }
    });
  }
  for (int i = 0; i < kTexts; ++i) table.Append("t" + std::to_string(i));
  done.store(true, std::memory_order_release);
  for (auto& t : readers) t.join();
  EXPECT_EQ(wrong.load(), 0);
  EXPECT_EQ(table.size(), static_cast<uint32_t>(kTexts));
}

}  // namespace
}  // namespace optrace::daemon
