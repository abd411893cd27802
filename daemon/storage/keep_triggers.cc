#include "storage/keep_triggers.h"

#include <string>
#include <utility>

#include "storage/crash_keep.h"
#include "storage/known_string_ids.h"

namespace optrace::daemon {

Result<std::unique_ptr<KeepTriggers>> KeepTriggers::Create(SqliteConnection& db,
                                                           KeepTriggerOptions options) {
  auto latency = std::make_unique<LatencyKeepRules>(std::move(options.keep_rules),
                                                    options.keep_before_ns, options.keep_after_ns);
  if (!latency->empty()) {
    const std::vector<std::string> texts = latency->RuleStrings();
    Result<KnownStringIds> stored = KnownStringIds::Load(db, texts);
    if (!stored.ok()) return stored.status();
    std::vector<std::pair<StringId, std::string>> found;
    for (size_t i = 0; i < texts.size(); ++i) {
      if (stored->id(i) != 0) found.emplace_back(stored->id(i), texts[i]);
    }
    latency->NoteStrings(found);
  }
  Result<std::unique_ptr<RuntimeKeeps>> runtime =
      RuntimeKeeps::Create(db, options.keep_before_ns, options.keep_after_ns);
  if (!runtime.ok()) return runtime.status();
  Result<SlowStepKeeps> slow_steps = SlowStepKeeps::Create(db);
  if (!slow_steps.ok()) return slow_steps.status();
  return std::unique_ptr<KeepTriggers>(new KeepTriggers(options.keep_before_ns, std::move(latency),
                                                        std::move(runtime).value(),
                                                        std::move(slow_steps).value()));
}

std::vector<KeepRequest> KeepTriggers::Keeps(const StoreBatch& batch) {
  std::vector<KeepRequest> keeps = CrashKeeps(batch, keep_before_ns_);
  auto add = [&keeps](std::vector<KeepRequest> more) {
    for (KeepRequest& keep : more) keeps.push_back(std::move(keep));
  };
  if (!latency_->empty()) {
    latency_->NoteStrings(batch.new_strings);
    add(latency_->Keeps(batch));
  }
  add(runtime_->Keeps(batch));
  add(slow_steps_.Keeps(batch));
  return keeps;
}

}  // namespace optrace::daemon
