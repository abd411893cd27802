// optrace: the command-line client of optraced. This file only parses the
// command line (CLI11 is slow to compile: it is included here and nowhere
// else): each *_command.cc describes its subcommand's options and run
// (command_spec.h), and this file hands those descriptions to CLI11.
#include <CLI/CLI.hpp>
#include <algorithm>
#include <memory>
#include <optional>
#include <string>
#include <utility>
#include <variant>
#include <vector>

#include "cli_error.h"
#include "command_spec.h"
#include "commands.h"
#include "connection.h"
#include "exit_codes.h"
#include "human_format.h"
#include "wall_clock.h"

namespace optrace::cli {
namespace {

// The visitor of several lambdas.
template <typename... Lambdas>
struct Overloaded : Lambdas... {
  using Lambdas::operator()...;
};

// Accepts the words of `word`; CLI11 prints the message for the rest.
CLI::Validator WordValidator(const WordValue& word) {
  return CLI::Validator(
      [is_word = word.is_word, list = word.words](std::string& text) {
        return is_word(text) ? std::string() : text + " is not one of: " + list;
      },
      "");
}

// Accepts what ParseDuration accepts.
CLI::Validator DurationValidator() {
  return CLI::Validator(
      [](std::string& text) {
        return ParseDuration(text) ? std::string()
                                   : text + " is not a duration like 500us, 1ms or 2.5s";
      },
      "");
}

// The CLI11 option of `spec`'s value: a flag for a bool, a typed option for
// the plain types, a checked text for the rest.
CLI::Option* AddValue(CLI::App* app, const OptionSpec& spec) {
  const std::string& names = spec.names;
  const std::string& help = spec.help;
  return std::visit(
      Overloaded{
          [&](bool* out) { return app->add_flag(names, *out, help); },
          [&](std::optional<uint32_t>* out) {
            return app->add_option_function<uint32_t>(
                names, [out](uint32_t value) { *out = value; }, help);
          },
          [&](const WordValue& word) {
            return app
                ->add_option_function<std::string>(
                    names, [store = word.store](const std::string& text) { store(text); }, help)
                ->check(WordValidator(word));
          },
          [&](DurationValue duration) {
            return app
                ->add_option_function<std::string>(
                    names,
                    [out_ns = duration.ns](const std::string& text) {
                      *out_ns = *ParseDuration(text);
                    },
                    help)
                ->check(DurationValidator());
          },
          [&](AgoValue ago) {
            return app
                ->add_option_function<std::string>(
                    names,
                    [out_unix_ns = ago.unix_ns](const std::string& text) {
                      const int64_t now = NowUnixNs();
                      *out_unix_ns = now - static_cast<int64_t>(std::min<uint64_t>(
                                               *ParseDuration(text), static_cast<uint64_t>(now)));
                    },
                    help)
                ->check(DurationValidator());
          },
          [&](auto* out) { return app->add_option(names, *out, help); },
      },
      spec.value);
}

// What the parse of one command means: its options to report as given, and
// the commands that can run, children first, so that the first parsed one
// is the most specific.
struct ParsedCommands {
  std::vector<std::pair<const CLI::Option*, bool*>> given;
  std::vector<std::pair<const CLI::App*, const CommandSpec*>> runnable;
};

// Adds `spec` (and its subcommands) to `parent`. `spec` must outlive the
// parse and the run.
void AddCommand(CLI::App* parent, const CommandSpec& spec, ParsedCommands* parsed) {
  CLI::App* command = parent->add_subcommand(spec.name, spec.help);
  if (spec.at_most_one_subcommand) command->require_subcommand(0, 1);
  command->footer(spec.footer);
  for (const OptionSpec& option_spec : spec.options) {
    CLI::Option* option = AddValue(command, option_spec);
    if (!option_spec.type_name.empty()) option->type_name(option_spec.type_name);
    if (option_spec.required) option->required();
    if (option_spec.show_default) option->capture_default_str();
    if (!option_spec.group.empty()) option->group(option_spec.group);
    if (option_spec.given != nullptr) parsed->given.emplace_back(option, option_spec.given);
  }
  // After every option is there: a rule may name a later one.
  for (const OptionSpec& option_spec : spec.options) {
    CLI::Option* option =
        command->get_option(option_spec.names.substr(0, option_spec.names.find(',')));
    for (const std::string& other : option_spec.excludes)
      option->excludes(command->get_option(other));
    for (const std::string& other : option_spec.needs) option->needs(command->get_option(other));
  }
  for (const CommandSpec& child : spec.subcommands) AddCommand(command, child, parsed);
  if (spec.run) parsed->runnable.emplace_back(command, &spec);
}

// Runs `spec`: its check, then its command on a connection to the daemon;
// returns the exit code.
int RunCommand(const CommandSpec& spec, const ConnectionOptions& options) {
  if (spec.check) {
    if (std::optional<CliError> error = spec.check()) return Fail(*error);
  }
  CliError error;
  std::unique_ptr<Connection> connection = Connection::Open(options, &error);
  if (!connection) return Fail(error);
  return spec.run(*connection);
}

int ParseAndRun(int argc, char** argv) {
  // Named, so that usage lines say "optrace tail", not the binary's path.
  CLI::App app{"optrace: live op tracing for ML and GPU runtimes; talks to the optraced daemon.",
               "optrace"};
  app.set_version_flag("--version", std::string("optrace ") + OPTRACE_VERSION);
  app.require_subcommand(1);
  app.fallthrough();  // global options may follow the subcommand
  app.footer(
      "Examples:\n  optrace tail --level=trace\n  optrace sessions --all\n"
      "  optrace stats 12\n  optrace run -- optrace-demo\n"
      "Run `optrace help COMMAND` or `optrace COMMAND --help` for a command's options.");
  ConnectionOptions connection;
  CLI::Option* socket =
      app.add_option("--socket", connection.socket,
                     "the daemon's Unix socket (default: $OPTRACE_SOCKET, else the per-user one)")
          ->type_name("PATH");
  CLI::Option* server =
      app.add_option("--server", connection.server, "talk to a daemon on TCP HOST:PORT instead")
          ->type_name("HOST:PORT");
  socket->excludes(server);
  app.add_option("--tls-ca", connection.tls_ca, "PEM CA file: use TLS with --server")
      ->check(CLI::ExistingFile);
  app.add_option("--token-file", connection.token_file,
                 "file of your bearer token for --server (default: $OPTRACE_TOKEN_FILE; not "
                 "readable by others)")
      ->type_name("FILE");
  app.add_option("--tls-cert", connection.tls_cert,
                 "PEM client certificate for --server over TLS (with --tls-key)")
      ->check(CLI::ExistingFile);
  app.add_option("--tls-key", connection.tls_key, "PEM key of --tls-cert")
      ->check(CLI::ExistingFile);

  const std::vector<CommandSpec> commands = DescribeCommands();
  ParsedCommands parsed;
  for (const CommandSpec& command : commands) AddCommand(&app, command, &parsed);
  std::string help_topic;
  CLI::App* help = app.add_subcommand("help", "show help, for optrace or one command");
  help->add_option("COMMAND", help_topic, "the command");

  try {
    app.parse(argc, argv);
  } catch (const CLI::ParseError& e) {
    // --help and --version are "errors" with code 0; the rest is misuse.
    return app.exit(e) == 0 ? kExitOk : kExitUsage;
  }
  if (help->parsed()) {
    if (help_topic.empty()) {
      std::cout << app.help();
      return kExitOk;
    }
    try {
      std::cout << app.get_subcommand(help_topic)->help(app.get_name());
    } catch (const CLI::OptionNotFound&) {
      std::cerr << "optrace: no command " << help_topic << "; see optrace help\n";
      return kExitUsage;
    }
    return kExitOk;
  }
  for (const auto& [option, given] : parsed.given) *given = option->count() > 0;
  for (const auto& [command, spec] : parsed.runnable) {
    if (command->parsed()) return RunCommand(*spec, connection);
  }
  std::cout << app.help();
  return kExitUsage;
}

}  // namespace
}  // namespace optrace::cli

int main(int argc, char** argv) { return optrace::cli::ParseAndRun(argc, argv); }
