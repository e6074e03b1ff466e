// A non-owning view of a contiguous array, the type Poplar uses for shapes,
// value lists and program lists.
//
// The set of constructors is Poplar's on purpose: overload resolution in
// user programs depends on it. There is no constructor from a single
// element (so `{program}` and `Sequence` arguments resolve as with the
// SDK) and construction from nullptr is deleted.
#ifndef PRS_POPLAR_ARRAYREF_HPP
#define PRS_POPLAR_ARRAYREF_HPP

#include <array>
#include <cstddef>
#include <initializer_list>
#include <limits>
#include <vector>

namespace poplar {

template <class T> class ArrayRef {
public:
  using value_type = T;
  using reference = T &;
  using const_reference = const T &;
  using difference_type = std::ptrdiff_t;
  using size_type = std::size_t;
  using iterator = const T *;
  using const_iterator = const T *;

  constexpr ArrayRef() : data_(nullptr), size_(0) {}
  ArrayRef(std::nullptr_t) = delete;
  constexpr ArrayRef(const T *p, std::size_t size) : data_(p), size_(size) {}
  template <class Alloc> ArrayRef(const std::vector<T, Alloc> &v) : data_(v.data()), size_(v.size()) {}
  template <std::size_t N> ArrayRef(const std::array<T, N> &a) : data_(a.data()), size_(N) {}
  template <std::size_t N> constexpr ArrayRef(const T (&p)[N]) : data_(p), size_(N) {}
  // Viewing a braced list is the point (`addVariable(FLOAT, {4, 4})`): the
  // list lives until the end of the call's full expression, which is as long
  // as such a view is used. GCC warns about the pattern in general.
#if defined(__GNUC__) && !defined(__clang__) && __GNUC__ >= 9
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Winit-list-lifetime"
#endif
  ArrayRef(const std::initializer_list<T> &list) : data_(list.begin()), size_(list.size()) {}
#if defined(__GNUC__) && !defined(__clang__) && __GNUC__ >= 9
#pragma GCC diagnostic pop
#endif

  constexpr const T *data() const { return data_; }
  constexpr std::size_t size() const { return size_; }
  constexpr bool empty() const { return size_ == 0; }
  std::size_t max_size() const { return std::numeric_limits<std::size_t>::max() / sizeof(T); }

  const T &front() const { return data_[0]; }
  const T &back() const { return data_[size_ - 1]; }
  const T &operator[](std::size_t i) const { return data_[i]; }

  const_iterator begin() const { return data_; }
  const_iterator end() const { return data_ + size_; }
  const_iterator cbegin() const { return data_; }
  const_iterator cend() const { return data_ + size_; }

  std::vector<T> cloneAsVector() const { return std::vector<T>(begin(), end()); }

private:
  const T *data_;
  std::size_t size_;
};

template <class T> bool operator==(const ArrayRef<T> &l, const ArrayRef<T> &r) {
  if (l.size() != r.size())
    return false;
  for (std::size_t i = 0; i < l.size(); ++i)
    if (!(l[i] == r[i]))
      return false;
  return true;
}

template <class T> bool operator!=(const ArrayRef<T> &l, const ArrayRef<T> &r) { return !(l == r); }

} // namespace poplar

#endif
