#!/usr/bin/env python3
"""From a red result to its cause in one look: a broken night on the host backend (label "browser").

Sweeps tests/report/broken_night/night.yaml (framework 2.4.1: ring shift with planted faults and
a framework repro whose processes raise Python exceptions) as the baseline, then
night_broken.yaml (framework 2.5.0: allgather now raises on rank 1) against it, and checks what
a person reads:
  - the console: the regressions' FAILED lines come before the known failures', each with the
    traceback's last line and the rank's log, at DIR/logs/<cell>/<point>/rank<r>.log;
  - summary.md: "Regressions and new failures" before "Known failures", the traceback, the link,
    when and where it ran; `gpuharness report DIR` writes the same summary.md, junit.xml and
    report.html again (the comparison was recorded), and says so when the baseline is gone;
  - report.html in headless Chromium: on the first screen (1280x800) the regression's traceback
    and its log link are visible, above the known failures (a copy of the page with a probe
    script reports their places); a screenshot of that first screen is kept in the work folder;
  - junit.xml: Jenkins' classname rule (split at the last dot: package gpuharness.night, class
    the scenario, no version label in it), the traceback and the log in the <failure>;
  - `gpuharness history status` after both nights: the regression is broken since the broken
    night, with its signature.
Exit 77 (CTest's skip) without chromium.
"""
import os
import re
import shutil
import subprocess
import sys
import xml.etree.ElementTree as ET

from check_args import SKIP, Checks, parse_args
from headless_chromium import dump_dom, find_chromium, headless_command, screenshot

CELL = "alloc=default,fw=2.5.0"
POINT = "framework/variant=allgather/np=2"
LOG = f"logs/{CELL}/{POINT}/rank1.log"
RAISED = "RuntimeError: NCCL error in: collectives.cc:412, unhandled cuda error, allgather on rank 1"

# Appended to a copy of report.html: where the regression's traceback and log link are.
PROBE = """<script>
window.addEventListener('load', () => {
  const place = (el) => el ? Math.round(el.getBoundingClientRect().top) + ',' +
      Math.round(el.getBoundingClientRect().bottom) + ',' + (el.offsetParent !== null) : 'none';
  const pre = [...document.querySelectorAll('pre')].find(p => p.textContent.includes('%s'));
  const link = [...document.querySelectorAll('a')].find(a => a.getAttribute('href') === '%s');
  const known = [...document.querySelectorAll('h2')].find(h => h.textContent.startsWith('Known failures'));
  document.body.setAttribute('data-probe', 'traceback=' + place(pre) + ';link=' + place(link) +
      ';known=' + place(known) + ';height=' + window.innerHeight);
});
</script>"""


