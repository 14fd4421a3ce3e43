#!/usr/bin/env python3
"""scripts/perf_tables.py on a committed H200 result: the rows docs/PERFORMANCE.md quotes, and a
one-line error with exit code 2 for a missing file or one that is not a result."""
import contextlib
import io
import json
import os
import sys
import tempfile
import unittest

ROOT = os.path.abspath(os.path.join(os.path.dirname(__file__), "..", ".."))
sys.path.insert(0, os.path.join(ROOT, "scripts"))
import perf_tables  # noqa: E402

RESULT = os.path.join(ROOT, "bench", "results", "gpu-h200-2026-12-03-lane-sums.json")
START = os.path.join(ROOT, "bench", "results", "gpu-h200-2026-12-03-barrier.json")
RUNS = os.path.join(ROOT, "bench", "results", "gpu-h200-2026-12-04-offset-walk.json")
FOUR_BUILDS = os.path.join(ROOT, "bench", "results", "gpu-h200-2026-12-04-occupancy.json")
SHORT_RUN = os.path.join(ROOT, "bench", "results", "gpu-h200-2026-12-04-scalars-main.json")


def run(*args):
    out, err = io.StringIO(), io.StringIO()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
        code = perf_tables.main(list(args))
    return code, out.getvalue(), err.getvalue()


