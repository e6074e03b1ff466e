var v: float[4]
compute_set cs {
  for i in 0..1000 { for j in 0..200000000 { vertex Nop {} } }
}
