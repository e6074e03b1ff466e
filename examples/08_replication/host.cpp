// Replication as a Poplar host program: the graph of graph.pir built through
// the C++ API on a graph with a replication factor of 4, its collectives
// from gcl. Build it with
//   . ./enable.sh && g++ -std=c++11 host.cpp -lpoplar -lpopops -lpoplin -lpoputil -o host
#include <gcl/Collectives.hpp>
#include <poplar/Engine.hpp>
#include <poplar/Graph.hpp>
#include <poplar/IPUModel.hpp>
#include <poplin/MatMul.hpp>
#include <popops/ElementWise.hpp>
#include <poputil/TileMapping.hpp>

#include <iostream>
#include <vector>

int main() {
  const unsigned replicas = 4;
  poplar::IPUModel ipu;
  ipu.numIPUs = replicas;
  ipu.tilesPerIPU = 4;
  poplar::Device device = ipu.createDevice();
  poplar::Graph graph(device.getTarget(), poplar::replication_factor(replicas));
  std::cout << "replicas: " << graph.getReplicationFactor() << ", tiles per replica: "
            << graph.getTarget().getNumTiles() << "\n";

  poplar::Tensor r = graph.addReplicationIndexConstant("r");
  graph.setTileMapping(r, 0);
  poplar::Tensor w = graph.addConstant<float>(poplar::FLOAT, {4, 4},
                                              {1, 0, 0, 0, 0, 2, 0, 0, 0, 0, 3, 0, 1, 1, 1, 1}, "w");
  poputil::mapTensorLinearly(graph, w);

  namespace pe = popops::expr;
  poplar::program::Sequence prog;
  poplar::Tensor s = popops::map(graph, pe::Cast(pe::_1, poplar::FLOAT) * pe::Const(0.5f) + pe::Const(1.0f), {r}, prog, "s");
  poplar::Tensor x = graph.addVariable(poplar::FLOAT, {4, 1}, "x");
  poputil::mapTensorLinearly(graph, x);
  prog.add(poplar::program::Copy(s.reshape({1}).broadcast(4, 0).reshape({4, 1}), x));
  poplar::Tensor y = poplin::matMul(graph, w, x, prog, "y");
  poplar::Tensor mean = gcl::allReduceCrossReplica(graph, y, gcl::CollectiveOperator::MEAN, prog, "mean");
  poplar::Tensor all = gcl::allGatherCrossReplica(graph, y.slice(0, 2, 0).reshape({2}), prog);
  prog.add(poplar::program::PrintTensor("y", y));
  prog.add(poplar::program::PrintTensor("all", all));
  graph.createHostRead("mean", mean);

  poplar::Engine engine(graph, prog);
  engine.load(device);
  engine.run(0);

  // A host handle of a replicated graph reads every replica's copy.
  std::vector<float> host(replicas * 4);
  engine.readTensor("mean", host.data(), host.data() + host.size());
  for (unsigned i = 0; i < replicas; ++i) {
    std::cout << "replica " << i << " mean:";
    for (unsigned j = 0; j < 4; ++j)
      std::cout << " " << host[i * 4 + j];
    std::cout << "\n";
  }
  return 0;
}
