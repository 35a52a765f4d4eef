# Sourced by scripts/setup.sh and scripts/package.sh: the Debian/Ubuntu packages gpuharness
# builds with, those its tests add, and the one way to install what is missing.

# Building the binary and its packages (cpack's DEB needs file and dpkg-shlibdeps).
gh_build_packages=(cmake g++ make pkg-config git file dpkg-dev openmpi-bin libopenmpi-dev
                   libyaml-cpp-dev libabsl-dev nlohmann-json3-dev libcli11-dev libre2-dev
                   libsqlite3-dev)
# The test suite on top.
gh_test_packages=(python3 python3-pip libgtest-dev libgmock-dev libbenchmark-dev ccache
                  python3-venv    # the pip version provider's venvs (docs/tutorials/bisect-wheels.md)
                  libxml2-utils   # xmllint: junit.xml checked against junit-10.xsd (tests/report.cmake)
                  slurm-wlm munge # the one-node Slurm test (tests/slurm.cmake)
                  debootstrap)    # the packaging tests' clean Debian 12 root (tests/packaging.cmake)

# gh_install_missing PACKAGE...: apt-get installs those not installed (as root, or with sudo);
# exit 3 when something is missing and neither is possible.
gh_install_missing() {
  local missing=() p sudo=""
  for p in "$@"; do
    dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
  done
  [ ${#missing[@]} -eq 0 ] && return 0
  echo "== installing: ${missing[*]}"
  if [ "$(id -u)" -ne 0 ]; then
    if command -v sudo >/dev/null; then sudo=sudo; else
      echo "missing packages and not root: apt-get install ${missing[*]}" >&2
      exit 3
    fi
  fi
  $sudo apt-get update -qq
  DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq --no-install-recommends "${missing[@]}"
}
