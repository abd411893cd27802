// Writes the binary seed inputs of the fuzz targets (tests/fuzz/corpus/):
// a small valid segment image, span pages, and one request of each RPC.
//   optrace-fuzz-seeds OUTPUT_FOLDER
// Run it again after an ABI, page format or proto change.
#include <unistd.h>

#include <cstdio>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <string>
#include <vector>

#include "optrace/v1/optrace.pb.h"
#include "producer_segment.h"
#include "storage/span_page_codec.h"
#include "string_interner.h"

namespace {

using namespace optrace;

void Write(const std::filesystem::path& path, const std::string& bytes) {
  std::filesystem::create_directories(path.parent_path());
  std::ofstream(path, std::ios::binary) << bytes;
}

// A segment of 2 rings x 64 events with strings and a few ops, as bytes,
// behind the fuzzer's leading control byte `control` (1: fix the identity
// fields; 2: drain it through a ProducerSession).
std::string SegmentImage(char control) {
  client::ProducerOptions o;
  o.ns = "optfuzzseed";
  o.ring_count = 2;
  o.ring_capacity = 64;
  o.string_slots = 8;
  o.string_blob_bytes = 256;
  std::string error;
  auto seg =
      client::ProducerSegment::Create(o, abi::LevelValue::kTrace, abi::LevelValue::kTrace, &error);
  if (!seg) {
    std::fprintf(stderr, "%s\n", error.c_str());
    std::exit(1);
  }
  client::StringInterner strings(o.string_slots, o.string_blob_bytes);
  strings.AttachSegment(seg.get());
  const uint32_t name = strings.Intern("matmul");
  for (uint32_t ring = 0; ring < 2; ++ring) {
    seg->ring(ring).state.store(static_cast<uint32_t>(abi::RingState::kActive));
    for (uint64_t pos = 0; pos < 6; ++pos) {
      abi::OpEvent& e = seg->slots(ring)[pos];
      e.ts = 100 + pos;
      e.op_id = 1 + pos / 2 + ring * 100;
      e.name_id = name;
      e.kind =
          static_cast<uint8_t>(pos % 2 == 0 ? abi::EventKind::kLaunch : abi::EventKind::kComplete);
      e.level = 5;
      e.target_kind = 1;
      e.stamp = abi::StampFor(pos);
    }
    seg->ring(ring).write_pos.store(6);
  }
  const std::string path = std::string("/dev/shm/") + seg->name();
  std::ifstream in(path, std::ios::binary);
  std::string bytes((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  seg->Unlink();
  return std::string(1, control) + bytes;
}

std::string Page() {
  std::vector<daemon::Span> spans(5);
  for (size_t i = 0; i < spans.size(); ++i) {
    spans[i].op_id = 10 + i;
    spans[i].start_ns = static_cast<int64_t>(1000 * i);
    spans[i].duration_ns = 50 * i;
    spans[i].name = static_cast<daemon::StringId>(1 + i % 2);
    spans[i].target = 1;
  }
  return daemon::span_page::Encode(spans);
}

}  // namespace

int main(int argc, char** argv) {
  if (argc != 2) {
    std::fprintf(stderr, "usage: %s OUTPUT_FOLDER\n", argv[0]);
    return 2;
  }
  const std::filesystem::path out(argv[1]);
  Write(out / "segment_reader_fuzzer" / "small_valid_segment", SegmentImage('\x01'));
  Write(out / "segment_reader_fuzzer" / "small_valid_segment_as_session", SegmentImage('\x03'));
  Write(out / "span_page_codec_fuzzer" / "five_spans", Page());
  v1::QueryOpsRequest query;
  query.set_session_id(1);
  query.set_limit(10);
  query.mutable_filter()->set_name_pattern("^mat");
  Write(out / "request_fuzzer" / "query_ops", std::string(1, '\0') + query.SerializeAsString());
  v1::GetStatsRequest stats;
  stats.set_session_id(1);
  stats.set_by(v1::GROUP_BY_TAG);
  Write(out / "request_fuzzer" / "get_stats", std::string(1, '\1') + stats.SerializeAsString());
  v1::CompareSessionsRequest compare;
  compare.set_session_a(1);
  compare.set_session_b(2);
  Write(out / "request_fuzzer" / "compare", std::string(1, '\2') + compare.SerializeAsString());
  v1::ExportRequest exp;
  exp.set_session_id(2);
  exp.set_format(v1::EXPORT_FORMAT_CHROME_JSON);
  Write(out / "request_fuzzer" / "export_chrome", std::string(1, '\3') + exp.SerializeAsString());
  exp.set_format(v1::EXPORT_FORMAT_PERFETTO);
  Write(out / "request_fuzzer" / "export_perfetto", std::string(1, '\3') + exp.SerializeAsString());
  v1::TailRequest tail;
  tail.set_name_pattern("rms.*");
  tail.set_spans(true);
  Write(out / "request_fuzzer" / "tail", std::string(1, '\4') + tail.SerializeAsString());
  v1::GetTreeRequest tree;
  tree.set_session_id(1);
  tree.set_by_tag(true);
  tree.set_max_depth(3);
  Write(out / "request_fuzzer" / "tree", std::string(1, '\5') + tree.SerializeAsString());
  v1::GetStepsRequest steps;
  steps.set_session_id(2);
  steps.mutable_rules()->set_window(3);
  Write(out / "request_fuzzer" / "steps", std::string(1, '\6') + steps.SerializeAsString());
  v1::ExplainStepRequest why;
  why.set_session_id(2);
  why.set_step(5);
  Write(out / "request_fuzzer" / "why", std::string(1, '\7') + why.SerializeAsString());
  return 0;
}
