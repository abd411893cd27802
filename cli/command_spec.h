// A subcommand of optrace as plain data: its name, help, options (each
// bound to a field of the options struct the parse fills), subcommands and
// what running it means. Each *_command.cc describes its own command;
// main.cc hands the descriptions to the argument parser (CLI11, which is
// slow to compile and included there only).
#ifndef OPTRACE_CLI_COMMAND_SPEC_H_
#define OPTRACE_CLI_COMMAND_SPEC_H_

#include <cstdint>
#include <deque>
#include <functional>
#include <list>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <variant>
#include <vector>

#include "cli_error.h"
#include "connection.h"

namespace optrace::cli {

// A value in a small vocabulary (a level, a target, a format): `is_word`
// says whether a text is one of `words`, `store` keeps its parsed value.
struct WordValue {
  std::function<bool(std::string_view text)> is_word;
  std::function<void(std::string_view text)> store;  // REQUIRES: is_word(text)
  std::string words;                                 // the vocabulary, for help and errors
};

// The word option whose words `parse` knows, stored parsed into `*out`
// (a T or a std::optional<T>). `out` must outlive the parse.
template <typename T, typename Out>
WordValue Word(Out* out, std::optional<T> (*parse)(std::string_view), std::string words) {
  return {[parse](std::string_view text) { return parse(text).has_value(); },
          [out, parse](std::string_view text) { *out = *parse(text); }, std::move(words)};
}

// A duration such as "500us", "1ms" or "2.5s" (ParseDuration), in ns.
struct DurationValue {
  uint64_t* ns;
};

// A duration before now ("1h"), stored as the Unix instant it names, no
// earlier than the epoch (0 then means "no bound", which it is).
struct AgoValue {
  int64_t* unix_ns;
};

// Where a parsed option goes. A bool is a flag; an std::optional<uint32_t>
// is set when the option is given; the plain types take the value as
// written and name their type in the help (TEXT, UINT, ...).
using OptionValue =
    std::variant<bool*, std::string*, uint32_t*, uint64_t*, std::vector<std::string>*,
                 std::optional<uint32_t>*, WordValue, DurationValue, AgoValue>;

// One option or positional argument of a command.
struct OptionSpec {
  std::string names;  // "--name", "-v,--verbose", or a positional's "SESSION"
  std::string help;
  OptionValue value;
  std::string type_name;      // "" = the value type's own
  bool required = false;      // the parse fails without it
  bool show_default = false;  // the help shows the field's value before the parse
  // Other options of the same command, by one of their names: never both
  // given (excludes, symmetric), or only with it (needs).
  std::vector<std::string> excludes;
  std::vector<std::string> needs;
  std::string group;      // "" = the usual "Options" heading of the help
  bool* given = nullptr;  // when set: after the parse, whether the option was given

  OptionSpec& Required() { return required = true, *this; }
  OptionSpec& ShowDefault() { return show_default = true, *this; }
  OptionSpec& Excludes(std::string name) { return excludes.push_back(std::move(name)), *this; }
  OptionSpec& Needs(std::string name) { return needs.push_back(std::move(name)), *this; }
  OptionSpec& Group(std::string name) { return group = std::move(name), *this; }
  OptionSpec& Given(bool* out) { return given = out, *this; }
};

// A command: `optrace NAME ...` or, nested, `optrace PARENT NAME ...`.
// The option values point into an options struct that `check` and `run`
// own (they capture it): the description is used once, by one parse.
// References the Add* functions return stay valid while the spec is built
// (a deque and a list).
struct CommandSpec {
  CommandSpec(std::string command_name, std::string one_line_help)
      : name(std::move(command_name)), help(std::move(one_line_help)) {}

  std::string name;
  std::string help;                     // one line, in the parent's list of commands
  std::string footer;                   // after the options in `--help`: the examples
  bool at_most_one_subcommand = false;  // the subcommands are optional
  std::deque<OptionSpec> options;       // in the help's order
  std::list<CommandSpec> subcommands;
  // Runs after the parse, before any connection: a usage error it returns
  // is printed and ends the command. Empty: nothing to check.
  std::function<std::optional<CliError>()> check;
  // The command itself, on a connection to the daemon; returns the exit
  // code. Empty for a command that only groups its subcommands.
  std::function<int(Connection& connection)> run;

  OptionSpec& Add(std::string names, OptionValue value, std::string option_help);
  // A flag: a bool set when given.
  OptionSpec& AddFlag(std::string names, bool* out, std::string option_help);
  // A word option; the help lists the words after `help`, the type is WORD.
  OptionSpec& AddWord(std::string names, WordValue value, const std::string& option_help);
  // A DurationValue option of type DURATION.
  OptionSpec& AddDuration(std::string names, uint64_t* out_ns, std::string option_help);
  // An AgoValue option of type DURATION.
  OptionSpec& AddAgo(std::string names, int64_t* out_unix_ns, std::string option_help);
  // --json, which every listing has: "print WHAT as JSON".
  OptionSpec& AddJsonFlag(bool* out, const std::string& what);
  CommandSpec& AddSubcommand(std::string command_name, std::string command_help);
};

}  // namespace optrace::cli

#endif  // OPTRACE_CLI_COMMAND_SPEC_H_
