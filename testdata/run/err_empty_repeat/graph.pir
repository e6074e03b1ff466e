// An empty loop that would run for ever: every iteration costs a modelled
// cycle, so --max-cycles stops it on sim.
target mk2(tiles_per_ipu = 2)
program main { repeat 9223372036854775807 { } }
