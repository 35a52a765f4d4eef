#!/usr/bin/env bash
# `cmake --install` into a prefix, then, with the checkout hidden (a tmpfs over it in a mount
# namespace) and PATH=<prefix>/bin: doctor, list, the demo sweep by name, a shipped scenario by
# name under mpirun, a matrix of one's own with the srun launcher (dry run), --version against
# environment.json, the man page and the modulefile; the bundled libraries resolve in the prefix.
# Usage: install_test.sh BUILD SOURCE
set -euo pipefail
build=$1 src=$2
source "$src/tests/packaging/lib.sh"
[ "$(id -u)" -eq 0 ] && unshare -m true 2>/dev/null || skip "needs root and mount namespaces (unshare -m) to hide the checkout"
work=$(mktemp -d /tmp/gh_install_test.XXXXXX)   # outside the checkout, which gets hidden
trap 'rm -rf "$work"' EXIT
prefix=$work/prefix
cmake --install "$build" --prefix "$prefix" >"$work/install.log" || { cat "$work/install.log"; fail "cmake --install"; }

for f in bin/gpuharness share/gpuharness/scenarios/ring_shift_bandwidth.yaml share/gpuharness/matrices/demo.yaml \
         share/gpuharness/launchers/srun.yaml share/gpuharness/ci/nightly.sh share/gpuharness/ci/slurm/nightly-h100.sbatch \
         share/gpuharness/scenarios/frameworks/jax/dsf_ring_shift.py share/gpuharness/results/reference/collective_busbw.yaml \
         share/man/man1/gpuharness.1 \
         share/doc/gpuharness/how-to/install.md share/doc/gpuharness/README.md; do
  [ -e "$prefix/$f" ] || fail "not installed: $f"
done
[ -x "$prefix/share/gpuharness/ci/nightly.sh" ] || fail "ci/nightly.sh lost its execute bit"
ls "$prefix"/share/gpuharness/modulefiles/gpuharness/0.*-*.lua >/dev/null || fail "no modulefile"
expect_in "$prefix/share/man/man1/gpuharness.1" ".SS doctor"
readelf -d "$prefix/bin/gpuharness" | grep -E '\(RPATH\).*\[\$ORIGIN/\.\./lib\]' || fail "RPATH is not \$ORIGIN/../lib"
check_bundled_resolve "$prefix/bin/gpuharness" "$prefix"

cat >"$work/srun_matrix.yaml" <<YAML
name: mine
scenarios:
  - file: $prefix/share/gpuharness/scenarios/ring_shift.yaml
defaults: {launcher: srun, backend: host}
axes:
  - name: np
    values:
      - {label: "2", ranks: 2}
YAML

# The hidden checkout: a tmpfs over it (and over the build tree where that is elsewhere).
hide="mount -t tmpfs none '$src'"
case "$build" in "$src"/*) ;; *) hide="$hide && mount -t tmpfs none '$build'" ;; esac
mkdir -p "$work/run"
unshare -m bash -c "$hide && cd '$work/run' && env PATH='$prefix/bin:/usr/bin:/bin' bash -euo pipefail -c '
  [ -z \"\$(ls -A \"$src\")\" ] || { echo \"the checkout is still visible\" >&2; exit 1; }
  command -v gpuharness
  gpuharness --version >version.txt
  gpuharness doctor --results-root \"$work/results\" >doctor.txt
  gpuharness doctor --results-root \"$work/results\" --json >doctor.json
  gpuharness list >list.txt
  gpuharness sweep demo --out \"$work/demo\" >demo.txt 2>&1
  mpirun -np 4 gpuharness run ring_shift_demo --out \"$work/by_name\" --backend host >by_name.txt 2>&1
  gpuharness sweep \"$work/srun_matrix.yaml\" --out \"$work/srun\" --dry-run >srun.txt 2>&1
'" || { tail -n 30 "$work"/run/*.txt; fail "a command failed with the checkout hidden"; }

cd "$work/run"
expect_in version.txt "gpuharness "
expect_in version.txt "commit:"
expect_in doctor.txt "ok    data      shipped scenarios, matrices and launchers in $prefix/share/gpuharness"
grep -q '^0 failed, ' doctor.txt || { cat doctor.txt; fail "doctor found failures"; }
python3 - "$work" <<'PY'
import json, sys
work = sys.argv[1]
doctor = json.load(open(f"{work}/run/doctor.json"))
assert doctor["failed"] == 0, doctor
version = open(f"{work}/run/version.txt").read()
for run in ("by_name", "demo"):
    import glob
    envs = glob.glob(f"{work}/{run}/**/environment.json", recursive=True)
    assert envs, f"no environment.json under {run}"
    for path in envs:
        build = json.load(open(path))["build"]
        assert f"commit:             {build['commit']}\n" in version, (path, build)
        assert build["version"] == doctor["build"]["version"], (path, build)
records = [json.loads(l) for l in open(f"{work}/by_name/records.jsonl")]
assert records and all(r["outcome"] == "pass" for r in records), [r["outcome"] for r in records]
assert all(r["file"].endswith("/share/gpuharness/scenarios/ring_shift_demo.yaml") for r in records), records[0]["file"]
print(f"environment.json build facts match --version; {len(records)} records of ring_shift_demo by name pass")
PY
expect_in list.txt "ring_shift"
expect_in demo.txt "cells: 4 run"
[ -s "$work/demo/records.jsonl" ] && [ -s "$work/demo/summary.md" ] || fail "the demo left no records or summary"
expect_in srun.txt "srun -n 2 --mpi=pmix -O"
echo "installed prefix works with the checkout hidden: doctor, list, demo, by-name scenario, srun launcher"
