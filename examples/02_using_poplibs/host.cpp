// Tutorial 2 (using PopLibs) as a Poplar host program: popops::add builds
// the additions that graph.pir spells out as vertices. Build with
//   . ./enable.sh && g++ -std=c++11 host.cpp -lpoplar -lpopops -o host
#include <poplar/Engine.hpp>
#include <poplar/Graph.hpp>
#include <poplar/IPUModel.hpp>
#include <popops/ElementWise.hpp>
#include <popops/codelets.hpp>

int main() {
  poplar::IPUModel ipu;
  poplar::Device device = ipu.createDevice();
  poplar::Graph graph(device.getTarget());
  popops::addCodelets(graph);

  poplar::Tensor v1 = graph.addVariable(poplar::FLOAT, {2, 2}, "v1");
  poplar::Tensor v2 = graph.addVariable(poplar::FLOAT, {2, 2}, "v2");
  for (unsigned i = 0; i < 2; ++i) {
    for (unsigned j = 0; j < 2; ++j) {
      graph.setTileMapping(v1[i][j], i * 2 + j);
      graph.setTileMapping(v2[i][j], j * 2 + i);
    }
  }
  poplar::Tensor c1 = graph.addConstant<float>(poplar::FLOAT, {4}, {1.0, 1.5, 2.0, 2.5});
  poplar::Tensor c2 = graph.addConstant<float>(poplar::FLOAT, {4}, {4.0, 3.0, 2.0, 1.0});
  graph.setTileMapping(c1, 0);
  graph.setTileMapping(c2, 0);

  poplar::program::Sequence prog;
  prog.add(poplar::program::Copy(c1, v1.flatten()));
  prog.add(poplar::program::Copy(c2, v2.flatten()));
  poplar::Tensor v3 = popops::add(graph, v1, v2, prog, "Add");
  prog.add(poplar::program::PrintTensor("v3", v3));
  poplar::Tensor v4 = popops::add(graph, v3, v2, prog, "Add");
  prog.add(poplar::program::PrintTensor("v4", v4));
  poplar::Tensor v5 = popops::add(graph, v1, v2.transpose(), prog, "Add");
  prog.add(poplar::program::PrintTensor("v5", v5));

  poplar::Engine engine(graph, prog);
  engine.load(device);
  engine.run(0);
  return 0;
}
