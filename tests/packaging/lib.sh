# Sourced by the packaging tests: failing with a message, checks on text, the bundled-library
# rule, and the exit status CTest reads as "skipped".
GH_SKIP=77
fail() { echo "FAIL: $*" >&2; exit 1; }
skip() { echo "SKIP: $*"; exit $GH_SKIP; }
# expect_in FILE TEXT: FILE contains TEXT (a fixed string).
expect_in() { grep -qF -- "$2" "$1" || { echo "--- $1:" >&2; cat "$1" >&2; fail "$1 lacks '$2'"; }; }
# The libraries a package bundles (cmake/GhInstall.cmake's GH_BUNDLED_LIBRARIES).
GH_BUNDLED='^lib(absl_[a-z0-9_]+|yaml-cpp|re2|sqlite3)\.so'
# check_bundled_resolve BINARY PREFIX: every bundled library ldd shows resolves under PREFIX/lib,
# and there is at least one.
check_bundled_resolve() {
  local bin=$1 prefix lines name path outside=""
  prefix=$(readlink -f "$2")
  lines=$(ldd "$bin" | awk '{print $1, $3}' | grep -E "$GH_BUNDLED" || true)
  [ -n "$lines" ] || fail "ldd $bin shows no bundled library"
  while read -r name path; do
    case "$(readlink -f "$path")" in "$prefix"/lib/*) ;; *) outside+="$name => $path"$'\n' ;; esac
  done <<<"$lines"
  [ -z "$outside" ] || fail "bundled libraries resolve outside $prefix/lib:"$'\n'"$outside"
  if ldd "$bin" | grep 'not found'; then fail "libraries not found for $bin"; fi
  echo "ldd: $(wc -l <<<"$lines") bundled libraries, all in $prefix/lib"
}
# The runtime packages docs/how-to/install.md lists for the TGZ on Debian 12 (the test installs only these).
gh_tgz_runtime_packages() {
  sed -n 's/^ *apt-get install -y --no-install-recommends \(.*\)  # the TGZ.s runtime$/\1/p' "$1/docs/how-to/install.md"
}
