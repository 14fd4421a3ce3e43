#!/usr/bin/env python3
"""scripts/device-ab.sh with stand-in hooke-bench-gpu builds (no device): each repeat runs every
system under every build in turn, the results merged in run order into what `perf_tables.py
repeats` reads, a gzipped build unpacked, a failing process reported and left out (exit 1), and
bad arguments refused with one line and exit code 2 before anything runs."""
import gzip
import json
import os
import shutil
import stat
import subprocess
import sys
import tempfile
import unittest

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.abspath(os.path.join(HERE, "..", ".."))
SCRIPT = os.path.join(ROOT, "scripts", "device-ab.sh")
sys.path.insert(0, HERE)
sys.path.insert(0, os.path.join(ROOT, "scripts"))
import perf_tables  # noqa: E402
from refusal import assert_refused  # noqa: E402

# a stand-in for hooke-bench-gpu: one fixed-count row for the --scene it is given, µs per
# iteration from the build's label (a: 4.0, b: 3.0), its arguments logged; label "bad" fails
FAKE = """#!/usr/bin/env python3
import json, sys
args = sys.argv[1:]
value = lambda k: args[args.index(k) + 1]
with open(sys.argv[0] + ".calls", "a") as f:
    f.write(" ".join(args) + "\\n")
label = value("--commit")
if label == "bad":
    print("hooke-bench-gpu: no device", file=sys.stderr)
    sys.exit(2)
scene, res = value("--scene").split(":")
row = {"scene": scene, "res": int(res), "particles": 1000, "variant": "fastest", "mode": "fixed",
       "iteration_us": {"a": 4.0, "b": 3.0}.get(label, 5.0)}
with open(value("--json"), "w") as f:
    json.dump({"commit": label, "rows": [row], "paths": []}, f)
"""


def read(path):
    with open(path) as f:
        return f.read()


class DeviceAb(unittest.TestCase):
    def setUp(self):
        self.dir = tempfile.mkdtemp()
        self.fake = os.path.join(self.dir, "bench")
        with open(self.fake, "w") as f:
            f.write(FAKE)
        os.chmod(self.fake, os.stat(self.fake).st_mode | stat.S_IXUSR)

    def tearDown(self):
        shutil.rmtree(self.dir)

    def run_ab(self, *args, env=None):
        return subprocess.run(["bash", SCRIPT, *args], capture_output=True, text=True, timeout=120,
                              env=dict(os.environ, **(env or {})))

    def test_alternates_and_merges(self):
        zipped = os.path.join(self.dir, "other.gz")
        with open(self.fake, "rb") as src, gzip.open(zipped, "wb") as dst:
            dst.write(src.read())
        out = os.path.join(self.dir, "ab.json")
        p = self.run_ab(out, "2", "cloth:256 volume:64", "grid-halo-coloured",
                        f"a={self.fake}", f"b={zipped}", env={"AB_BUDGET": "7"})
        self.assertEqual(p.returncode, 0, p.stderr)
        runs = json.loads(read(out))["runs"]
        # the builds' order reversed on the second repeat
        self.assertEqual([(r["commit"], r["rows"][0]["scene"]) for r in runs],
                         [("a", "cloth"), ("b", "cloth"), ("a", "volume"), ("b", "volume"),
                          ("b", "cloth"), ("a", "cloth"), ("b", "volume"), ("a", "volume")])
        calls = read(self.fake + ".calls").splitlines()  # the gzipped copy logs elsewhere
        self.assertEqual(len(calls), 4)
        self.assertTrue(all("--paths grid-halo-coloured" in c and "--budget 7" in c for c in calls))
        table = perf_tables.repeats_table(runs)
        self.assertIn("| cloth 256 | 1,000 | 4.00 | 3.00 | 0.0 % |", table)

    def test_a_failing_build_is_reported_and_left_out(self):
        out = os.path.join(self.dir, "ab.json")
        p = self.run_ab(out, "1", "cloth:32", "-", f"a={self.fake}", f"bad={self.fake}")
        self.assertEqual(p.returncode, 1, p.stderr)
        self.assertIn("device-ab.sh: bad cloth:32 (repeat 1) failed: hooke-bench-gpu: no device", p.stderr)
        runs = json.loads(read(out))["runs"]
        self.assertEqual([r["commit"] for r in runs], ["a"])
        self.assertNotIn("--paths", read(self.fake + ".calls"))

    def test_an_unreadable_result_is_reported_and_the_rest_kept(self):
        # a build that exits 0 with a broken result file
        broken = os.path.join(self.dir, "broken")
        with open(broken, "w") as f:
            f.write("#!/bin/sh\nwhile [ $# -gt 0 ]; do [ \"$1\" = --json ] && echo '{' > \"$2\"; shift; done\n")
        os.chmod(broken, 0o755)
        out = os.path.join(self.dir, "ab.json")
        p = self.run_ab(out, "1", "cloth:32", "-", f"a={self.fake}", f"z={broken}")
        self.assertEqual(p.returncode, 1, p.stderr)
        self.assertIn("is not a readable result", p.stderr)
        self.assertEqual([r["commit"] for r in json.loads(read(out))["runs"]], ["a"])
        self.assertFalse(os.path.exists(out + ".tmp"))

    def test_a_bare_name_is_found_where_it_is(self):
        out = os.path.join(self.dir, "ab.json")
        p = subprocess.run(["bash", SCRIPT, out, "1", "cloth:32", "-", "a=bench"], cwd=self.dir,
                           capture_output=True, text=True, timeout=120)
        self.assertEqual(p.returncode, 0, p.stderr)
        self.assertEqual(len(json.loads(read(out))["runs"]), 1)

    def test_bad_arguments(self):
        out = os.path.join(self.dir, "ab.json")
        fake = f"a={self.fake}"
        for args, words in [
            ([out, "2", "cloth:32", "-"], "expects an output, a repeat count"),
            ([out, "0", "cloth:32", "-", fake], "REPEATS is a whole number from 1 to 99, not '0'"),
            ([out, "2", "torus:32", "-", fake], "a system is cloth:RES or volume:RES, not 'torus:32'"),
            ([out, "2", " ", "-", fake], "no system given"),
            ([out, "2", "cloth:32", "a b", fake], "PATHS is a --paths list or -"),
            (["ab.txt", "2", "cloth:32", "-", fake], "the output is a .json file"),
            ([out, "2", "cloth:32", "-", "a-1=" + self.fake], "a build is LABEL=BINARY"),
            ([out, "2", "cloth:32", "-", self.fake], "a build is LABEL=BINARY"),
            ([out, "2", "cloth:32", "-", fake, fake], "the label 'a' is given twice"),
            ([out, "2", "cloth:32", "-", "a=/no/such/bench"], "no file '/no/such/bench' for build 'a'"),
            (["/no/such/dir/ab.json", "2", "cloth:32", "-", fake], "cannot write '/no/such/dir/ab.json.tmp'"),
        ]:
            assert_refused(self, "bash", [SCRIPT, *args], words)
        self.assertFalse(os.path.exists(out))
        self.assertFalse(os.path.exists(self.fake + ".calls"))


if __name__ == "__main__":
    unittest.main()
