// Keeps the scenarios object library non-empty in every configuration; kinds live beside it,
// one file each, and register themselves with GH_REGISTER_SCENARIO.
namespace gh::internal {
int scenarios_anchor = 0;
}  // namespace gh::internal
