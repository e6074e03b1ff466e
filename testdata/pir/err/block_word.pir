// A name and a string before a body is only `block "name" { … }`.
target mk2(tiles_per_ipu = 4)
var n: int @ tile 0 = 0
program main {
  blok "stage1" { }
}
