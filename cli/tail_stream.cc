#include "tail_stream.h"

#include <google/protobuf/arena.h>

namespace optrace::cli {

void ReadTailStream(grpc::ClientReaderInterface<v1::TailResponse>& reader,
                    const std::function<void(const v1::TailResponse& message)>& on_message) {
  google::protobuf::Arena arena;
  while (true) {
    arena.Reset();
    auto* message = google::protobuf::Arena::CreateMessage<v1::TailResponse>(&arena);
    if (!reader.Read(message)) return;
    on_message(*message);
  }
}

}  // namespace optrace::cli
