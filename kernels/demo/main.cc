// optrace-demo: a small transformer inference runtime that traces every op
// it runs through optrace, on the CPU or on a CUDA device.
//
//   optrace-demo [--device cpu|gpu] [--mode unfused|fused] [--layers N]
//                [--steps N] [--batch B] [--hidden H] [--seed S]
//                [--crash-after N]
//
// Prints one line, "checksum=<value>", identical (within float tolerance)
// for both modes and both devices. Exit status: 0 on success, 2 for bad
// arguments, 1 when the run fails; --crash-after N aborts (SIGABRT) inside
// the Nth op, after its LAUNCH and before its COMPLETE, leaving it as the
// one open op for crash forensics.
#include <CLI/CLI.hpp>
#include <cstdio>
#include <cstdlib>
#include <exception>
#include <memory>
#include <string>

#include "kernels/backend.h"
#include "kernels/cpu/cpu_backend.h"
#include "kernels/demo/mlp_model.h"
#include "kernels/gpu_backend_factory.h"

namespace {

using optrace::kernels::Backend;
using optrace::kernels::demo::FusionMode;
using optrace::kernels::demo::ModelConfig;

struct DemoOptions {
  std::string device = "cpu";
  std::string mode = "unfused";
  uint64_t steps = 8;
  uint64_t crash_after = 0;  // 0: never
  ModelConfig model;
};

// The backend --device asks for; a GPU request without a usable device
// falls back to the CPU with one line on stderr.
std::unique_ptr<Backend> MakeBackend(const std::string& device) {
  if (device == "gpu") {
    std::string why_not;
    if (std::unique_ptr<Backend> gpu = optrace::kernels::CreateGpuBackend(0, &why_not)) return gpu;
    std::fprintf(stderr, "optrace-demo: --device gpu: %s; running on cpu instead\n",
                 why_not.c_str());
  }
  return std::make_unique<optrace::kernels::cpu::CpuBackend>();
}

// Makes op `crash_after` abort once its LAUNCH is recorded. Every earlier
// op is finished first (on a GPU they would otherwise still be in flight),
// so the crash leaves exactly one op open.
void ArmCrash(Backend& backend, uint64_t crash_after) {
  backend.SetLaunchObserver(
      [&backend, crash_after](uint64_t ordinal, optrace::kernels::OpKind kind) {
        if (ordinal != crash_after) return;
        backend.Synchronize();
        std::fprintf(stderr, "optrace-demo: --crash-after %llu: aborting inside op %llu (%s)\n",
                     static_cast<unsigned long long>(crash_after),
                     static_cast<unsigned long long>(ordinal), optrace::kernels::OpName(kind));
        std::abort();
      });
}

int Run(const DemoOptions& options) {
  std::unique_ptr<Backend> backend = MakeBackend(options.device);
  if (options.crash_after != 0) ArmCrash(*backend, options.crash_after);
  optrace::kernels::demo::MlpModel model(*backend, options.model);
  double checksum = 0.0;
  for (uint64_t step = 0; step < options.steps; ++step) checksum += model.RunStep(step);
  backend->Synchronize();
  std::printf("checksum=%.4f\n", checksum);
  return 0;
}

}  // namespace

int main(int argc, char** argv) {
  DemoOptions options;
  CLI::App app{
      "optrace-demo: a small transformer inference runtime traced op by op with optrace.\n"
      "Set OPTRACE_LEVEL=trace OPTRACE_SINK=stderr to see its ops without a daemon."};
  app.add_option("--device", options.device,
                 "Where ops run; gpu falls back to cpu without a device")
      ->check(CLI::IsMember({"cpu", "gpu"}))
      ->capture_default_str();
  app.add_option("--mode", options.mode, "One op per step of the math, or the fused kernels")
      ->check(CLI::IsMember({"unfused", "fused"}))
      ->capture_default_str();
  app.add_option("--layers", options.model.layers, "MLP blocks per forward pass")
      ->check(CLI::Range(1, 1024))
      ->capture_default_str();
  app.add_option("--steps", options.steps, "Forward passes, each on a new seeded batch")
      ->check(CLI::Range(1, 1000000))
      ->capture_default_str();
  app.add_option("--batch", options.model.batch, "Rows per batch")
      ->check(CLI::Range(1, 4096))
      ->capture_default_str();
  app.add_option("--hidden", options.model.hidden, "Hidden size (the MLP is 4x wider)")
      ->check(CLI::Range(1, 8192))
      ->capture_default_str();
  app.add_option("--seed", options.model.seed, "Seed of the weights and inputs")
      ->capture_default_str();
  app.add_option("--crash-after", options.crash_after,
                 "Abort inside op N (after its LAUNCH, before its COMPLETE)")
      ->check(CLI::PositiveNumber);
  try {
    app.parse(argc, argv);
  } catch (const CLI::ParseError& e) {
    const int rc = app.exit(e);  // prints help, or the error and a hint
    return rc == 0 ? 0 : 2;
  }
  options.model.mode = options.mode == "fused" ? FusionMode::kFused : FusionMode::kUnfused;
  try {
    return Run(options);
  } catch (const std::exception& e) {
    std::fprintf(stderr, "optrace-demo: %s\n", e.what());
    return 1;
  }
}
