// Tensors: views of a graph's variables and constants.
//
// A Tensor is a value. Copies are independent handles (the C ABI clones the
// view), and views are taken without a Graph: each handle carries its graph
// and its view (slices, index, reshape, dimension shuffles, concatenation,
// broadcast...). The shape arithmetic of the composite views (flatten of a
// range, expand, squeeze, dimRoll, upsample) is done here on top of the
// library's primitive views.
//
// The commonest view, a vertex's slice of a one-dimensional tensor, is one
// contiguous run of one tensor's elements: such a Tensor holds the run
// (`prs_run`, plain data) instead of a handle, so a loop that slices and
// connects makes and frees no handle. Slicing a run, its queries and
// `Graph::connect` read the run; any other operation makes its handle the
// first time it needs one (once, also under concurrent const use).
#ifndef PRS_POPLAR_TENSOR_HPP
#define PRS_POPLAR_TENSOR_HPP

#include <poplar/ArrayRef.hpp>
#include <poplar/Interval.hpp>
#include <poplar/Type.hpp>
#include <poplar/capi.h>
#include <poplar/exceptions.hpp>

#include <atomic>
#include <cstddef>
#include <cstdint>
#include <string>
#include <utility>
#include <vector>

namespace poplar {

/// How Tensor::upsample fills the new elements.
enum class UpsampleMethod { REPEAT };

class Tensor {
public:
  /// An invalid tensor (valid() is false), to be assigned.
  Tensor() : tensor_(nullptr), run_(noRun()) {}
  /// Takes ownership of a C ABI tensor (for the project's headers).
  explicit Tensor(prs_tensor *owned) : tensor_(owned), run_(noRun()) {}
  /// A run of a tensor's elements (`run.len` at least 1), held without a
  /// handle (for the project's headers).
  explicit Tensor(const prs_run &run) : tensor_(nullptr), run_(run) {}

  /// A run is copied as it is; a handle is cloned.
  Tensor(const Tensor &other) : tensor_(nullptr), run_(other.run_) {
    prs_tensor *t = other.tensor_.load(std::memory_order_acquire);
    if (run_.len == 0 && t != nullptr) {
      prs_tensor *copy = nullptr;
      detail::check(prs_tensor_clone(t, &copy));
      tensor_.store(copy, std::memory_order_relaxed);
    }
  }
  Tensor(Tensor &&other) noexcept
      : tensor_(other.tensor_.exchange(nullptr, std::memory_order_acq_rel)), run_(other.run_) {
    other.run_ = noRun();
  }
  Tensor &operator=(const Tensor &other) {
    Tensor copy(other);
    swap(copy);
    return *this;
  }
  Tensor &operator=(Tensor &&other) noexcept {
    swap(other);
    return *this;
  }
  ~Tensor() {
    prs_tensor *t = tensor_.load(std::memory_order_acquire);
    if (t != nullptr)
      prs_tensor_free(t);
  }

  bool valid() const { return run_.len != 0 || tensor_.load(std::memory_order_acquire) != nullptr; }

  // ---- queries ---------------------------------------------------------

  Type elementType() const {
    if (run_.len != 0)
      return Type(static_cast<prs_type>(run_.type));
    return Type(static_cast<prs_type>(prs_tensor_type(handle())));
  }
  unsigned rank() const { return run_.len != 0 ? 1 : static_cast<unsigned>(prs_tensor_rank(handle())); }
  std::size_t numElements() const {
    return run_.len != 0 ? static_cast<std::size_t>(run_.len) : prs_tensor_num_elements(handle());
  }

  std::vector<std::size_t> shape() const {
    if (run_.len != 0)
      return std::vector<std::size_t>(1, static_cast<std::size_t>(run_.len));
    std::vector<std::size_t> dims(rank());
    prs_tensor_shape(handle(), dims.data(), dims.size());
    return dims;
  }

  std::size_t dim(unsigned i) const {
    std::vector<std::size_t> dims = shape();
    if (i >= dims.size())
      throw index_error("Tensor::dim(" + std::to_string(i) + ") of a tensor of rank " +
                        std::to_string(dims.size()));
    return dims[i];
  }

  /// Whether the two views share an element.
  bool intersectsWith(const Tensor &other) const {
    int out = 0;
    detail::check(prs_tensor_intersects(handle(), other.handle(), &out));
    return out != 0;
  }

