// Named blocks (`block "name" { … }`, the host API's program::Block that
// the lightweight profiler records): nested, in a loop, empty, and with a
// name holding spaces and a quote.
target mk2(tiles_per_ipu = 4)
codelets "control.cpp"

var n: int @ tile 0 = 0

compute_set inc { vertex Add @ tile 0 { n = n, step = 1 } }

program main {
  block "stage1" {
    execute inc
    block "op 2" { execute inc }
  }
  repeat 2 { block "a \"b\"" { execute inc } }
  block "" {}
}
