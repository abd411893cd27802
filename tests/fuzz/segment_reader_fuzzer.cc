// libFuzzer target: arbitrary segment images through the consumer's whole
// path (attach and validate, drain in both modes, read every string and
// every listing). Bits of the first byte:
//   1: fix the identity fields up, so that the fuzzer spends its time past
//      the first checks, in geometry, rings and strings;
//   2: drain through the daemon's ProducerSession instead, as the drain
//      loop does: events into the correlator (pairing, nesting, instants,
//      listings), then Finish as when the process ended, and the cut of
//      a storage batch.
#include <fcntl.h>
#include <sys/mman.h>
#include <unistd.h>

#include <cstdint>
#include <cstring>
#include <string>
#include <vector>

#include "common/segment_name.h"
#include "drain/producer_session.h"
#include "optrace/abi.h"
#include "optrace/reader/attached_segment.h"
#include "optrace/reader/listing_table_reader.h"
#include "optrace/reader/segment_drainer.h"
#include "optrace/reader/string_table_reader.h"

namespace {

constexpr char kNamespace[] = "optfuzz";

using namespace optrace;

// The reader's own path: drains with resumed positions, reads every string
// the events and listings name.
void ReadSegment(reader::AttachedSegment& seg) {
  reader::ReaderStats stats;
  std::vector<abi::OpEvent> events;
  reader::SegmentDrainer drainer(seg, reader::ReleasePolicy::kOnCommit);
  for (uint32_t r = 0; r < drainer.ring_count(); ++r) drainer.ResumeAt(r, r * 7);
  drainer.Drain(4096, reader::DrainMode::kLive, 1, &events, &stats);
  drainer.Drain(4096, reader::DrainMode::kFinal, 1'000'000'000, &events, &stats);
  reader::StringTableReader strings(seg);
  const auto fields = seg.ReadProducerFields();
  const uint32_t count = fields ? fields->string_count : 0;
  for (uint32_t id = 0; id < count && id < 4096; ++id) strings.Get(id, &stats);
  for (const abi::OpEvent& e : events) {
    strings.Get(e.name_id, &stats);
    strings.Get(e.tag_id, &stats);
  }
  reader::ListingTableReader listings(seg);
  for (const auto& listing :
       listings.ReadNew(drainer.published_listings(), drainer.published_strings(), &stats)) {
    strings.Get(listing.file_id, &stats);
  }
  seg.CheckLiveness();
}

// The daemon's path: one live drain pass, the end of the process, the cut.
void DrainSession(std::unique_ptr<reader::AttachedSegment> seg, const SegmentName& name) {
  daemon::SessionRecord record;
  record.id = 1;
  record.segment_name = name.Format();
  record.pid = name.pid;
  record.uid = name.uid;
  daemon::StringDictionary dictionary;
  daemon::ProducerSession session(std::move(seg), record, &dictionary, nullptr, {});
  session.Drain(4096, reader::DrainMode::kLive, 1);
  session.Finish(2'000'000'000, 1'000'000'000);
  daemon::StoreBatch batch;
  batch.sequence = 1;
  session.CutInto(&batch);
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  if (size < 1 || size > (8u << 20)) return 0;
  const bool fix_identity = (data[0] & 1) != 0;
  std::vector<uint8_t> image(data + 1, data + size);
  if (image.size() < abi::kMinSegmentBytes) image.resize(abi::kMinSegmentBytes, 0);
  const SegmentName name{kNamespace, static_cast<uint32_t>(::getuid()),
                         static_cast<uint32_t>(::getpid()), 0x0123456789abcdefULL};
  if (fix_identity) {
    abi::SegmentHeader h;
    std::memcpy(static_cast<void*>(&h), image.data(), sizeof h);
    h.magic = abi::kSegmentMagic;
    h.abi_major = abi::kAbiMajor;
    h.segment_bytes = image.size();
    h.pid = name.pid;
    h.uid = name.uid;
    h.nonce = name.nonce;
    h.state.store(static_cast<uint32_t>(abi::SegmentState::kReady));
    std::memcpy(image.data(), static_cast<const void*>(&h), sizeof h);
  }
  const std::string shm = name.Format();
  const std::string path = std::string(kShmFolder) + "/" + shm;
  const int fd = ::open(path.c_str(), O_RDWR | O_CREAT | O_TRUNC, 0600);
  if (fd < 0) return 0;
  const bool written =
      ::write(fd, image.data(), image.size()) == static_cast<ssize_t>(image.size());
  ::close(fd);
  if (written) {
    reader::AttachPolicy policy;
    policy.ns = kNamespace;
    auto attached = reader::AttachedSegment::Attach(shm, policy);
    if (attached.ok()) {
      if ((data[0] & 2) != 0) {
        DrainSession(std::move(attached).value(), name);
      } else {
        ReadSegment(*attached.value());
      }
    }
  }
  ::unlink(path.c_str());
  return 0;
}
