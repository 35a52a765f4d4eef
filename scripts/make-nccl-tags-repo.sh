#!/usr/bin/env bash
# Makes .deps/nccl-tags.git: a bare repository holding only NCCL's release tags 2.28.3 ... 2.30.7,
# each shallow (depth 1), a few MiB: what matrices/nccl_releases.yaml's git provider reads, and
# small enough to carry to the GPU machine (which reaches no network).
#
# usage: scripts/make-nccl-tags-repo.sh [--source URL_OR_PATH] [--out DIR] [--tags "T1 T2 ..."]
#   --source  the NCCL repository (default https://github.com/NVIDIA/nccl.git; a local mirror works)
#   --out     the bare repository to make (default .deps/nccl-tags.git in this checkout); replaced
#   --tags    the tags (default: every release tag v2.28.*-1, v2.29.*-1, v2.30.*-1 the source has)
set -euo pipefail

root=$(cd "$(dirname "$0")/.." && pwd)
source_repo=https://github.com/NVIDIA/nccl.git
out=$root/.deps/nccl-tags.git
tags=""
while [ $# -gt 0 ]; do
  case $1 in
    --source) source_repo=$2; shift 2 ;;
    --out) out=$2; shift 2 ;;
    --tags) tags=$2; shift 2 ;;
    -h|--help) sed -n '2,10p' "$0"; exit 0 ;;
    *) echo "make-nccl-tags-repo.sh: unknown argument '$1' (see --help)" >&2; exit 2 ;;
  esac
done
# A local path as file://, so that --depth applies (a plain path clones without it).
case $source_repo in
  /*) source_repo=file://$source_repo ;;
esac

if [ -z "$tags" ]; then
  tags=$(git ls-remote --tags --refs "$source_repo" | sed -n 's#.*refs/tags/##p' |
         grep -E '^v2\.(28|29|30)\.[0-9]+-1$' | sort -V | tr '\n' ' ')
  [ -n "$tags" ] || { echo "make-nccl-tags-repo.sh: $source_repo lists no v2.28-v2.30 release tag" >&2; exit 1; }
fi

tmp=$out.tmp
rm -rf "$tmp"
git init --quiet --bare "$tmp"
refspecs=()
for tag in $tags; do refspecs+=("refs/tags/$tag:refs/tags/$tag"); done
git -C "$tmp" fetch --quiet --depth=1 --no-tags "$source_repo" "${refspecs[@]}"
git -C "$tmp" gc --quiet --prune=now
rm -rf "$out"
mv "$tmp" "$out"
echo "$out: $(git -C "$out" tag | wc -l) tags ($(echo $tags)), $(du -sh "$out" | cut -f1)"