class PerfTables(unittest.TestCase):
    def test_step_rows(self):
        code, out, _ = run("step", RESULT)
        self.assertEqual(code, 0)
        lines = out.splitlines()
        self.assertEqual(len(lines), 2 + 12)  # header, rule, 6 cloth and 6 volume systems
        self.assertIn("| cloth | 32 | 1,024 | 5,826 | 36.05 [102.6] | 3.10 [20.9] | **0.46** [2.9] "
                      "(grid, 16) | 149 | 77.6× | 6.7× |", lines)
        self.assertTrue(any(l.startswith("| cloth | 1024 |") and "(launches, 1, tiles 32x8x1, joined 4)" in l
                            for l in lines))

    def test_fixed_against_a_start(self):
        code, out, _ = run("fixed", RESULT, "--start", START)
        self.assertEqual(code, 0)
        lines = out.splitlines()
        self.assertIn("| volume | 41 | 0.50 [4.6] | **0.51** [4.6] | 1.02 | 23.1× | 3.29 | 1.9 | 1.41× | – |",
                      lines)
        self.assertIn("| cloth | 256 | 0.70 [6.6] | **0.67** [6.2] | 0.96 | 21.5× | 3.29 | 5.1 | 1.89× | 1.22× |",
                      lines)
        self.assertTrue(any(l.startswith("| cloth | 1024 |") and l.endswith("| – | 1.21× |") for l in lines))

    def test_fixed_rows_skipped_for_time(self):
        # a main run whose --budget ran out before volume 162's fixed rows: that system's row says
        # so, the others are there
        code, out, _ = run("fixed", SHORT_RUN)
        self.assertEqual(code, 0)
        lines = out.splitlines()
        self.assertEqual(len(lines), 2 + 12)
        self.assertIn("| volume | 162 | – | – | – | – | – | skipped for time |", lines)
        self.assertIn("| cloth | 256 | **0.47** [4.3] | 32.0× | 3.29 | 5.1 | 1.29× | 0.84× |", lines)

    def test_ablation_rows(self):
        code, out, _ = run("ablation", RESULT)
        self.assertEqual(code, 0)
        lines = out.splitlines()
        self.assertEqual(lines[0], "| item off | cloth 32 | cloth 128 | cloth 1024 | volume 16 | volume 64 |")
        self.assertIn("| 35 lane k of a row forms its sum k for the block's sums (off: the first lane) "
                      "| 1.01 | 1.03 | n/a | 0.94 | n/a |", lines)
        self.assertTrue(any(l.startswith("| 2 ") and l.endswith("| 2.27 (120.5 it) |") for l in lines))

    def test_ablation_of_an_ablation_only_run(self):
        # hooke-bench-gpu --ablation-only writes no rows: the iterations that moved are read
        # against each entry's own base run (fastest_cg_iterations)
        entry = {"scene": "volume", "res": 64, "name": "rows by direction", "applies": True,
                 "fastest_cg_iterations": 104.5}
        data = {"rows": [], "ablation": [
            dict(entry, disabled="47", slowdown=1.114, cg_iterations=110),
            dict(entry, disabled="46", slowdown=1.2, cg_iterations=104.5),
            dict(entry, disabled="45", applies=False, slowdown=1.0, cg_iterations=104.5)]}
        with tempfile.TemporaryDirectory() as d:
            path = os.path.join(d, "ablation.json")
            with open(path, "w") as f:
                json.dump(data, f)
            code, out, _ = run("ablation", path)
        self.assertEqual(code, 0)
        self.assertEqual(out.splitlines()[2:], ["| 47 rows by direction | 1.11 (110 it) |",
                                                "| 46 rows by direction | 1.20 |",
                                                "| 45 rows by direction | n/a |"])

    def test_paths(self):
        code, out, _ = run("paths", RESULT, "grid", "grid-sums-in-first-lane")
        self.assertEqual(code, 0)
        self.assertIn("| volume 41 | 4.621 | 4.721 |", out.splitlines())

    def test_repeats(self):
        code, out, _ = run("repeats", RUNS)
        self.assertEqual(code, 0)
        lines = out.splitlines()
        self.assertEqual(len(lines), 2 + 7)  # header, rule, 4 cloth and 3 volume systems
        self.assertEqual(lines[0], "| system | particles | 4ed1807 default | 4ed1807 launches-batch-3 "
                                   "| f016ea8 default | f016ea8 launches-apply-block-224 "
                                   "| f016ea8 launches-batch-4 | spread |")
        # medians of three processes each, as docs/PERFORMANCE.md's "Item 40" quotes them
        self.assertIn("| cloth 512 | 262,144 | 25.88 | 26.85 | 25.23 | 26.43 | 25.67 | 1.8 % |", lines)
        self.assertIn("| volume 162 | 1,062,882 | 140.67 | 142.35 | 132.66 | 136.15 | 143.29 | 0.8 % |", lines)

    def test_repeats_of_four_builds(self):
        # the builds in the order their runs come, each build's default before its path, as
        # docs/PERFORMANCE.md's "Item 40 again" quotes them (7048b59-min6: the 40-register build)
        code, out, _ = run("repeats", FOUR_BUILDS)
        self.assertEqual(code, 0)
        lines = out.splitlines()
        self.assertEqual(len(lines), 2 + 4)
        self.assertTrue(lines[0].startswith("| system | particles | f016ea8 default | f016ea8 launches-batch-3 "
                                            "| 7048b59 default | 7048b59 launches-carveout-default "
                                            "| f52181f default |"))
        self.assertIn("| volume 102 | 265,302 | 43.55 | 43.76 | 42.83 | 41.88 | 49.67 | 49.45 | 47.35 | 47.62 "
                      "| 1.2 % |", lines)

    def test_bad_input_exits_2_with_one_line(self):
        code, out, err = run("step", os.path.join(ROOT, "no-such-result.json"))
        self.assertEqual((code, out), (2, ""))
        self.assertEqual(len(err.strip().splitlines()), 1)
        self.assertIn("cannot read", err)
        with tempfile.TemporaryDirectory() as d:
            broken, other = os.path.join(d, "broken.json"), os.path.join(d, "other.json")
            with open(broken, "w") as f:
                f.write("{\"rows\": [")
            with open(other, "w") as f:
                json.dump({"runs": []}, f)
            for path, words in ((broken, "is not JSON"), (other, "is not a hooke-bench-gpu result")):
                code, out, err = run("ablation", path)
                self.assertEqual((code, out), (2, ""))
                self.assertIn(words, err)
                self.assertEqual(len(err.strip().splitlines()), 1)
            code, _, err = run("fixed", RESULT, "--start", other)
            self.assertEqual(code, 2)
            empty = os.path.join(d, "empty.json")
            with open(empty, "w") as f:
                json.dump({"runs": [{"rows": [], "paths": []}]}, f)
            for path, words in ((RESULT, "is not a file of repeated runs"), (other, "is not a file of repeated runs"),
                                (broken, "is not JSON"), (empty, "no fixed-count rows")):
                code, out, err = run("repeats", path)
                self.assertEqual((code, out), (2, ""))
                self.assertIn(words, err)
                self.assertEqual(len(err.strip().splitlines()), 1)


if __name__ == "__main__":
    unittest.main()
