#!/bin/bash
# Acceptance (label "network", tests/providers.cmake): a bisect over real JAX CPU releases from
# PyPI through the pip provider (`jax==V jaxlib==V`, a venv per version, downloads cached in
# GH_PIP_CACHE, default $HOME/.cache/gpuharness-pip). 0.4.37 has no jaxlib: its set-up fails and
# it is skipped. The answer must be 0.6.0, the release that removed jax.tree_map.
# usage: jax_bisect_test.sh GPUHARNESS WORKDIR
. "$(dirname "$0")/../common/e2e_preamble.sh"
. "$here/jax_matrix.sh"
cd "$work"
jax_matrix jax_tree_map_bisect "$here/tree_map.yaml" ">=0.4.36,<0.6.3" > matrix.yaml
"$gh" sweep matrix.yaml --dry-run > dry.txt || fail "dry-run exited $?"
grep -q "jax==0.4.36 jaxlib==0.4.36" dry.txt || fail "dry-run shows no set-up: $(head -20 dry.txt)"
start=$(date +%s)
set +e
"$gh" bisect matrix.yaml --good 0.4.36 --bad 0.6.2 --out out --max-trials 1 > bisect.txt 2>&1
rc=$?
set -e
echo "bisect took $(( $(date +%s) - start ))s, exit $rc"
cat bisect.txt
[ "$rc" = 0 ] || fail "bisect exit $rc, expected 0 (found)"
python3 - out/summary.json <<'PY' || fail "summary.json: the first bad is not 0.6.0"
import json, sys
s = json.load(open(sys.argv[1]))
text = json.dumps(s)
assert '"0.6.0"' in text and '"0.5.3"' in text, text[:3000]
PY
grep -q "AttributeError: jax.tree_map was removed in JAX v0.6.0" out/summary.md || fail "no traceback signature"
echo "PASS: first bad 0.6.0, last good 0.5.3 ($(ls out/versions | wc -l) versions set up)"
