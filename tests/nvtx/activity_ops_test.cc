// CUPTI kernel and memcpy records as finished optrace ops.
#include "nvtx/cupti/activity_ops.h"

#include <gtest/gtest.h>

#include <string>

namespace optrace::nvtx {
namespace {

class ActivityOpsTest : public ::testing::Test {
 protected:
  instrument::LossCounter over_cap_{"test.names_over_cap"};
  instrument::NameTable names_{256, over_cap_};
  CorrelationTable correlations_;
  ActivityOps ops_{names_, correlations_};
  // Event clock = 2 ticks per CUPTI ns, CUPTI 1000 ns = tick 10000.
  ClockMapping clock_{{1000, 10000}, 2.0};
};

KernelActivity Kernel(const char* name) {
  KernelActivity k;
  k.name = name;
  k.device = 1;
  k.stream = 7;
  k.grid[0] = 4;
  k.grid[1] = 2;
  k.grid[2] = 1;
  k.block[0] = 128;
  k.block[1] = 1;
  k.block[2] = 1;
  k.shared_memory_bytes = 4096;
  k.registers_per_thread = 32;
  k.start_ns = 2000;
  k.end_ns = 2500;
  k.correlation_id = 99;
  return k;
}

TEST_F(ActivityOpsTest, Kernel_GpuOpWithDemangledNameGeometryTagParentAndTimes) {
  correlations_.Put(99, 4242);
  const FinishedOp op = ops_.FromKernel(Kernel("_Z9vectorAddPKfS0_Pfi"), clock_);
  EXPECT_EQ(op.name_id, Intern("vectorAdd(float const*, float const*, float*, int)"));
  EXPECT_EQ(op.tag_id, Intern("grid=4x2x1 block=128x1x1 smem=4096 regs=32"));
  EXPECT_EQ(op.placement.target, Target::kGpu);
  EXPECT_EQ(op.placement.device, 1);
  EXPECT_EQ(op.placement.stream, 7u);
  EXPECT_EQ(op.parent_op_id, 4242u);
  EXPECT_EQ(op.launch_ts, 12000u);
  EXPECT_EQ(op.complete_ts, 13000u);
  EXPECT_EQ(op.device_duration_ns, 500u);
}

TEST_F(ActivityOpsTest, ExternCKernelOrNoName_KeptOrUnnamed) {
  EXPECT_EQ(ops_.FromKernel(Kernel("my_c_kernel"), clock_).name_id, Intern("my_c_kernel"));
  EXPECT_EQ(ops_.FromKernel(Kernel(nullptr), clock_).name_id, Intern("<unnamed kernel>"));
}

TEST_F(ActivityOpsTest, KernelLaunchedOutsideAnyOp_NoParent) {
  EXPECT_EQ(ops_.FromKernel(Kernel("k"), clock_).parent_op_id, 0u);
}

TEST_F(ActivityOpsTest, Malicious_EndBeforeStart_ZeroDurationNotNegative) {
  KernelActivity k = Kernel("k");
  k.end_ns = 1500;
  const FinishedOp op = ops_.FromKernel(k, clock_);
  EXPECT_EQ(op.device_duration_ns, 0u);
  EXPECT_EQ(op.complete_ts, op.launch_ts);
}

TEST_F(ActivityOpsTest, Memcpy_DirectionNameAndBytesTag) {
  MemcpyActivity m;
  m.direction = "HtoD";
  m.bytes = 1 << 20;
  m.start_ns = 1000;
  m.end_ns = 1100;
  const FinishedOp op = ops_.FromMemcpy(m, clock_);
  EXPECT_EQ(op.name_id, Intern("memcpy_HtoD"));
  EXPECT_EQ(op.tag_id, Intern("bytes=1048576"));
  EXPECT_EQ(op.device_duration_ns, 100u);
  EXPECT_EQ(op.placement.target, Target::kGpu);
}

}  // namespace
}  // namespace optrace::nvtx
