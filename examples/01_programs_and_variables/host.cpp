// Tutorial 1 (programs and variables) as a Poplar host program: the same
// graph as graph.pir, built through the C++ API. Build it with
//   . ./enable.sh && g++ -std=c++11 host.cpp -lpoplar -o host
#include <poplar/Engine.hpp>
#include <poplar/Graph.hpp>
#include <poplar/IPUModel.hpp>

#include <iostream>
#include <vector>

int main() {
  poplar::IPUModel ipu;
  poplar::Device device = ipu.createDevice();
  poplar::Graph graph(device.getTarget());

  poplar::Tensor v1 = graph.addVariable(poplar::FLOAT, {4}, "v1");
  poplar::Tensor v2 = graph.addVariable(poplar::FLOAT, {4}, "v2");
  poplar::Tensor v3 = graph.addVariable(poplar::FLOAT, {4, 4}, "v3");
  poplar::Tensor v4 = graph.addVariable(poplar::INT, {10}, "v4");
  poplar::Tensor c1 = graph.addConstant<float>(poplar::FLOAT, {4}, {1.0, 1.5, 2.0, 2.5});
  graph.setTileMapping(v1, 0);
  for (unsigned i = 0; i < 4; ++i)
    graph.setTileMapping(v2[i], i);
  graph.setTileMapping(v3, 0);
  graph.setTileMapping(v4, 0);
  graph.setTileMapping(c1, 0);

  graph.createHostWrite("v3-write", v3);
  graph.createHostRead("v3-read", v3);
  poplar::DataStream in = graph.addHostToDeviceFIFO("v4-input-stream", poplar::INT, 10);

  poplar::program::Sequence prog;
  prog.add(poplar::program::Copy(c1, v1));
  prog.add(poplar::program::PrintTensor("v1-debug", v1));
  prog.add(poplar::program::Copy(v1, v2));
  prog.add(poplar::program::PrintTensor("v2-debug", v2));
  prog.add(poplar::program::Copy(v1.slice(0, 3), v3[1].slice(1, 4)));
  prog.add(poplar::program::Copy(in, v4));
  prog.add(poplar::program::PrintTensor("v4-0", v4));
  prog.add(poplar::program::Copy(in, v4));
  prog.add(poplar::program::PrintTensor("v4-1", v4));

  poplar::Engine engine(graph, prog);
  engine.load(device);

  std::vector<float> h3(16, 0.0f);
  engine.writeTensor("v3-write", h3.data(), h3.data() + h3.size());
  std::vector<int> h4(30);
  for (unsigned i = 0; i < h4.size(); ++i)
    h4[i] = static_cast<int>(i);
  engine.connectStream("v4-input-stream", h4.data(), h4.data() + h4.size());

  engine.run(0);

  engine.readTensor("v3-read", h3.data(), h3.data() + h3.size());
  std::cout << "h3 data:\n";
  for (unsigned i = 0; i < 4; ++i) {
    std::cout << "  ";
    for (unsigned j = 0; j < 4; ++j)
      std::cout << h3[i * 4 + j] << " ";
    std::cout << "\n";
  }
  return 0;
}
