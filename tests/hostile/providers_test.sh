#!/bin/bash
# Hostile version labels against every version provider (label "hostile"): labels that run a
# command when a shell reads them raw ($(...), ;, backquotes, quotes), as a repository's tags
# (git), a pip provider's versions, a list command's output read through a `list.template`
# set-up, and a container provider's image file names. Each payload touches a PWNED* file; for
# each provider the sweep (its set-ups and jobs), `sweep --dry-run` (the set-ups it prints, pasted
# into a shell) and a repro script (run again from scratch) must run none of them, and the
# set-ups must read each label back exactly.
# usage: providers_test.sh GPUHARNESS WORKDIR [PROVIDER]
. "$(dirname "$0")/../common/e2e_preamble.sh"
only=${3:-}
labels=(
  'v2$(touch${IFS}PWNED1)'
  'v3;touch${IFS}PWNED2;'
  'v4`touch${IFS}PWNED3`'
  "v5'\$(touch\${IFS}PWNED4)'"
  'v6"$(touch${IFS}PWNED5)"'
)

pwned() { find "$work" -name 'PWNED*' 2>/dev/null; }
check_clean() {  # WHAT
  local found
  found=$(pwned)
  [ -z "$found" ] || fail "$1 ran a hostile label's payload: $found"
}

# Each version's set-up as --dry-run prints it ("version V: set-up in DIR/versions/X:", then the
# script, its first line after "    $ "), pasted into sh in a fresh directory of its own.
paste_dry_run_setups() {  # DRY_RUN_OUTPUT
  python3 - "$1" "$work/pasted" <<'PY'
import os, re, sys
blocks, current = [], None
for line in open(sys.argv[1]).read().split("\n"):
    if re.match(r"^version .*: set-up in .*:$", line):
        current = []
        blocks.append(current)
    elif current is None:
        continue
    elif not current:
        if line.startswith("    $ "):
            current.append(line[6:])
        else:
            current = None
    elif "  (ranks " in line:
        current = None
    else:
        current.append(line)
for i, block in enumerate(blocks):
    d = os.path.join(sys.argv[2], str(i))
    os.makedirs(d, exist_ok=True)
    open(os.path.join(d, "setup.sh"), "w").write("\n".join(block) + "\n")
print(len(blocks))
PY
}

run_pasted() {
  local d n=0
  for d in "$work"/pasted/*/; do
    (cd "$d" && GH_VERSION=x GH_VERSION_DIR="$d" sh setup.sh >/dev/null 2>&1) || true
    n=$((n + 1))
  done
  echo "$n"
}

# Every label the set-ups wrote to their `label` files, one per line (in the order found).
labels_read_back() {  # DIR
  find "$1" -name label -type f -exec cat {} + | sort
}

expect_labels() {  # NAME DIR COPIES
  local want got
  want=$(for l in "${labels[@]}"; do for ((i = 0; i < $3; ++i)); do printf '%s\n' "$l"; done; done | sort)
  got=$(labels_read_back "$2")
  [ "$got" = "$want" ] || fail "$1: the set-ups read back other labels:$(printf '\n%s' "$got")"$'\n'"want:$(printf '\n%s' "$want")"
}

# The dry run pasted, the sweep, the labels its set-ups read back (COPIES each, 0: not looked
# at), then a repro script of POINT ("": none) run from scratch.
exercise() {  # NAME MATRIX COPIES POINT
  local name=$1 matrix=$2 copies=$3 point=$4 blocks ran
  echo "== $name"
  rm -rf "$work/pasted" "$work/out_$name"
  "$gh" sweep "$matrix" --dry-run >"$work/dry_$name.txt" 2>&1 || fail "$name: --dry-run exited $?: $(cat "$work/dry_$name.txt")"
  check_clean "$name: --dry-run"
  blocks=$(paste_dry_run_setups "$work/dry_$name.txt")
  [ "$blocks" -ge 1 ] || fail "$name: --dry-run printed no set-up: $(cat "$work/dry_$name.txt")"
  ran=$(run_pasted)
  check_clean "$name: the set-ups --dry-run printed, pasted into sh"
  echo "   dry run: $blocks set-ups printed and pasted, nothing ran"
  set +e
  "$gh" sweep "$matrix" --out "$work/out_$name" >"$work/sweep_$name.txt" 2>&1
  local rc=$?
  set -e
  check_clean "$name: the sweep"
  [ "$rc" -le 3 ] || fail "$name: the sweep exited $rc: $(tail -20 "$work/sweep_$name.txt")"
  echo "   sweep: exit $rc, nothing ran"
  if [ "$copies" -gt 0 ]; then
    expect_labels "$name" "$work/out_$name" "$copies"
    echo "   every set-up read its label back exactly ($copies ways)"
  fi
  if [ -n "$point" ]; then
    "$gh" repro "$work/out_$name" "$point" --out "$work/repro_$name.sh" 2>"$work/repro_$name.err" ||
      fail "$name: repro exited $?: $(cat "$work/repro_$name.err")"
    grep -q 'GH_VERSION_DIR=' "$work/repro_$name.sh" || fail "$name: the repro script holds no set-up"
    rm -rf "$work/out_$name/versions"/*/  # the script sets its version up again, from scratch
    (cd "$work" && bash "$work/repro_$name.sh" >"$work/repro_$name.out" 2>&1) || true
    check_clean "$name: the repro script"
    echo "   repro script: set up again and ran, nothing ran"
  fi
}

