var a: int[2]
stream "in": int[2] from host
program main { copy a -> "in" }
