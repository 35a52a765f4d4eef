// Test-only: a value beside the name its code spells it by (a macro, an enumerator), written
// once, for tables that check a function naming such values:
//   for (const NamedValue<int>& c : {GH_NAMED_VALUE(MPI_SUCCESS), ...})
//     EXPECT_EQ(MpiErrorClassName(c.value), c.name);
#ifndef GPUHARNESS_CORE_TESTDATA_NAMED_VALUE_H_
#define GPUHARNESS_CORE_TESTDATA_NAMED_VALUE_H_

namespace gh::testing {

template <typename T>
struct NamedValue {
  T value;
  const char* name;
};

template <typename T>
NamedValue<T> MakeNamedValue(T value, const char* name) {
  return {value, name};
}

}  // namespace gh::testing

#define GH_NAMED_VALUE(value) ::gh::testing::MakeNamedValue(value, #value)

#endif  // GPUHARNESS_CORE_TESTDATA_NAMED_VALUE_H_
