#include "api_test_store.h"

#include <gtest/gtest.h>

#include "store_test_data.h"

namespace optrace::testing {

namespace {
constexpr int kFlushTimeoutMs = 60'000;
}  // namespace

ApiTestStore::ApiTestStore() {
  Result<std::unique_ptr<daemon::SpanStore>> store =
      daemon::SpanStore::Open({.db_path = dir_.path() + "/trace.db", .sketch_write_interval = {}});
  EXPECT_TRUE(store.ok()) << store.status().message();
  if (store.ok()) store_ = std::move(store).value();
}

daemon::StringId ApiTestStore::Intern(const std::string& text) {
  const auto [it, inserted] = ids_.emplace(text, static_cast<daemon::StringId>(ids_.size() + 1));
  if (inserted) {
    texts_.emplace(it->second, text);
    new_strings_.emplace_back(it->second, text);
  }
  return it->second;
}

const std::string& ApiTestStore::Text(daemon::StringId id) const {
  static const std::string kEmpty;
  const auto it = texts_.find(id);
  return it == texts_.end() ? kEmpty : it->second;
}

void ApiTestStore::Submit(daemon::StoreBatch batch) {
  ASSERT_NE(store_, nullptr);
  ASSERT_EQ(reader_, nullptr) << "write everything before reading";
  batch.sequence = ++sequence_;
  batch.new_strings = std::move(new_strings_);
  new_strings_.clear();
  ASSERT_TRUE(store_->Submit(std::move(batch)));
  ASSERT_TRUE(store_->Flush(kFlushTimeoutMs));
  ASSERT_EQ(store_->GetStatus().write_errors, 0u) << store_->GetStatus().last_error;
}

void ApiTestStore::AddSession(const daemon::SessionRecord& record, std::vector<daemon::Span> spans,
                              std::vector<daemon::Instant> instants) {
  daemon::StoreBatch batch;
  batch.sessions = {record};
  if (!spans.empty()) batch.spans = {{record.id, std::move(spans)}};
  if (!instants.empty()) batch.instants = {{record.id, std::move(instants)}};
  Submit(std::move(batch));
}

void ApiTestStore::AddSpans(daemon::SessionId session, std::vector<daemon::Span> spans) {
  daemon::StoreBatch batch;
  batch.spans = {{session, std::move(spans)}};
  Submit(std::move(batch));
}

void ApiTestStore::AddListings(std::vector<daemon::SourceListing> listings) {
  daemon::StoreBatch batch;
  batch.listings = std::move(listings);
  Submit(std::move(batch));
}

daemon::SpanReader& ApiTestStore::reader() {
  if (reader_ == nullptr) {
    EXPECT_TRUE(store_->Flush(kFlushTimeoutMs));
    reader_ = OpenReader(dir_.path() + "/trace.db");
  }
  return *reader_;
}

}  // namespace optrace::testing
