stream "s": int[2] from host
stream "s": int[2] to host
