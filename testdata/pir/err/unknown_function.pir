program main { call nothing }
