// The credentials of Unix-socket connections by fd number (issue 29,
// finding 11): an entry lives as long as its connection, so that an fd
// number that a later connection (or any other file) reuses never answers
// with the credentials of the connection that had it before. Real sockets.
#include "api/peer_registry.h"

#include <gtest/gtest.h>
#include <sys/socket.h>
#include <unistd.h>

#include <memory>
#include <string>
#include <vector>

namespace optrace::daemon {
namespace {

// A connected pair of Unix sockets: [0] plays the accepted connection.
struct SocketPair {
  int fds[2] = {-1, -1};
  SocketPair() { EXPECT_EQ(::socketpair(AF_UNIX, SOCK_STREAM, 0, fds), 0); }
  ~SocketPair() {
    for (int fd : fds) {
      if (fd >= 0) ::close(fd);
    }
  }
  void CloseAccepted() {
    ::close(fds[0]);
    fds[0] = -1;
  }
};

std::string PeerName(int fd) { return "fd:" + std::to_string(fd); }

TEST(PeerRegistryTest, LiveConnection_ItsCredentials) {
  PeerRegistry peers;
  SocketPair connection;
  peers.Add(connection.fds[0], {10, 1001, 1002});
  const auto found = peers.Lookup(PeerName(connection.fds[0]));
  ASSERT_TRUE(found.has_value());
  EXPECT_EQ(found->pid, 10);
  EXPECT_EQ(found->uid, 1001u);
  EXPECT_EQ(found->gid, 1002u);
  EXPECT_FALSE(peers.Lookup("ipv4:127.0.0.1:5000").has_value());
  EXPECT_FALSE(peers.Lookup("fd:12x").has_value());
}

TEST(PeerRegistryTest, Malicious_FdNumberReusedByAnotherSocket_NotTheOldCredentials) {
  PeerRegistry peers;
  auto first = std::make_unique<SocketPair>();
  const int fd = first->fds[0];
  peers.Add(fd, {10, 0, 0});  // root's connection ends...
  first->CloseAccepted();
  SocketPair second;  // ...and the lowest free number goes to the next socket
  ASSERT_EQ(second.fds[0], fd) << "the fd number was not reused: the test proves nothing";
  EXPECT_FALSE(peers.Lookup(PeerName(fd)).has_value());
}

TEST(PeerRegistryTest, ConnectionsEnded_EntriesForgotten) {
  PeerRegistry peers;
  {
    std::vector<std::unique_ptr<SocketPair>> connections;
    for (uint32_t uid = 0; uid < 50; ++uid) {
      connections.push_back(std::make_unique<SocketPair>());
      peers.Add(connections.back()->fds[0], {1, 1000 + uid, 1000 + uid});
    }
    EXPECT_EQ(peers.size(), 50u);
  }
  SocketPair last;
  peers.Add(last.fds[0], {1, 2000, 2000});
  EXPECT_EQ(peers.size(), 1u);
  ASSERT_TRUE(peers.Lookup(PeerName(last.fds[0])).has_value());
  EXPECT_EQ(peers.Lookup(PeerName(last.fds[0]))->uid, 2000u);
}

}  // namespace
}  // namespace optrace::daemon
