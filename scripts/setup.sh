#!/usr/bin/env bash
# Set up a fresh Debian/Ubuntu machine, build gpuharness, then either run the demo sweep
# (default) or the whole test suite (--test). Safe to rerun: installs only what is missing.
#   bash scripts/setup.sh          install + build + demo sweep (CPU backend without a GPU)
#   bash scripts/setup.sh --test   install + build + every test (ctest)
set -euo pipefail
cd "$(dirname "$0")/.."

mode=demo
case "${1:-}" in
  "") ;;
  --test) mode=test ;;
  -h|--help) sed -n '2,5p' "$0"; exit 0 ;;
  *) echo "setup.sh: unknown argument '$1' (expected --test or nothing)" >&2; exit 2 ;;
esac

packages=(cmake g++ make pkg-config python3 python3-pip openmpi-bin libopenmpi-dev libyaml-cpp-dev libabsl-dev
          nlohmann-json3-dev libcli11-dev libre2-dev libsqlite3-dev libgtest-dev libgmock-dev
          libbenchmark-dev ccache
          libxml2-utils   # xmllint: junit.xml checked against junit-10.xsd (tests/report.cmake)
          python3-venv    # the pip version provider's venvs (docs/tutorials/bisect-wheels.md)
          slurm-wlm munge)  # slurm-wlm, munge: the one-node Slurm test (tests/slurm.cmake)
missing=()
for p in "${packages[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
if [ ${#missing[@]} -gt 0 ]; then
  echo "== installing: ${missing[*]}"
  if [ "$(id -u)" -eq 0 ]; then sudo=""; elif command -v sudo >/dev/null; then sudo="sudo"; else
    echo "setup.sh: missing packages and not root: apt-get install ${missing[*]}" >&2; exit 3
  fi
  $sudo apt-get update -qq
  DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq --no-install-recommends "${missing[@]}"
fi

# Python packages tests use: junitparser reads junit.xml as a CI consumer would (tests/report.cmake).
python_packages=(junitparser)
for p in "${python_packages[@]}"; do
  python3 -c "import $p" 2>/dev/null || python3 -m pip install -q "$p" 2>/dev/null \
    || python3 -m pip install -q --break-system-packages "$p" \
    || echo "setup.sh: could not pip install $p; the tests that need it skip"
done

# Open MPI refuses to run as root unless told; CI and fresh machines run as root.
if [ "$(id -u)" -eq 0 ]; then
  export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
fi
export OMPI_MCA_rmaps_base_oversubscribe=1   # 4-rank demos and tests on 2-core machines
export NCCL_NVLS_ENABLE=0                    # never NVLink multicast on shared machines

jobs=$(nproc)
if [ "$mode" = test ]; then preset=ci; else preset=default; fi
echo "== configuring (preset $preset)"
cmake --preset "$preset" >/dev/null
echo "== building with $jobs jobs"
if [ "$mode" = test ]; then
  cmake --build --preset "$preset" -j "$jobs"
else
  cmake --build --preset "$preset" -j "$jobs" --target gpuharness   # only what the demo runs
fi

if [ "$mode" = test ]; then
  echo "== running the test suite"
  ctest --preset ci -j "$jobs"
else
  out=results/demo
  echo "== demo: build/bin/gpuharness sweep matrices/demo.yaml --out $out"
  status=0
  build/bin/gpuharness sweep matrices/demo.yaml --out "$out" || status=$?
  echo
  echo "results: $out/records.jsonl, $out/summary.md, $out/report.html, $out/junit.xml"
  exit $status
fi
