// fill_check: every rank fills a block with a pattern and checks it element by element — the
// smallest complete kind, the template docs/how-to/add-a-scenario-kind.md copies.
#include <climits>
#include <cstdint>
#include <memory>
#include <span>
#include <vector>

#include "absl/strings/str_cat.h"
#include "harness/core/enum_names.h"
#include "harness/core/param.h"
#include "harness/core/registry.h"
#include "harness/runtime/point_context.h"

namespace gh {
namespace {

// An enum parameter: its names are written once, here; the loader admits only these.
enum class FillPattern { kIota, kRankStamp };
GH_ENUM_NAMES(FillPattern, {FillPattern::kIota, "iota"}, {FillPattern::kRankStamp, "rank_stamp"});

class FillCheck : public Scenario {
 public:
  RankOutcome Run(PointContext& ctx) override {
    const auto pattern = ctx.point().GetEnum<FillPattern>("pattern");
    const int64_t count = ctx.point().GetInt("bytes") / static_cast<int64_t>(sizeof(uint32_t));
    auto expected = [&](int64_t i) {
      return pattern == FillPattern::kIota ? static_cast<uint32_t>(i)
                                           : static_cast<uint32_t>(ctx.rank() * 1000003 + i);
    };
    ctx.SetStep("fill");
    std::vector<uint32_t> block(static_cast<size_t>(count));
    for (int64_t i = 0; i < count; ++i) block[i] = expected(i);
    ctx.SetStep("verify");  // every element, counting the wrong ones (0 tolerance)
    Mismatch mismatch;
    mismatch.checked_elements = count;
    for (int64_t i = 0; i < count; ++i) {
      if (block[i] == expected(i)) continue;
      if (mismatch.wrong_elements++ == 0) {
        mismatch.first_index = i;
        mismatch.expected = absl::StrCat(expected(i));
        mismatch.actual = absl::StrCat(block[i]);
      }
    }
    if (mismatch.wrong_elements > 0) {
      RankOutcome failed = RankOutcome::Fail(
          absl::StrCat(mismatch.wrong_elements, " of ", count, " elements wrong"), "verify");
      failed.mismatch = mismatch;
      return failed;
    }
    return RankOutcome();  // a pass
  }
};

KindInfo DescribeFillCheck() {
  KindInfo info;
  info.name = "fill_check";
  info.description = "fill a block with a pattern and verify it element by element";
  info.params = ParamsBuilder()
                    .Bytes("bytes", 4096, "block size per rank")
                    .Min(4)
                    .Enum("pattern", FillPattern::kIota, "what each element holds")
                    .Build();
  info.backends = {Backend::kHost};
  info.ranks = {1, INT_MAX};
  info.make = [] { return std::unique_ptr<Scenario>(new FillCheck()); };
  return info;
}

}  // namespace

GH_REGISTER_SCENARIO(fill_check, DescribeFillCheck);

}  // namespace gh
