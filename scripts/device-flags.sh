# Sourced by the scripts/device-*.sh measurement scripts (run on a GPU node under
# scripts/node-run.sh): the one parser of their command-line flags, so every script takes its
# flags the same way and words an unknown one alike, and where their programs and NCCL come from.
#
#   gh_device_flags SCRIPT SPEC... -- "$@"
# Each SPEC is "--flag:var" (the flag takes a value, stored in var) or "--flag:var=VALUE" (a
# switch that sets var to VALUE). Defaults are the variables' values before the call. An
# argument no SPEC names exits 2 with "SCRIPT: unknown argument 'ARG'" (plus GH_FLAGS_HINT, when
# set, e.g. " (see --help)").
gh_device_flags() {
  local script=$1 spec flag target
  shift
  local -a specs=()
  while [[ $# -gt 0 && $1 != -- ]]; do specs+=("$1"); shift; done
  shift
  while [[ $# -gt 0 ]]; do
    flag=""
    for spec in "${specs[@]}"; do
      [[ $1 == "${spec%%:*}" ]] || continue
      flag=$1
      target=${spec#*:}
      if [[ $target == *=* ]]; then
        printf -v "${target%%=*}" '%s' "${target#*=}"
        shift
      else
        printf -v "$target" '%s' "$2"
        shift 2
      fi
      break
    done
    if [[ -z $flag ]]; then
      echo "$script: unknown argument '$1'${GH_FLAGS_HINT:-}" >&2
      exit 2
    fi
  done
}

# The measurement scripts run on a GPU node inside scripts/node-run.sh, which put the unpacked
# package's bin/ on PATH and, with --tests, exported GH_TESTS_BUILD (the test archive's build tree).
# gh_node_program NAME: the path of gpuharness (PATH) or of a test or bench program
# ($GH_TESTS_BUILD/bin); exits 3 naming what is missing.
gh_node_program() {
  local path
  if [[ $1 == gpuharness ]]; then
    path=$(command -v gpuharness) || { echo "gpuharness is not on PATH: run under scripts/node-run.sh --package TGZ" >&2; exit 3; }
  else
    path=${GH_TESTS_BUILD:+$GH_TESTS_BUILD/bin/$1}
    [[ -n $path && -x $path ]] || { echo "$1: no test program: run under scripts/node-run.sh --tests <package>-tests.tar.gz" >&2; exit 3; }
  fi
  echo "$path"
}

# gh_use_nccl wheel|system: this shell's LD_LIBRARY_PATH with the nvidia-nccl pip wheel's lib/
# first (wheel) or without it (system).
gh_use_nccl() {
  local wheel kept="" dir
  wheel=$(python3 -c 'import nvidia.nccl as m, os; print(os.path.join(list(m.__path__)[0], "lib"))' 2>/dev/null || true)
  IFS=: read -ra dirs <<<"${LD_LIBRARY_PATH:-}"
  for dir in "${dirs[@]}"; do
    [[ -n $dir && $dir != "$wheel" ]] && kept+="${kept:+:}$dir"
  done
  if [[ $1 == wheel ]]; then
    [[ -e $wheel/libnccl.so.2 ]] || { echo "no nvidia-nccl wheel for python3 here" >&2; return 3; }
    kept="$wheel${kept:+:$kept}"
  fi
  export LD_LIBRARY_PATH=$kept
}
