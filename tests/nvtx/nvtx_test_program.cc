// An NVTX-annotated program that knows nothing of optrace: built against
// the CUDA toolkit's NVTX headers only, traced when NVTX_INJECTION64_PATH
// names liboptrace_nvtx.so. nvtx_injection_test.cc runs it and checks what
// the daemon stored.
//
//   nvtx_test_program scenario          every kind of NVTX event (below)
//   nvtx_test_program dynamic_names N   N pushes named dyn_0 .. dyn_<N-1>
//   nvtx_test_program steps N           a "setup" range, then N "train_step"
//                                       ranges, each with "forward" and
//                                       "backward" inside
//
// It prints what only it knows (return values, thread ids) as key=value
// lines, and "done" last. The scenario leaves two pushed ranges and one
// started range open when it exits.
#include <nvtx3/nvToolsExt.h>
#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <nvtx3/nvtx3.hpp>
#include <string>
#include <thread>

namespace {

// The C++ API's domain: every event in it goes through NVTX's CORE2 table.
struct CxxDomain {
  static constexpr const char* name{"cxx_domain"};
};

nvtxEventAttributes_t Attributes(uint32_t category) {
  nvtxEventAttributes_t a;
  std::memset(&a, 0, sizeof a);
  a.version = NVTX_VERSION;
  a.size = NVTX_EVENT_ATTRIB_STRUCT_SIZE;
  a.category = category;
  return a;
}

nvtxEventAttributes_t AsciiAttributes(uint32_t category, const char* message) {
  nvtxEventAttributes_t a = Attributes(category);
  a.messageType = NVTX_MESSAGE_TYPE_ASCII;
  a.message.ascii = message;
  return a;
}

// Nested pushes, a mark inside them, categories (named and not), wide and
// huge messages.
void DefaultDomainRanges() {
  nvtxNameCategoryA(7, "compute");
  const int outer = nvtxRangePushA("outer");
  nvtxMarkA("checkpoint");
  const int middle = nvtxRangePushA("middle");
  const int inner = nvtxRangePushA("inner");
  const int pop_inner = nvtxRangePop();
  const int pop_middle = nvtxRangePop();
  const nvtxEventAttributes_t categorized = AsciiAttributes(7, "categorized");
  nvtxRangePushEx(&categorized);
  nvtxRangePop();
  const nvtxEventAttributes_t numbered = AsciiAttributes(9, "numbered_category");
  nvtxRangePushEx(&numbered);
  nvtxRangePop();
  const int pop_outer = nvtxRangePop();
  std::printf("push_levels=%d,%d,%d\npop_levels=%d,%d,%d\n", outer, middle, inner, pop_inner,
              pop_middle, pop_outer);

  nvtxRangePushW(L"unicode_\u00fcn\u00ef_\u6f14\u7b97_\u2713");
  nvtxMarkW(L"mark_\u00fc");
  nvtxRangePop();

  // 5 + 506 = 511 bytes, then a 2-byte character across the 512-byte cut,
  // then 100000 more: the name keeps exactly the first 511 bytes.
  const std::string huge = "long_" + std::string(506, 'a') + "\u00e9" + std::string(100000, 'b');
  nvtxRangePushA(huge.c_str());
  nvtxRangePop();

  std::printf("unbalanced_pop=%d\n", nvtxRangePop());
}

// Ranges that end on another thread than the one that started them, and
// nesting on a second thread.
void CrossThreadRanges() {
  const nvtxRangeId_t main_to_worker = nvtxRangeStartA("async_main_to_worker");
  nvtxRangeId_t worker_to_main = 0;
  std::thread worker([&] {
    std::printf("worker_tid=%d\n", static_cast<int>(::gettid()));
    nvtxRangeEnd(main_to_worker);
    const nvtxEventAttributes_t a = AsciiAttributes(7, "async_worker_to_main");
    worker_to_main = nvtxRangeStartEx(&a);
    nvtxRangePushA("worker_outer");
    nvtxRangePushA("worker_inner");
    nvtxRangePop();
    nvtxRangePop();
  });
  worker.join();
  nvtxRangeEnd(worker_to_main);
}

// An explicit domain with a named category and a registered string, and
// the C++ API in a domain of its own.
void DomainRanges() {
  nvtxDomainHandle_t domain = nvtxDomainCreateA("mylib");
  nvtxDomainNameCategoryA(domain, 1, "io");
  nvtxRangePushA("default_domain_open");
  const nvtxEventAttributes_t read = AsciiAttributes(1, "read_batch");
  std::printf("domain_level=%d\n", nvtxDomainRangePushEx(domain, &read));
  nvtxDomainRangePop(domain);
  nvtxEventAttributes_t registered = Attributes(0);
  registered.messageType = NVTX_MESSAGE_TYPE_REGISTERED;
  registered.message.registered = nvtxDomainRegisterStringA(domain, "registered_op");
  nvtxDomainRangePushEx(domain, &registered);
  nvtxDomainMarkEx(domain, &registered);
  nvtxDomainRangePop(domain);
  nvtxRangePop();
  {
    nvtx3::scoped_range_in<CxxDomain> range{"cxx_scoped"};
    nvtx3::mark_in<CxxDomain>("cxx_mark");
  }
}

void Scenario() {
  std::printf("main_tid=%d\n", static_cast<int>(::gettid()));
  DefaultDomainRanges();
  CrossThreadRanges();
  DomainRanges();
  nvtxRangePushA("never_closed_outer");
  nvtxRangePushA("never_closed_inner");
  [[maybe_unused]] const nvtxRangeId_t never_ended = nvtxRangeStartA("never_ended_async");
}

void TrainSteps(int count) {
  nvtxRangePushA("setup");
  nvtxRangePop();
  for (int i = 0; i < count; ++i) {
    nvtxRangePushA("train_step");
    nvtxRangePushA("forward");
    nvtxRangePop();
    nvtxRangePushA("backward");
    nvtxRangePop();
    nvtxRangePop();
  }
}

void DynamicNames(int count) {
  for (int i = 0; i < count; ++i) {
    nvtxRangePushA(("dyn_" + std::to_string(i)).c_str());
    nvtxRangePop();
  }
}

}  // namespace

int main(int argc, char** argv) {
  const std::string mode = argc > 1 ? argv[1] : "";
  if (mode == "scenario" && argc == 2) {
    Scenario();
  } else if (mode == "dynamic_names" && argc == 3) {
    DynamicNames(std::atoi(argv[2]));
  } else if (mode == "steps" && argc == 3) {
    TrainSteps(std::atoi(argv[2]));
  } else {
    std::fprintf(stderr, "usage: %s scenario | dynamic_names N | steps N\n", argv[0]);
    return 2;
  }
  std::printf("done\n");
  return 0;
}
