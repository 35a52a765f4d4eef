#!/usr/bin/env python3
"""Unit tests of the docs tests' own tools: each check must catch what it is for (a test that
cannot fail is a defect), on small pages written here.

    python3 tests/docs/docs_tools_test.py
"""
import pathlib
import sys
import tempfile
import textwrap
import unittest

sys.path.insert(0, str(pathlib.Path(__file__).resolve().parent))
import check_flags  # noqa: E402
import check_links  # noqa: E402
import check_schema  # noqa: E402
import check_vocabulary  # noqa: E402
import markdown_blocks  # noqa: E402
import output_match  # noqa: E402
import run_page  # noqa: E402


def page(text):
    return textwrap.dedent(text).lstrip("\n")


class MarkdownBlocksTest(unittest.TestCase):
    def test_markers_attach_to_the_next_fence_with_their_options(self):
        text = page("""
            # Title
            <!-- docs-test: run exit=1 timeout=30 -->

            ```sh
            gpuharness sweep m.yaml --out r
            ```
            <!-- docs-test: output unordered -->
            ```text
            line
            ```
            ```yaml
            a: 1
            ```
            <!-- docs-test: skip needs a Slurm cluster -->
            ```sh
            srun true
            ```
            <!-- docs-test: file my/file.yaml -->
            ```yaml
            b: 2
            ```
            """)
        blocks = markdown_blocks.blocks(text)
        self.assertEqual([b.line for b in blocks], [4, 8, 11, 15, 19])
        run, output, plain, skip, file_ = blocks
        self.assertEqual((run.marker.kind, run.marker.exit, run.marker.timeout), ("run", 1, 30))
        self.assertEqual(run.text, "gpuharness sweep m.yaml --out r\n")
        self.assertTrue(run.is_shell)
        self.assertTrue(output.marker.unordered)
        self.assertIsNone(plain.marker)
        self.assertEqual(skip.marker.reason, "needs a Slurm cluster")
        self.assertEqual(file_.marker.path, "my/file.yaml")
        self.assertEqual(file_.text, "b: 2\n")

    def test_bad_markers_name_their_line(self):
        cases = {
            "<!-- docs-test: runn -->\n```sh\nx\n```\n": "line 1: unknown docs-test marker 'runn'",
            "<!-- docs-test: skip -->\n```sh\nx\n```\n": "line 1: 'skip' needs a reason",
            "<!-- docs-test: run -->\ntext\n```sh\nx\n```\n": "line 2: a docs-test marker must come right before",
            "<!-- docs-test: output exit=1 -->\n```\nx\n```\n": "'exit=1' is not an option of the 'output' marker",
            "```sh\nx\n": "line 1: the fence is never closed",
            "text\n<!-- docs-test: run -->\n": "has no block",
        }
        for text, message in cases.items():
            with self.subTest(text=text):
                with self.assertRaisesRegex(markdown_blocks.MarkerError, message):
                    markdown_blocks.blocks(text)

    def test_anchors_follow_github(self):
        text = page("""
            # The `sweep` command: packing, resume
            ## Tests
            ## Tests
            ```sh
            # not a heading
            ```
            ## NCCL's view (2.24+)
            """)
        self.assertEqual(markdown_blocks.anchors(text),
                         {"the-sweep-command-packing-resume", "tests", "tests-1", "nccls-view-224"})

    def test_links_outside_code_only(self):
        text = "see [a](a.md#x) and `[b](b.md)`\n```\n[c](c.md)\n```\n![img](i.png) [d](<d.md>)\n"
        self.assertEqual(list(markdown_blocks.links(text)), [(1, "a.md#x"), (5, "d.md")])


class OutputMatchTest(unittest.TestCase):
    def test_normalise_replaces_what_changes_between_runs(self):
        line = ("2026-12-01T10:00:00.5Z [3/4] cell: 8/8 pass, exit 0, 2.1s  0.0211 GB/s 00:12 elapsed "
                "at ring_shift.cc:191 commit 3f2a91c0d4e1 127.0.0.1:41234 pid 4242")
        self.assertEqual(output_match.normalise(line),
                         "<date> [3/4] cell: 8/8 pass, exit 0, <time> <rate> <time> elapsed at ring_shift.cc:<line> "
                         "commit <hash> 127.0.0.1:<port> pid <pid>")
        self.assertEqual(output_match.normalise("output: /tmp/gh-repro.adMgtx/failing/rank0.log"),
                         "output: <tmp>/failing/rank0.log")

    def test_counts_and_names_stay(self):
        self.assertEqual(output_match.normalise("6 points (6 trials): 2 pass, 2 fail; v08 np=4 bytes=4K"),
                         "6 points (6 trials): 2 pass, 2 fail; v08 np=4 bytes=4K")

    def test_scratch_directory_is_removed(self):
        self.assertEqual(output_match.normalise("wrote /tmp/gh-docs-x/results/a.md", "/tmp/gh-docs-x"),
                         "wrote results/a.md")

    def test_shown_lines_must_appear_in_order(self):
        out = "a\nb   c\nd\n"
        self.assertEqual(output_match.missing_lines("a\nb c\n", out), [])
        self.assertEqual(output_match.missing_lines("a\n...\nd\n", out), [])
        self.assertEqual(output_match.missing_lines("x\n", out), ["x"])
        self.assertEqual(output_match.missing_lines("d\na\n", out), ["a   (it is there, but out of order)"])
        self.assertEqual(output_match.missing_lines("d\na\n", out, unordered=True), [])
        self.assertEqual(output_match.missing_lines("a\na\n", out, unordered=True), ["a"])

    def test_ellipsis_inside_a_line_is_any_text(self):
        out = "time_median_us slower by 10.1 % (99 % CI 9.8-10.4 %) than the baseline\n"
        self.assertEqual(output_match.missing_lines("time_median_us slower by ... than the baseline", out), [])
        self.assertEqual(output_match.missing_lines("... slower by ...", out), [])
        self.assertEqual(output_match.missing_lines("time_median_us faster by ...", out),
                         ["time_median_us faster by ..."])


