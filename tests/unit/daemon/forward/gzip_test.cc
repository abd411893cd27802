// GzipCompress: a gzip member that zlib (as ClickHouse) reads back.
#include "forward/gzip.h"

#include <gtest/gtest.h>
#include <zlib.h>

#include <random>

namespace optrace::daemon {
namespace {

std::string Gunzip(const std::string& gz, size_t size) {
  std::string out(size, '\0');
  z_stream stream{};
  EXPECT_EQ(inflateInit2(&stream, 15 + 16), Z_OK);
  stream.next_in = reinterpret_cast<Bytef*>(const_cast<char*>(gz.data()));
  stream.avail_in = static_cast<uInt>(gz.size());
  stream.next_out = reinterpret_cast<Bytef*>(out.data());
  stream.avail_out = static_cast<uInt>(out.size());
  EXPECT_EQ(inflate(&stream, Z_FINISH), Z_STREAM_END);
  out.resize(stream.total_out);
  inflateEnd(&stream);
  return out;
}

TEST(GzipTest, Compress_RepetitiveRows_SmallerAndRoundTrips) {
  std::string rows;
  for (int i = 0; i < 10000; ++i)
    rows += "\x06matmul\x15matmul_128x256x512_f32" + std::to_string(i);
  Result<std::string> gz = GzipCompress(rows);
  ASSERT_TRUE(gz.ok()) << gz.status().message();
  EXPECT_LT(gz->size(), rows.size() / 4);
  EXPECT_EQ(gz.value().substr(0, 2), "\x1f\x8b") << "the gzip magic";
  EXPECT_EQ(Gunzip(gz.value(), rows.size()), rows);
}

TEST(GzipTest, Compress_EmptyAndRandom_RoundTrip) {
  Result<std::string> empty = GzipCompress("");
  ASSERT_TRUE(empty.ok());
  EXPECT_EQ(Gunzip(empty.value(), 16), "");
  std::mt19937 rng(7);
  std::string noise(1 << 20, '\0');
  for (char& c : noise) c = static_cast<char>(rng());
  Result<std::string> gz = GzipCompress(noise);
  ASSERT_TRUE(gz.ok());
  EXPECT_EQ(Gunzip(gz.value(), noise.size()), noise);
}

}  // namespace
}  // namespace optrace::daemon
