#include "harness/runtime/mpi_errors.h"

#include <mpi.h>

#include "gtest/gtest.h"

namespace gh {
namespace {

TEST(MpiErrorClassName, NamesTheStandardClasses) {
  EXPECT_EQ(MpiErrorClassName(MPI_SUCCESS), "MPI_SUCCESS");
  EXPECT_EQ(MpiErrorClassName(MPI_ERR_TRUNCATE), "MPI_ERR_TRUNCATE");
  EXPECT_EQ(MpiErrorClassName(MPI_ERR_RANK), "MPI_ERR_RANK");
  EXPECT_EQ(MpiErrorClassName(MPI_ERR_WIN), "MPI_ERR_WIN");
  EXPECT_EQ(MpiErrorClassName(MPI_ERR_RMA_SYNC), "MPI_ERR_RMA_SYNC");
  EXPECT_EQ(MpiErrorClassName(MPI_ERR_NO_MEM), "MPI_ERR_NO_MEM");
}

TEST(MpiErrorClassName, UnnamedClassesAreUnknown) {
  EXPECT_EQ(MpiErrorClassName(MPI_ERR_LASTCODE + 7), "MPI_ERR_UNKNOWN");
  EXPECT_EQ(MpiErrorClassName(-3), "MPI_ERR_UNKNOWN");
}

}  // namespace
}  // namespace gh
