var s: int
program main { switch s { case 1 { sync } case 1 { sync } } }
