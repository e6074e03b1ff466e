// Tutorial 3 (writing vertex code) as a Poplar host program: the codelets
// are compiled by popc when addCodelets is called, so connect checks the
// field names there. Build with
//   . ./enable.sh && g++ -std=c++11 host.cpp -lpoplar -o host
#include <poplar/Engine.hpp>
#include <poplar/Graph.hpp>
#include <poplar/IPUModel.hpp>

#include <iostream>

int main() {
  poplar::IPUModel ipu;
  poplar::Device device = ipu.createDevice();
  poplar::Graph graph(device.getTarget());
  graph.addCodelets("tut3_codelets.cpp");

  poplar::Tensor v1 = graph.addVariable(poplar::FLOAT, {4}, "v1");
  poplar::Tensor v2 = graph.addVariable(poplar::FLOAT, {4}, "v2");
  poplar::Tensor c1 = graph.addConstant<float>(poplar::FLOAT, {4}, {1.0, 1.5, 2.0, 2.5});
  for (unsigned i = 0; i < 4; ++i) {
    graph.setTileMapping(v1[i], i);
    graph.setTileMapping(v2[i], i);
  }
  graph.setTileMapping(c1, 0);

  poplar::ComputeSet sums = graph.addComputeSet("computeSet");
  for (unsigned i = 0; i < 4; ++i) {
    poplar::VertexRef v = graph.addVertex(sums, "SumVertex");
    graph.connect(v["in"], v1.slice(i, 4));
    graph.connect(v["out"], v2[i]);
    graph.setTileMapping(v, i);
    graph.setPerfEstimate(v, 20);
  }

  poplar::program::Sequence prog;
  prog.add(poplar::program::Copy(c1, v1));
  prog.add(poplar::program::Execute(sums));
  prog.add(poplar::program::PrintTensor("v2", v2));

  poplar::Engine engine(graph, prog);
  engine.load(device);
  engine.run(0);
  return 0;
}
