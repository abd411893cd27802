// The session page of `optrace ui` in a real headless Chromium: how long
// from navigation (the token's redirect included) to the timeline's first
// draw, and how many bytes the page itself weighs (its HTML, scripts and
// styles; not the /api/ answers it asks for). Each round starts a browser
// with a new profile, so nothing is cached. timeline_page.sh runs it
// against a 1M-span session (docs/BENCHMARKS.md, "Timeline").
//   ui_first_render URL ROUNDS [CHROMIUM]
// URL is the page with its token: http://127.0.0.1:PORT/session/ID?token=T.
#include <stdlib.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <filesystem>
#include <string>
#include <vector>

#include "ui/headless_chromium.h"

namespace {

using optrace::cli::testing::HeadlessChromium;

// The page's figures once its timeline has drawn: milliseconds since the
// navigation began, and bytes.
constexpr const char* kFigures = R"js((() => {
  const nav = performance.getEntriesByType("navigation")[0];
  const all = performance.getEntriesByType("resource");
  const own = all.filter(e => !new URL(e.name).pathname.startsWith("/api/"));
  const api = all.filter(e => new URL(e.name).pathname.startsWith("/api/"));
  const sum = (list, key) => list.reduce((n, e) => n + e[key], 0);
  return {
    first_draw_ms: performance.getEntriesByName("optrace:timeline-first-draw")[0].startTime,
    page_bytes: nav.decodedBodySize + sum(own, "decodedBodySize"),
    page_files: own.length + 1,
    api_bytes: sum(api, "decodedBodySize"),
    api_requests: api.length,
    requests: all.map(e => ({path: new URL(e.name).pathname, start_ms: e.startTime,
                             end_ms: e.responseEnd})),
  };
})())js";

double Median(std::vector<double> values) {
  std::sort(values.begin(), values.end());
  return values[(values.size() - 1) / 2];
}

}  // namespace

int main(int argc, char** argv) {
  if (argc < 3) {
    std::fprintf(stderr, "usage: %s URL ROUNDS [CHROMIUM]\n", argv[0]);
    return 2;
  }
  const std::string url = argv[1];
  const int rounds = std::max(1, std::atoi(argv[2]));
  const std::string chromium = argc > 3 ? argv[3] : "/usr/bin/chromium";
  std::string folder = (std::filesystem::temp_directory_path() / "optrace-render-XXXXXX").string();
  if (::mkdtemp(folder.data()) == nullptr) {
    std::perror("mkdtemp");
    return 1;
  }
  std::vector<double> draws;
  double page_bytes = 0;
  for (int round = 0; round < rounds; ++round) {
    HeadlessChromium browser(chromium, folder + "/profile-" + std::to_string(round));
    if (!browser.ok() || !browser.Open(url) ||
        !browser.WaitUntil("performance.getEntriesByName('optrace:timeline-first-draw').length > 0",
                           std::chrono::seconds(120))) {
      std::fprintf(stderr, "round %d: the timeline was not drawn\n", round + 1);
      std::filesystem::remove_all(folder);
      return 1;
    }
    const auto figures = browser.Evaluate(kFigures);
    if (!figures) {
      std::fprintf(stderr, "round %d: no figures\n", round + 1);
      std::filesystem::remove_all(folder);
      return 1;
    }
    const auto& f = *figures;
    draws.push_back(f["first_draw_ms"].get<double>());
    page_bytes = f["page_bytes"].get<double>();
    std::printf(
        "round %d: first draw %.0f ms; page %.0f bytes in %d files; %d API requests, "
        "%.0f bytes\n",
        round + 1, draws.back(), page_bytes, f["page_files"].get<int>(),
        f["api_requests"].get<int>(), f["api_bytes"].get<double>());
    // Where the time went, in the first round: each request's start and end.
    if (round == 0) {
      for (const auto& request : f["requests"]) {
        std::printf("  %-40s %6.0f to %6.0f ms\n", request["path"].get<std::string>().c_str(),
                    request["start_ms"].get<double>(), request["end_ms"].get<double>());
      }
    }
  }
  std::filesystem::remove_all(folder);
  std::printf("first draw: median %.0f ms of %d rounds (min %.0f, max %.0f); page %.1f KiB\n",
              Median(draws), rounds, *std::min_element(draws.begin(), draws.end()),
              *std::max_element(draws.begin(), draws.end()), page_bytes / 1024);
  return 0;
}
