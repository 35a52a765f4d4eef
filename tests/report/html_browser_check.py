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

from check_args import SKIP, Checks, parse_args
from headless_chromium import dump_dom, find_chromium, headless_command, screenshot


def main():
    args = parse_args()
    browser = find_chromium()
    if browser is None:
        return SKIP
    shutil.rmtree(args.work, ignore_errors=True)
    os.makedirs(args.work)
    data = os.path.join(args.source, "harness/report/testdata/cli")
    subprocess.run([args.gpuharness, "report", os.path.join(data, "sweep"), "--baseline",
                    os.path.join(data, "baseline"), "--out", args.work], check=False)
    page = "file://" + os.path.join(args.work, "report.html")
    chromium = headless_command(browser, args.work)
    dom = dump_dom(chromium, page)
    picture = os.path.join(args.work, "report.png")
    screenshot(chromium, page, picture, "--window-size=1400,2400")
    check = Checks()
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
    check(os.path.exists(picture) and os.path.getsize(picture) > 10000,
          f"screenshot {picture} written")
    return check.exit_status()


if __name__ == "__main__":
    sys.exit(main())
