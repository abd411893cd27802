// The producer's settings, read once from the environment.
#ifndef OPTRACE_CLIENT_PRODUCER_OPTIONS_H_
#define OPTRACE_CLIENT_PRODUCER_OPTIONS_H_

#include <cstdint>
#include <string>

#include "optrace/abi.h"

namespace optrace::client {

struct ProducerOptions {
  std::string ns = "optrace";                     // OPTRACE_NAMESPACE
  abi::LevelValue level = abi::LevelValue::kOff;  // OPTRACE_LEVEL
  std::string session_label;                      // OPTRACE_SESSION
  bool sink_stderr = false;                       // OPTRACE_SINK=stderr
  uint32_t ring_count = 16;                       // OPTRACE_RING_COUNT
  uint32_t ring_capacity = 16384;                 // OPTRACE_RING_CAPACITY
  // How long the first op waits, at most, for a live daemon of the
  // namespace to attach (docs/abi.md: "Start-up handshake", "Ring sizes").
  uint32_t attach_timeout_ms = 200;  // OPTRACE_ATTACH_TIMEOUT_MS
  // Lossless mode: a thread whose ring is full waits for an attached
  // daemon to make room instead of dropping, for at most the timeout
  // (docs/abi.md: "Lossless mode").
  bool full_ring_wait = false;           // OPTRACE_FULL_RING=wait (drop: the default)
  uint32_t full_ring_timeout_ms = 1000;  // OPTRACE_FULL_RING_TIMEOUT_MS
  uint32_t string_slots = 8192;
  uint32_t string_blob_bytes = 512u << 10;
  // Source listings (docs/abi.md "Listings"): the lines around each op
  // site, read by this process and shipped in its segment.
  bool listings = true;                    // OPTRACE_LISTINGS=0 turns them off
  uint32_t listing_context = 10;           // OPTRACE_LISTING_CONTEXT: lines before and after
  uint32_t listing_blob_bytes = 1u << 20;  // OPTRACE_LISTING_BYTES: the area's text bytes
  uint32_t listing_slots = 4096;

  // The listing area's entries: none when listings are off.
  uint32_t listing_slots_in_segment() const { return listings ? listing_slots : 0; }
  uint32_t listing_blob_in_segment() const { return listings ? listing_blob_bytes : 0; }
};

// Reads OPTRACE_* variables. An invalid value never fails the process: it
// is reported on stderr once ("optrace: OPTRACE_LEVEL=loud is not a level
// ...; using off") and the default is used.
ProducerOptions ReadProducerOptions();

}  // namespace optrace::client

#endif  // OPTRACE_CLIENT_PRODUCER_OPTIONS_H_
