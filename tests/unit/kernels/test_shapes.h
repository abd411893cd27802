// The shapes that parameterise the kernel tests, and readable test names
// for them ("37x131x129" rather than a byte dump).
#ifndef OPTRACE_TESTS_UNIT_KERNELS_TEST_SHAPES_H_
#define OPTRACE_TESTS_UNIT_KERNELS_TEST_SHAPES_H_

#include <gtest/gtest.h>

#include <cstddef>
#include <string>

#include "kernels/matmul_params.h"

namespace optrace::kernels::testing {

// The shape of a row kernel's input (rms_norm, softmax).
struct RowsCols {
  size_t rows;
  size_t cols;
};

// "<M>x<N>x<K>".
inline std::string MatmulShapeName(const ::testing::TestParamInfo<MatmulShape>& info) {
  return std::to_string(info.param.m) + "x" + std::to_string(info.param.n) + "x" +
         std::to_string(info.param.k);
}

// "<rows>x<cols>".
inline std::string RowsColsName(const ::testing::TestParamInfo<RowsCols>& info) {
  return std::to_string(info.param.rows) + "x" + std::to_string(info.param.cols);
}

}  // namespace optrace::kernels::testing

#endif  // OPTRACE_TESTS_UNIT_KERNELS_TEST_SHAPES_H_
