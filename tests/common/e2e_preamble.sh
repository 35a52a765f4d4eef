# Sourced first by the end-to-end test scripts that ctest runs as SCRIPT GPUHARNESS WORKDIR:
# strict mode; gh and work from those two arguments; here, the script's own folder; work emptied
# and made again; `fail MESSAGE` ends the test with FAIL.
set -eu
gh=$1
work=$2
here=$(cd "$(dirname "$0")" && pwd)
rm -rf "$work" && mkdir -p "$work"
fail() { echo "FAIL: $*"; exit 1; }
