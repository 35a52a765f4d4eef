"""Checks over a results tree for the Python parts of the end-to-end test scripts: each failed
check is kept and all of them are printed at the end, so one run shows every difference.

    sys.path.insert(0, SOURCE_DIR + "/tests/common")
    from results_checks import ResultsChecks
    checks = ResultsChecks(root)
    checks.check(cond, "what was wrong")
    summary = checks.load("nights", "night1", "summary.json")  # JSON parsed, other files as text
    checks.finish()  # prints "FAIL: ..." per failed check; exits 1 if there was one
"""
import json
import os
import sys


class ResultsChecks:
    def __init__(self, root):
        self.root = root
        self.failures = []

    def check(self, cond, msg):
        if not cond:
            self.failures.append(msg)

    def load(self, *parts):
        """The file root/parts...: parsed where it ends in .json, else its text; None (and a
        failure) where it cannot be read or parsed."""
        path = os.path.join(self.root, *parts)
        try:
            with open(path) as f:
                return json.load(f) if path.endswith(".json") else f.read()
        except (OSError, ValueError) as e:
            self.failures.append(f"{path}: {e}")
            return None

    def finish(self):
        for failure in self.failures:
            print("FAIL:", failure)
        if self.failures:
            sys.exit(1)
