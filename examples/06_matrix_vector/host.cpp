// Tutorial 5 of the Poplar guide (matrix-vector multiplication) as a
// Poplar host program: one DotProductVertex per row, streams bound to the
// host's vectors. It reads the same inputMatrix.bin and inputVector.bin as
// graph.pir's command (run it in this folder) and prints the result. Build
// with
//   . ./enable.sh && g++ -std=c++11 host.cpp -lpoplar -lpoputil -o host
#include <poplar/DeviceManager.hpp>
#include <poplar/Engine.hpp>
#include <poplar/Graph.hpp>
#include <poplar/IPUModel.hpp>
#include <poputil/TileMapping.hpp>

#include <fstream>
#include <iostream>
#include <stdexcept>
#include <vector>

namespace {

std::vector<float> readFloats(const char *path, std::size_t n) {
  std::vector<float> values(n);
  std::ifstream in(path, std::ios::binary);
  in.read(reinterpret_cast<char *>(values.data()), static_cast<std::streamsize>(n * sizeof(float)));
  if (!in)
    throw std::runtime_error(std::string("cannot read ") + path);
  return values;
}

} // namespace

int main() {
  const unsigned rows = 40, cols = 50;
  poplar::IPUModel ipu;
  poplar::Device device = ipu.createDevice();
  poplar::Graph graph(device.getTarget());
  graph.addCodelets("matrix-mul-codelets.cpp");

  poplar::Tensor matrix = graph.addVariable(poplar::FLOAT, {rows, cols}, "matrix");
  poplar::Tensor inputVector = graph.addVariable(poplar::FLOAT, {cols}, "inputVector");
  poplar::Tensor outputVector = graph.addVariable(poplar::FLOAT, {rows}, "outputVector");
  poputil::mapTensorLinearly(graph, matrix);
  poputil::mapTensorLinearly(graph, inputVector);
  poputil::mapTensorLinearly(graph, outputVector);

  poplar::DataStream vectorIn = graph.addHostToDeviceFIFO("inputVector", poplar::FLOAT, cols);
  poplar::DataStream matrixIn = graph.addHostToDeviceFIFO("inputMatrix", poplar::FLOAT, rows * cols);
  poplar::DataStream out = graph.addDeviceToHostFIFO("out", poplar::FLOAT, rows);

  poplar::ComputeSet mulCS = graph.addComputeSet("mulCS");
  for (unsigned i = 0; i < rows; ++i) {
    poplar::VertexRef v = graph.addVertex(
        mulCS, "DotProductVertex", {{"a", matrix[i]}, {"b", inputVector}, {"out", outputVector[i]}});
    graph.setTileMapping(v, i);
    graph.setPerfEstimate(v, 20);
  }

  poplar::program::Sequence prog({poplar::program::Copy(vectorIn, inputVector),
                                  poplar::program::Copy(matrixIn, matrix), poplar::program::Execute(mulCS),
                                  poplar::program::Copy(outputVector, out)});

  std::vector<float> hostMatrix = readFloats("inputMatrix.bin", rows * cols);
  std::vector<float> hostVector = readFloats("inputVector.bin", cols);
  std::vector<float> result(rows);

  poplar::Engine engine(graph, prog);
  engine.load(device);
  engine.connectStream("inputVector", hostVector.data());
  engine.connectStream("inputMatrix", hostMatrix.data());
  engine.connectStream("out", result.data());
  engine.run(0);

  for (unsigned i = 0; i < rows; ++i) {
    float expected = 0;
    for (unsigned j = 0; j < cols; ++j)
      expected += hostMatrix[i * cols + j] * hostVector[j];
    float diff = expected > result[i] ? expected - result[i] : result[i] - expected;
    if (diff > 1e-5f * (expected > 0 ? expected : -expected)) {
      std::cout << "row " << i << ": " << result[i] << " where the host computes " << expected << "\n";
      return 1;
    }
  }
  std::cout << "out:";
  for (float x : result)
    std::cout << " " << x;
  std::cout << "\nMultiplication result OK\n";
  return 0;
}
