codelets "abc.cpp
var x: float
