// Two definitions of one class: an error at the second, as in C++. A
// forward declaration before or after the definition, a specialisation
// and a namesake in another namespace are not redefinitions (they come
// first here, so the error shows they were accepted).
#include <poplar/Vertex.hpp>
struct Fwd;
struct Fwd { int x; };
struct Fwd;
template <class T> struct Box;
template <class T> struct Box { T v; };
template <> struct Box<int> { int w; };
namespace other { struct Fwd { float f; }; }
struct Empty {};
struct Empty {};
class V : public poplar::Vertex {
public:
  poplar::Output<int> out;
  bool compute() { Fwd p{1}; *out = p.x; return true; }
};