  /// Whether the view holds an element more than once (broadcast views).
  bool containsAliases() const {
    int out = 0;
    detail::check(prs_tensor_contains_aliases(handle(), &out));
    return out != 0;
  }

  /// A short description of the view, for messages.
  std::string getDebugStr() const {
    char *text = nullptr;
    detail::check(prs_tensor_describe(handle(), &text));
    return detail::takeString(text);
  }
  std::string getVarStr() const { return getDebugStr(); }

  // ---- primitive views (the library's) -----------------------------------

  /// Element `i` of the first dimension (the rank drops by one).
  Tensor operator[](std::size_t i) const {
    prs_tensor *out = nullptr;
    detail::check(prs_tensor_index(handle(), i, &out));
    return Tensor(out);
  }

  Tensor slice(std::size_t begin, std::size_t end, unsigned dimension = 0) const {
    // A run's non-empty slice is a run; anything else (an empty slice, an
    // error) is the library's.
    if (run_.len != 0 && dimension == 0 && begin < end && end <= run_.len) {
      prs_run out = run_;
      out.offset += begin;
      out.len = end - begin;
      return Tensor(out);
    }
    prs_run run = noRun();
    prs_tensor *out = nullptr;
    detail::check(prs_tensor_slice_run(handle(), begin, end, dimension, &run, &out));
    return out != nullptr ? Tensor(out) : Tensor(run);
  }

  Tensor slice(const Interval &region, unsigned dimension = 0) const {
    return slice(region.begin(), region.end(), dimension);
  }

  /// A slice in several leading dimensions at once: [begin[d], end[d]).
  Tensor slice(ArrayRef<std::size_t> begin, ArrayRef<std::size_t> end) const {
    if (begin.size() != end.size())
      throw index_error("Tensor::slice: " + std::to_string(begin.size()) + " begin indices but " +
                        std::to_string(end.size()) + " end indices");
    prs_tensor *out = nullptr;
    detail::check(prs_tensor_slice_multi(handle(), begin.data(), end.data(), begin.size(), &out));
    return Tensor(out);
  }

  Tensor reshape(ArrayRef<std::size_t> shape) const {
    prs_tensor *out = nullptr;
    detail::check(prs_tensor_reshape(handle(), shape.data(), shape.size(), &out));
    return Tensor(out);
  }

  /// Dimension i of the result is dimension permutation[i] of this one.
  Tensor dimShuffle(ArrayRef<unsigned> permutation) const {
    std::vector<uint32_t> perm(permutation.begin(), permutation.end());
    prs_tensor *out = nullptr;
    detail::check(prs_tensor_dimshuffle(handle(), perm.data(), perm.size(), &out));
    return Tensor(out);
  }

  Tensor reverse(unsigned dimension) const {
    prs_tensor *out = nullptr;
    detail::check(prs_tensor_reverse(handle(), dimension, &out));
    return Tensor(out);
  }

  /// The whole tensor repeated N times along `dim`.
  Tensor broadcast(unsigned N, unsigned dim) const {
    prs_tensor *out = nullptr;
    detail::check(prs_tensor_broadcast(handle(), N, dim, &out));
    return Tensor(out);
  }

  /// Every `stride`-th element along `dimension`.
  Tensor subSample(unsigned stride, unsigned dimension) const {
    prs_tensor *out = nullptr;
    detail::check(prs_tensor_subsample(handle(), stride, dimension, &out));
    return Tensor(out);
  }

  // ---- composite views ---------------------------------------------------

  Tensor index(ArrayRef<std::size_t> indices) const {
    Tensor t = *this;
    for (std::size_t i : indices)
      t = t[i];
    return t;
  }

  std::vector<Tensor> slices(ArrayRef<Interval> intervals, unsigned dimension = 0) const {
    std::vector<Tensor> out;
    for (const Interval &region : intervals)
      out.push_back(slice(region, dimension));
    return out;
  }
  /// One tensor per group: its intervals' slices concatenated.
  std::vector<Tensor> slices(const std::vector<std::vector<Interval>> &groups, unsigned dimension = 0) const;
  /// Size-one slices at the given indices.
  std::vector<Tensor> slices(ArrayRef<unsigned> indices, unsigned dimension = 0) const {
    std::vector<Tensor> out;
    for (unsigned i : indices)
      out.push_back(slice(i, i + 1, dimension));
    return out;
  }

