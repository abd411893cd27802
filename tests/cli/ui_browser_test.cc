// The web view in a real browser: Debian's headless Chromium runs the
// pages' scripts against `optrace ui`, a real optraced and a real
// producer, and the test reads the DOM it ends with (--dump-dom) and the
// picture it draws (--screenshot). Each Chromium run is a fresh browser,
// so each starts from the URL with the token, as a user's first visit.
// Skipped, saying so, only where Chromium is not installed
// (deploy/install-deps.sh installs it). The timeline's test drives one
// browser over the DevTools protocol instead (ui/headless_chromium.h): it
// turns the wheel and presses keys on the canvas as a user would, and
// reads what the page drew after each. With OPTRACE_UI_SCREENSHOTS=DIR
// the screenshots are kept there (docs/ui.md's come from here).
#include <gtest/gtest.h>
#include <unistd.h>

#include <cstdlib>
#include <fstream>
#include <iterator>
#include <optional>
#include <regex>

#include "cli_harness.h"
#include "perfetto_trace_reader.h"
#include "ui/browser_fixture.h"
#include "ui/headless_chromium.h"
#include "ui/ui_process.h"

namespace optrace::cli::testing {
namespace {

using namespace std::chrono_literals;
using optrace::testing::Subprocess;

class UiBrowserTest : public BrowserFixture {
 protected:
  // Chromium's flags for one headless run of its own profile; the budget
  // lets the page's fetches answer before the DOM or picture is taken.
  std::vector<std::string> Chromium(const std::string& what) {
    return {kChromium,
            "--headless=new",
            "--no-sandbox",
            "--disable-gpu",
            "--no-first-run",
            "--user-data-dir=" + folder_.path() + "/chromium-profile-" + std::to_string(++runs_),
            "--virtual-time-budget=5000",
            what};
  }

  // The DOM of `url` after its scripts ran.
  std::string DumpDom(const std::string& url) {
    std::vector<std::string> argv = Chromium("--dump-dom");
    argv.push_back(url);
    Subprocess browser(argv);
    browser.CloseStdin();
    const auto status = browser.Wait(90s);
    EXPECT_TRUE(status.has_value() && status->exited && status->code == 0) << browser.stderr_text();
    return browser.stdout_text();
  }

  // A PNG of `url` at 1200x800 in `shots_`/`name`; its bytes.
  std::string Screenshot(const std::string& url, const std::string& name) {
    const std::string path = shots_ + "/" + name;
    std::vector<std::string> argv = Chromium("--screenshot=" + path);
    argv.insert(argv.end() - 1, "--window-size=1200,800");
    argv.push_back(url);
    Subprocess browser(argv);
    browser.CloseStdin();
    EXPECT_TRUE(browser.Wait(90s).has_value()) << browser.stderr_text();
    std::ifstream file(path, std::ios::binary);
    return {std::istreambuf_iterator<char>(file), std::istreambuf_iterator<char>()};
  }