class CheckFlagsTest(unittest.TestCase):
    def test_invocations_read_flags_not_quoted_text_or_other_commands(self):
        line = ("mpirun -np 2 build/bin/gpuharness sweep m.yaml --out=r --slurm \"-N 3 --ntasks-per-node=8\" "
                "[--filter GLOB] | grep --count x")
        self.assertEqual(list(check_flags.invocations(line)),
                         [(["sweep", "m.yaml", "--out=r", "--slurm", "''", "[--filter", "GLOB]"],
                           ["--out", "--slurm", "--filter"])])

    def test_messages_are_not_commands(self):
        self.assertEqual(list(check_flags.invocations("gpuharness sweep: unknown flag --ot")), [])

    def test_code_lines_join_continuations(self):
        text = "```sh\ngpuharness bisect m.yaml \\\n  --good a --bad b\n```\n`gpuharness run x --out y`\n"
        self.assertEqual(list(check_flags.code_lines(text)),
                         [(2, "gpuharness bisect m.yaml --good a --bad b", True),
                          (5, "gpuharness run x --out y", False)])

    def test_output_blocks_are_not_commands(self):
        text = "```text\nthe gpuharness binary the jobs run\n```\n"
        self.assertEqual(list(check_flags.code_lines(text)), [])


class FakeIndex:
    commands = {"sweep": "", "history": "", "help": ""}

    def subcommands(self, command):
        return ["flips"] if command == "history" else []

    def flags(self, path):
        return {("sweep",): {"--out"}, ("history", "flips"): {"--night", "--db"}, ("help",): {"--version"}}[path]


class CheckFlagsAgainstHelpTest(unittest.TestCase):
    def test_unknown_commands_and_flags_are_named_with_their_line(self):
        with tempfile.TemporaryDirectory() as d:
            root = pathlib.Path(d)
            (root / "docs").mkdir()
            (root / "README.md").write_text("`gpuharness sweep m --out r`\n")
            (root / "docs" / "a.md").write_text(page("""
                ```sh
                gpuharness sweep m.yaml --ot r
                gpuharness history flips --night 3 --db h
                gpuharness sweap m.yaml
                gpuharness --version
                gpuharness help CMD
                gpuharness trial-worker x
                ```
                In prose `gpuharness results <dir>` is a title, `gpuharness sweap --out x` a typo.
                """))
            problems = check_flags.check(root, FakeIndex())
        self.assertEqual(len(problems), 3, problems)
        self.assertIn("docs/a.md:2: `gpuharness sweep ... --ot`", problems[0])
        self.assertIn("docs/a.md:4: `gpuharness sweap`: no such command", problems[1])
        self.assertIn("docs/a.md:9: `gpuharness sweap`: no such command", problems[2])


class CheckLinksTest(unittest.TestCase):
    def test_missing_files_and_anchors_are_named(self):
        with tempfile.TemporaryDirectory() as d:
            root = pathlib.Path(d)
            (root / "docs").mkdir()
            (root / "docs" / "b.md").write_text("# B page\n## Resume\n")
            (root / "README.md").write_text(
                "[ok](docs/b.md#resume) [web](https://x.org) [gone](docs/c.md) [anchor](docs/b.md#resum)\n")
            problems, checked = check_links.check(root)
        self.assertEqual(checked, 3)
        self.assertEqual(problems, [
            "README.md:1: link 'docs/c.md': docs/c.md does not exist",
            "README.md:1: link 'docs/b.md#resum': b.md has no heading #resum (headings there: resume)"])


