// What kind of file Graph::addCodelets is given.
#ifndef PRS_POPLAR_CODELETFILETYPE_HPP
#define PRS_POPLAR_CODELETFILETYPE_HPP

namespace poplar {

/// Auto decides by the file's extension. The library compiles C and C++
/// codelets (.c, .cpp, .cc, .cxx) and loads popc objects (.gp); assembly and
/// IR are not supported.
enum class CodeletFileType { PreprocessedAsmSource, AsmSource, CSource, CppSource, IrSource, Object, Auto };

} // namespace poplar

#endif
