#include "metrics/duration_buckets.h"

#include <gtest/gtest.h>

#include "model/duration_sketch.h"

namespace optrace::daemon {
namespace {

TEST(DurationBucketsTest, EveryEdge_StartsADurationSketchBucket) {
  for (size_t i = 0; i < kDurationEdges; ++i) {
    const uint64_t edge = DurationEdgeNs(i);
    EXPECT_NE(DurationSketch::BucketOf(edge - 1), DurationSketch::BucketOf(edge)) << edge;
  }
}

TEST(DurationBucketsTest, BucketOf_Edges_Inclusive) {
  EXPECT_EQ(DurationBucketOf(0), 0u);
  EXPECT_EQ(DurationBucketOf(1024), 0u);
  EXPECT_EQ(DurationBucketOf(1025), 1u);
  EXPECT_EQ(DurationBucketOf(2048), 1u);
  EXPECT_EQ(DurationBucketOf(DurationEdgeNs(kDurationEdges - 1)), kDurationEdges - 1);
  EXPECT_EQ(DurationBucketOf(DurationEdgeNs(kDurationEdges - 1) + 1), kDurationEdges);
  EXPECT_EQ(DurationBucketOf(UINT64_MAX), kDurationEdges);
}

TEST(DurationBucketsTest, Range_About1usTo17s) {
  EXPECT_EQ(DurationEdgeNs(0), 1024u);
  EXPECT_EQ(DurationEdgeNs(kDurationEdges - 1), uint64_t{1} << 34);
}

}  // namespace
}  // namespace optrace::daemon
