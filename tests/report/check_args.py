"""What the report checks (html_browser_check.py, junit_sweep_check.py) share: their command
line (--gpuharness BIN --source DIR --work DIR, as tests/report.cmake passes it) and CTest's
skip status."""
import argparse

SKIP = 77  # CTest's SKIP_RETURN_CODE


def parse_args():
    parser = argparse.ArgumentParser()
    parser.add_argument("--gpuharness", required=True)
    parser.add_argument("--source", required=True)
    parser.add_argument("--work", required=True)
    return parser.parse_args()
