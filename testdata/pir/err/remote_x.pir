remote_buffer "rb": float[4] y 2
