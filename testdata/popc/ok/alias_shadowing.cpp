// A vertex's member alias shadows a namespace template of the same name:
// `MetaInfo::Sub` and `MetaInfo::endId` go through the alias (to
// BlockMetaInfo), which itself names another member alias.
#include <poplar/Vertex.hpp>
using namespace poplar;
namespace ps {
template <typename T> struct MetaInfo { struct Sub { T id; T n; }; constexpr static T endId = 0; };
template <typename T> struct BlockMetaInfo { struct Sub { T id; T m; T k; }; constexpr static T endId = 7; };
template <typename T> class V : public Vertex {
public:
  using MetaInfoType = unsigned short;
  using MetaInfo = ps::BlockMetaInfo<MetaInfoType>;
  Input<Vector<unsigned short>> meta;
  Output<int> out;
  void compute() {
    const auto *s = reinterpret_cast<const MetaInfo::Sub *>(&meta[0]);
    *out = s->k + (s->id == MetaInfo::endId) + sizeof(MetaInfo::Sub);
  }
};
template class V<float>;
}

// RUN ps::V<float>
//   meta = [7, 0, 40]
//   out = [0]

// A member alias named like the namespace template it aliases.
namespace ps {
template <typename T> struct Acc { using type = T; static constexpr int bits = sizeof(T) * 8; };
template <typename T> class U : public Vertex {
public:
  using Acc = Acc<T>;
  Output<int> out;
  void compute() { *out = Acc::bits; }
};
template class U<short>;
}
// RUN ps::U<short>
//   out = [0]
