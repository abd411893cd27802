#include "terminal.h"

#include <gtest/gtest.h>
#include <pty.h>
#include <stdlib.h>
#include <sys/ioctl.h>
#include <unistd.h>

namespace optrace::cli {
namespace {

// A pseudo-terminal of `columns` columns, closed at the end of the test.
class PseudoTerminal {
 public:
  explicit PseudoTerminal(unsigned short columns) {
    winsize size{};
    size.ws_col = columns;
    size.ws_row = 24;
    ok_ = ::openpty(&controller_, &terminal_, nullptr, nullptr, &size) == 0;
  }
  ~PseudoTerminal() {
    if (ok_) {
      ::close(controller_);
      ::close(terminal_);
    }
  }
  bool ok() const { return ok_; }
  int fd() const { return terminal_; }

 private:
  bool ok_ = false;
  int controller_ = -1;
  int terminal_ = -1;
};

// A pipe's write end, closed at the end of the test.
class Pipe {
 public:
  Pipe() { ok_ = ::pipe(fds_) == 0; }
  ~Pipe() {
    if (ok_) {
      ::close(fds_[0]);
      ::close(fds_[1]);
    }
  }
  int fd() const { return fds_[1]; }

 private:
  bool ok_ = false;
  int fds_[2] = {-1, -1};
};

class TerminalTest : public ::testing::Test {
 protected:
  void SetUp() override {
    ::unsetenv("NO_COLOR");
    ::unsetenv("COLUMNS");
  }
  void TearDown() override {
    ::unsetenv("NO_COLOR");
    ::unsetenv("COLUMNS");
  }
};

TEST_F(TerminalTest, Terminal_ColoursAndItsWidth) {
  PseudoTerminal tty(132);
  ASSERT_TRUE(tty.ok());
  EXPECT_TRUE(IsTerminal(tty.fd()));
  EXPECT_TRUE(ColoursWanted(tty.fd()));
  EXPECT_EQ(OutputWidth(tty.fd()), 132u);
}

TEST_F(TerminalTest, NoColorSet_NoColoursOnATerminal) {
  PseudoTerminal tty(80);
  ASSERT_TRUE(tty.ok());
  ::setenv("NO_COLOR", "1", 1);
  EXPECT_FALSE(ColoursWanted(tty.fd()));
  ::setenv("NO_COLOR", "", 1);  // empty means unset (no-color.org)
  EXPECT_TRUE(ColoursWanted(tty.fd()));
}

TEST_F(TerminalTest, Pipe_NoColoursNoLimit) {
  Pipe pipe;
  EXPECT_FALSE(IsTerminal(pipe.fd()));
  EXPECT_FALSE(ColoursWanted(pipe.fd()));
  EXPECT_EQ(OutputWidth(pipe.fd()), 0u);
}

TEST_F(TerminalTest, PipeWithColumns_ThatWidth) {
  Pipe pipe;
  ::setenv("COLUMNS", "60", 1);
  EXPECT_EQ(OutputWidth(pipe.fd()), 60u);
  ::setenv("COLUMNS", "wide", 1);
  EXPECT_EQ(OutputWidth(pipe.fd()), 0u);
}

TEST_F(TerminalTest, TerminalOfUnknownSize_ColumnsThenDefault) {
  PseudoTerminal tty(0);
  ASSERT_TRUE(tty.ok());
  EXPECT_EQ(OutputWidth(tty.fd()), kDefaultTerminalWidth);
  ::setenv("COLUMNS", "70", 1);
  EXPECT_EQ(OutputWidth(tty.fd()), 70u);
}

}  // namespace
}  // namespace optrace::cli