def main():
    args = parse_args()
    browser = find_chromium()
    if browser is None:
        return SKIP
    work = args.work
    shutil.rmtree(work, ignore_errors=True)
    shutil.copytree(os.path.join(args.source, "tests/report/broken_night"), work)
    env = dict(os.environ, OMPI_ALLOW_RUN_AS_ROOT="1", OMPI_ALLOW_RUN_AS_ROOT_CONFIRM="1",
               OMPI_MCA_rmaps_base_oversubscribe="1", NCCL_NVLS_ENABLE="0")
    check = Checks()

    def gpuharness(*argv):
        run = subprocess.run([args.gpuharness, *argv], cwd=work, env=env, stdout=subprocess.PIPE,
                             stderr=subprocess.STDOUT, text=True, timeout=600)
        return run.returncode, run.stdout

    rc, _ = gpuharness("sweep", "night.yaml", "--out", "base")
    check(rc == 1, f"the baseline night exits 1 (an expected failure is unmet there too): {rc}")
    rc, console = gpuharness("sweep", "night_broken.yaml", "--out", "broken", "--baseline", "base",
                             "--baseline-ignore", "fw")
    print(console)
    check(rc == 1, f"the broken night exits 1: {rc}")
    dir_ = os.path.join(work, "broken")

    # The console.
    failed = [line for line in console.splitlines() if line.startswith("FAILED ")]
    check(len(failed) == 4, f"4 FAILED lines: {len(failed)}")
    check(all("regression" in line for line in failed[:2]) and
          all("failing in the baseline too" in line for line in failed[2:]),
          "regressions first, then the failures the baseline had too")
    first = console[console.index(failed[0]):console.index(failed[1])]
    check(f"| {RAISED}" in first, "the regression's FAILED line shows the traceback's last line")
    check("| Traceback (most recent call last):" in first, "... from the traceback's first line")
    check(f"log: broken/{LOG}" in first, f"... and the rank's log, broken/{LOG}")
    check(os.path.isfile(os.path.join(dir_, LOG)), f"{LOG} exists")
    with open(os.path.join(dir_, LOG)) as f:
        check(RAISED in f.read(), "the log holds the traceback")
    check(re.search(r"4 crash \(all expected\)", console) is not None, "the headline says the crashes were expected")

    # summary.md.
    files = {}
    for name in ("summary.md", "junit.xml", "report.html"):
        with open(os.path.join(dir_, name)) as f:
            files[name] = f.read()
    summary = files["summary.md"]
    regressions, known = summary.find("## Regressions and new failures"), summary.find("## Known failures")
    check(0 <= regressions < known, "summary.md: regressions and new failures before known failures")
    check(summary.find(RAISED, regressions) < known, "summary.md: the traceback under the regressions")
    check(f'<a href="{LOG}">rank 1 log</a>' in summary, f"summary.md: a link to {LOG}")
    check(re.search(r"^Ran \d{4}-\d\d-\d\d .* UTC on \S+ \(host backend.*\) with fw 2\.5\.0", summary, re.M)
          is not None, "summary.md: when, where and with which versions")

    # report DIR writes the same files again; a vanished baseline is said.
    rc, out = gpuharness("report", "broken")
    check(rc == 1, f"report DIR exits 1 as the sweep did: {rc}")
    check("(as recorded in comparison.json)" in out, "report DIR says it compared as recorded")
    for name, text in files.items():
        with open(os.path.join(dir_, name)) as f:
            check(f.read() == text, f"report DIR writes the sweep's {name} again")
    check(out.count("FAILED ") == 4 and f"| {RAISED}" in out, "report DIR prints the same FAILED lines")

    # report.html in headless Chromium: the first screen.
    chromium = headless_command(browser, work, "--hide-scrollbars", "--window-size=1280,800")
    page = "file://" + os.path.join(dir_, "report.html")
    picture = os.path.join(work, "first-screen.png")
    screenshot(chromium, page, picture)
    check(os.path.exists(picture) and os.path.getsize(picture) > 10000, f"screenshot {picture}")
    probe = os.path.join(dir_, "probe.html")
    with open(probe, "w") as f:
        f.write(files["report.html"].replace("</body>", PROBE % (RAISED, LOG) + "</body>"))
    dom = dump_dom(chromium, "file://" + probe, "--virtual-time-budget=5000")
    os.remove(probe)
    found = re.search(r'data-probe="([^"]*)"', dom)
    check(found is not None, "the probe ran in Chromium")
    if found:
        print("probe:", found.group(1))
        places = dict(part.split("=", 1) for part in found.group(1).split(";"))
        height = int(places["height"])
        for what in ("traceback", "link"):
            top, bottom, shown = places[what].split(",") if places[what] != "none" else ("-1", "-1", "false")
            check(shown == "true" and 0 <= int(top) and int(bottom) <= height,
                  f"report.html: the regression's {what} is on the first screen ({places[what]}, height {height})")
        known_top = int(places["known"].split(",")[0]) if places["known"] != "none" else 10 ** 9
        check(int(places["traceback"].split(",")[0]) < known_top, "report.html: ... above the known failures")
    check(f'href="{LOG}"' in files["report.html"], "report.html: the link is relative to DIR")

    # junit.xml against Jenkins' classname rule.
    root = ET.fromstring(files["junit.xml"])
    cases = root.findall(".//testcase")
    check(all(c.get("classname").rsplit(".", 1)[0] == "gpuharness.night" for c in cases),
          "junit: package gpuharness.night")
    check({c.get("classname").rsplit(".", 1)[1] for c in cases} == {"framework", "ring"},
          "junit: classes are the scenarios, no version label")
    names = [c.get("name") for c in cases]
    check(len(set(names)) == len(names), "junit: names distinct within the suite")
    check(names[0] == f"{POINT} [{CELL}]", f"junit: the regression first: {names[0]}")
    failure = cases[0].find("failure")
    check(failure is not None and failure.get("message").startswith("regression: expected pass, got error: RuntimeError"),
          "junit: the failure's message says regression and the signature once")
    check(failure is not None and RAISED in failure.text and LOG in failure.text,
          "junit: the failure's body has the traceback and the log")
    # A kernel point's time is kept to the microsecond. (A rank the harness saw crash has no
    # recorded duration yet: the crash points stay at 0.)
    timed = [c for c in cases if c.find("skipped") is None and "fault=crash" not in c.get("name")]
    check(all(float(c.get("time")) > 0 for c in timed), "junit: times above zero")

    # history status after the two nights.
    db = os.path.join(work, "history.sqlite")
    rc1, out1 = gpuharness("history", "ingest", "base", "--night", "2026-12-01", "--db", db)
    rc2, out2 = gpuharness("history", "ingest", "broken", "--night", "2026-12-02", "--db", db)
    check(rc1 == 0 and rc2 == 0, f"history ingest: {rc1} {rc2} {out1}{out2}")
    rc, status = gpuharness("history", "status", "--db", db)
    print(status)
    line = next((l for l in status.splitlines() if "variant=allgather" in l and "default" in l), "")
    check("since 2026-12-02" in line or ("2026-12-02" in line and "2026-12-01" in line),
          f"history status: the regression broken since the broken night: '{line}'")
    check("RuntimeError" in status, "history status: with its signature")
    return check.exit_status()


if __name__ == "__main__":
    sys.exit(main())
