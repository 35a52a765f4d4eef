#!/usr/bin/env bash
# matrices/nccl_releases.yaml plans (`sweep --dry-run`) without the 5 MiB tags repository it reads
# from .deps/ (scripts/make-nccl-tags-repo.sh makes the real one): a copy of the matrix beside a
# throwaway bare repository holding the nine release tag names, and every tag must be listed.
# usage: nccl_releases_dryrun.sh GPUHARNESS SOURCE_DIR WORK_DIR
set -euo pipefail
gh=$1 src=$2 work=$3
rm -rf "$work" && mkdir -p "$work/matrices" "$work/.deps"
cp "$src/matrices/nccl_releases.yaml" "$work/matrices/"
cp -r "$src/scenarios" "$work/scenarios"
git init -q "$work/tagsrc"
git -C "$work/tagsrc" -c user.name=t -c user.email=t@t commit -q --allow-empty -m base
tags="v2.28.3-1 v2.28.7-1 v2.28.9-1 v2.29.2-1 v2.29.3-1 v2.29.7-1 v2.30.3-1 v2.30.4-1 v2.30.7-1 v2.27.7-1"
for t in $tags; do git -C "$work/tagsrc" tag "$t"; done
git clone -q --bare "$work/tagsrc" "$work/.deps/nccl-tags.git"
out=$("$gh" sweep "$work/matrices/nccl_releases.yaml" --dry-run 2>&1) || { echo "$out"; exit 1; }
for t in $tags; do
  n=$(grep -c -- "$t" <<<"$out" || true)
  if [[ $t == v2.27.7-1 ]]; then
    [[ $n == 0 ]] || { echo "$out"; echo "FAIL: $t is outside the matrix's tag pattern but was planned"; exit 1; }
  else
    [[ $n -ge 1 ]] || { echo "$out"; echo "FAIL: $t is not in the dry run"; exit 1; }
  fi
done
echo "nccl_releases dry run lists the nine release tags and leaves v2.27.7-1 out"
