#include "export/export_buffer.h"

namespace optrace::daemon {

Status ExportBuffer::Send() {
  if (text_.empty()) return Status::Ok();
  if (!sink_(text_, spans_done_)) {
    return Status::Unavailable("export stopped after " + std::to_string(bytes_sent_) +
                               " bytes: the client is gone");
  }
  bytes_sent_ += text_.size();
  text_.clear();
  return Status::Ok();
}

}  // namespace optrace::daemon
