/* The C++ syntax real codelets use that the other ok cases do not: block
   comments (this one included), raw string literals, groups skipped by #if
   holding text that is no token, anonymous and inline namespaces,
   attributes before class names, among type qualifiers and after
   declarator and parameter names, declaration
   specifiers in any order, trailing return types, SupervisorVertexIf<cond>,
   ?: in template arguments, vector layouts named through constants, the
   Poplar headers that only declare names (rptsize_t, WORKER_ALIGN),
   __builtin_expect, MultiVertex::numWorkers(), exit(), type traits used as
   values (std::is_same<A, B>() and {}), ++ on a scalar edge, __FILE__,
   __LINE__, __has_include, macro rescanning and hexadecimal floating
   literals. */
#include <poplar/Vertex.hpp>
#include <poplar/Loops.hpp>
#include <poplar/VectorTypes.hpp>
#include <poplar/Alignment.hpp>
#include <poplar/QuarterFloat.hpp>
#include <poplar/IeeeHalf.hpp>
#include <ipudef.h>
#include <tuple>
#include <cstdlib>
#include <type_traits>
#include <print.h>

#if !defined(__has_include) || !__has_include(<poplar/Vertex.hpp>) || __has_include("no/such.hpp")
#error "__has_include"
#endif

#if 0
An unterminated "string and a stray ' quote are fine in a skipped group,
as is R"x(a raw string with ) and " inside)x".
#elif defined(__IPU__)
#error "not for the IPU"
#endif

using namespace poplar;

// A macro chosen by counting arguments: the chosen name takes its
// arguments from the tokens after the choosing macro's expansion.
#define TWICE_1(a) (2 * (a))
#define TWICE_2(a, b) (2 * ((a) + (b)))
#define PICK(_1, _2, N, ...) TWICE##N
#define TWICE(...) PICK(__VA_ARGS__, _2, _1, _)(__VA_ARGS__)
static_assert(TWICE(3) == 6 && TWICE(1, 2) == 6, "rescanning");
static_assert(0x1p-3 == 0.125 && 0x1.8p1f == 3.0f && 0x.8p1 == 1.0 && 1'000 == 1000, "literals");

static constexpr auto ALIGNED = poplar::VectorLayout::ONE_PTR;
static constexpr auto ALIAS_OF_ALIAS = ALIGNED;
static constexpr auto PACKED_LIST = poplar::VectorListLayout::COMPACT_DELTAN;

namespace {
constexpr unsigned inline twice(unsigned x) { return 2 * x; }
const static int offset = 3;
} // namespace

inline namespace v1 {
auto plusOne(int x) -> int { return x + 1; }
}

static int __attribute__((noinline)) scaled(int x) { return x * /* inline */ 5; }

template <bool big> constexpr unsigned widthFor() { return big ? 8 : 4; }

template <typename T, bool big>
class [[poplar::constraint("elem(*in) != elem(*out)")]] Copy
    : public SupervisorVertexIf<(widthFor<big>() > 4) && sizeof(T) == 4> {
public:
  Input<Vector<T, ALIAS_OF_ALIAS, big ? 8 : 4>> in;
  Output<Vector<T, ALIGNED>> out;
  unsigned n;
  bool compute() {
    [[maybe_unused]] const static unsigned width = widthFor<big>();
    for (unsigned i = 0; i < rptsize_t(n); ++i) {
      if (__builtin_expect(i < n, 1))
        out[i] = in[i] + T(offset) * T(std::is_same<T, float>() + 2 * std::is_same<T, int>{});
    }
    printf(R"fmt(width="%u" \n is %d
)fmt", width, scaled(plusOne(int(twice(width)))));
    return true;
  }
};

template class Copy<float, true>;
template class Copy<int, false>;

[[gnu::always_inline]] static inline __attribute__((always_inline)) unsigned
sumOf(const __attribute__((align_value(4))) unsigned *p [[maybe_unused]], unsigned n) {
  unsigned total [[maybe_unused]] = 0;
  for (unsigned i = 0; i < n; ++i)
    total += p[i];
  return total;
}

class WORKER_ALIGN Lists : public MultiVertex {
public:
  Input<VectorList<unsigned, PACKED_LIST>> lists;
  Output<Vector<unsigned>> sums;
  bool compute(unsigned worker) {
    for (unsigned i = worker; i < lists.size(); i += MultiVertex::numWorkers()) {
      unsigned s = 0;
      for (auto v : lists[i])
        s += v;
      sums[i] = lists[i].size() ? sumOf(&lists[i][0], lists[i].size()) : s;
    }
    return true;
  }
};

// A vertex with no portable path stops with a trap, as exit() would.
class Stop : public Vertex {
public:
  InOut<int> x;
  bool compute() {
    x++;
    printf(__FILE__ " line %d\n", __LINE__);
#ifdef __IPU__
    return true;
#else
    exit(1);
#endif
    return true;
  }
};

// RUN Copy<float,true>
//   in = [1.5, 2, 3]
//   out = [0, 0, 0]
//   n = 3
// RUN Copy<int,false>
//   in = [4, 5]
//   out = [0, 0]
//   n = 2
// RUN Lists
//   lists = [[1, 2], [3], [], [4, 5, 6]]
//   sums = [0, 0, 0, 0]
// RUN Stop
//   x = 41
