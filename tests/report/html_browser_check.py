#!/usr/bin/env python3
"""report.html in a real headless browser (label "browser").

Writes the reports of harness/report/testdata/cli/sweep with `gpuharness report`, then has
Debian's chromium print the DOM it built (`--dump-dom`) and a screenshot of the page, and
checks what a reader sees: charts, each legend at most 8 entries, named axes, no external
resource. Exit 77 (CTest's skip) without chromium (apt-get install chromium).
"""
import os
import re
import shutil
import subprocess
import sys

from check_args import SKIP, parse_args


def main():
    args = parse_args()
    browser = shutil.which("chromium") or shutil.which("chromium-browser")
    if browser is None:
        print("SKIP: chromium is not installed (apt-get install -y chromium)")
        return SKIP
    shutil.rmtree(args.work, ignore_errors=True)
    os.makedirs(args.work)
    data = os.path.join(args.source, "harness/report/testdata/cli")
    subprocess.run([args.gpuharness, "report", os.path.join(data, "sweep"), "--baseline",
                    os.path.join(data, "baseline"), "--out", args.work], check=False)
    page = "file://" + os.path.join(args.work, "report.html")
    flags = [browser, "--headless", "--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage",
             f"--user-data-dir={args.work}/profile"]
    dom = subprocess.run(flags + ["--dump-dom", page], stdout=subprocess.PIPE,
                         stderr=subprocess.DEVNULL, text=True, timeout=120).stdout
    screenshot = os.path.join(args.work, "report.png")
    subprocess.run(flags + [f"--screenshot={screenshot}", "--window-size=1400,2400", page],
                   stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, timeout=120)
    failures = []

    def check(condition, what):
        print(("ok:   " if condition else "FAIL: ") + what)
        if not condition:
            failures.append(what)

    check("</html>" in dom, "chromium built the page's DOM")
    charts = re.findall(r"<svg class=\"plot\"", dom)
    check(len(charts) >= 1, f"charts drawn: {len(charts)}")
    legends = re.findall(r"<ul class=\"chart-legend\">(.*?)</ul>", dom, re.S)
    check(len(legends) == len(charts), f"a legend per chart: {len(legends)}")
    check(all(legend.count("<li>") <= 8 for legend in legends),
          f"legends of at most 8 entries: {[legend.count('<li>') for legend in legends]}")
    check(len(re.findall(r"class=\"axis-name x-axis\"[^>]*>[^<]+<", dom)) == len(charts), "every x axis named")
    check(len(re.findall(r"class=\"axis-name y-axis\"[^>]*>[^<]*\([^)]+\)<", dom)) == len(charts),
          "every y axis named with its unit")
    check(not re.search(r"(src|href)=\"(https?:)?//", dom), "no external resource")
    check(os.path.exists(screenshot) and os.path.getsize(screenshot) > 10000,
          f"screenshot {screenshot} written")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
