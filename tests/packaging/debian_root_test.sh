#!/usr/bin/env bash
# The packages on a clean Debian 12 (debootstrap --variant=minbase bookworm), as root in chroot:
#   1. the .deb with `dpkg -i` and `apt-get -f install`; the demo sweep passes; doctor's findings;
#   2. a fresh root with only the runtime packages docs/how-to/install.md lists for the TGZ, the TGZ
#      unpacked in /opt/gpuharness: the bundled libraries resolve there and the demo passes.
# The minbase root is made once and kept as CACHE/bookworm-minbase.tar (about 4 minutes of
# debootstrap); every run unpacks it afresh. Needs root, debootstrap and Debian's mirror.
# Usage: debian_root_test.sh PACKAGES_DIR SOURCE CACHE
set -euo pipefail
packages=$1 src=$2 cache=$3
source "$src/tests/packaging/lib.sh"
[ "$(id -u)" -eq 0 ] || skip "needs root (chroot, mounts)"
command -v debootstrap >/dev/null || skip "needs debootstrap (apt-get install debootstrap)"
mirror=${GH_DEBIAN_MIRROR:-http://deb.debian.org/debian}
deb=$(ls "$packages"/gpuharness_*.deb | head -1)
tgz=$(ls "$packages"/gpuharness-*.tar.gz | grep -v -e '-debug\.tar\.gz$' -e '-tests\.tar\.gz$' | head -1)
[ -f "$deb" ] && [ -f "$tgz" ] || fail "no .deb and TGZ in $packages (scripts/package.sh makes them)"
runtime=$(gh_tgz_runtime_packages "$src")
[ -n "$runtime" ] || fail "docs/how-to/install.md lists no runtime packages for the TGZ"

mkdir -p "$cache"
base=$cache/bookworm-minbase.tar
(
  flock 9
  if [ ! -s "$base" ]; then
    start=$SECONDS
    tmp=$(mktemp -d /tmp/gh_debootstrap.XXXXXX)
    debootstrap --variant=minbase bookworm "$tmp/root" "$mirror" >"$cache/debootstrap.log" 2>&1 ||
      { tail -20 "$cache/debootstrap.log"; rm -rf "$tmp"; fail "debootstrap failed (network?)"; }
    tar -C "$tmp/root" -cf "$base.part" . && mv "$base.part" "$base"
    rm -rf "$tmp"
    echo "debootstrap: $((SECONDS - start)) s (cached in $base)"
  fi
) 9>"$cache/.lock"

work=$(mktemp -d /tmp/gh_debian_root.XXXXXX)
trap 'rm -rf "$work"' EXIT
# in_root ROOT SCRIPT: SCRIPT as root in chroot ROOT, with /dev, /proc, /sys and DNS, inside a
# mount namespace that takes the mounts away when it ends.
in_root() {
  unshare -m bash -c "mount --rbind /dev '$1/dev' && mount -t proc proc '$1/proc' && mount -t sysfs sys '$1/sys' &&
    cp -L /etc/resolv.conf '$1/etc/resolv.conf' && chroot '$1' /usr/bin/env -i PATH=/usr/sbin:/usr/bin:/sbin:/bin \
    HOME=/root LANG=C.UTF-8 DEBIAN_FRONTEND=noninteractive bash -euo pipefail -c \"\$0\"" "$2"
}
fresh_root() { mkdir -p "$work/$1" && tar -C "$work/$1" -xf "$base"; }

# The demo, as the docs say to run it as root.
demo='export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
      cd /tmp && gpuharness sweep demo --out /tmp/demo > /tmp/demo.txt 2>&1 || { cat /tmp/demo.txt; exit 1; }
      tail -n 3 /tmp/demo.txt
      gpuharness doctor --results-root /tmp/results > /tmp/doctor.txt || true; cat /tmp/doctor.txt'

start=$SECONDS
fresh_root deb
cp "$deb" "$work/deb/tmp/"
in_root "$work/deb" "apt-get update -qq
  dpkg -i /tmp/$(basename "$deb") >/tmp/dpkg.txt 2>&1 || true
  apt-get -f install -y -qq --no-install-recommends >/tmp/apt.txt 2>&1 || { cat /tmp/dpkg.txt /tmp/apt.txt; exit 1; }
  dpkg-query -W -f='\${Status}\n' gpuharness | grep -q 'install ok installed'
  dpkg-query -W -f='gpuharness Depends: \${Depends}\n' gpuharness
  command -v gpuharness
  $demo" >"$work/deb.log" 2>&1 || { cat "$work/deb.log"; fail "the .deb in a clean Debian 12 root"; }
expect_in "$work/deb.log" "cells: 4 run"
expect_in "$work/deb.log" "/usr/bin/gpuharness"
grep -q '^0 failed, ' "$work/deb.log" || { cat "$work/deb.log"; fail "doctor failed in the .deb's root"; }
grep -E '^gpuharness Depends:' "$work/deb.log"
echo "deb root: $((SECONDS - start)) s"

start=$SECONDS
fresh_root tgz
mkdir -p "$work/tgz/opt/gpuharness"
tar -xzf "$tgz" -C "$work/tgz/opt/gpuharness"
in_root "$work/tgz" "apt-get update -qq
  apt-get install -y -qq --no-install-recommends $runtime >/tmp/apt.txt 2>&1 || { cat /tmp/apt.txt; exit 1; }
  for lib in libabsl_strings.so.20220623 libyaml-cpp.so.0.7 libre2.so.9; do
    if ldconfig -p | grep -q \"\$lib\"; then echo \"\$lib is installed in the root: the test proves nothing\"; exit 1; fi
  done
  export PATH=/opt/gpuharness/bin:\$PATH
  ldd /opt/gpuharness/bin/gpuharness > /tmp/ldd.txt
  $demo" >"$work/tgz.log" 2>&1 || { cat "$work/tgz.log"; fail "the TGZ in a clean Debian 12 root with: $runtime"; }
# The RUNPATH is $ORIGIN/../lib, so ldd names the prefix's libraries as /opt/gpuharness/bin/../lib/.
in_prefix=' /opt/gpuharness/(bin/\.\./)?lib/'
awk '{print $1, $3}' "$work/tgz/tmp/ldd.txt" | grep -E "$GH_BUNDLED" | grep -vE "$in_prefix" &&
  fail "in the TGZ's root, bundled libraries resolve outside /opt/gpuharness/lib"
grep -cE "$in_prefix" "$work/tgz/tmp/ldd.txt" | sed 's/^/bundled libraries from \/opt\/gpuharness\/lib: /'
expect_in "$work/tgz.log" "cells: 4 run"
echo "tgz root: $((SECONDS - start)) s (runtime packages: $runtime)"
