#!/bin/sh
# The layers as includes (docs/architecture: data flows one way). Each folder of harness/ may
# include harness headers from the folders listed for it, and nothing else:
#   core                core                    (and never a CUDA, NCCL or MPI header)
#   runtime             core runtime
#   scenarios           core runtime scenarios
#   nccl_device_plugin  core runtime scenarios nccl_device_plugin
#   report              core report
#   driver              core report driver
#   bisect              core report driver bisect
#   history             core report history
#   cli                 every layer (the executable wires the layers together)
# A folder of harness/ without a rule here is an error too: a new layer states what it may use.
# Prints "FILE:LINE: <layer> includes <header>; <layer> may include only <folders>" for each
# back-arrow and "harness/X: no layering rule ..." for each folder without a rule, paths
# relative to ROOT, and exits 1 when there is one, else 0.
#
# usage: check_layering.sh ROOT            (ROOT holds harness/)
#        check_layering.sh --self-test DIR  runs on DIR/fixture and compares with DIR/fixture.expected
set -u

RULES="core:core
runtime:core runtime
scenarios:core runtime scenarios
nccl_device_plugin:core runtime scenarios nccl_device_plugin
report:core report
driver:core report driver
bisect:core report driver bisect
history:core report history
cli:core runtime scenarios nccl_device_plugin report driver bisect history cli"

check() {
  root=$1
  status=0
  for dir in $(cd "$root/harness" && find . -mindepth 1 -maxdepth 1 -type d | sed 's|^\./||' | LC_ALL=C sort); do
    if ! printf '%s\n' "$RULES" | grep -q "^$dir:"; then
      echo "harness/$dir: no layering rule for this folder; add one to tests/layering/check_layering.sh"
      status=1
    fi
  done
  printf '%s\n' "$RULES" | while IFS= read -r rule; do
    layer=${rule%%:*}
    allowed=${rule#*:}
    [ -d "$root/harness/$layer" ] || continue
    files=$(cd "$root" && find "harness/$layer" -type f \( -name '*.h' -o -name '*.cc' -o -name '*.cu' \) | LC_ALL=C sort)
    for file in $files; do
      awk -v layer="$layer" -v allowed=" $allowed " -v file="$file" '
        /^[ \t]*#[ \t]*include[ \t]*["<]/ {
          header = $0
          sub(/^[ \t]*#[ \t]*include[ \t]*["<]/, "", header)
          sub(/[">].*$/, "", header)
          if (header ~ /^harness\//) {
            split(header, part, "/")
            if (index(allowed, " " part[2] " ") == 0) {
              list = substr(allowed, 2, length(allowed) - 2)
              gsub(/ /, ", ", list)
              printf "%s:%d: %s includes %s; %s may include only %s\n", file, FNR, layer, header, layer, list
            }
          } else if (layer == "core" && header ~ /^(mpi|nccl|cuda|cublas|cufft|curand|cusparse|nvml)[^\/]*\.h$/) {
            printf "%s:%d: core includes %s; core never includes CUDA, NCCL or MPI headers\n", file, FNR, header
          }
        }' "$root/$file"
    done
  done > "${TMPDIR:-/tmp}/gh_layering.$$"
  if [ -s "${TMPDIR:-/tmp}/gh_layering.$$" ]; then
    cat "${TMPDIR:-/tmp}/gh_layering.$$"
    status=1
  fi
  rm -f "${TMPDIR:-/tmp}/gh_layering.$$"
  return $status
}

if [ "${1:-}" = "--self-test" ]; then
  dir=$2
  actual=$(check "$dir/fixture")
  rc=$?
  expected=$(cat "$dir/fixture.expected")
  if [ $rc -ne 1 ] || [ "$actual" != "$expected" ]; then
    echo "self-test failed: exit $rc (want 1); output:"
    printf '%s\n' "$actual"
    echo "want:"
    printf '%s\n' "$expected"
    exit 1
  fi
  echo "self-test passed: every planted back-arrow reported"
  exit 0
fi

check "$1"
rc=$?
[ $rc -eq 0 ] && echo "layering: no back-arrow under $1/harness"
exit $rc
