// Every control construct: repeat, while (on a true and on a false
// predicate), if/else, switch, call, nested
// sequences, sync, undef, and several programs run by name and index.
target mk2(tiles_per_ipu = 4)
codelets "control_codelets.cpp"
var n: int @ tile 0 = 0
var k: int @ tile 1 = 5
var flag: int @ tile 1 = 0
var sel: int @ tile 2 = 2
var m: int @ tile 1 = 3
var done: int @ tile 1 = 0
var scratch: float[4] @ tile 3 = 1.0
compute_set inc { vertex Add @ tile 0 { n = n, step = 1 } }
compute_set add10 { vertex Add @ tile 0 { n = n, step = 10 } }
compute_set dec { vertex Dec @ tile 1 { k = k, flag = flag } }
compute_set countdown { vertex Countdown @ tile 1 { k = m, done = done } }
function twice { execute inc  execute inc }
program main {
  repeat 3 { execute inc }
  print "after-repeat" n
  while { execute dec } flag { execute inc }
  print "after-while" n
  print "k" k
  if flag { execute add10 } else { call twice }
  print "after-if" n
  switch sel {
    case 0 { execute add10 }
    case 2 { call twice  call twice }
    default { execute inc }
  }
  print "after-switch" n
  sync
  undef scratch
  { execute inc }
  print "n" n
}
program second { execute add10  print "second" n }
// Poplar's RepeatWhileFalse: the body runs while `done` is zero.
program until {
  while { execute countdown } !done { execute inc }
  print "after-until" n
  print "m" m
}