  Tensor flatten() const {
    std::size_t n = numElements();
    return reshape(ArrayRef<std::size_t>(&n, 1));
  }

  /// Dimensions [dimBegin, dimEnd) merged into one.
  Tensor flatten(unsigned dimBegin, unsigned dimEnd) const {
    std::vector<std::size_t> dims = shape();
    if (dimBegin >= dimEnd || dimEnd > dims.size())
      throw index_error("Tensor::flatten(" + std::to_string(dimBegin) + ", " + std::to_string(dimEnd) +
                        ") of a tensor of rank " + std::to_string(dims.size()));
    std::size_t merged = 1;
    for (unsigned d = dimBegin; d < dimEnd; ++d)
      merged *= dims[d];
    std::vector<std::size_t> out(dims.begin(), dims.begin() + dimBegin);
    out.push_back(merged);
    out.insert(out.end(), dims.begin() + dimEnd, dims.end());
    return reshape(out);
  }

  /// Dimensions [beginIndex, endIndex) replaced by newDims.
  Tensor reshapePartial(unsigned beginIndex, unsigned endIndex, ArrayRef<std::size_t> newDims) const {
    std::vector<std::size_t> dims = shape();
    if (beginIndex > endIndex || endIndex > dims.size())
      throw index_error("Tensor::reshapePartial: dimensions [" + std::to_string(beginIndex) + ", " +
                        std::to_string(endIndex) + ") of a tensor of rank " + std::to_string(dims.size()));
    std::vector<std::size_t> out(dims.begin(), dims.begin() + beginIndex);
    out.insert(out.end(), newDims.begin(), newDims.end());
    out.insert(out.end(), dims.begin() + endIndex, dims.end());
    return reshape(out);
  }

  /// Moves dimension source[i] to position destination[i]; the other
  /// dimensions keep their order.
  Tensor dimShufflePartial(ArrayRef<unsigned> source, ArrayRef<unsigned> destination) const {
    unsigned r = rank();
    if (source.size() != destination.size())
      throw index_error("Tensor::dimShufflePartial: source and destination differ in length");
    std::vector<int> perm(r, -1);
    std::vector<bool> moved(r, false);
    for (std::size_t i = 0; i < source.size(); ++i) {
      if (source[i] >= r || destination[i] >= r || moved[source[i]] || perm[destination[i]] != -1)
        throw index_error("Tensor::dimShufflePartial: invalid or repeated dimension");
      perm[destination[i]] = static_cast<int>(source[i]);
      moved[source[i]] = true;
    }
    unsigned next = 0;
    for (unsigned pos = 0; pos < r; ++pos) {
      if (perm[pos] != -1)
        continue;
      while (moved[next])
        ++next;
      perm[pos] = static_cast<int>(next++);
    }
    return dimShuffle(std::vector<unsigned>(perm.begin(), perm.end()));
  }

  /// Dimension dimIdx moved to position newIdx.
  Tensor dimRoll(unsigned dimIdx, unsigned newIdx = 0) const {
    return dimShufflePartial(ArrayRef<unsigned>(&dimIdx, 1), ArrayRef<unsigned>(&newIdx, 1));
  }

  /// The two dimensions of a matrix swapped.
  Tensor transpose() const {
    if (rank() != 2)
      throw poplar_error("Tensor::transpose needs a tensor of rank 2, not " + std::to_string(rank()));
    return dimShuffle({1, 0});
  }

  /// Singleton dimensions inserted before the given dimensions of this
  /// tensor (an index equal to the rank appends; repeats insert several).
  Tensor expand(ArrayRef<std::size_t> indices) const {
    std::vector<std::size_t> dims = shape();
    std::vector<std::size_t> out;
    for (std::size_t d = 0; d <= dims.size(); ++d) {
      for (std::size_t index : indices)
        if (index == d)
          out.push_back(1);
      if (d < dims.size())
        out.push_back(dims[d]);
    }
    for (std::size_t index : indices)
      if (index > dims.size())
        throw index_error("Tensor::expand: index " + std::to_string(index) + " past rank " +
                          std::to_string(dims.size()));
    return reshape(out);
  }

  /// The given dimensions, each of size one, removed.
  Tensor squeeze(ArrayRef<std::size_t> indices) const {
    std::vector<std::size_t> dims = shape();
    std::vector<bool> drop(dims.size(), false);
    for (std::size_t index : indices) {
      if (index >= dims.size() || dims[index] != 1)
        throw index_error("Tensor::squeeze: dimension " + std::to_string(index) + " is not of size 1");
      drop[index] = true;
    }
    std::vector<std::size_t> out;
    for (std::size_t d = 0; d < dims.size(); ++d)
      if (!drop[d])
        out.push_back(dims[d]);
    return reshape(out);
  }