class CheckCodeDocPathsTest(unittest.TestCase):
    def test_a_page_the_code_names_must_exist(self):
        with tempfile.TemporaryDirectory() as tmp:
            root = pathlib.Path(tmp)
            (root / "docs/reference").mkdir(parents=True)
            (root / "docs/reference/bisect.md").write_text("# Bisect\n")
            (root / "harness/driver").mkdir(parents=True)
            (root / "harness/driver/a.h").write_text(
                "// docs/reference/bisect.md is the reference.\n// See docs/sweeps.md (\"Providers\").\n")
            (root / "scripts").mkdir()
            (root / "scripts/x.sh").write_text("# docs/hangs.md explains it\n")
            problems, checked = check_links.check_code(root)
        self.assertEqual(checked, 3)
        self.assertEqual(problems, [
            "harness/driver/a.h:2: names docs/sweeps.md, which does not exist",
            "scripts/x.sh:1: names docs/hangs.md, which does not exist"])


class CheckVocabularyTest(unittest.TestCase):
    def found(self, line):
        return [words for _, words, _ in check_vocabulary.find([(1, line)], "f")]

    def test_internal_phrases_are_found(self):
        for line, words in [
            ("since issue 17 item 5", "issue 17"), ("(seed 001)", "seed 001"), ("in the seeds' shape", "the seeds"),
            ("seed N's reporter", "seed N"), ("Five passes (one call)", "(one call)"), ("this session's build", "this session"),
            ("the lent `nvidia-h200` machine", "lent"), ("see FACTS.md", "FACTS.md"), ("The issue's claim", "The issue"),
            ("the device tool lent an H100", "device tool"), ("in the same call, three passes", "in the same call")]:
            with self.subTest(line=line):
                self.assertIn(words, self.found(line))

    def test_ordinary_words_pass(self):
        for line in ["`GH_FAULT_SEED=N` replays one seed", "seeded random moments", "a silent failure",
                     "in a new session and process group", "a call NCCL refuses", "each seed changes the data"]:
            with self.subTest(line=line):
                self.assertEqual(self.found(line), [])


class CheckSchemaTest(unittest.TestCase):
    def test_paths_and_coverage(self):
        record = {"point": "p", "params": {"bytes": 4}, "ranks": [{"rank": 0, "mismatch": {"actual": "1"}}],
                  "hang": {"summary": ["x"], "new": 1}}
        found = set(check_schema.paths(record))
        self.assertIn("ranks[].mismatch.actual", found)
        listed = {"point", "params", "ranks", "ranks[].rank", "ranks[].mismatch", "ranks[].mismatch.actual",
                  "hang", "hang.summary"}
        self.assertEqual(check_schema.undocumented(found, listed), {"hang.new"})


class RunPageTest(unittest.TestCase):
    def run_page_text(self, text):
        with tempfile.TemporaryDirectory() as d:
            root = pathlib.Path(d)
            (root / "source" / "docs").mkdir(parents=True)
            (root / "build" / "bin").mkdir(parents=True)
            tool = root / "build" / "bin" / "gpuharness"
            tool.write_text("#!/bin/sh\necho \"gpuharness $*\"\n")
            tool.chmod(0o755)
            p = root / "source" / "docs" / "t.md"
            p.write_text(page(text))
            log = []
            counts = run_page.run_page(p, root / "source", root / "build", log=log.append)
            return counts, log

    def test_blocks_share_directory_and_variables_and_outputs_are_compared(self):
        counts, _ = self.run_page_text("""
            <!-- docs-test: file conf/a.yaml -->
            ```yaml
            x: 1
            ```
            <!-- docs-test: run -->
            ```sh
            mkdir -p work && cd work && export WHO=reader
            ```
            <!-- docs-test: run exit=3 -->
            ```sh
            gpuharness sweep --out "$WHO" && cat ../conf/a.yaml && pwd | grep -q work$ && echo took 2.5s && exit 3
            ```
            <!-- docs-test: output -->
            ```text
            gpuharness sweep --out reader
            ...
            took 1.0s
            ```
            <!-- docs-test: gpu -->
            ```sh
            nvidia-smi
            ```
            """)
        self.assertEqual(counts, {"run": 2, "compared": 1, "not run": 1})

    def test_failures_name_the_line(self):
        cases = [
            ("<!-- docs-test: run -->\n```sh\necho hello\n```\n<!-- docs-test: output -->\n```\nhullo\n```\n",
             r"t.md:6: the output does not show these lines of the page:\n  hullo"),
            ("<!-- docs-test: run -->\n```sh\nfalse\necho not reached\n```\n", r"t.md:2: the block exited 1, the page expects 0"),
            ("```sh\necho unmarked\n```\n", r"t.md:1: a shell block without a docs-test marker"),
            ("<!-- docs-test: gpu -->\n```sh\nif then fi (\n```\n", r"t.md:2: bash -n"),
            ("<!-- docs-test: output -->\n```\nx\n```\n", r"t.md:2: an output block before any run block"),
        ]
        for text, message in cases:
            with self.subTest(text=text):
                with self.assertRaisesRegex(run_page.PageFailure, message):
                    self.run_page_text(text)


if __name__ == "__main__":
    unittest.main()
