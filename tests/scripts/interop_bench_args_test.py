#!/usr/bin/env python3
"""hooke-interop-bench's arguments: a bad resolution list or frame count is refused with one line
naming it and exit code 2, before any device or GL context is touched.

    interop_bench_args_test.py PATH/TO/hooke-interop-bench
"""
import subprocess
import sys
import unittest

from refusal import assert_refused

EXE = None


class InteropBenchArguments(unittest.TestCase):
    def test_bad_values(self):
        for args, words in [
            (["--res", "128,abc"], "--res takes cloth resolutions from 2 to 2048, comma-separated, not '128,abc'"),
            (["--res", "1"], "not '1'"),
            (["--res", "4096"], "not '4096'"),
            (["--res", "128,,256"], "not '128,,256'"),
            (["--res", ""], "--res needs at least one resolution"),
            (["--frames", "0"], "--frames takes a count from 1 to 1000000, not '0'"),
            (["--frames", "12x"], "not '12x'"),
            (["--cpu-frames", "-5"], "--cpu-frames takes a count from 1 to 1000000, not '-5'"),
        ]:
            assert_refused(self, EXE, args, words)

    def test_unknown_argument_prints_the_usage(self):
        p = subprocess.run([EXE, "--bogus"], capture_output=True, text=True, timeout=60)
        self.assertEqual(p.returncode, 2)
        self.assertTrue(p.stderr.startswith("usage: hooke-interop-bench"), p.stderr)


if __name__ == "__main__":
    EXE = sys.argv.pop(1)
    unittest.main()
