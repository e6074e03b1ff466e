program main {
  copy a -> b
