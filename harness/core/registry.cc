#include "harness/core/registry.h"

#include <algorithm>
#include <cstdio>
#include <cstdlib>

namespace gh {

std::string_view BackendName(Backend backend) {
  switch (backend) {
    case Backend::kHost: return "host";
    case Backend::kCuda: return "cuda";
  }
  return "unknown";
}

ScenarioRegistry& ScenarioRegistry::Global() {
  // Never destroyed: registrars run during static initialisation of other files.
  static ScenarioRegistry* registry = new ScenarioRegistry();
  return *registry;
}

bool ScenarioRegistry::Register(KindInfo info) {
  if (Find(info.name) != nullptr) return false;
  kinds_.push_back(std::make_unique<KindInfo>(std::move(info)));
  return true;
}

const KindInfo* ScenarioRegistry::Find(std::string_view name) const {
  for (const auto& kind : kinds_) {
    if (kind->name == name) return kind.get();
  }
  return nullptr;
}

std::vector<const KindInfo*> ScenarioRegistry::All() const {
  std::vector<const KindInfo*> all;
  all.reserve(kinds_.size());
  for (const auto& kind : kinds_) all.push_back(kind.get());
  std::sort(all.begin(), all.end(),
            [](const KindInfo* a, const KindInfo* b) { return a->name < b->name; });
  return all;
}

namespace internal {

ScenarioRegistrar::ScenarioRegistrar(KindInfo (*describe)()) {
  KindInfo info = describe();
  std::string name = info.name;
  if (!ScenarioRegistry::Global().Register(std::move(info))) {
    // Two files claiming one kind name is a build defect; fail loudly at start-up.
    std::fprintf(stderr, "gpuharness: scenario kind '%s' is registered twice\n", name.c_str());
    std::abort();
  }
}

}  // namespace internal
}  // namespace gh
