// CUDA activity end to end on a real GPU: an NVTX-annotated CUDA program
// run with both injection libraries under a real optraced; its kernels
// and copies must be stored as gpu:N spans inside the NVTX range that
// launched them. Skipped, with the reason, where there is no usable GPU.
#include <cuda_runtime.h>
#include <gtest/gtest.h>

#include <chrono>
#include <memory>
#include <string>

#include "daemon_process.h"
#include "optrace/abi.h"
#include "store_view.h"
#include "subprocess.h"
#include "temp_folder.h"

namespace optrace {
namespace {

using namespace std::chrono_literals;
using daemon::Span;
using daemon::SpanStatus;
using testing::StoredSession;

// Why this machine cannot run the test, or "" when it can.
std::string NoGpuReason() {
  int devices = 0;
  const cudaError_t err = cudaGetDeviceCount(&devices);
  if (err != cudaSuccess) {
    return "no usable CUDA device: cudaGetDeviceCount returned " +
           std::to_string(static_cast<int>(err)) + " (" + cudaGetErrorString(err) + ")";
  }
  return devices == 0 ? "no CUDA device: cudaGetDeviceCount found 0" : "";
}

bool StartsWith(const std::string& text, const std::string& prefix) {
  return text.rfind(prefix, 0) == 0;
}

// The only span whose name starts with `prefix` and tag with `tag_prefix`.
const Span* FindSpan(const StoredSession& s, const std::string& prefix,
                     const std::string& tag_prefix) {
  const Span* found = nullptr;
  for (const Span& span : s.spans) {
    if (!StartsWith(s.Text(span.name), prefix) || !StartsWith(s.Text(span.tag), tag_prefix)) {
      continue;
    }
    EXPECT_EQ(found, nullptr) << "two spans " << prefix << " " << tag_prefix;
    found = &span;
  }
  EXPECT_NE(found, nullptr) << "no span " << prefix << " " << tag_prefix;
  return found;
}

TEST(CuptiDeviceTest, NvtxCudaProgram_KernelsAndCopiesAreGpuSpansInsideTheirRange) {
  const std::string no_gpu = NoGpuReason();
  if (!no_gpu.empty()) GTEST_SKIP() << no_gpu;
  testing::TempFolder folder;
  testing::DaemonProcess daemon(folder.path());
  ASSERT_TRUE(daemon.Start()) << daemon.log();
  testing::Subprocess program({CUDA_NVTX_PROGRAM},
                              {{"NVTX_INJECTION64_PATH", OPTRACE_NVTX_LIBRARY},
                               {"CUDA_INJECTION64_PATH", OPTRACE_CUPTI_LIBRARY},
                               {"OPTRACE_LEVEL", "trace"}});
  const auto status = program.Wait(60s);
  ASSERT_TRUE(status && status->exited && status->code == 0) << program.stderr_text();
  const auto session =
      testing::WaitForStoredSession(daemon.db_path(), static_cast<uint32_t>(program.pid()), 20s);
  ASSERT_TRUE(session.has_value()) << daemon.log();
  const StoredSession& s = *session;

  const Span& step = s.SpanNamed("train_step");
  ASSERT_EQ(step.status, SpanStatus::kOk);
  const Span* kernel = FindSpan(s, "Scale(", "grid=4x1x1 block=128x1x1 ");
  const Span* outside = FindSpan(s, "Scale(", "grid=2x1x1 block=64x1x1 ");
  const Span* to_device = FindSpan(s, "memcpy_HtoD", "bytes=1048576");
  const Span* to_host = FindSpan(s, "memcpy_DtoH", "bytes=1048576");
  ASSERT_TRUE(kernel && outside && to_device && to_host);
  for (const Span* gpu : {kernel, outside, to_device, to_host}) {
    EXPECT_EQ(gpu->status, SpanStatus::kOk);
    EXPECT_EQ(gpu->target, static_cast<uint8_t>(abi::TargetKind::kGpu));
    EXPECT_EQ(gpu->device, 0);
    EXPECT_GT(gpu->device_ns, 0u);
  }
  for (const Span* inside : {kernel, to_device, to_host}) {
    EXPECT_EQ(inside->parent_op_id, step.op_id);
    // Device times on the host clock: within the range, give or take the
    // clock mapping's error.
    constexpr int64_t kSlackNs = 1000000;
    EXPECT_GE(inside->start_ns, step.start_ns - kSlackNs);
    EXPECT_LE(inside->start_ns + static_cast<int64_t>(inside->duration_ns),
              step.start_ns + static_cast<int64_t>(step.duration_ns) + kSlackNs);
  }
  EXPECT_EQ(outside->parent_op_id, 0u);
  EXPECT_EQ(kernel->stream, outside->stream);
  EXPECT_EQ(daemon.Stop(), 0);
}

}  // namespace
}  // namespace optrace
