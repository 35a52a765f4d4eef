// GH_ENUM_NAMES declares an enum's names once (core/param.h's EnumName table and the
// `EnumNames(E)` that argument-dependent lookup finds; the table is kENames):
//   enum class RingDtype { kF32, kBF16 };
//   GH_ENUM_NAMES(RingDtype, {RingDtype::kF32, "f32"}, {RingDtype::kBF16, "bf16"});
// ParamsBuilder::Enum derives the parameter's choices from it and Point::GetEnum<E> reads the
// value back through it.
#ifndef GPUHARNESS_CORE_ENUM_NAMES_H_
#define GPUHARNESS_CORE_ENUM_NAMES_H_

#include <span>

#include "harness/core/param.h"

#define GH_ENUM_NAMES(E, ...)                                                    \
  inline constexpr ::gh::EnumName<E> k##E##Names[] = {__VA_ARGS__};              \
  constexpr std::span<const ::gh::EnumName<E>> EnumNames(E) { return k##E##Names; }

#endif  // GPUHARNESS_CORE_ENUM_NAMES_H_
