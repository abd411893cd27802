// The live page and the diff page in a real headless Chromium, driven
// over the DevTools protocol (ui/headless_chromium.h: the live page never
// finishes loading, so --dump-dom cannot take it), against `optrace ui`,
// a real optraced and real producers: the live page shows a running
// producer's ops, and under a high op rate (optrace-load) shows how many
// it was spared; the diff page of an op-by-op run and a fused one shows
// the fusion map and the ops of both. Skipped, saying so, only where
// Chromium is not installed. The high-rate test also prints what the
// page received and how responsive it stayed (docs/BENCHMARKS.md). With
// OPTRACE_UI_SCREENSHOTS=DIR the pages' screenshots are kept there
// (docs/ui.md's come from here).
#include <gtest/gtest.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <map>
#include <memory>
#include <regex>
#include <vector>

#include "cli_harness.h"
#include "ui/browser_fixture.h"
#include "ui/headless_chromium.h"
#include "ui/ui_process.h"

namespace optrace::cli::testing {
namespace {

using namespace std::chrono_literals;
using optrace::testing::Subprocess;

class UiPagesBrowserTest : public BrowserFixture {
 protected:
  void SetUp() override {
    BrowserFixture::SetUp();
    if (IsSkipped() || HasFatalFailure()) return;
    ui_ = std::make_unique<UiProcess>(daemon_.socket_path(), runtime_);
    ASSERT_TRUE(ui_->ok()) << ui_->process().stderr_text();
    browser_ = std::make_unique<HeadlessChromium>(kChromium, folder_.path() + "/chromium-profile");
    ASSERT_TRUE(browser_->ok()) << "Chromium did not answer on its DevTools pipe";
  }

  // A PNG of the open tab, kept in `shots_`/`name`, checked to be drawn.
  void ExpectDrawnScreenshot(const std::string& name) {
    const std::optional<std::string> png = browser_->Screenshot();
    ASSERT_TRUE(png.has_value()) << name;
    ExpectDrawnPng(*png, name);
    std::ofstream(shots_ + "/" + name, std::ios::binary) << *png;
  }

  // The live page's counts (the data-* of #live-counts, camelCased: received,
  // forwarded, thinned, skipped, rows, batches, maxDrawMs, maxLagMs), read at
  // one instant; each -1 before the first batch.
  std::map<std::string, double> LiveCounts() {
    const auto value = browser_->Evaluate(
        "Object.fromEntries(Object.entries(document.getElementById('live-counts')?.dataset ?? {})"
        ".map(([k, v]) => [k, Number(v)]))");
    std::map<std::string, double> counts;
    for (const char* name : {"received", "forwarded", "thinned", "skipped", "rows", "batches",
                             "maxDrawMs", "maxLagMs"}) {
      counts[name] = value && value->contains(name) ? (*value)[name].get<double>() : -1;
    }
    return counts;
  }

