// Tutorial 4 (profiling) as a Poplar host program: the two products of
// graph.pir through poplin::matMul, the inputs mapped with PopLibs' linear
// rule. The inputs are small integers, so the products are exact and the
// program checks them against the host's; it prints the first lines of the
// profile summary (the target, which does not change with the compiler's
// choices). Build with
//   . ./enable.sh && g++ -std=c++11 host.cpp -lpoplar -lpoplin -lpoputil -o host
#include <poplar/Engine.hpp>
#include <poplar/Graph.hpp>
#include <poplar/IPUModel.hpp>
#include <poplin/MatMul.hpp>
#include <poplin/codelets.hpp>
#include <popops/codelets.hpp>
#include <poputil/TileMapping.hpp>

#include <sstream>
#include <iostream>
#include <vector>

int main() {
  const std::size_t n = 90, k = 60, m = 30, p = 20;
  poplar::IPUModel ipu;
  poplar::Device device = ipu.createDevice();
  poplar::Graph graph(device.getTarget());
  popops::addCodelets(graph);
  poplin::addCodelets(graph);

  poplar::Tensor m1 = graph.addVariable(poplar::FLOAT, {n, k}, "m1");
  poplar::Tensor m2 = graph.addVariable(poplar::FLOAT, {k, m}, "m2");
  poplar::Tensor m3 = graph.addVariable(poplar::FLOAT, {m, p}, "m3");
  poputil::mapTensorLinearly(graph, m1);
  poputil::mapTensorLinearly(graph, m2);
  poputil::mapTensorLinearly(graph, m3);
  graph.createHostWrite("m1", m1);
  graph.createHostWrite("m2", m2);
  graph.createHostWrite("m3", m3);

  poplar::program::Sequence prog;
  poplar::Tensor m4 = poplin::matMul(graph, m1, m2, prog, "m4");
  poplar::Tensor m5 = poplin::matMul(graph, m4, m3, prog, "m5");
  graph.createHostRead("m5", m5);

  poplar::Engine engine(graph, prog, {{"debug.instrument", "true"}});
  engine.load(device);
  std::vector<float> h1(n * k), h2(k * m), h3(m * p), h5(n * p);
  for (std::size_t i = 0; i < h1.size(); ++i) h1[i] = static_cast<float>(i % 7) - 2;
  for (std::size_t i = 0; i < h2.size(); ++i) h2[i] = static_cast<float>(i % 5) - 1;
  for (std::size_t i = 0; i < h3.size(); ++i) h3[i] = static_cast<float>(i % 3);
  engine.writeTensor("m1", h1.data(), h1.data() + h1.size());
  engine.writeTensor("m2", h2.data(), h2.data() + h2.size());
  engine.writeTensor("m3", h3.data(), h3.data() + h3.size());
  engine.run(0);
  engine.readTensor("m5", h5.data(), h5.data() + h5.size());

  std::vector<double> h4(n * m, 0.0);
  for (std::size_t i = 0; i < n; ++i)
    for (std::size_t j = 0; j < m; ++j)
      for (std::size_t l = 0; l < k; ++l) h4[i * m + j] += h1[i * k + l] * h2[l * m + j];
  for (std::size_t i = 0; i < n; ++i) {
    for (std::size_t j = 0; j < p; ++j) {
      double want = 0;
      for (std::size_t l = 0; l < m; ++l) want += h4[i * m + l] * h3[l * p + j];
      if (want != h5[i * p + j]) {
        std::cout << "m5[" << i << "][" << j << "] = " << h5[i * p + j] << ", the host computes " << want << "\n";
        return 1;
      }
    }
  }
  double sum = 0;
  for (float x : h5) sum += x;
  std::cout << "m5 checked against the host; the sum of its elements is " << sum << "\n";
  std::ostringstream summary;
  engine.printProfileSummary(summary, {{"showExecutionSteps", "true"}});
  std::istringstream lines(summary.str());
  std::string line;
  for (int i = 0; i < 7 && std::getline(lines, line); ++i) std::cout << line << "\n";
  std::cout << (summary.str().find("Memory Usage:") != std::string::npos ? "Memory Usage: reported\n" : "no memory usage\n");
  return 0;
}
