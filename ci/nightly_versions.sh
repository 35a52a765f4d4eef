#!/bin/sh
# The nightly version axis of ci/matrices/*.yaml: prints the versions found in DIR (entries
# named <version><SUFFIX>, e.g. jax-2026-11-29.sqsh with SUFFIX .sqsh and PREFIX jax-), oldest
# first (names sort by date). With GH_NIGHTLY_ONLY set (ci/nightly.sh sets it for the night's
# sweep) prints only that version, and fails when DIR has no such version; unset (the bisect)
# prints the whole range.
#   sh ci/nightly_versions.sh DIR [PREFIX [SUFFIX]]
set -eu
dir=${1:?usage: nightly_versions.sh DIR [PREFIX [SUFFIX]]}
prefix=${2:-}
suffix=${3:-}
if [ ! -d "$dir" ]; then echo "nightly_versions.sh: no directory '$dir'" >&2; exit 2; fi
versions=$(ls -1 "$dir" | while IFS= read -r name; do
  case "$name" in
    "$prefix"*"$suffix") v=${name#"$prefix"}; v=${v%"$suffix"}; [ -n "$v" ] && printf '%s\n' "$v" ;;
  esac
done | LC_ALL=C sort)
if [ -z "$versions" ]; then echo "nightly_versions.sh: no '$prefix*$suffix' in '$dir'" >&2; exit 2; fi
if [ -n "${GH_NIGHTLY_ONLY:-}" ]; then
  if ! printf '%s\n' "$versions" | grep -Fxq -- "$GH_NIGHTLY_ONLY"; then
    echo "nightly_versions.sh: version '$GH_NIGHTLY_ONLY' not in '$dir' ('$prefix*$suffix')" >&2; exit 2
  fi
  printf '%s\n' "$GH_NIGHTLY_ONLY"
else
  printf '%s\n' "$versions"
fi