  // How long the open tab's main thread takes to answer, in ms, sorted: a
  // DevTools evaluation every 50 ms for `span` waits for it as an input would.
  std::vector<double> ProbeMainThread(std::chrono::seconds span) {
    using Clock = std::chrono::steady_clock;
    std::vector<double> answer_ms;
    const Clock::time_point start = Clock::now();
    while (Clock::now() - start < span) {
      const Clock::time_point asked = Clock::now();
      if (!browser_->Evaluate("1").has_value()) break;
      answer_ms.push_back(std::chrono::duration<double, std::milli>(Clock::now() - asked).count());
      ::usleep(50'000);
    }
    std::sort(answer_ms.begin(), answer_ms.end());
    return answer_ms;
  }

  std::string Html(const std::string& selector) {
    const auto value =
        browser_->Evaluate("document.querySelector('" + selector + "')?.outerHTML ?? ''");
    return value && value->is_string() ? value->get<std::string>() : "";
  }

  std::unique_ptr<UiProcess> ui_;
  std::unique_ptr<HeadlessChromium> browser_;
};

TEST_F(UiPagesBrowserTest, LivePage_ShowsTheOpsOfARunningProducer) {
  auto producer =
      StartTestProducer({"--forever", "--rate", "100"}, {{"OPTRACE_SESSION", "live-page"}});
  const nlohmann::json session = WaitForSession(static_cast<uint32_t>(producer->pid()), false);
  ASSERT_TRUE(session.is_object());
  const std::string id = std::to_string(session["id"].get<uint64_t>());
  ASSERT_TRUE(browser_->Open(ui_->UrlOf("/live?session=" + id)));
  ASSERT_TRUE(
      browser_->WaitUntil("document.querySelectorAll('#live-ops tbody tr').length >= 20", 60s))
      << Html("main");
  const std::string rows = Html("#live-ops");
  EXPECT_NE(rows.find(">inner<"), std::string::npos) << rows;
  EXPECT_NE(rows.find(">outer<"), std::string::npos) << rows;
  EXPECT_NE(rows.find("href=\"/session/" + id + "\""), std::string::npos) << rows;
  EXPECT_NE(rows.find("data-kind=\"launch\""), std::string::npos) << rows;
  EXPECT_NE(rows.find("data-kind=\"complete\""), std::string::npos) << rows;
  const std::map<std::string, double> counts = LiveCounts();
  EXPECT_GT(counts.at("received"), 0);
  EXPECT_EQ(counts.at("received"), counts.at("forwarded") + counts.at("thinned"));

  ExpectDrawnScreenshot("ui-live.png");

  // Pause freezes the table while the counts go on.
  ASSERT_TRUE(browser_->Evaluate("document.getElementById('live-pause').click(), true"));
  const auto first = browser_->Evaluate("document.querySelector('#live-ops tbody tr')?.outerHTML");
  const double received = LiveCounts().at("received");
  ASSERT_TRUE(
      browser_->WaitUntil("Number(document.getElementById('live-counts').dataset.received) > " +
                              std::to_string(static_cast<uint64_t>(received) + 50),
                          60s));
  EXPECT_EQ(browser_->Evaluate("document.querySelector('#live-ops tbody tr')?.outerHTML"), first)
      << "the table moved while paused";
  EXPECT_NE(Html("#live-paused").find("ops since"), std::string::npos) << Html("#live-paused");
  producer->Kill(SIGTERM);
}

TEST_F(UiPagesBrowserTest, LivePage_UnderHighOpRate_ShowsTheThinnedCountAndStaysResponsive) {
  Subprocess load({OPTRACE_LOAD, "--threads", "1", "--rate", "0", "--seconds", "120"},
                  {{"OPTRACE_LEVEL", "trace"}});
  ASSERT_TRUE(WaitForSession(static_cast<uint32_t>(load.pid()), false).is_object());
  ASSERT_TRUE(browser_->Open(ui_->UrlOf("/live")));
  ASSERT_TRUE(browser_->WaitUntil(
      "Number(document.getElementById('live-counts')?.dataset.thinned ?? 0) > 0", 60s))
      << Html("main");
  // What the page shows: the thinned count, in words.
  const auto shown = browser_->Evaluate("document.getElementById('live-counts').textContent");
  ASSERT_TRUE(shown && shown->is_string());
  const std::string text = shown->get<std::string>();
  EXPECT_TRUE(std::regex_search(text, std::regex("thinned [1-9][0-9,]* \\(at most 200 rows per "
                                                 "100 ms reach the page\\)")))
      << text;

  // Measure for 5 s: how long the page's main thread takes to answer, and
  // what it received, drew and was spared; beside the same probe of the
  // page paused (the same stream, nothing drawn) and of the sessions page
  // (no stream), under the same load: what drawing costs, and what the
  // loaded machine does.
  using Clock = std::chrono::steady_clock;
  const std::map<std::string, double> before = LiveCounts();
  const Clock::time_point start = Clock::now();
  const std::vector<double> live_ms = ProbeMainThread(5s);
  const double seconds = std::chrono::duration<double>(Clock::now() - start).count();
  const std::map<std::string, double> after = LiveCounts();
  ASSERT_FALSE(live_ms.empty());
  const auto per_second = [&](const char* name) {
    return (after.at(name) - before.at(name)) / seconds;
  };
  ASSERT_TRUE(browser_->Evaluate("document.getElementById('live-pause').click(), true"));
  const std::vector<double> paused_ms = ProbeMainThread(5s);
  ASSERT_FALSE(paused_ms.empty());
  ASSERT_TRUE(browser_->Open(ui_->UrlOf("/")));
  const std::vector<double> sessions_ms = ProbeMainThread(5s);
  ASSERT_FALSE(sessions_ms.empty());
  const auto at = [](const std::vector<double>& ms, double q) {
    return ms[static_cast<size_t>(q * static_cast<double>(ms.size() - 1))];
  };
  std::printf(
      "live page under load: %.0f ops/s received, %.0f/s sent to the page, %.0f/s thinned, %.0f/s "
      "skipped "
      "by the daemon; its main thread answers in p50 %.1f ms, p99 %.1f ms (%zu probes); paused "
      "p50 %.1f ms, p99 %.1f ms; the sessions page's p50 %.1f ms, p99 %.1f ms; longest draw "
      "%.1f ms, longest 100 ms timer delay %.1f ms; rows kept %.0f\n",
      per_second("received"), per_second("forwarded"), per_second("thinned"), per_second("skipped"),
      at(live_ms, 0.5), at(live_ms, 0.99), live_ms.size(), at(paused_ms, 0.5), at(paused_ms, 0.99),
      at(sessions_ms, 0.5), at(sessions_ms, 0.99), after.at("maxDrawMs"), after.at("maxLagMs"),
      after.at("rows"));
  EXPECT_GT(after.at("thinned") - before.at("thinned"), 0)
      << "the load did not exceed what the page is sent";
  EXPECT_LE(after.at("rows"), 200) << "the page keeps its last 200 rows";
  load.Kill(SIGKILL);
}

TEST_F(UiPagesBrowserTest, DiffPage_FusedAgainstOpByOp_ShowsFusionMapAndOpsOfBoth) {
  // optrace-demo op by op (A) and fused (B), as the fusion diff test runs it.
  uint64_t ids[2] = {0, 0};
  const char* modes[2] = {"unfused", "fused"};
  for (int i = 0; i < 2; ++i) {
    Subprocess demo(
        {OPTRACE_DEMO, "--mode", modes[i], "--layers", "2", "--steps", "3", "--hidden", "64"},
        {{"OPTRACE_LEVEL", "trace"},
         {"OPTRACE_SESSION", modes[i]},
         {"OPTRACE_RING_CAPACITY", "65536"}});
    ASSERT_TRUE(demo.Wait(120s).has_value()) << modes[i];
    const nlohmann::json session = WaitForSession(static_cast<uint32_t>(demo.pid()), true);
    ASSERT_TRUE(session.is_object()) << modes[i];
    ids[i] = session["id"].get<uint64_t>();
  }
  const CliRun cli = Cli({"diff", std::to_string(ids[0]), std::to_string(ids[1]), "--json"});
  ASSERT_EQ(cli.exit_code, 0) << cli.err;
  const nlohmann::json diff = nlohmann::json::parse(cli.out);
  ASSERT_FALSE(diff["fusions"].empty()) << cli.out;

  ASSERT_TRUE(
      browser_->Open(ui_->UrlOf("/diff/" + std::to_string(ids[0]) + "/" + std::to_string(ids[1]))));
  ASSERT_TRUE(browser_->WaitUntil("document.getElementById('diff-ops') !== null", 60s))
      << Html("main");
  const std::string map = Html("#fusion-map");
  for (const auto& fusion : diff["fusions"]) {
    const std::string tag = fusion["tag"];
    EXPECT_NE(map.find("data-fusion=\"" + tag + "\""), std::string::npos) << tag << "\n" << map;
    for (const auto& part : fusion["parts"]) {
      EXPECT_NE(map.find("data-part=\"" + part["tag"].get<std::string>() + "\" data-of=\"" + tag),
                std::string::npos)
          << part["tag"] << "\n"
          << map;
    }
  }
  EXPECT_NE(map.find("abar-fill"), std::string::npos) << "the map has its bars";
  const std::string ops = Html("#diff-ops");
  for (const auto& row : diff["unfused_rows"]) {
    EXPECT_NE(ops.find("data-key=\"" + row["key"].get<std::string>() + "\""), std::string::npos)
        << row["key"] << "\n"
        << ops;
  }
  EXPECT_NE(ops.find("bbar-fill"), std::string::npos) << "the table has its bars";
  const std::string main = Html("main");
  EXPECT_NE(main.find("href=\"/session/" + std::to_string(ids[0]) + "\""), std::string::npos);
  EXPECT_NE(main.find("(fused)"), std::string::npos) << "B's label";
  ExpectDrawnScreenshot("ui-diff.png");
}

TEST_F(UiPagesBrowserTest, SessionPage_ComparePickerOpensTheDiffPage) {
  const ProducerRun a = Produce({"--ops", "20"}, "pick-a");
  const ProducerRun b = Produce({"--steps", "3"}, "pick-b");
  ASSERT_NE(a.session_id, 0u);
  ASSERT_NE(b.session_id, 0u);
  const std::string id_a = std::to_string(a.session_id);
  const std::string id_b = std::to_string(b.session_id);
  ASSERT_TRUE(browser_->Open(ui_->UrlOf("/session/" + id_a)));
  ASSERT_TRUE(browser_->WaitUntil(
      "document.querySelector('#compare-with option[value=\"" + id_b + "\"]') !== null", 60s))
      << Html("main");
  ASSERT_TRUE(
      browser_->Evaluate("(() => { const s = document.getElementById('compare-with'); s.value = '" +
                         id_b + "'; s.dispatchEvent(new Event('change')); return true; })()"));
  ASSERT_TRUE(browser_->WaitUntil("location.pathname === '/diff/" + id_a + "/" + id_b +
                                      "' && document.getElementById('diff-ops') !== null",
                                  60s))
      << Html("main");
  const std::string ops = Html("#diff-ops");
  for (const char* key : {"outer", "inner", "load_batch", "forward", "matmul", "backward"}) {
    EXPECT_NE(ops.find(std::string("data-key=\"") + key + "\""), std::string::npos) << key << "\n"
                                                                                    << ops;
  }
  EXPECT_NE(ops.find("only in A"), std::string::npos) << ops;
  EXPECT_NE(ops.find("only in B"), std::string::npos) << ops;
}

}  // namespace
}  // namespace optrace::cli::testing
