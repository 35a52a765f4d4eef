#!/bin/bash
# Acceptance (label "network", tests/providers.cmake): a bisect over real JAX CPU releases from
# PyPI whose failure is worded one way in the release that brings it and another way after.
# jax.sharding.PositionalSharding works in 0.6.x (deprecated), is removed in 0.7.0 with
# "jax.sharding.PositionalSharding was deprecated in JAX v0.6.0 and removed in JAX v0.7.0", and
# from 0.7.1 on fails as "module 'jax.sharding' has no attribute 'PositionalSharding'". The bad
# end (0.7.2) words it the second way; the answer must still be 0.7.0, named as a reworded
# failure of the same family, with one trial per probe (the failure is deterministic).
# usage: jax_reworded_test.sh GPUHARNESS WORKDIR
. "$(dirname "$0")/../common/e2e_preamble.sh"
. "$here/jax_matrix.sh"
cd "$work"
jax_matrix jax_positional_sharding_bisect "$here/positional_sharding.yaml" ">=0.6.1,<=0.7.2" > matrix.yaml
bisect() {  # bisect OUT [options]: the bisect's exit must be 0 (found)
  local out=$1; shift
  local start rc
  start=$(date +%s)
  set +e
  "$gh" bisect matrix.yaml --good 0.6.1 --bad 0.7.2 --out "$out" "$@" > "$out.txt" 2>&1
  rc=$?
  set -e
  echo "bisect $out took $(( $(date +%s) - start ))s, exit $rc"
  cat "$out.txt"
  [ "$rc" = 0 ] || fail "bisect $out: exit $rc, expected 0 (found)"
  grep -q "first bad: 0.7.0, last good: 0.6.2;" "$out.txt" ||
    fail "$out: the answer is not 0.7.0 / 0.6.2: $(tail -5 "$out.txt")"
  grep -qF "failed with a reworded message" "$out/summary.md" ||
    fail "$out/summary.md does not say 0.7.0 failed with a reworded message"
  grep -qF "was deprecated in JAX v0.6.0 and removed in JAX v0.7.0" "$out/summary.md" ||
    fail "$out/summary.md does not quote 0.7.0's own line"
  grep -q "Could not be tested\|Failed differently" "$out/summary.md" &&
    fail "$out: a version between the pair reported as untested or different"
  return 0
}
bisect det
python3 - det/summary.json <<'PY' || fail "det/summary.json: not the deterministic economy"
import json, sys
e = json.load(open(sys.argv[1]))["economy"]
assert e["deterministic"] and e["one_trial_per_probe"] and not e["pooled"], e
PY
echo "PASS: first bad 0.7.0 (reworded), last good 0.6.2 ($(ls det/versions | wc -l) versions set up)"
