// A backend runs ops on one device (the host CPU, or one GPU through one
// stream) and traces each op it runs. Ops go through the checked, named
// entry points here; each backend supplies the memory it owns and how an op
// is executed and traced there.
#ifndef OPTRACE_KERNELS_BACKEND_H_
#define OPTRACE_KERNELS_BACKEND_H_

#include <cstdint>
#include <functional>
#include <memory>
#include <source_location>
#include <span>
#include <unordered_map>

#include "kernels/dispatch_tag.h"
#include "kernels/dispatch_tag_cache.h"
#include "kernels/tensor.h"
#include "optrace/optrace.hpp"

namespace optrace::kernels {

// One op, checked and ready to run: its shape and its operands, as pointers
// into the backend's memory. Which operands are used depends on the kind:
//   elementwise:            out = fn(x, y)     (y unused for GELU)
//   rms_norm:               out = RmsNorm(x, gamma, eps)
//   softmax:                out = Softmax(x)
//   matmul, matmul_gelu:    out = [Gelu](x * y), x M x K, y K x N
//   fused_rms_norm_matmul:  out = RmsNorm(x, gamma, eps) * y
struct OpCall {
  OpShape shape;
  const float* x = nullptr;
  const float* y = nullptr;
  const float* gamma = nullptr;
  float eps = 0.0f;
  float* out = nullptr;
};

// Called after an op's LAUNCH has been recorded and before its COMPLETE,
// with the op's 1-based ordinal among the ops of the backend and its kind.
using LaunchObserver = std::function<void(uint64_t ordinal, OpKind kind)>;

// The device-neutral half of a backend: shape checks, op names and tags.
// Every op entry point throws std::invalid_argument naming the op, the
// operand and the problem (its shape and the expected one, emptiness, or
// an output aliasing an input it must not); nothing is traced or run then.
// Backend-specific failures are documented by each backend. Each op's
// source location is where its entry point was called (`where`, defaulted
// at the caller), not a line in here.
// Not thread-safe: one thread dispatches to a backend, as to a stream.
class Backend {
 public:
  virtual ~Backend();
  Backend(const Backend&) = delete;
  Backend& operator=(const Backend&) = delete;

  // A new rows x cols tensor in this backend's memory, contents undefined,
  // valid until the backend is destroyed.
  virtual Tensor Allocate(size_t rows, size_t cols) = 0;

  // Copies `host` into `dst`, after the ops already dispatched have read
  // what they need of `dst`. Throws std::invalid_argument when the sizes
  // differ.
  void Upload(std::span<const float> host, const Tensor& dst);

  // Copies `src` into `host` once the ops dispatched so far have written
  // it. Throws std::invalid_argument when the sizes differ.
  void Download(const Tensor& src, std::span<float> host);

  // Returns once every op dispatched so far has finished and emitted its
  // COMPLETE.
  virtual void Synchronize() = 0;

  // Elementwise ops; `out` may be one of the inputs. All tensors have the
  // same rows x cols.
  void Add(const Tensor& a, const Tensor& b, const Tensor& out,
           std::source_location where = std::source_location::current());
  void Mul(const Tensor& a, const Tensor& b, const Tensor& out,
           std::source_location where = std::source_location::current());
  void Gelu(const Tensor& x, const Tensor& out,
            std::source_location where = std::source_location::current());

  // out = RmsNorm(x) row by row; `gamma` is 1 x x.cols.
  void RmsNorm(const Tensor& x, const Tensor& gamma, float eps, const Tensor& out,
               std::source_location where = std::source_location::current());

  // out = Softmax(x) row by row.
  void Softmax(const Tensor& x, const Tensor& out,
               std::source_location where = std::source_location::current());

  // c = a * b: a M x K, b K x N, c M x N, c distinct from a and b.
  void Matmul(const Tensor& a, const Tensor& b, const Tensor& c,
              std::source_location where = std::source_location::current());

  // c = Gelu(a * b) in one op; shapes as for Matmul.
  void FusedMatmulGelu(const Tensor& a, const Tensor& b, const Tensor& c,
                       std::source_location where = std::source_location::current());

  // c = RmsNorm(x, gamma, eps) * w in one op: x M x K, gamma 1 x K, w K x N,
  // c M x N, c distinct from the inputs.
  void FusedRmsNormMatmul(const Tensor& x, const Tensor& gamma, float eps, const Tensor& w,
                          const Tensor& c,
                          std::source_location where = std::source_location::current());

  // Installs `observer` (or removes it when empty). It runs on the
  // dispatching thread inside every later op.
  void SetLaunchObserver(LaunchObserver observer);

 protected:
  Backend();

  // Runs `call` on the device and traces it as an op of `site` with tag
  // `tag_id` (0 when ops are not being traced). The implementation calls
  // OnLaunched() once its LAUNCH is recorded (or would have been).
  virtual void Execute(const OpCall& call, optrace::OpSite& site, uint32_t tag_id) = 0;

  // Copy `count` floats between host memory and this backend's memory, in
  // dispatch order as Upload and Download describe.
  virtual void CopyIn(const float* host, float* dst, size_t count) = 0;
  virtual void CopyOut(const float* src, float* host, size_t count) = 0;

  // Counts the op being executed and runs the launch observer.
  void OnLaunched(OpKind kind);

 private:
  // Where an op of a kind was issued: its call site's file and line.
  struct SiteKey {
    OpKind kind;
    const char* file;  // a string literal of the compiler's
    uint32_t line;
    bool operator==(const SiteKey&) const = default;
  };
  struct SiteKeyHash {
    size_t operator()(const SiteKey& key) const;
  };

  // Looks up the tag of `call` (only while ops are traced) and executes it
  // as an op issued at `where`.
  void Dispatch(const OpCall& call, const std::source_location& where);

  // The site of ops of `kind` issued at `where`, built on first use with
  // that location (a site records the location it is given, and a site
  // built here would otherwise record this file).
  optrace::OpSite& SiteAt(OpKind kind, const std::source_location& where);

  DispatchTagCache tags_;
  // One site per op kind and call site, so each name and source location is
  // interned once per backend. OpSite is neither movable nor copyable.
  std::unordered_map<SiteKey, std::unique_ptr<optrace::OpSite>, SiteKeyHash> sites_;
  LaunchObserver launch_observer_;
  uint64_t ops_launched_ = 0;
};

}  // namespace optrace::kernels

#endif  // OPTRACE_KERNELS_BACKEND_H_
