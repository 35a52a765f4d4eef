#!/usr/bin/env python3
"""Runs the marked shell blocks of one tutorial or how-to page, as a reader would, and checks
that each output block shows what the commands print (markdown_blocks.py lists the markers).

The page runs in a scratch directory laid out like a checkout: copies of the repository's
scenarios/, matrices/, launchers/, ci/, tests/ and docs/, and build/ pointing at the build tree,
with build/bin (the built gpuharness) first on PATH. The blocks run in order, one bash each
(`set -e`), sharing the working directory and the exported variables, so a page's steps build
on each other. GPU and skipped blocks are checked with `bash -n` and reported, not run.

    run_page.py --source DIR --build DIR PAGE.md [--keep]

Exit: 0 every block did what the page says; 1 one did not (the message names page:line);
77 nothing on the page could run here (every block needs a GPU or is skipped), which CTest
reports as skipped.
"""
import argparse
import os
import pathlib
import shutil
import signal
import subprocess
import sys
import tempfile
import time

sys.path.insert(0, str(pathlib.Path(__file__).resolve().parent))
import markdown_blocks  # noqa: E402
import output_match  # noqa: E402

COPIED = ["scenarios", "matrices", "launchers", "ci", "tests", "docs", "scripts", "results"]
SKIPPED = 77

# What every block runs under: the test machines run as root (Open MPI refuses that unless
# told), oversubscribed (more ranks than cores), with plain output (no colour, no redraw), and
# on the CPU even where a GPU is visible (the pages show CPU runs).
ENVIRONMENT = {
    "CUDA_VISIBLE_DEVICES": "",
    "OMPI_ALLOW_RUN_AS_ROOT": "1", "OMPI_ALLOW_RUN_AS_ROOT_CONFIRM": "1",
    "OMPI_MCA_rmaps_base_oversubscribe": "1", "NCCL_NVLS_ENABLE": "0",
    "NO_COLOR": "1", "CI": "true", "TERM": "dumb", "LC_ALL": "C.UTF-8",
}

PROLOGUE = """set -e
cd "$(cat "$DOCS_TEST_STATE/cwd")"
[ -f "$DOCS_TEST_STATE/env" ] && . "$DOCS_TEST_STATE/env"
trap 'rc=$?; pwd > "$DOCS_TEST_STATE/cwd"; export -p > "$DOCS_TEST_STATE/env"; exit $rc' EXIT
"""


class PageFailure(Exception):
    pass


def make_scratch(source, build):
    scratch = pathlib.Path(tempfile.mkdtemp(prefix="gh-docs-"))
    for name in COPIED:
        if (source / name).exists():
            shutil.copytree(source / name, scratch / name, symlinks=True,
                            ignore=shutil.ignore_patterns("__pycache__", "demo"))
    (scratch / "build").symlink_to(build)
    (scratch / "home").mkdir()
    return scratch


def run_block(block, page, state, env, scratch):
    script = state / "block.sh"
    script.write_text(PROLOGUE + block.text)
    started = time.monotonic()
    proc = subprocess.Popen(["bash", str(script)], stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                            stdin=subprocess.DEVNULL, env=env, start_new_session=True)
    try:
        out, _ = proc.communicate(timeout=block.marker.timeout)
    except subprocess.TimeoutExpired:
        os.killpg(proc.pid, signal.SIGKILL)
        out, _ = proc.communicate()
        raise PageFailure(f"{page}:{block.line}: the block ran past {block.marker.timeout} s; "
                          f"its output:\n{out.decode(errors='replace')}")
    finally:
        try:
            os.killpg(proc.pid, signal.SIGKILL)  # nothing a block started outlives it
        except ProcessLookupError:
            pass
    text = out.decode(errors="replace")
    elapsed = time.monotonic() - started
    if proc.returncode != block.marker.exit:
        raise PageFailure(f"{page}:{block.line}: the block exited {proc.returncode}, the page expects "
                          f"{block.marker.exit}; its output:\n{text}")
    return text, elapsed


