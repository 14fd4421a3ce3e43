#!/usr/bin/env python3
"""hooke-bench-gpu's arguments: each bad value is refused with one line naming it and exit code 2,
before any device is touched (so the same on a machine with or without a GPU); --help exits 0.

    bench_gpu_args_test.py PATH/TO/hooke-bench-gpu
"""
import subprocess
import sys
import unittest

from refusal import assert_refused

EXE = None


def run(*args):
    p = subprocess.run([EXE, *args], capture_output=True, text=True, timeout=60)
    return p.returncode, p.stdout, p.stderr


class BenchGpuArguments(unittest.TestCase):
    def refused(self, args, words):
        err = assert_refused(self, EXE, args, words)
        self.assertNotIn("driver", err, args)

    def test_bad_values(self):
        for args, words in [
            (["--scene", "cloth:32abc"], "'cloth:32abc'"),
            (["--scene", "cloth:"], "'cloth:'"),
            (["--scene", "cloth"], "'cloth'"),
            (["--scene", "torus:32"], "'torus:32'"),
            (["--scene", "volume:1"], "'volume:1'"),
            (["--scene", "cloth:4096"], "'cloth:4096'"),
            (["--budget", "-3"], "--budget takes seconds above 0, not '-3'"),
            (["--budget", "0"], "not '0'"),
            (["--budget", "abc"], "not 'abc'"),
            (["--budget", "1e999"], "not '1e999'"),
            (["--max-res", "x"], "--max-res takes a resolution from 2 to 2048, not 'x'"),
            (["--max-res", "64k"], "not '64k'"),
            (["--max-res", "1"], "not '1'"),
            (["--min-res", "-1"], "--min-res takes a resolution from 0 to 2048, not '-1'"),
            (["--min-res", "99999999999"], "not '99999999999'"),
            (["--min-res", "512", "--max-res", "256"], "--min-res 512 is above --max-res 256"),
            (["--json"], "--json needs a value"),
            (["--ablation-only", "--scene", "cloth:32"], "--ablation-only takes no"),
            (["--ablation-only", "--no-ablation"], "--ablation-only takes no"),
            (["--ablation-only", "--tiles-only"], "--ablation-only takes no"),
        ]:
            self.refused(args, words)

    def test_unknown_argument(self):
        code, out, err = run("--bogus")
        self.assertEqual((code, out), (2, ""))
        self.assertTrue(err.startswith("hooke-bench-gpu: unknown argument '--bogus'"), err)

    def test_help(self):
        code, out, _ = run("--help")
        self.assertEqual(code, 0)
        self.assertTrue(out.startswith("usage: hooke-bench-gpu"), out)


if __name__ == "__main__":
    EXE = sys.argv.pop(1)
    unittest.main()
