// A half-open range [begin, end), used for slices and tile mappings.
#ifndef PRS_POPLAR_INTERVAL_HPP
#define PRS_POPLAR_INTERVAL_HPP

#include <cstddef>
#include <ostream>

namespace poplar {

template <class T> struct GenericInterval {
  GenericInterval() : begin_(), end_() {}
  GenericInterval(T begin, T end) : begin_(begin), end_(end) {}

  const T &begin() const { return begin_; }
  const T &end() const { return end_; }
  const T &lower() const { return begin_; }
  const T &upper() const { return end_; }
  T size() const { return end_ - begin_; }

private:
  T begin_;
  T end_;
};

template <class T> bool operator==(const GenericInterval<T> &a, const GenericInterval<T> &b) {
  return a.begin() == b.begin() && a.end() == b.end();
}
template <class T> bool operator!=(const GenericInterval<T> &a, const GenericInterval<T> &b) { return !(a == b); }
/// Ordered by begin, then end.
template <class T> bool operator<(const GenericInterval<T> &a, const GenericInterval<T> &b) {
  return a.begin() < b.begin() || (a.begin() == b.begin() && a.end() < b.end());
}
template <class T> bool operator>(const GenericInterval<T> &a, const GenericInterval<T> &b) { return b < a; }
template <class T> bool operator<=(const GenericInterval<T> &a, const GenericInterval<T> &b) { return !(b < a); }
template <class T> bool operator>=(const GenericInterval<T> &a, const GenericInterval<T> &b) { return !(a < b); }

template <class T> std::ostream &operator<<(std::ostream &os, const GenericInterval<T> &i) {
  return os << "[" << i.begin() << ":" << i.end() << ")";
}

typedef GenericInterval<std::size_t> Interval;

} // namespace poplar

#endif
