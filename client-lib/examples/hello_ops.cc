// The smallest useful optrace producer: a few CPU "ops" traced through the
// C++ API. Run with OPTRACE_LEVEL=trace OPTRACE_SINK=stderr to see the op
// log without a daemon, or under `optrace run` to record it.
#include <cstdio>
#include <numeric>
#include <vector>

#include "optrace/optrace.hpp"

namespace {

float Sum(const std::vector<float>& v) {
  OPTRACE_SCOPED_OP(op, "reduce_sum", "reduce_sum_4096_f32");
  return std::accumulate(v.begin(), v.end(), 0.0f);
}

void Scale(std::vector<float>& v, float k) {
  static optrace::OpSite site("elementwise", "elementwise_mul_4096_f32");
  optrace::ScopedOp op(site, optrace::Placement::Cpu(0));
  for (float& x : v) x *= k;
}

}  // namespace

int main() {
  std::vector<float> v(4096, 1.0f);
  float total = 0;
  for (int step = 0; step < 3; ++step) {
    OPTRACE_SCOPED_OP(op, "step");
    Scale(v, 1.5f);
    total += Sum(v);
  }
  std::printf("checksum %.3f\n", total);
  return 0;
}
