#!/bin/sh
# A fake release's set-up (run in the release's directory, GH_VERSION naming it, v1..v8): puts a
# `fakeprog` on its PATH. From v5 on the program prints a Python traceback through the user's
# line `s = fakelib.sharding.Sharding(devices)` and exits 1: v5 says the attribute "was
# deprecated in fakelib 4.0 and removed in fakelib 5.0", v6..v8 that the module "has no
# attribute". With FAKE_FLAKY=1 a failing release fails only on its odd-numbered runs (counted
# in $FAKE_RUNS), as a race would.
set -eu
n=${GH_VERSION#v}
mkdir -p bin
if [ "$n" -eq 5 ]; then
  message="AttributeError: fakelib.sharding.Sharding was deprecated in fakelib 4.0 and removed in fakelib 5.0"
else
  message="AttributeError: module 'fakelib.sharding' has no attribute 'Sharding'"
fi
cat > bin/fakeprog <<PROG
#!/bin/sh
runs=\$(cat "\$FAKE_RUNS" 2>/dev/null || echo 0)
runs=\$((runs + 1))
echo "\$runs" > "\$FAKE_RUNS"
if [ $n -lt 5 ] || { [ "\$FAKE_FLAKY" = 1 ] && [ \$((runs % 2)) = 0 ]; }; then
  echo ok
  exit 0
fi
echo "Traceback (most recent call last):"
echo "  File \"/home/user/project/prog.py\", line 3, in <module>"
echo "    s = fakelib.sharding.Sharding(devices)"
echo "        ^^^^^^^^^^^^^^^^^^^^^^^^^"
echo "  File \"/home/user/venv/lib/python3.11/site-packages/fakelib/sharding.py\", line 9, in __getattr__"
echo "    raise AttributeError(_removed(name))"
echo "$message"
exit 1
PROG
chmod +x bin/fakeprog
