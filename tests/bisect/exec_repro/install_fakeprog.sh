#!/bin/sh
# A fake version's set-up (run in the version's directory, GH_VERSION naming it, v1..v6): puts
# `fakeprog` on the version's PATH (bin/) and a venv-shaped package list (fakelib==N) beside it,
# as the pip provider's venv would hold. From v4 on the program fails on every process with a
# Python-style traceback ending in "ValueError: the answer is 41, not 42".
set -eu
n=${GH_VERSION#v}
mkdir -p bin venv/lib/python3.11/site-packages/fakelib-$n.0.dist-info
printf 'home = /usr/bin\nversion = 3.11.2\n' > venv/pyvenv.cfg
cat > bin/fakeprog <<PROG
#!/bin/sh
# usage: fakeprog COORDINATOR NRANKS RANK --flag
case "\$1" in 127.0.0.1:[0-9]*) ;; *) echo "bad coordinator '\$1'"; exit 2 ;; esac
[ "\$2" = 2 ] || { echo "bad process count '\$2'"; exit 2; }
[ "\$4" = --flag ] || { echo "missing --flag"; exit 2; }
[ "\$FAKE_COORD" = "\$1" ] || { echo "FAKE_COORD '\$FAKE_COORD' is not the coordinator '\$1'"; exit 2; }
if [ $n -ge 4 ]; then
  echo "Traceback (most recent call last):"
  echo "  File \"fakeprog.py\", line 7, in <module>"
  echo "ValueError: the answer is 41, not 42"
  exit 1
fi
echo "process \$3: ok"
PROG
chmod +x bin/fakeprog