  /// Each element along `dimension` repeated `scale` times.
  Tensor upsample(unsigned scale, unsigned dimension, UpsampleMethod method = UpsampleMethod::REPEAT) const {
    (void)method;
    std::vector<std::size_t> dims = shape();
    if (dimension >= dims.size())
      throw index_error("Tensor::upsample: dimension " + std::to_string(dimension) + " of a tensor of rank " +
                        std::to_string(dims.size()));
    std::size_t after = dimension + 1;
    Tensor repeated = expand(ArrayRef<std::size_t>(&after, 1)).broadcast(scale, dimension + 1);
    return repeated.flatten(dimension, dimension + 2);
  }

  /// The C ABI tensor (for the project's headers), made from the run the
  /// first time it is asked for; throws for an invalid tensor.
  const prs_tensor *handle() const {
    prs_tensor *t = tensor_.load(std::memory_order_acquire);
    if (t != nullptr)
      return t;
    if (run_.len == 0)
      throw poplar_error("operation on an invalid Tensor (default-constructed or moved from)");
    return makeHandle();
  }

  /// The run the tensor is, or null when it is a handle's view (for the
  /// project's headers: calls that take a run spare the handle).
  const prs_run *run() const { return run_.len != 0 ? &run_ : nullptr; }

private:
  static prs_run noRun() {
    prs_run r;
    r.tensor = 0;
    r.type = 0;
    r.offset = 0;
    r.len = 0;
    return r;
  }

  void swap(Tensor &other) noexcept {
    prs_tensor *mine = tensor_.load(std::memory_order_relaxed);
    tensor_.store(other.tensor_.load(std::memory_order_relaxed), std::memory_order_relaxed);
    other.tensor_.store(mine, std::memory_order_relaxed);
    std::swap(run_, other.run_);
  }

  /// The run's handle, kept; a thread that loses the race to make it
  /// frees its own.
  const prs_tensor *makeHandle() const {
    prs_tensor *made = nullptr;
    detail::check(prs_tensor_from_run(&run_, &made));
    prs_tensor *expected = nullptr;
    if (tensor_.compare_exchange_strong(expected, made, std::memory_order_acq_rel)) {
      return made;
    }
    prs_tensor_free(made);
    return expected;
  }

  /// The handle: owned; for a run, made when first needed.
  mutable std::atomic<prs_tensor *> tensor_;
  /// The run (`len` 0: none, the tensor is its handle or invalid).
  prs_run run_;
};

/// Whether two tensors are the same view (both invalid counts as equal).
inline bool operator==(const Tensor &a, const Tensor &b) {
  if (!a.valid() || !b.valid())
    return a.valid() == b.valid();
  return prs_tensor_equal(a.handle(), b.handle()) != 0;
}
inline bool operator!=(const Tensor &a, const Tensor &b) { return !(a == b); }

/// The tensors joined along `dimension`.
inline Tensor concat(ArrayRef<Tensor> ts, unsigned dimension = 0) {
  std::vector<const prs_tensor *> handles;
  for (const Tensor &t : ts)
    handles.push_back(t.handle());
  prs_tensor *out = nullptr;
  detail::check(prs_tensor_concat(handles.data(), handles.size(), dimension, &out));
  return Tensor(out);
}

inline Tensor concat(const Tensor &first, const Tensor &second, unsigned dimension = 0) {
  return concat({first, second}, dimension);
}

/// `second` added as one more element of `first` along `dimension`.
inline Tensor append(const Tensor &first, const Tensor &second, unsigned dimension) {
  std::size_t at = dimension;
  return concat(first, second.expand(ArrayRef<std::size_t>(&at, 1)), dimension);
}
inline Tensor append(const Tensor &first, const Tensor &second) { return append(first, second, 0); }

inline std::vector<Tensor> Tensor::slices(const std::vector<std::vector<Interval>> &groups,
                                          unsigned dimension) const {
  std::vector<Tensor> out;
  for (const std::vector<Interval> &group : groups)
    out.push_back(concat(slices(group, dimension), dimension));
  return out;
}

} // namespace poplar

#endif
