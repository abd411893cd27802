#include "api/tail_reactor.h"

#include <grpc/slice.h>

#include <algorithm>
#include <string>
#include <utility>

namespace optrace::daemon {
namespace {

// A slice that owns `bytes`: gRPC frees them when it is done sending, and
// no copy is made.
grpc::Slice OwningSlice(std::string bytes) {
  auto* owned = new std::string(std::move(bytes));
  return grpc::Slice(grpc_slice_new_with_user_data(
                         owned->data(), owned->size(),
                         [](void* p) { delete static_cast<std::string*>(p); }, owned),
                     grpc::Slice::STEAL_REF);
}

// The message as the buffer gRPC sends: its head, then its body.
grpc::ByteBuffer ToByteBuffer(EncodedTailMessage message) {
  grpc::Slice slices[] = {OwningSlice(std::move(message.head)),
                          OwningSlice(std::move(message.body))};
  return grpc::ByteBuffer(slices, 2);
}

}  // namespace

TailReactor::TailReactor(TailHub* hub, std::shared_ptr<TailSubscription> subscription, bool batch,
                         StreamQuota::Lease lease)
    : hub_(hub),
      subscription_(std::move(subscription)),
      batch_(batch),
      lease_(std::move(lease)),
      encoder_(subscription_->source()) {
  Pump();
}

void TailReactor::Pump() {
  if (cancelled_.load(std::memory_order_acquire)) return Finish(grpc::Status::OK);
  if (!subscription_->RecordsPending()) {
    if (!hub_->parking().Park(this, subscription_->cursor(), false, cancelled_))
      Finish(grpc::Status::OK);
    return;
  }
  // Room for the largest message first, so that a stream waiting for its
  // uid's clients to read holds no message: what a uid's streams hold is
  // what its lease counts, within max_bytes_in_flight_per_uid.
  const uint64_t room = TailMessageEncoder::MaxMessageBytes(batch_);
  if (!lease_.ReserveBytes(room)) {
    if (!hub_->parking().Park(this, subscription_->cursor(), true, cancelled_))
      Finish(grpc::Status::OK);
    return;
  }
  const uint64_t skipped_before = subscription_->skipped();
  const bool any = subscription_->Next(batch_, encoder_);
  hub_->CountSkipped(subscription_->skipped() - skipped_before);
  if (!any) {
    lease_.ReleaseBytes(room);
    if (!hub_->parking().Park(this, subscription_->cursor(), false, cancelled_))
      Finish(grpc::Status::OK);
    return;
  }
  EncodedTailMessage message = encoder_.TakeMessage();
  // The encoder keeps a message within `room` (its unit tests hold it to
  // that); the min only keeps the books whole.
  message_bytes_ = std::min<uint64_t>(message.size(), room);
  lease_.ReleaseBytes(room - message_bytes_);
  message_ = ToByteBuffer(std::move(message));
  StartWrite(&message_);
}

void TailReactor::OnWriteDone(bool ok) {
  lease_.ReleaseBytes(message_bytes_);
  message_.Clear();                          // gRPC is done with it: its bytes can go now
  if (!ok) return Finish(grpc::Status::OK);  // the client is gone
  Pump();
}

void TailReactor::Resume() { Pump(); }

void TailReactor::OnCancel() {
  // Release: pairs with the acquire load in Pump and in TailHub::Park.
  cancelled_.store(true, std::memory_order_release);
  if (hub_->parking().Unpark(this)) Finish(grpc::Status::OK);
}

void TailReactor::OnDone() {
  // However the stream ended (client gone, cancelled, daemon stopping), the
  // subscription goes, and with it the level it raised.
  hub_->Unsubscribe(subscription_);
  delete this;
}

}  // namespace optrace::daemon
