#include "forward/gzip.h"

#include <zlib.h>

#include <algorithm>
#include <limits>

namespace optrace::daemon {
namespace {

constexpr int kGzipWindowBits = 15 + 16;  // 15: the largest window; +16: a gzip header
constexpr int kMemLevel = 8;              // zlib's default

}  // namespace

Result<std::string> GzipCompress(std::string_view data) {
  z_stream stream{};
  if (deflateInit2(&stream, Z_BEST_SPEED, Z_DEFLATED, kGzipWindowBits, kMemLevel,
                   Z_DEFAULT_STRATEGY) != Z_OK) {
    return Status::Unavailable("gzip: zlib could not start (out of memory?)");
  }
  std::string out(deflateBound(&stream, static_cast<uLong>(std::min<size_t>(
                                            data.size(), std::numeric_limits<uLong>::max()))),
                  '\0');
  // zlib counts in uInt: feed and drain in pieces that fit.
  constexpr size_t kPiece = std::numeric_limits<uInt>::max();
  size_t in_done = 0;
  size_t out_done = 0;
  int result = Z_OK;
  while (result != Z_STREAM_END) {
    const size_t in_piece = std::min(kPiece, data.size() - in_done);
    stream.next_in = reinterpret_cast<Bytef*>(const_cast<char*>(data.data() + in_done));
    stream.avail_in = static_cast<uInt>(in_piece);
    if (out.size() - out_done < 64) out.resize(out.size() * 2 + 64);
    stream.next_out = reinterpret_cast<Bytef*>(out.data() + out_done);
    stream.avail_out = static_cast<uInt>(std::min(kPiece, out.size() - out_done));
    const uInt out_before = stream.avail_out;
    const bool last = in_done + in_piece == data.size();
    result = deflate(&stream, last ? Z_FINISH : Z_NO_FLUSH);
    in_done += in_piece - stream.avail_in;
    out_done += out_before - stream.avail_out;
    if (result == Z_STREAM_ERROR) {
      deflateEnd(&stream);
      return Status::Unavailable("gzip: zlib failed to compress");
    }
  }
  deflateEnd(&stream);
  out.resize(out_done);
  return out;
}

}  // namespace optrace::daemon
