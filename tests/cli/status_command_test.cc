#include "status_command.h"

#include <gtest/gtest.h>

namespace optrace::cli {
namespace {

TEST(StatusRenderTest, Facts_HumanReadable) {
  v1::GetStatusResponse status;
  status.set_version("0.1.0");
  status.set_uptime_ns(12'300'000'000);
  status.set_namespace_("optrace");
  status.set_db_path("/var/lib/optrace/optrace.db");
  status.set_db_bytes(12'900'000);
  status.set_running_sessions(2);
  status.set_default_level(v1::LEVEL_INFO);
  status.mutable_drops()->set_shed(4);
  status.mutable_drops()->set_total(4);
  status.mutable_all_sessions_drops()->set_ring_full(3'700'000);
  status.mutable_all_sessions_drops()->set_shed(4);
  status.mutable_all_sessions_drops()->set_total(3'700'004);
  (*status.mutable_counters())["batches_shed"] = 1;
  (*status.mutable_counters())["level_tampered"] = 0;
  const std::string text = RenderStatus(status, "/run/optrace/optraced.sock", Palette(false));
  EXPECT_NE(text.find("optraced 0.1.0 at /run/optrace/optraced.sock, up 12.3 s"), std::string::npos)
      << text;
  EXPECT_NE(text.find("(12.3 MiB)"), std::string::npos) << text;
  EXPECT_NE(text.find("2 running sessions"), std::string::npos) << text;
  EXPECT_NE(text.find("default info"), std::string::npos) << text;
  EXPECT_NE(text.find("drops      live sessions: 4 events (shed 4)\n"), std::string::npos) << text;
  EXPECT_NE(text.find("           all sessions: 3700004 events (ring_full 3700000, shed 4)\n"),
            std::string::npos)
      << text;
  EXPECT_NE(text.find("batches_shed 1"), std::string::npos) << text;
  EXPECT_EQ(text.find("level_tampered"), std::string::npos) << text;  // zero: not listed
}

TEST(StatusRenderTest, AllSessionsDropsAbsent_SaidToBeUnknownNotNone) {
  v1::GetStatusResponse status;
  const std::string text = RenderStatus(status, "/run/optrace/optraced.sock", Palette(false));
  EXPECT_NE(text.find("drops      live sessions: none\n"), std::string::npos) << text;
  EXPECT_NE(text.find("           all sessions: unknown (the daemon did not say)\n"),
            std::string::npos)
      << text;
}

TEST(StatusRenderTest, Listeners_HowEachIdentifiesCallersOrItsWarning) {
  v1::GetStatusResponse status;
  v1::Listener* grpc = status.add_listeners();
  grpc->set_kind(v1::LISTENER_KIND_GRPC);
  grpc->set_address("node7:7070");
  grpc->set_tls(true);
  grpc->set_token_users(3);
  grpc->set_client_certificates(true);
  v1::Listener* metrics = status.add_listeners();
  metrics->set_kind(v1::LISTENER_KIND_METRICS);
  metrics->set_address("127.0.0.1:9464");
  metrics->set_unauthenticated(true);
  metrics->set_warning("metrics_insecure = true: serves every user's op names");
  const std::string text = RenderStatus(status, "/run/optrace/optraced.sock", Palette(false));
  EXPECT_NE(text.find("listeners  grpc node7:7070, TLS: callers identified by bearer tokens of 3 "
                      "users or client certificates\n"),
            std::string::npos)
      << text;
  EXPECT_NE(text.find("           metrics 127.0.0.1:9464, plaintext: warning: metrics_insecure = "
                      "true: serves every user's op names\n"),
            std::string::npos)
      << text;
  EXPECT_EQ(RenderStatus(v1::GetStatusResponse(), "s", Palette(false)).find("listeners"),
            std::string::npos)
      << "no line without listeners";
}

}  // namespace
}  // namespace optrace::cli
