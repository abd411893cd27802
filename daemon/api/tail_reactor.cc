#include "api/tail_reactor.h"

namespace optrace::daemon {

TailReactor::TailReactor(TailHub* hub, std::shared_ptr<TailSubscription> subscription, bool batch,
                         StreamQuota::Lease lease)
    : hub_(hub), subscription_(std::move(subscription)), batch_(batch), lease_(std::move(lease)) {
  Pump();
}

void TailReactor::Pump() {
  if (cancelled_.load(std::memory_order_acquire)) return Finish(grpc::Status::OK);
  if (!built_) {
    const uint64_t skipped_before = subscription_->skipped();
    const bool any = subscription_->Next(batch_, &message_);
    hub_->CountSkipped(subscription_->skipped() - skipped_before);
    if (!any) {
      if (!hub_->Park(this, subscription_->cursor(), false, cancelled_)) Finish(grpc::Status::OK);
      return;
    }
    built_ = true;
    message_bytes_ = message_.ByteSizeLong();
  }
  if (!lease_.ReserveBytes(message_bytes_)) {
    // The uid's clients hold as much as they may: wait for them to read.
    if (!hub_->Park(this, subscription_->cursor(), true, cancelled_)) Finish(grpc::Status::OK);
    return;
  }
  built_ = false;
  StartWrite(&message_);
}

void TailReactor::OnWriteDone(bool ok) {
  lease_.ReleaseBytes(message_bytes_);
  if (!ok) return Finish(grpc::Status::OK);  // the client is gone
  Pump();
}

void TailReactor::Resume() { Pump(); }

void TailReactor::OnCancel() {
  // Release: pairs with the acquire load in Pump and in TailHub::Park.
  cancelled_.store(true, std::memory_order_release);
  if (hub_->Unpark(this)) Finish(grpc::Status::OK);
}

void TailReactor::OnDone() {
  // However the stream ended (client gone, cancelled, daemon stopping), the
  // subscription goes, and with it the level it raised.
  hub_->Unsubscribe(subscription_);
  delete this;
}

}  // namespace optrace::daemon
