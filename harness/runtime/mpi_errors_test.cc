#include "harness/runtime/mpi_errors.h"

#include <mpi.h>

#include "gtest/gtest.h"
#include "harness/core/testdata/named_value.h"

namespace gh {
namespace {

TEST(MpiErrorClassName, NamesTheStandardClasses) {
  for (const testing::NamedValue<int>& c :
       {GH_NAMED_VALUE(MPI_SUCCESS), GH_NAMED_VALUE(MPI_ERR_TRUNCATE), GH_NAMED_VALUE(MPI_ERR_RANK),
        GH_NAMED_VALUE(MPI_ERR_WIN), GH_NAMED_VALUE(MPI_ERR_RMA_SYNC), GH_NAMED_VALUE(MPI_ERR_NO_MEM)}) {
    EXPECT_EQ(MpiErrorClassName(c.value), c.name);
  }
}

TEST(MpiErrorClassName, UnnamedClassesAreUnknown) {
  EXPECT_EQ(MpiErrorClassName(MPI_ERR_LASTCODE + 7), "MPI_ERR_UNKNOWN");
  EXPECT_EQ(MpiErrorClassName(-3), "MPI_ERR_UNKNOWN");
}

}  // namespace
}  // namespace gh
