// poprand and the element-wise operators added with it, through the C++
// host API: statistics of each distribution over 100,000 values, the same
// bits on `sim` and `cpu`, seeds and modifiers, setSeed and calls without a
// seed tensor, dropout, the errors PopLibs raises, and popops' select, rem,
// logical and/or, signum, floor, ceil and popnn's GELU_ERF against the C++
// library. Prints one line per check; exits non-zero if any fails. Run by
// `cargo test -p capi`.
#include <poplar/Engine.hpp>
#include <poplar/Graph.hpp>
#include <poplar/IPUModel.hpp>
#include <popnn/NonLinearity.hpp>
#include <popops/Cast.hpp>
#include <popops/ElementWise.hpp>
#include <popops/codelets.hpp>
#include <poprand/RandomGen.hpp>
#include <poprand/codelets.hpp>
#include <poputil/TileMapping.hpp>

#include <cmath>
#include <cstdint>
#include <cstring>
#include <iostream>
#include <map>
#include <string>
#include <vector>

#include "check.hpp"

using namespace poplar;
using namespace poplar::program;

namespace {

const std::size_t N = 100000;

struct Stats {
  double mean, var, lo, hi;
};

Stats stats(const std::vector<float> &v) {
  double s = 0, s2 = 0, lo = v[0], hi = v[0];
  for (float x : v) {
    s += x;
    lo = std::min(lo, double(x));
    hi = std::max(hi, double(x));
  }
  double mean = s / v.size();
  for (float x : v) s2 += (x - mean) * (x - mean);
  return {mean, s2 / (v.size() - 1), lo, hi};
}

std::string fmt(const Stats &s) {
  return "mean " + std::to_string(s.mean) + ", variance " + std::to_string(s.var) + ", range [" +
         std::to_string(s.lo) + ", " + std::to_string(s.hi) + "]";
}

/// Every distribution over N values, plus the seed-less calls; returns
/// each named output read back from `device`.
std::map<std::string, std::vector<float>> runAll(Device &device) {
  Graph graph(device.getTarget());
  poprand::addCodelets(graph);
  Tensor ref = graph.addVariable(FLOAT, {N / 100, 100}, "ref");
  poputil::mapTensorLinearly(graph, ref);
  Tensor seed = graph.addConstant<unsigned>(UNSIGNED_INT, {2}, {0x1234u, 0x5678u}, "seed");
  graph.setTileMapping(seed, 0);
  Tensor x = graph.addConstant<float>(FLOAT, {N / 100, 100}, 3.0f, "x");
  poputil::mapTensorLinearly(graph, x);
  Sequence prog;
  std::map<std::string, Tensor> outs;
  outs["uniform"] = poprand::uniform(graph, &seed, 1, ref, FLOAT, -2.0, 4.0, prog, "u");
  outs["uniform2"] = poprand::uniform(graph, &seed, 1, ref, FLOAT, -2.0, 4.0, prog, "u2");
  outs["uniform_mod2"] = poprand::uniform(graph, &seed, 2, ref, FLOAT, -2.0, 4.0, prog, "u3");
  outs["normal"] = poprand::normal(graph, &seed, 3, ref, FLOAT, 1.0, 2.0, prog, "n");
  outs["truncated"] = poprand::truncatedNormal(graph, &seed, 4, ref, FLOAT, 0.0, 1.0, 2.0, prog, "t");
  outs["bernoulli"] = poprand::bernoulli(graph, &seed, 5, ref, FLOAT, 0.3, prog, "b");
  outs["uniform_int"] = popops::cast(graph, poprand::uniform(graph, &seed, 6, ref, INT, -3, 4, prog, "ui"), FLOAT,
                                     prog, "uic");
  outs["log_uniform"] = poprand::logUniform(graph, &seed, 7, ref, FLOAT, 1.0, 1000.0, prog, 10.0, "l");
  outs["dropout"] = poprand::dropout(graph, &seed, 8, x, ref, 0.8, 1.25, prog, "d");
  // Whole rows: a mask of shape [rows, 1] broadcast along each row.
  Tensor rowRef = graph.addVariable(FLOAT, {N / 100, 1}, "rowRef");
  poputil::mapTensorLinearly(graph, rowRef);
  outs["shaped"] = poprand::shapedDropout(graph, &seed, 9, x, rowRef, 0.5, 2.0, prog, "sd");
  // Seed-less calls: zero seed with modifiers 0, 1, ... until setSeed.
  outs["free0"] = poprand::uniform(graph, nullptr, 99, ref, FLOAT, 0.0, 1.0, prog, "f0");
  outs["free1"] = poprand::uniform(graph, nullptr, 99, ref, FLOAT, 0.0, 1.0, prog, "f1");
  poprand::setSeed(graph, seed, 41, prog, "set");
  outs["set41"] = poprand::uniform(graph, nullptr, 0, ref, FLOAT, -2.0, 4.0, prog, "s41");
  outs["set42"] = poprand::uniform(graph, nullptr, 0, ref, FLOAT, -2.0, 4.0, prog, "s42");
  outs["seed41"] = poprand::uniform(graph, &seed, 41, ref, FLOAT, -2.0, 4.0, prog, "x41");
  outs["seed42"] = poprand::uniform(graph, &seed, 42, ref, FLOAT, -2.0, 4.0, prog, "x42");
  for (auto &kv : outs) graph.createHostRead(kv.first, kv.second);
  Engine engine(graph, prog);
  engine.load(device);
  engine.run(0);
  std::map<std::string, std::vector<float>> got;
  for (auto &kv : outs) {
    std::vector<float> v(N);
    engine.readTensor(kv.first, v.data(), v.data() + N);
    got[kv.first] = v;
  }
  return got;
}

bool near(double x, double want, double tol) { return std::fabs(x - want) <= tol; }

void checkStatistics(std::map<std::string, std::vector<float>> &r) {
  // Standard errors over 1e5 values: a mean within 5 of them, variances within 2%.
  Stats u = stats(r["uniform"]);
  report("uniform(-2, 4): mean 1, variance 3, within bounds",
         near(u.mean, 1.0, 5 * std::sqrt(3.0 / N)) && near(u.var, 3.0, 0.06) && u.lo >= -2 && u.hi <= 4, fmt(u));
  Stats n = stats(r["normal"]);
  report("normal(1, 2): mean 1, variance 4", near(n.mean, 1.0, 5 * 2.0 / std::sqrt(N)) && near(n.var, 4.0, 0.08),
         fmt(n));
  Stats t = stats(r["truncated"]);
  // Var of a standard normal truncated at +-2: 1 - 2 a phi(a) / (2 Phi(a) - 1).
  double a = 2.0, phi = std::exp(-a * a / 2) / std::sqrt(2 * M_PI), mass = std::erf(a / std::sqrt(2.0));
  double tvar = 1 - 2 * a * phi / mass;
  report("truncatedNormal(0, 1, alpha 2): mean 0, variance " + std::to_string(tvar) + ", within +-2",
         near(t.mean, 0.0, 5 * std::sqrt(tvar / N)) && near(t.var, tvar, 0.02 * tvar) && t.lo >= -2 && t.hi <= 2,
         fmt(t));
  Stats b = stats(r["bernoulli"]);
  bool binary = true;
  for (float v : r["bernoulli"]) binary = binary && (v == 0.0f || v == 1.0f);
  report("bernoulli(0.3): rate 0.3, values 0 and 1", binary && near(b.mean, 0.3, 5 * std::sqrt(0.21 / N)), fmt(b));
  Stats ui = stats(r["uniform_int"]);
  std::vector<int> counts(8, 0);
  bool integral = true;
  for (float v : r["uniform_int"]) {
    integral = integral && v == std::floor(v) && v >= -3 && v <= 4;
    if (integral) ++counts[int(v) + 3];
  }
  bool flat = true;
  for (int c : counts) flat = flat && near(c, N / 8.0, 5 * std::sqrt(N / 8.0));
  report("uniform<int>(-3, 4): each of the 8 values an eighth of the time", integral && flat, fmt(ui));
  Stats l = stats(r["log_uniform"]);
  std::vector<float> logs;
  for (float v : r["log_uniform"]) logs.push_back(std::log10(v));
  Stats ll = stats(logs);
  report("logUniform(1, 1000, base 10): log10 uniform in [0, 3]",
         l.lo >= 1 && l.hi <= 1000 && near(ll.mean, 1.5, 0.02) && near(ll.var, 0.75, 0.02), fmt(ll));
  std::size_t kept = 0;
  bool scaled = true;
  for (float v : r["dropout"]) {
    kept += v != 0.0f;
    scaled = scaled && (v == 0.0f || v == 3.0f * 1.25f);
  }
  report("dropout(keep 0.8, scale 1.25): kept values scaled, keep rate 0.8",
         scaled && near(double(kept) / N, 0.8, 5 * std::sqrt(0.16 / N)), std::to_string(kept) + " kept");
  std::size_t rowsKept = 0;
  bool rows = true;
  const std::vector<float> &sd = r["shaped"];
  for (std::size_t row = 0; row < N / 100; ++row) {
    float first = sd[row * 100];
    rows = rows && (first == 0.0f || first == 6.0f);
    for (std::size_t c = 1; c < 100; ++c) rows = rows && sd[row * 100 + c] == first;
    rowsKept += first != 0.0f;
  }
  report("shapedDropout(rows, keep 0.5, scale 2): whole rows kept and scaled, about half",
         rows && near(double(rowsKept) / (N / 100), 0.5, 5 * std::sqrt(0.25 / (N / 100))),
         std::to_string(rowsKept) + " of " + std::to_string(N / 100) + " rows kept");
  report("the same seed and modifier give the same bits", r["uniform"] == r["uniform2"]);
  report("another modifier gives other values", r["uniform"] != r["uniform_mod2"]);
  report("successive seed-less calls differ", r["free0"] != r["free1"]);
  report("after setSeed(seed, 41), seed-less calls draw as seed with modifiers 41, 42",
         r["set41"] == r["seed41"] && r["set42"] == r["seed42"] && r["seed41"] != r["seed42"]);
}

template <typename F> void expectThrow(const std::string &check, F f, const std::string &want) {
  try {
    f();
    report(check, false, "no exception");
  } catch (const poputil::poplibs_error &e) {
    report(check, want == "poplibs_error", std::string("poplibs_error: ") + e.what());
  } catch (const type_error &e) {
    report(check, want == "type_error", std::string("type_error: ") + e.what());
  } catch (const poplar_error &e) {
    report(check, false, std::string("poplar_error: ") + e.what());
  }
}

void checkErrors(Device &device) {
  Graph graph(device.getTarget());
  Tensor ref = graph.addVariable(FLOAT, {4}, "ref");
  graph.setTileMapping(ref, 0);
  Tensor seed = graph.addConstant<unsigned>(UNSIGNED_INT, {2}, {1u, 2u}, "seed");
  Tensor bad = graph.addConstant<float>(FLOAT, {2}, {1.0f, 2.0f}, "bad");
  graph.setTileMapping(seed, 0);
  graph.setTileMapping(bad, 0);
  Sequence prog;
  expectThrow("bernoulli with probability 1.5",
              [&] { poprand::bernoulli(graph, &seed, 0, ref, FLOAT, 1.5, prog); }, "poplibs_error");
  expectThrow("uniform with min > max", [&] { poprand::uniform(graph, &seed, 0, ref, FLOAT, 2.0, 1.0, prog); },
              "poplibs_error");
  expectThrow("dropout with keep probability 0",
              [&] { poprand::dropout(graph, &seed, 0, ref, ref, 0.0, 1.0, prog); }, "poplibs_error");
  expectThrow("shapedDropout with a reference that does not broadcast",
              [&] { poprand::shapedDropout(graph, &seed, 0, ref, seed, 0.5, 2.0, prog); }, "poplibs_error");
  expectThrow("logUniform with min below 1",
              [&] { poprand::logUniform(graph, &seed, 0, ref, FLOAT, 0.5, 10.0, prog); }, "poplibs_error");
  expectThrow("normal of int", [&] { poprand::normal(graph, &seed, 0, ref, INT, 0.0, 1.0, prog); }, "type_error");
  expectThrow("a float seed tensor", [&] { poprand::uniform(graph, &bad, 0, ref, FLOAT, 0.0, 1.0, prog); },
              "type_error");
  expectThrow("logicalAnd of floats", [&] { popops::logicalAnd(graph, ref, ref, prog); }, "type_error");
  expectThrow("floor of int", [&] {
    Tensor i = graph.addVariable(INT, {4}, "i");
    graph.setTileMapping(i, 0);
    popops::floor(graph, i, prog);
  }, "type_error");
}

/// select, rem, logical and/or, signum, floor, ceil and GELU_ERF against
/// the C++ library, on `device`.
void checkElementwise(Device &device, const std::string &where) {
  Graph graph(device.getTarget());
  popops::addCodelets(graph);
  std::vector<float> av = {1.5f, -2.5f, 0.0f, 7.25f, -0.0f, NAN, -7.0f, 2.0f};
  std::vector<float> bv = {2.0f, 2.0f, -1.0f, -3.0f, 1.0f, 1.0f, 3.0f, -0.5f};
  std::vector<int> iv = {7, -7, 7, -7, 0, 1, -1, 9}, jv = {3, 3, -3, -3, 5, 1, 4, -4};
  Tensor a = graph.addConstant<float>(FLOAT, {8}, av, "a");
  Tensor b = graph.addConstant<float>(FLOAT, {8}, bv, "b");
  Tensor i = graph.addConstant<int>(INT, {8}, iv, "i");
  Tensor j = graph.addConstant<int>(INT, {8}, jv, "j");
  for (const Tensor &t : {a, b, i, j}) graph.setTileMapping(t, 0);
  Sequence prog;
  Tensor cond = popops::gt(graph, a, b, prog);
  std::map<std::string, Tensor> f;
  f["select"] = popops::select(graph, a, b, cond, prog);
  f["rem"] = popops::rem(graph, a, b, prog);
  f["signum"] = popops::signum(graph, a, prog);
  f["floor"] = popops::floor(graph, a, prog);
  f["ceil"] = popops::ceil(graph, a, prog);
  f["gelu_erf"] = popnn::nonLinearity(graph, popnn::NonLinearityType::GELU_ERF, a, prog);
  Tensor irem = popops::rem(graph, i, j, prog);
  Tensor isig = popops::signum(graph, i, prog);
  Tensor land = popops::logicalAnd(graph, cond, popops::lt(graph, i, j, prog), prog);
  Tensor lor = popops::logicalOr(graph, cond, popops::lt(graph, i, j, prog), prog);
  for (auto &kv : f) graph.createHostRead(kv.first, kv.second);
  graph.createHostRead("irem", irem);
  graph.createHostRead("isig", isig);
  graph.createHostRead("and", land);
  graph.createHostRead("or", lor);
  Engine engine(graph, prog);
  engine.load(device);
  engine.run(0);
  auto same = [](float x, float y) { return (std::isnan(x) && std::isnan(y)) || x == y; };
  for (auto &kv : f) {
    std::vector<float> got(8);
    engine.readTensor(kv.first, got.data(), got.data() + 8);
    bool ok = true;
    std::string detail;
    for (int k = 0; k < 8; ++k) {
      float x = av[k], y = bv[k], want = 0;
      if (kv.first == "select") want = x > y ? x : y;
      if (kv.first == "rem") want = std::fmod(x, y);
      if (kv.first == "signum") want = float((0 < x) - (x < 0));
      if (kv.first == "floor") want = std::floor(x);
      if (kv.first == "ceil") want = std::ceil(x);
      if (kv.first == "gelu_erf") want = (1.0f + std::erf(0.70710677f * x)) * 0.5f * x;
      bool good = kv.first == "gelu_erf" ? (same(got[k], want) || std::fabs(got[k] - want) <= 1e-6f * std::fabs(want))
                                          : same(got[k], want);
      if (!good) detail += " [" + std::to_string(k) + "] " + std::to_string(got[k]) + " want " + std::to_string(want);
      ok = ok && good;
    }
    report(where + ": " + kv.first, ok, detail);
  }
  std::vector<int> r(8), s(8);
  engine.readTensor("irem", r.data(), r.data() + 8);
  engine.readTensor("isig", s.data(), s.data() + 8);
  bool ok = true;
  for (int k = 0; k < 8; ++k) ok = ok && r[k] == iv[k] % jv[k] && s[k] == (0 < iv[k]) - (iv[k] < 0);
  report(where + ": int rem (C's sign rule) and signum", ok);
  std::vector<char> an(8), on(8);
  engine.readTensor("and", an.data(), an.data() + 8);
  engine.readTensor("or", on.data(), on.data() + 8);
  ok = true;
  for (int k = 0; k < 8; ++k) {
    bool c = av[k] > bv[k], d = iv[k] < jv[k];
    ok = ok && bool(an[k]) == (c && d) && bool(on[k]) == (c || d);
  }
  report(where + ": logicalAnd, logicalOr", ok);
}

} // namespace

int main() {
  IPUModel ipu;
  ipu.tilesPerIPU = 16;
  Device sim = ipu.createDevice();
  Device cpu = Device::createCPUDevice();
  try {
    auto onSim = runAll(sim);
    auto onCpu = runAll(cpu);
    checkStatistics(onSim);
    bool same = true;
    for (auto &kv : onSim) same = same && std::memcmp(kv.second.data(), onCpu[kv.first].data(), N * 4) == 0;
    report("sim and cpu give the same bits", same);
  } catch (const std::exception &e) {
    report("poprand runs", false, e.what());
  }
  checkErrors(sim);
  for (Device *device : {&sim, &cpu}) {
    try {
      checkElementwise(*device, device == &sim ? "sim" : "cpu");
    } catch (const std::exception &e) {
      report("element-wise operators run", false, e.what());
    }
  }
  std::cout << (failures == 0 ? "all checks passed" : std::to_string(failures) + " checks failed") << "\n";
  return failures == 0 ? 0 : 1;
}
