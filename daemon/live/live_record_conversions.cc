#include "live/live_record_conversions.h"

#include <tuple>

namespace optrace::daemon {
namespace {

// A field that a model struct `From` and LiveRecord hold with the same
// type (Same deduces one T from both members, so a mismatch of types does
// not compile).
template <typename From, typename T>
struct SameField {
  T From::*from;
  T LiveRecord::*record;
};
template <typename From, typename T>
constexpr SameField<From, T> Same(T From::*from, T LiveRecord::*record) {
  return {from, record};
}

// Each struct's fields that a record holds as they are; the conversions
// below add the ones that change form. A new field is one row here.
constexpr auto kHalfFields = std::make_tuple(
    Same(&HalfOp::kind, &LiveRecord::kind), Same(&HalfOp::op_id, &LiveRecord::op_id),
    Same(&HalfOp::parent_op_id, &LiveRecord::parent_op_id),
    Same(&HalfOp::ts_ns, &LiveRecord::ts_ns), Same(&HalfOp::device_ns, &LiveRecord::device_ns),
    Same(&HalfOp::name, &LiveRecord::name), Same(&HalfOp::tag, &LiveRecord::tag),
    Same(&HalfOp::srcloc, &LiveRecord::srcloc), Same(&HalfOp::tid, &LiveRecord::tid),
    Same(&HalfOp::stream, &LiveRecord::stream), Same(&HalfOp::device, &LiveRecord::device),
    Same(&HalfOp::target, &LiveRecord::target));
constexpr auto kInstantFields = std::make_tuple(
    Same(&Instant::kind, &LiveRecord::kind), Same(&Instant::level, &LiveRecord::level),
    Same(&Instant::parent_op_id, &LiveRecord::parent_op_id),
    Same(&Instant::ts_ns, &LiveRecord::ts_ns), Same(&Instant::value, &LiveRecord::value),
    Same(&Instant::name, &LiveRecord::name), Same(&Instant::tag, &LiveRecord::tag),
    Same(&Instant::tid, &LiveRecord::tid));
constexpr auto kSpanFields = std::make_tuple(
    Same(&Span::op_id, &LiveRecord::op_id), Same(&Span::parent_op_id, &LiveRecord::parent_op_id),
    Same(&Span::start_ns, &LiveRecord::ts_ns), Same(&Span::duration_ns, &LiveRecord::duration_ns),
    Same(&Span::device_ns, &LiveRecord::device_ns),
    Same(&Span::children_ns, &LiveRecord::children_ns), Same(&Span::name, &LiveRecord::name),
    Same(&Span::tag, &LiveRecord::tag), Same(&Span::srcloc, &LiveRecord::srcloc),
    Same(&Span::launch_tid, &LiveRecord::tid), Same(&Span::complete_tid, &LiveRecord::complete_tid),
    Same(&Span::stream, &LiveRecord::stream), Same(&Span::device, &LiveRecord::device),
    Same(&Span::target, &LiveRecord::target));

template <typename From, typename Fields>
void CopyToRecord(const From& from, const Fields& fields, LiveRecord* out) {
  std::apply([&](const auto&... field) { ((out->*field.record = from.*field.from), ...); }, fields);
}

template <typename From, typename Fields>
void CopyFromRecord(const LiveRecord& record, const Fields& fields, From* out) {
  std::apply([&](const auto&... field) { ((out->*field.from = record.*field.record), ...); },
             fields);
}

}  // namespace

void HalfToLiveRecord(const HalfOp& half, std::optional<uint64_t> duration_ns, LiveRecord* out) {
  out->type = LiveRecordType::kHalf;
  CopyToRecord(half, kHalfFields, out);
  out->duration_ns = duration_ns.value_or(0);
  out->known = static_cast<uint8_t>((duration_ns ? kLiveDurationKnown : 0) |
                                    (half.has_device_ns ? kLiveDeviceDurationKnown : 0));
}

void InstantToLiveRecord(const Instant& instant, LiveRecord* out) {
  out->type = LiveRecordType::kInstant;
  CopyToRecord(instant, kInstantFields, out);
}

void SpanToLiveRecord(const Span& span, LiveRecord* out) {
  out->type = LiveRecordType::kSpan;
  CopyToRecord(span, kSpanFields, out);
  out->kind = static_cast<uint8_t>(span.status);
  out->known = span.has_device_ns ? kLiveDeviceDurationKnown : 0;
}

Span SpanFromLiveRecord(const LiveRecord& record) {
  Span span;
  CopyFromRecord(record, kSpanFields, &span);
  span.status = static_cast<SpanStatus>(record.kind);
  span.has_device_ns = (record.known & kLiveDeviceDurationKnown) != 0;
  return span;
}

}  // namespace optrace::daemon