scenario="$work/check.yaml"
cat >"$scenario" <<'YAML'
# Fails unless the version's own check program says otherwise: every cell has a job to repro.
name: hostile_check
kind: exec
ranks: 1
timeout: 30s
exec:
  argv: [gh-hostile-check]
expect: pass
YAML

# ---- git: the labels are tags of a repository -------------------------------------------------
if [ -z "$only" ] || [ "$only" = git ]; then
  mkdir -p "$work/repo" && cd "$work/repo"
  git init -q -b main . && git config user.email t@example.com && git config user.name test
  echo one >file && git add file && git commit -qm one
  for l in "${labels[@]}"; do git tag "$l"; done
  cd "$work"
  cat >"$work/git.yaml" <<YAML
name: hostile_git
scenarios: ["$scenario"]
defaults: {launcher: direct, ranks: 1, backend: host, timeout: 30s}
versions:
  name: tag
  git:
    repo: "{matrix_dir}/repo"
    tags: "v*"
    build: |
      mkdir -p {prefix}/bin
      printf '%s\n' {version} > {prefix}/label
      printf '%s\n' "{version}" >> {prefix}/label
      printf '#!/bin/sh\nexit 1\n' > {prefix}/bin/gh-hostile-check && chmod +x {prefix}/bin/gh-hostile-check
YAML
  exercise git "$work/git.yaml" 2 "hostile_check/np=1"
fi

# ---- pip: the labels are the provider's versions ----------------------------------------------
if [ -z "$only" ] || [ "$only" = pip ]; then
  {
    echo "name: hostile_pip"
    echo "scenarios: [\"$scenario\"]"
    echo "defaults: {launcher: direct, ranks: 1, backend: host, timeout: 30s}"
    echo "versions:"
    echo "  pip:"
    echo "    requirements: \"ghpkg=={version}\""
    echo "    python: \"true\""  # no venv, no index: each set-up fails at once, quoting tested
    echo "    versions:"
    for l in "${labels[@]}"; do printf '      - %s\n' "$(python3 -c 'import json,sys; print(json.dumps(sys.argv[1]))' "$l")"; done
  } >"$work/pip.yaml"
  exercise pip "$work/pip.yaml" 0 ""
fi

# ---- list: the labels come from a list command, the set-up from list.template -------------------
if [ -z "$only" ] || [ "$only" = list ]; then
  printf '%s\n' "${labels[@]}" >"$work/labels.txt"
  cat >"$work/list.yaml" <<YAML
name: hostile_list
scenarios: ["$scenario"]
defaults: {launcher: direct, ranks: 1, backend: host, timeout: 30s}
versions:
  name: release
  list:
    command: "cat labels.txt"
    template:
      env_prepend: {PATH: "{version_dir}/bin"}
      setup: |
        # set up {version} (a comment: it's not run)
        printf '%s\n' {version} > label
        printf '%s\n' "{version}" >> label
        printf '%s\n' 'v={version}' | cut -c3- >> label
        cat >> label <<EOF
        {version}
        EOF
        mkdir -p bin && printf '#!/bin/sh\nexit 1\n' > bin/gh-hostile-check && chmod +x bin/gh-hostile-check
YAML
  exercise list "$work/list.yaml" 4 "hostile_check/np=1"
fi

# ---- container: the labels are image file names (dangling links: every set-up says "no image") --
if [ -z "$only" ] || [ "$only" = container ]; then
  mkdir -p "$work/images"
  for l in "${labels[@]}"; do ln -s "$work/nowhere" "$work/images/$l.sif"; done
  cat >"$work/container.yaml" <<YAML
name: hostile_container
scenarios: ["$scenario"]
defaults: {launcher: direct, ranks: 1, backend: host, timeout: 30s}
versions:
  container: {runtime: apptainer, images: "{matrix_dir}/images"}
YAML
  exercise container "$work/container.yaml" 0 ""
  for l in "${labels[@]}"; do
    grep -rqF "error: no image $work/images/$l.sif" "$work/out_container/versions" ||
      fail "container: no set-up log says 'error: no image .../$l.sif' as it is"
  done
fi
check_clean "the whole test"
echo "PASS: no hostile label ran anything in the sweep, --dry-run or a repro script"
