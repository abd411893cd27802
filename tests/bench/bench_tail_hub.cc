// The drain thread's cost per ingested event with live tails: LivePublisher::OnHalf
// with 0 (the Active() check only), 1, 20 and 300 subscribed tails that
// never read. The fan-out is one record appended to the shared live buffer
// whatever the number of tails, so the last three should cost the same.
#include <benchmark/benchmark.h>

#include <memory>
#include <vector>

#include "live/tail_hub.h"
#include "strings/string_dictionary.h"

namespace optrace::daemon {
namespace {

void BM_OnHalf(benchmark::State& state) {
  TailHub hub;
  std::vector<std::shared_ptr<TailSubscription>> tails;
  for (int64_t i = 0; i < state.range(0); ++i) {
    auto sub = hub.Subscribe(v1::TailRequest(), std::nullopt);
    if (!sub.ok()) state.SkipWithError("subscribe failed");
    tails.push_back(sub.value());
  }
  StringDictionary strings;
  SessionRecord session;
  session.id = 1;
  session.pid = 42;
  session.label = "bench";
  HalfOp half;
  half.kind = 1;
  half.name = strings.Intern("matmul");
  half.tag = strings.Intern("matmul_128x256x512_f32");
  half.srcloc = strings.Intern("model.py:12");
  for (auto _ : state) {
    ++half.op_id;
    if (hub.publisher().Active()) hub.publisher().OnHalf(session, half, 0, strings);
  }
  state.SetItemsProcessed(state.iterations());
  for (const auto& t : tails) hub.Unsubscribe(t);
}
BENCHMARK(BM_OnHalf)->Arg(0)->Arg(1)->Arg(20)->Arg(300);

}  // namespace
}  // namespace optrace::daemon

BENCHMARK_MAIN();
