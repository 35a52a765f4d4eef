#!/usr/bin/env bash
# Builds NCCL's Inspector profiler plugin, libnccl-profiler-inspector.so, into OUTDIR
# (docs/explanation/hangs.md: scenarios with `nccl_inspector: true` run under it, named by
# GH_NCCL_INSPECTOR_PLUGIN or `run --nccl-inspector`). No GPU is needed.
#
#   scripts/build-nccl-inspector.sh OUTDIR [TAG | NCCL_SOURCE_DIR]
#
# TAG (default v2.28.9-1, the NCCL the H200 runs) is read from a git repository of NVIDIA/nccl:
# GH_NCCL_REPO, else /work/.mirror/NVIDIA+nccl/repo where it exists. A directory holding
# ext-profiler/inspector/ (an NCCL source tree) is built as it is, from a copy.
# CUDA_HOME (default /usr/local/cuda) supplies the CUDA headers; the plugin carries its own
# NCCL profiler headers. The plugin's Makefile builds with -march=native; this script builds
# for the baseline x86-64 (or the machine's default) instead, so that the .so runs on another
# machine than the one that built it.
set -euo pipefail

usage() { echo "usage: $0 OUTDIR [TAG | NCCL_SOURCE_DIR]" >&2; exit 2; }
[[ $# -ge 1 && $# -le 2 ]] || usage
out=$1
source=${2:-v2.28.9-1}
cuda_home=${CUDA_HOME:-/usr/local/cuda}

work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

if [[ -d $source ]]; then
  [[ -d $source/ext-profiler/inspector ]] ||
    { echo "$0: $source: no ext-profiler/inspector/ (not an NCCL source tree of 2.28 or later)" >&2; exit 2; }
  cp -r "$source/ext-profiler" "$work/"
  revision=$(git -C "$source" describe --tags --always 2>/dev/null || basename "$source")
else
  repo=${GH_NCCL_REPO:-/work/.mirror/NVIDIA+nccl/repo}
  git -C "$repo" rev-parse --git-dir >/dev/null 2>&1 ||
    { echo "$0: no NCCL git repository at $repo (set GH_NCCL_REPO, or pass an NCCL source dir)" >&2; exit 2; }
  git -C "$repo" rev-parse --verify --quiet "$source^{commit}" >/dev/null ||
    { echo "$0: $repo has no tag or commit '$source'" >&2; exit 2; }
  git -C "$repo" cat-file -e "$source:ext-profiler/inspector/Makefile" 2>/dev/null ||
    { echo "$0: NCCL $source has no ext-profiler/inspector/ (the Inspector came with 2.28)" >&2; exit 2; }
  git -C "$repo" archive "$source" ext-profiler/inspector | tar -x -C "$work"
  revision=$source
fi
[[ -f $cuda_home/include/cuda_runtime.h ]] ||
  { echo "$0: no CUDA headers under $cuda_home/include (set CUDA_HOME)" >&2; exit 2; }

dir=$work/ext-profiler/inspector
# The Makefile would run utils/extract_git_version.sh, which archives lack: name the revision.
printf '#include "version.h"\nconst char* get_git_version_info() { return "%s"; }\n' "$revision" >"$dir/version.cc"
make -s -C "$dir" CUDA_HOME="$cuda_home" NCCL_HOME="$cuda_home" \
  CXXFLAGS="-g -O3 -fPIC -shared -DNDEBUG -Wall -Wextra" >"$work/make.log" 2>&1 ||
  { cat "$work/make.log" >&2; echo "$0: make failed" >&2; exit 1; }
mkdir -p "$out"
install -m 0755 "$dir/libnccl-profiler-inspector.so" "$out/libnccl-profiler-inspector.so"
echo "$out/libnccl-profiler-inspector.so (NCCL Inspector from $revision)"