def check_syntax(block, page):
    proc = subprocess.run(["bash", "-n"], input=block.text.encode(), capture_output=True)
    if proc.returncode != 0:
        raise PageFailure(f"{page}:{block.line}: bash -n: {proc.stderr.decode(errors='replace').strip()}")


def run_page(page, source, build, keep=False, log=print):
    text = page.read_text()
    try:
        page = page.relative_to(source)
    except ValueError:
        pass
    try:
        page_blocks = markdown_blocks.blocks(text)
    except markdown_blocks.MarkerError as e:
        raise PageFailure(f"{page}: {e}")
    scratch = make_scratch(source, build)
    state = scratch / ".docs-state"
    state.mkdir()
    (state / "cwd").write_text(str(scratch))
    env = {k: v for k, v in os.environ.items() if not k.startswith(("GH_", "CTEST"))}
    env.update(ENVIRONMENT)
    env["HOME"] = str(scratch / "home")
    env["PATH"] = f"{scratch / 'build' / 'bin'}:{env.get('PATH', '/usr/bin:/bin')}"
    env["DOCS_TEST_STATE"] = str(state)
    counts = {"run": 0, "compared": 0, "not run": 0}
    last_output = None
    started = time.monotonic()
    try:
        for block in page_blocks:
            marker = block.marker
            where = f"{page}:{block.line}"
            if block.is_shell and marker is None:
                raise PageFailure(f"{where}: a shell block without a docs-test marker: mark it run, gpu or "
                                  f"skip REASON (docs/CONTRIBUTING.md)")
            if marker is None or marker.kind == "to-be-measured":
                continue
            if marker.kind == "file":
                target = scratch / marker.path
                target.parent.mkdir(parents=True, exist_ok=True)
                target.write_text(block.text)
            elif marker.kind in ("gpu", "skip"):
                check_syntax(block, page)
                reason = "needs a GPU" if marker.kind == "gpu" else marker.reason
                log(f"{where}: not run ({reason}); bash -n passed")
                counts["not run"] += 1
            elif marker.kind == "run":
                last_output, elapsed = run_block(block, page, state, env, str(scratch))
                counts["run"] += 1
                log(f"{where}: ran in {elapsed:.1f} s")
            elif marker.kind == "output":
                if last_output is None:
                    raise PageFailure(f"{where}: an output block before any run block")
                missing = output_match.missing_lines(block.text, last_output, marker.unordered, str(scratch))
                if missing:
                    shown = "\n".join(f"  {m}" for m in missing)
                    actual = "\n".join(f"  {output_match.normalise(l, str(scratch))}"
                                       for l in last_output.splitlines())
                    raise PageFailure(f"{where}: the output does not show these lines of the page:\n{shown}\n"
                                      f"what the commands printed (normalised):\n{actual}")
                counts["compared"] += 1
    finally:
        if keep:
            log(f"scratch directory kept: {scratch}")
        else:
            shutil.rmtree(scratch, ignore_errors=True)
    log(f"{page}: {counts['run']} blocks run, {counts['compared']} outputs compared, "
        f"{counts['not run']} not run, {time.monotonic() - started:.1f} s")
    return counts


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--source", required=True, type=pathlib.Path)
    parser.add_argument("--build", required=True, type=pathlib.Path)
    parser.add_argument("--keep", action="store_true", help="keep the scratch directory")
    parser.add_argument("page", type=pathlib.Path)
    args = parser.parse_args()
    try:
        counts = run_page(args.page.resolve(), args.source.resolve(), args.build.resolve(), args.keep)
    except PageFailure as e:
        print(f"FAIL: {e}", file=sys.stderr)
        return 1
    if counts["run"] == 0 and counts["not run"] > 0:
        print("SKIP: no block of this page can run here")
        return SKIPPED
    return 0


if __name__ == "__main__":
    sys.exit(main())
