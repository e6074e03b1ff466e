// popops' element-wise functions beyond arithmetic through the C++ host API:
// the maths functions and tests of floats (erf, sin, cos, tan, asin, atan2,
// cbrt, expm1, exp2, log1p, nearbyint, round, trunc, isFinite, IS_INF,
// IS_NAN), bitwise operators, shifts and bit counts of integers (as named
// functions and as popops::expr operators), against the C++ library, with
// the same bits on `sim` and `cpu`; the variance conversions
// (varianceToInvStdDev, invStdDevToVariance, with and without an output
// type); and the type errors. Prints one line
// per check; exits non-zero if any fails. Run by `cargo test -p capi`.
#include <poplar/Engine.hpp>
#include <poplar/Graph.hpp>
#include <poplar/IPUModel.hpp>
#include <popops/Cast.hpp>
#include <popops/ElementWise.hpp>
#include <popops/codelets.hpp>

#include <climits>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <functional>
#include <iostream>
#include <map>
#include <string>
#include <vector>

#include "check.hpp"

using namespace poplar;
using namespace poplar::program;
namespace pe = popops::expr;

namespace {

const std::vector<float> A = {0.0f, -0.0f, 0.5f, -1.25f, 3.0f, 100.0f, 1e-3f, -7.5f,
                              INFINITY, -INFINITY, NAN, 2.5f, -0.75f, 0.999f, -2.5f, 1e20f};
const std::vector<float> B = {1.0f, -1.0f, 2.0f, 0.5f, -3.0f, 0.25f, 4.0f, -2.0f,
                              1.0f, -1.0f, 1.0f, -0.5f, 0.0f, -0.0f, 7.0f, 3.0f};
const std::vector<int> I = {7, -7, 0, -1, 12345, INT_MIN, INT_MAX, 256};
const std::vector<int> J = {0, 1, 3, 31, 32, -1, 5, 8};

struct Results {
  std::map<std::string, std::vector<float>> f;
  std::map<std::string, std::vector<int>> i;
  std::map<std::string, std::vector<char>> b;
};

Results runAll(Device &device) {
  Graph graph(device.getTarget());
  popops::addCodelets(graph);
  Tensor a = graph.addConstant<float>(FLOAT, {A.size()}, A, "a");
  Tensor b = graph.addConstant<float>(FLOAT, {B.size()}, B, "b");
  Tensor i = graph.addConstant<int>(INT, {I.size()}, I, "i");
  Tensor j = graph.addConstant<int>(INT, {J.size()}, J, "j");
  for (const Tensor &t : {a, b, i, j}) graph.setTileMapping(t, 0);
  Sequence prog;
  std::map<std::string, Tensor> f, n, bools;
  f["erf"] = popops::erf(graph, a, prog);
  f["sin"] = popops::sin(graph, a, prog);
  f["cos"] = popops::cos(graph, a, prog);
  f["tan"] = popops::tan(graph, a, prog);
  f["asin"] = popops::asin(graph, a, prog);
  f["cbrt"] = popops::cbrt(graph, a, prog);
  f["expm1"] = popops::expm1(graph, a, prog);
  f["exp2"] = popops::exp2(graph, a, prog);
  f["log1p"] = popops::log1p(graph, a, prog);
  f["nearbyint"] = popops::nearbyint(graph, a, prog);
  f["round"] = popops::round(graph, a, prog);
  f["trunc"] = popops::map(graph, pe::Trunc(pe::_1), {a}, prog);
  f["atan2"] = popops::atan2(graph, a, b, prog);
  // With an output type (PopLibs' older form) and with options (the map).
  f["varianceToInvStdDev"] = popops::varianceToInvStdDev(graph, a, b, prog, FLOAT);
  f["invStdDevToVariance"] = popops::invStdDevToVariance(graph, a, b, prog, DebugContext("isd"));
  f["varianceExpr"] = popops::map(graph, pe::VarianceToInvStdDev(pe::_1, pe::_2), {a, b}, prog);
  Tensor halfIsd = popops::varianceToInvStdDev(graph, a, 0.5f, prog);
  f["varianceHalf"] = popops::cast(graph, halfIsd, FLOAT, prog);
  if (halfIsd.elementType() != HALF) report("varianceToInvStdDev gives HALF by default", false);
  bools["isFinite"] = popops::isFinite(graph, a, prog);
  bools["isInf"] = popops::map(graph, pe::IsInf(pe::_1), {a}, prog);
  bools["isNaN"] = popops::map(graph, pe::UnaryOpType::IS_NAN, a, prog);
  n["bitwiseAnd"] = popops::bitwiseAnd(graph, i, j, prog);
  n["bitwiseOr"] = popops::bitwiseOr(graph, i, j, prog);
  n["bitwiseXor"] = popops::bitwiseXor(graph, i, j, prog);
  n["bitwiseXnor"] = popops::bitwiseXnor(graph, i, j, prog);
  n["bitwiseNot"] = popops::bitwiseNot(graph, i, prog);
  n["shiftLeft"] = popops::shiftLeft(graph, i, j, prog);
  n["shiftRight"] = popops::shiftRight(graph, i, j, prog);
  n["shiftRightSignExtend"] = popops::shiftRightSignExtend(graph, i, j, prog);
  n["popcount"] = popops::popcount(graph, i, prog);
  n["countLeadingZeros"] = popops::countLeadingZeros(graph, i, prog);
  // The operators, fused in one expression: ((i & j) | ~i) ^ (i << 2).
  n["operators"] = popops::map(graph, ((pe::_1 & pe::_2) | ~pe::_1) ^ (pe::_1 << 2), {i, j}, prog);
  n["shiftConst"] = popops::shiftLeft(graph, i, 4, prog);
  Tensor inPlace = graph.addVariable(INT, {I.size()}, "inPlace");
  graph.setTileMapping(inPlace, 0);
  prog.add(Copy(i, inPlace));
  popops::bitwiseAndInPlace(graph, inPlace, j, prog);
  n["inPlace"] = inPlace;
  for (auto &kv : f) graph.createHostRead(kv.first, kv.second);
  for (auto &kv : n) graph.createHostRead(kv.first, kv.second);
  for (auto &kv : bools) graph.createHostRead(kv.first, kv.second);
  Engine engine(graph, prog);
  engine.load(device);
  engine.run(0);
  Results r;
  for (auto &kv : f) {
    std::vector<float> v(A.size());
    engine.readTensor(kv.first, v.data(), v.data() + v.size());
    r.f[kv.first] = v;
  }
  for (auto &kv : n) {
    std::vector<int> v(I.size());
    engine.readTensor(kv.first, v.data(), v.data() + v.size());
    r.i[kv.first] = v;
  }
  for (auto &kv : bools) {
    std::vector<char> v(A.size());
    engine.readTensor(kv.first, v.data(), v.data() + v.size());
    r.b[kv.first] = v;
  }
  return r;
}

bool same(float x, float y) { return (std::isnan(x) && std::isnan(y)) || std::memcmp(&x, &y, 4) == 0; }

/// The shift rules: a count of at least 32 (as unsigned) shifts every bit out.
int shl(int x, int n) { return unsigned(n) >= 32 ? 0 : int(unsigned(x) << unsigned(n)); }
int shr(int x, int n) { return unsigned(n) >= 32 ? 0 : int(unsigned(x) >> unsigned(n)); }
int shrSE(int x, int n) { return unsigned(n) >= 32 ? (x < 0 ? -1 : 0) : (x < 0 ? ~(~x >> n) : x >> n); }
int popcount(int x) {
  int c = 0;
  for (unsigned u = unsigned(x); u != 0; u >>= 1) c += u & 1;
  return c;
}
int clz(int x) {
  int c = 0;
  for (unsigned u = unsigned(x); c < 32 && !(u & 0x80000000u); u <<= 1) ++c;
  return c;
}

void check(const Results &r, const std::string &where) {
  std::map<std::string, std::function<float(float)>> unary = {
      {"erf", [](float x) { return std::erf(x); }},      {"sin", [](float x) { return std::sin(x); }},
      {"cos", [](float x) { return std::cos(x); }},      {"tan", [](float x) { return std::tan(x); }},
      {"asin", [](float x) { return std::asin(x); }},    {"cbrt", [](float x) { return std::cbrt(x); }},
      {"expm1", [](float x) { return std::expm1(x); }},  {"exp2", [](float x) { return std::exp2(x); }},
      {"log1p", [](float x) { return std::log1p(x); }},  {"nearbyint", [](float x) { return std::nearbyint(x); }},
      {"round", [](float x) { return std::round(x); }},  {"trunc", [](float x) { return std::trunc(x); }},
  };
  for (auto &kv : unary) {
    std::string detail;
    const std::vector<float> &got = r.f.at(kv.first);
    for (std::size_t k = 0; k < A.size(); ++k) {
      float want = kv.second(A[k]);
      // The same libm: equal bits (erf within an ulp or two of glibc's erff
      // where Rust's own build links another; sin/cos/tan likewise).
      bool ok = same(got[k], want) || std::fabs(got[k] - want) <= 2.5e-7f * std::fabs(want);
      if (!ok) detail += " [" + std::to_string(k) + "] " + std::to_string(got[k]) + " want " + std::to_string(want);
    }
    report(where + ": " + kv.first, detail.empty(), detail);
  }
  std::string detail;
  for (std::size_t k = 0; k < A.size(); ++k)
    if (!same(r.f.at("atan2")[k], std::atan2(A[k], B[k]))) detail += " [" + std::to_string(k) + "]";
  report(where + ": atan2", detail.empty(), detail);
  std::string variance;
  for (std::size_t k = 0; k < A.size(); ++k) {
    float isd = 1.0f / std::sqrt(A[k] + B[k]), var = 1.0f / (A[k] * A[k]) - B[k];
    if (!same(r.f.at("varianceToInvStdDev")[k], isd) || !same(r.f.at("varianceExpr")[k], isd))
      variance += " varianceToInvStdDev[" + std::to_string(k) + "]";
    if (!same(r.f.at("invStdDevToVariance")[k], var)) variance += " invStdDevToVariance[" + std::to_string(k) + "]";
    // Computed in float, rounded once to half: within half an ulp of
    // half (2^-11 relative) where half reaches.
    float h = 1.0f / std::sqrt(A[k] + 0.5f), got = r.f.at("varianceHalf")[k];
    bool near = std::isnan(h) ? std::isnan(got)
                : std::fabs(h) > 65504.0f || std::fabs(h) < 6.1e-5f
                    ? true
                    : std::fabs(got - h) <= std::ldexp(std::fabs(h), -11);
    if (!near) variance += " varianceToInvStdDev to half[" + std::to_string(k) + "]";
  }
  report(where + ": variance conversions", variance.empty(), variance);
  bool ok = true;
  for (std::size_t k = 0; k < A.size(); ++k) {
    ok = ok && bool(r.b.at("isFinite")[k]) == bool(std::isfinite(A[k]));
    ok = ok && bool(r.b.at("isInf")[k]) == bool(std::isinf(A[k]));
    ok = ok && bool(r.b.at("isNaN")[k]) == bool(std::isnan(A[k]));
  }
  report(where + ": isFinite, IS_INF, IS_NAN", ok);
  std::map<std::string, std::function<int(int, int)>> ints = {
      {"bitwiseAnd", [](int x, int y) { return x & y; }},
      {"bitwiseOr", [](int x, int y) { return x | y; }},
      {"bitwiseXor", [](int x, int y) { return x ^ y; }},
      {"bitwiseXnor", [](int x, int y) { return ~(x ^ y); }},
      {"bitwiseNot", [](int x, int) { return ~x; }},
      {"shiftLeft", shl},
      {"shiftRight", shr},
      {"shiftRightSignExtend", shrSE},
      {"popcount", [](int x, int) { return popcount(x); }},
      {"countLeadingZeros", [](int x, int) { return clz(x); }},
      {"operators", [](int x, int y) { return ((x & y) | ~x) ^ shl(x, 2); }},
      {"shiftConst", [](int x, int) { return shl(x, 4); }},
      {"inPlace", [](int x, int y) { return x & y; }},
  };
  for (auto &kv : ints) {
    std::string d;
    for (std::size_t k = 0; k < I.size(); ++k) {
      int want = kv.second(I[k], J[k]), got = r.i.at(kv.first)[k];
      if (got != want) d += " [" + std::to_string(k) + "] " + std::to_string(got) + " want " + std::to_string(want);
    }
    report(where + ": " + kv.first, d.empty(), d);
  }
}

template <typename F> void expectTypeError(const std::string &what, F f) {
  try {
    f();
    report(what, false, "no exception");
  } catch (const type_error &e) {
    report(what, true, std::string("type_error: ") + e.what());
  } catch (const std::exception &e) {
    report(what, false, std::string("other exception: ") + e.what());
  }
}

void checkErrors(Device &device) {
  Graph graph(device.getTarget());
  Tensor a = graph.addVariable(FLOAT, {4}, "a");
  Tensor i = graph.addVariable(INT, {4}, "i");
  graph.setTileMapping(a, 0);
  graph.setTileMapping(i, 0);
  Sequence prog;
  expectTypeError("bitwiseAnd of floats", [&] { popops::bitwiseAnd(graph, a, a, prog); });
  expectTypeError("shiftLeft of floats", [&] { popops::shiftLeft(graph, a, 1.0f, prog); });
  expectTypeError("~ of a float", [&] { popops::map(graph, ~pe::_1, {a}, prog); });
  expectTypeError("popcount of a float", [&] { popops::popcount(graph, a, prog); });
  expectTypeError("sin of an int", [&] { popops::sin(graph, i, prog); });
  expectTypeError("isFinite of an int", [&] { popops::isFinite(graph, i, prog); });
  expectTypeError("invStdDevToVariance of ints", [&] { popops::invStdDevToVariance(graph, i, i, prog, INT); });
  expectThrow<poplar_error>("varianceToInvStdDev into an int", "must be half or the input's type float",
                            [&] { popops::varianceToInvStdDev(graph, a, a, prog, INT); });
}

} // namespace

int main() {
  IPUModel ipu;
  ipu.tilesPerIPU = 16;
  Device sim = ipu.createDevice();
  Device cpu = Device::createCPUDevice();
  try {
    Results onSim = runAll(sim), onCpu = runAll(cpu);
    check(onSim, "sim");
    bool identical = onSim.i == onCpu.i && onSim.b == onCpu.b;
    for (auto &kv : onSim.f)
      identical = identical && std::memcmp(kv.second.data(), onCpu.f[kv.first].data(), kv.second.size() * 4) == 0;
    report("sim and cpu give the same bits", identical);
  } catch (const std::exception &e) {
    report("element-wise functions run", false, e.what());
  }
  checkErrors(sim);
  std::cout << (failures == 0 ? "all checks passed" : std::to_string(failures) + " checks failed") << "\n";
  return failures == 0 ? 0 : 1;
}
