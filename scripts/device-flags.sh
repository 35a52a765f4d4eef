# Sourced by the scripts/device-*.sh drivers: the one parser of their command-line flags, so
# every script takes its flags the same way and words an unknown one alike.
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
