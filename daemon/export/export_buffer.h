// ExportBuffer: the bytes of an export on their way to the client, sent in
// chunks of about kChunkBytes.
#ifndef OPTRACE_DAEMON_EXPORT_EXPORT_BUFFER_H_
#define OPTRACE_DAEMON_EXPORT_EXPORT_BUFFER_H_

#include <cstddef>
#include <cstdint>
#include <string>

#include "common/status.h"
#include "export/export_sink.h"

namespace optrace::daemon {

// Writers append to text(); the export's driver calls SendIfFull after each
// record, so that a chunk is kChunkBytes plus at most one record, and Send
// at the end. Borrows `sink`, which must outlive the buffer.
// Thread rules: one thread at a time.
class ExportBuffer {
 public:
  static constexpr size_t kChunkBytes = size_t{1} << 20;

  explicit ExportBuffer(const ExportSink& sink) : sink_(sink) { text_.reserve(kChunkBytes * 2); }
  ExportBuffer(const ExportBuffer&) = delete;
  ExportBuffer& operator=(const ExportBuffer&) = delete;

  std::string& text() { return text_; }

  // The spans written so far, reported with each chunk.
  void set_spans_done(uint64_t spans_done) { spans_done_ = spans_done; }

  // Sends the text as one chunk once it holds at least kChunkBytes.
  // kUnavailable when the sink says the client is gone.
  Status SendIfFull() { return text_.size() < kChunkBytes ? Status::Ok() : Send(); }

  // Sends whatever the text holds (nothing when it is empty). kUnavailable
  // when the sink says the client is gone.
  Status Send();

 private:
  const ExportSink& sink_;
  std::string text_;
  uint64_t spans_done_ = 0;
  uint64_t bytes_sent_ = 0;
};

}  // namespace optrace::daemon

#endif  // OPTRACE_DAEMON_EXPORT_EXPORT_BUFFER_H_
