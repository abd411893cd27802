#include "command_spec.h"

#include <utility>

namespace optrace::cli {

OptionSpec& CommandSpec::Add(std::string names, OptionValue value, std::string option_help) {
  OptionSpec& option = options.emplace_back();
  option.names = std::move(names);
  option.help = std::move(option_help);
  option.value = std::move(value);
  return option;
}

OptionSpec& CommandSpec::AddFlag(std::string names, bool* out, std::string option_help) {
  return Add(std::move(names), out, std::move(option_help));
}

OptionSpec& CommandSpec::AddWord(std::string names, WordValue value,
                                 const std::string& option_help) {
  std::string full_help = option_help + " (" + value.words + ")";
  OptionSpec& option = Add(std::move(names), std::move(value), std::move(full_help));
  option.type_name = "WORD";
  return option;
}

OptionSpec& CommandSpec::AddDuration(std::string names, uint64_t* out_ns, std::string option_help) {
  OptionSpec& option = Add(std::move(names), DurationValue{out_ns}, std::move(option_help));
  option.type_name = "DURATION";
  return option;
}

OptionSpec& CommandSpec::AddAgo(std::string names, int64_t* out_unix_ns, std::string option_help) {
  OptionSpec& option = Add(std::move(names), AgoValue{out_unix_ns}, std::move(option_help));
  option.type_name = "DURATION";
  return option;
}

OptionSpec& CommandSpec::AddJsonFlag(bool* out, const std::string& what) {
  return AddFlag("--json", out, "print " + what + " as JSON");
}

CommandSpec& CommandSpec::AddSubcommand(std::string command_name, std::string command_help) {
  return subcommands.emplace_back(std::move(command_name), std::move(command_help));
}

}  // namespace optrace::cli
