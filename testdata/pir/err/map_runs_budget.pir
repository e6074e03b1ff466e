// Each run of consecutive elements a `map` places becomes an interval of
// the mapping and is charged like an item: every other element of a huge
// tensor is 1650000000 runs, past the budget at once.
var big: float[3300000000]
map big[0:3300000000:2] -> tile 0
