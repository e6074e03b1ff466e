// The compiler works element by element on a view that repeats elements,
// so each element is charged against the expansion budget like an item:
// 3333333333 copies of one float fail at once (the PIR fuzzer's view ran a
// `map` out of memory).
codelets "../../common/codelets.cpp"
var v: float[4] @ tile 0
var s: float @ tile 1
compute_set cs { vertex SumVertex @ tile 1 { in = affine(v, 2, [[3333333333, 0]]), out = s } }
program main { execute cs }
