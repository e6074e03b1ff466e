// Under barleyTwist an IPU sends to its nearest neighbours only: IPU 0
// reaches IPUs 1 (its rung) and 2 (one rung up), not IPU 3.
target mk2(ipus = 4, tiles_per_ipu = 4, ipuLinkConfiguration = barleyTwist)
var a: float[16] @ tile 0
var b: float[16] @ tile 12
program main { copy a -> b }
