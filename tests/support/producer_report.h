// What test producer processes (optrace-test-producer, optrace-load) report
// on stdout: "key=value" counts, e.g. the final
// "done launches=N completes=N ring_full=N no_ring=N ...", or one
// "key=value" a line.
#ifndef OPTRACE_TESTS_SUPPORT_PRODUCER_REPORT_H_
#define OPTRACE_TESTS_SUPPORT_PRODUCER_REPORT_H_

#include <cstdint>
#include <map>
#include <string>

#include "subprocess.h"

namespace optrace::testing {

// The numeric "key=value" pairs of `text` (words without '=' are skipped).
std::map<std::string, uint64_t> ParseCounts(const std::string& text);

// The counts of the "done ..." line `producer` printed; empty until then.
std::map<std::string, uint64_t> DoneCounts(const Subprocess& producer);

// The "key=value" lines of a program's output, by key (last one wins):
// for programs that report one value a line (nvtx_test_program).
std::map<std::string, std::string> ParseKeyValueLines(const std::string& text);

}  // namespace optrace::testing

#endif  // OPTRACE_TESTS_SUPPORT_PRODUCER_REPORT_H_
