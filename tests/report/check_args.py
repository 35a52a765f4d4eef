"""What the report checks (html_browser_check.py, junit_sweep_check.py, broken_night_check.py)
share: their command line (--gpuharness BIN --source DIR --work DIR, as tests/report.cmake passes
it), their list of checks and CTest's skip status."""
import argparse

SKIP = 77  # CTest's SKIP_RETURN_CODE


def parse_args():
    parser = argparse.ArgumentParser()
    parser.add_argument("--gpuharness", required=True)
    parser.add_argument("--source", required=True)
    parser.add_argument("--work", required=True)
    return parser.parse_args()


class Checks:
    """Each check printed as it is made (ok or FAIL); the exit status 1 if any failed."""

    def __init__(self):
        self.failures = []

    def __call__(self, condition, what):
        print(("ok:   " if condition else "FAIL: ") + what)
        if not condition:
            self.failures.append(what)

    def exit_status(self):
        return 1 if self.failures else 0
