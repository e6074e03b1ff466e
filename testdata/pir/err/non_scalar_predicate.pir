var flag: int[2]
program main { if flag { sync } }
