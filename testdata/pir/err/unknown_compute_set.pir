program main { execute nothing }
