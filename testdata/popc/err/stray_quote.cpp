// Text that is no token is allowed in a group #if skips, not in one it keeps.
#include <poplar/Vertex.hpp>
#if 0
don't mind me
#else
#define GREETING 'hello
#endif
