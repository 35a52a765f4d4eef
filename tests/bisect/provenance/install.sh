#!/bin/sh
# A fake release's set-up (matrix.yaml): the pin it asks for, the program of the reworded
# bisect's release, and a venv holding fakelib at the release's version -- 2.0 for v4.
set -eu
n=${GH_VERSION#v}
printf 'fakelib==%s.0\n' "$n" > provenance.expected
sh "$(dirname "$0")/../reworded/install_fakeprog.sh"
installed=$n.0
[ "$n" = 4 ] && installed=2.0
rm -rf venv
mkdir -p "venv/lib/python3.11/site-packages/fakelib-$installed.dist-info"
