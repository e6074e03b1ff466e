var x: float[4]
program main { copy x -> y }
