// A view that repeats elements is charged per element, however large the
// tensor it slices: one element of a huge tensor broadcast 3300000000
// times is refused at once (it used to pass a check against the whole
// tensor's size and then ran out of memory).
var big: float[3300000000]
program main { print "b" broadcast(big[0:1], 3300000000) }
