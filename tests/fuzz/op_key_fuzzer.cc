// libFuzzer target: the PyTorch tracer's op key (torch/op_id_cache.h), made
// from whatever names, dtypes and shapes a program's ops have. Two ops A
// and B are read from the input; B is read on its own, or (by the first
// byte) made from A by the moves that must not collide: a size moved from
// one shape to the next ([1,2],[3] against [1],[2,3]) or a byte from the
// name to the dtype ("aten::mu"+"lf32" against "aten::mul"+"f32"). Checks:
// Pack refuses exactly the inputs that do not fit; two packed keys are
// equal exactly when the tagged inputs are, and then hash and tag alike;
// the per-thread cache finds a key once inserted, and never answers a key
// with another key's ids.
#include <algorithm>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <limits>
#include <string>
#include <vector>

#include "torch/op_id_cache.h"
#include "torch/op_tag.h"

namespace {

using namespace optrace::torch_ops;

struct Op {
  std::string name;
  std::string dtype;
  std::vector<std::vector<int64_t>> shapes;
};

// Reads the input byte by byte; 0 once it ends.
class Bytes {
 public:
  Bytes(const uint8_t* data, size_t size) : data_(data), size_(size) {}
  uint8_t Next() { return at_ < size_ ? data_[at_++] : 0; }
  std::string Text(size_t n) {
    std::string out;
    for (size_t i = 0; i < n; ++i) out.push_back(static_cast<char>(Next()));
    return out;
  }

 private:
  const uint8_t* data_;
  size_t size_;
  size_t at_ = 0;
};

// A name of up to 79 bytes and a dtype of up to 11 (both past what a key
// holds), up to 4 shapes of rank up to 9; a size is a byte, or after 0xff
// any 64-bit value.
Op ReadOp(Bytes& in) {
  Op op;
  op.name = in.Text(in.Next() % 80);
  op.dtype = in.Text(in.Next() % 12);
  op.shapes.resize(in.Next() % 5);
  for (auto& dims : op.shapes) {
    dims.resize(in.Next() % 10);
    for (int64_t& dim : dims) {
      dim = in.Next();
      if (dim == 0xff) {
        uint64_t raw = 0;
        for (int i = 0; i < 8; ++i) raw = raw << 8 | in.Next();
        dim = static_cast<int64_t>(raw);
      }
    }
  }
  return op;
}

std::vector<TensorShape> Shapes(const Op& op) {
  std::vector<TensorShape> out;
  for (const auto& dims : op.shapes) out.push_back({dims});
  return out;
}

// The shapes OpTag and the key read: the first kTaggedShapes.
std::vector<std::vector<int64_t>> Tagged(const Op& op) {
  return {op.shapes.begin(),
          op.shapes.begin() + static_cast<long>(std::min(op.shapes.size(), kTaggedShapes))};
}

bool Fits(const Op& op) {
  size_t sizes = 0;
  for (const auto& dims : Tagged(op)) {
    sizes += dims.size();
    for (int64_t dim : dims) {
      if (dim < 0 || dim > std::numeric_limits<int32_t>::max()) return false;
    }
  }
  return op.name.size() <= OpKey::kNameBytes && op.dtype.size() <= OpKey::kDtypeBytes &&
         sizes <= OpKey::kMaxSizes;
}

std::string Tag(const Op& op) {
  char out[kMaxTagBytes];
  const auto shapes = Shapes(op);
  return std::string(out, OpTag(op.name, shapes, op.dtype, out));
}

OpIds IdsOf(uint64_t hash) {
  return {static_cast<uint32_t>(hash), static_cast<uint32_t>(hash >> 32)};
}

// Checks what the cache answers for `key`, then caches it.
void CheckCache(OpIdCache& cache, const OpKey& key) {
  const uint64_t hash = key.Hash();
  const OpIds want = IdsOf(hash);
  const OpIds* found = cache.Find(key, hash);
  if (found != nullptr && (found->name_id != want.name_id || found->tag_id != want.tag_id)) {
    std::abort();
  }
  if (found == nullptr) cache.Insert(key, hash, want);
  if (cache.Find(key, hash) == nullptr) std::abort();
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  static OpIdCache cache;  // as a thread's, zero at first and kept from input to input
  Bytes in(data, size);
  const uint8_t mode = in.Next() % 3;
  const Op a = ReadOp(in);
  Op b = mode == 0 ? ReadOp(in) : a;
  if (mode == 1) {
    for (size_t i = 0; i + 1 < b.shapes.size(); ++i) {
      if (b.shapes[i].empty()) continue;
      b.shapes[i + 1].insert(b.shapes[i + 1].begin(), b.shapes[i].back());
      b.shapes[i].pop_back();
      break;
    }
  } else if (mode == 2 && !b.name.empty()) {
    b.dtype.insert(b.dtype.begin(), b.name.back());
    b.name.pop_back();
  }
  OpKey key_a;
  OpKey key_b;
  const auto shapes_a = Shapes(a);
  const auto shapes_b = Shapes(b);
  const bool packed_a = key_a.Pack(a.name, shapes_a, a.dtype);
  const bool packed_b = key_b.Pack(b.name, shapes_b, b.dtype);
  if (packed_a != Fits(a) || packed_b != Fits(b)) std::abort();
  if (!packed_a || !packed_b) return 0;
  const bool same_inputs = a.name == b.name && a.dtype == b.dtype && Tagged(a) == Tagged(b);
  if ((key_a == key_b) != same_inputs) std::abort();
  if (same_inputs && (key_a.Hash() != key_b.Hash() || Tag(a) != Tag(b))) std::abort();
  CheckCache(cache, key_a);
  CheckCache(cache, key_b);
  return 0;
}