  int runs_ = 0;
};

TEST_F(UiBrowserTest, SessionsPage_ListsTheSessionJustRecorded) {
  const ProducerRun p = Produce({"--ops", "40"}, "browser-check");
  ASSERT_NE(p.session_id, 0u);
  UiProcess ui(daemon_.socket_path(), runtime_);
  ASSERT_TRUE(ui.ok()) << ui.process().stderr_text();

  const std::string dom = DumpDom(ui.url());
  const std::string id = std::to_string(p.session_id);
  const std::regex row("<tr data-session-id=\"" + id + "\">(.*?)</tr>");
  std::smatch found;
  ASSERT_TRUE(std::regex_search(dom, found, row)) << dom;
  const std::string cells = found[1];
  EXPECT_NE(cells.find("href=\"/session/" + id + "\""), std::string::npos) << cells;
  EXPECT_NE(cells.find("optrace-test-producer"), std::string::npos) << cells;
  EXPECT_NE(cells.find("browser-check"), std::string::npos) << cells;
  EXPECT_NE(cells.find(">" + std::to_string(p.producer->pid()) + "<"), std::string::npos) << cells;
  EXPECT_NE(cells.find(">exited<"), std::string::npos) << cells;
  EXPECT_NE(cells.find(">" + std::to_string(p.done.at("launches")) + "<"), std::string::npos)
      << cells;

  ExpectDrawnPng(Screenshot(ui.url(), "ui-sessions.png"), "ui-sessions.png");
}

TEST_F(UiBrowserTest, SessionPage_ShowsItsOpsInTheStatsAndItsSlowStep) {
  // 30 steps of load_batch, forward, matmul, backward; step 20 also runs
  // slow_only (30 ms) and is the slow one.
  const ProducerRun p = Produce({"--steps", "30", "--slow-step", "20"});
  ASSERT_NE(p.session_id, 0u);
  UiProcess ui(daemon_.socket_path(), runtime_);
  ASSERT_TRUE(ui.ok()) << ui.process().stderr_text();
  const std::string target = "/session/" + std::to_string(p.session_id);

  const std::string dom = DumpDom(ui.UrlOf(target));
  ASSERT_NE(dom.find("<table id=\"stats\""), std::string::npos) << dom;
  for (const char* op : {"load_batch", "forward", "matmul", "backward", "slow_only"}) {
    const std::regex row(std::string("<tr data-key=\"") + op + "\">.*?</tr>");
    std::smatch found;
    ASSERT_TRUE(std::regex_search(dom, found, row)) << op << "\n" << dom;
    EXPECT_NE(found.str().find("bar-fill"), std::string::npos) << found.str();
  }
  EXPECT_NE(dom.find("<svg id=\"steps-chart\""), std::string::npos) << dom;
  const std::regex slow(R"re(<rect class="step step-slow"[^>]* data-step="20")re");
  EXPECT_TRUE(std::regex_search(dom, slow)) << dom;
  EXPECT_NE(dom.find("href=\"/\""), std::string::npos) << "links back to the sessions";

  ExpectDrawnPng(Screenshot(ui.UrlOf(target), "ui-session.png"), "ui-session.png");
}

// The timeline section's data attributes (views/timeline.js), as numbers.
struct TimelineShown {
  double requests = 0, from = 0, to = 0, spans = 0, drawn = 0, summed = 0, lanes = 0;
};

std::optional<TimelineShown> ReadTimeline(HeadlessChromium& browser) {
  const auto d = browser.Evaluate(
      "(() => { const d = document.getElementById('timeline').dataset; return [d.requests, "
      "d.from, d.to, d.spans, d.spansDrawn, d.spansSummed, d.lanes].map(Number); })()");
  if (!d || !d->is_array() || d->size() != 7) return std::nullopt;
  return TimelineShown{(*d)[0], (*d)[1], (*d)[2], (*d)[3], (*d)[4], (*d)[5], (*d)[6]};
}

TEST_F(UiBrowserTest, SessionTimeline_DrawsEverySpanZoomAndPanAskTheServerAgain) {
  // 10 steps on each of two threads: load_batch, forward > matmul,
  // backward, each at least 1 ms; the main thread's one "start" op.
  const ProducerRun p = Produce({"--threads", "2", "--steps", "10"});
  ASSERT_NE(p.session_id, 0u);
  const double launches = static_cast<double>(p.done.at("launches"));
  UiProcess ui(daemon_.socket_path(), runtime_);
  ASSERT_TRUE(ui.ok()) << ui.process().stderr_text();
  const std::string target = "/session/" + std::to_string(p.session_id);
  ExpectDrawnPng(Screenshot(ui.UrlOf(target), "ui-timeline.png"), "ui-timeline.png");

  HeadlessChromium browser(kChromium, folder_.path() + "/chromium-devtools");
  ASSERT_TRUE(browser.ok());
  ASSERT_TRUE(browser.Open(ui.UrlOf(target)));
  const std::string ready = "document.getElementById('timeline')?.dataset.state === 'ready'";
  ASSERT_TRUE(browser.WaitUntil(ready, 60s));
  const std::optional<TimelineShown> whole = ReadTimeline(browser);
  ASSERT_TRUE(whole.has_value());
  EXPECT_EQ(whole->requests, 1);
  EXPECT_EQ(whole->lanes, 3) << "the main thread and the two step threads";
  EXPECT_EQ(whole->spans, launches);
  EXPECT_EQ(whole->drawn + whole->summed, launches) << "every span drawn or summed";
  EXPECT_GE(whole->drawn, 2 * 10 * 5) << "every step op is wider than a pixel";

  // Hover: a step thread's first row, in the middle of the session.
  const auto box = browser.Evaluate(
      "(() => { const r = document.getElementById('timeline-canvas').getBoundingClientRect();"
      " window.scrollTo(0, r.top + window.scrollY - 10);"
      " const s = document.getElementById('timeline-canvas').getBoundingClientRect();"
      " return [s.left, s.top, s.width]; })()");
  ASSERT_TRUE(box && box->is_array());
  const double left = (*box)[0], top = (*box)[1], width = (*box)[2];
  const double middle = left + 150 + (width - 150) / 2;
  std::string name;
  for (double y = top + 24; y < top + 120 && name.empty(); y += 4) {
    ASSERT_TRUE(browser.Call("Input.dispatchMouseEvent",
                             {{"type", "mouseMoved"}, {"x", middle}, {"y", y}}));
    const auto shown = browser.Evaluate(
        "document.querySelector('#timeline-details [data-field=name]')?.textContent ?? ''");
    if (shown && shown->is_string()) name = shown->get<std::string>();
  }
  EXPECT_TRUE(name == "optrace.step" || name == "load_batch" || name == "forward" ||
              name == "matmul" || name == "backward")
      << "hovered: '" << name << "'";
  const auto fields = browser.Evaluate(
      "[...document.querySelectorAll('#timeline-details dt')].map(e => e.textContent).join(' ')");
  ASSERT_TRUE(fields && fields->is_string());
  for (const char* field : {"name", "tag", "source", "start", "duration", "self"}) {
    EXPECT_NE(fields->get<std::string>().find(field), std::string::npos) << field;
  }

  // Three wheel steps in, at the middle: the range narrows around it and
  // the server is asked for it; fewer spans are in it.
  for (int i = 0; i < 3; ++i) {
    ASSERT_TRUE(browser.Call(
        "Input.dispatchMouseEvent",
        {{"type", "mouseWheel"}, {"x", middle}, {"y", top + 40}, {"deltaX", 0}, {"deltaY", -120}}));
  }
  const std::string answered =
      "(() => { const d = document.getElementById('timeline').dataset;"
      " return d.state === 'ready' && Number(d.requests) > ";
  ASSERT_TRUE(browser.WaitUntil(answered + "1; })()", 30s));
  const std::optional<TimelineShown> zoomed = ReadTimeline(browser);
  ASSERT_TRUE(zoomed.has_value());
  EXPECT_LT(zoomed->to - zoomed->from, 0.6 * (whole->to - whole->from));
  EXPECT_GT(zoomed->from, whole->from);
  EXPECT_LT(zoomed->to, whole->to);
  EXPECT_LT(zoomed->spans, launches) << "the server answered for the narrower range";
  EXPECT_GT(zoomed->drawn, 0);

  // The "Perfetto trace" button, fetched as the browser follows it (with
  // the page's cookie): the native trace of the range shown, holding the
  // spans the timeline counted in it and no other.
  const auto downloaded = browser.Evaluate(
      "(async () => { const a = document.getElementById('timeline-export');"
      " const r = await fetch(a.href);"
      " return [r.status, r.headers.get('content-disposition'), a.getAttribute('download'),"
      " Array.from(new Uint8Array(await r.arrayBuffer()))]; })()");
  ASSERT_TRUE(downloaded && downloaded->is_array() && downloaded->size() == 4);
  EXPECT_EQ((*downloaded)[0], 200);
  const std::string file = "session-" + std::to_string(p.session_id) + ".pftrace";
  EXPECT_EQ((*downloaded)[1], "attachment; filename=\"" + file + "\"");
  EXPECT_EQ((*downloaded)[2], file);
  std::string bytes;
  for (const auto& byte : (*downloaded)[3]) bytes += static_cast<char>(byte.get<int>());
  const optrace::testing::PerfettoTrace trace = optrace::testing::ReadPerfettoTrace(bytes);
  for (const std::string& error : trace.errors) ADD_FAILURE() << error;
  double slices = 0;
  for (const auto& slice : trace.slices) {
    if (slice.instant) continue;
    ++slices;
    EXPECT_LT(static_cast<double>(slice.start_ns), zoomed->to) << slice.name;
    EXPECT_GE(static_cast<double>(slice.end_ns), zoomed->from) << slice.name;
  }
  EXPECT_EQ(slices, zoomed->spans) << "the spans the timeline counted in its range";

  // Keys on the canvas: right arrow pans a tenth of the range later.
  ASSERT_TRUE(browser.Evaluate("document.getElementById('timeline-canvas').focus(), true"));
  const double before = zoomed->requests;
  ASSERT_TRUE(browser.Call("Input.dispatchKeyEvent", {{"type", "rawKeyDown"},
                                                      {"key", "ArrowRight"},
                                                      {"code", "ArrowRight"},
                                                      {"windowsVirtualKeyCode", 39}}));
  ASSERT_TRUE(
      browser.WaitUntil(answered + std::to_string(static_cast<int>(before)) + "; })()", 30s));
  const std::optional<TimelineShown> panned = ReadTimeline(browser);
  ASSERT_TRUE(panned.has_value());
  EXPECT_GT(panned->from, zoomed->from);
  EXPECT_NEAR(panned->to - panned->from, zoomed->to - zoomed->from, 2000);
}

TEST_F(UiBrowserTest, NoToken_PageShowsNoData) {
  const ProducerRun p = Produce({"--ops", "10"});
  ASSERT_NE(p.session_id, 0u);
  UiProcess ui(daemon_.socket_path(), runtime_);
  ASSERT_TRUE(ui.ok()) << ui.process().stderr_text();
  const std::string dom = DumpDom("http://" + ui.host() + "/");
  EXPECT_EQ(dom.find("optrace-test-producer"), std::string::npos) << dom;
  EXPECT_EQ(dom.find("data-session-id"), std::string::npos) << dom;
  EXPECT_NE(dom.find("401"), std::string::npos) << dom;
}

}  // namespace
}  // namespace optrace::cli::testing
