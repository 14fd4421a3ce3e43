#!/usr/bin/env python3
"""hooke-cg-rounding: bad arguments are refused with one line naming them and exit code 2, before
any work; a small run prints every trajectory's iterations and each form's range.

    cg_rounding_args_test.py PATH/TO/hooke-cg-rounding
"""
import re
import subprocess
import sys
import unittest

from refusal import assert_refused

EXE = None


class CgRoundingArguments(unittest.TestCase):
    def test_bad_values(self):
        for args, words in [
            ([], "expects a scene, a resolution and a step count"),
            (["cloth", "8"], "expects a scene, a resolution and a step count"),
            (["sphere", "8", "3"], "the scene is cloth or volume"),
            (["cloth", "1", "3"], "RES is a whole number from 2 to 256"),
            (["volume", "8x", "3"], "RES is a whole number from 2 to 256"),
            (["cloth", "8", "0"], "STEPS is a whole number from 1 to 1000"),
            (["cloth", "8", "3", "3"], "FROM is a step from 0 to STEPS - 1"),
            (["cloth", "8", "3", "0", "17"], "NUDGES is a whole number from 0 to 16"),
            (["cloth", "8", "3", "0", "1", "extra"], "expects a scene, a resolution and a step count"),
        ]:
            assert_refused(self, EXE, args, words)

    def test_a_small_run(self):
        # cloth 6, 3 steps, 2 nudges: 3 trajectories of each form, every step a solve of 1 to 500
        p = subprocess.run([EXE, "cloth", "6", "3", "1", "2"], capture_output=True, text=True,
                           timeout=120)
        self.assertEqual(p.returncode, 0, p.stderr)
        out = p.stdout
        self.assertEqual(len(re.findall(r"^nudge \d: particle \d+ moved [0-9.e+-]+ m$", out, re.M)), 2, out)
        rows = re.findall(r"^ +(\d+)((?: +\d+){6})$", out, re.M)
        self.assertEqual([int(r[0]) for r in rows], [0, 1, 2], out)
        for _, counts in rows:
            self.assertTrue(all(1 <= int(c) <= 500 for c in counts.split()), out)
        for form in ("exact", "float"):
            self.assertRegex(out, rf"(?m)^{form} terms over 3 trajectories: totals \d+ to \d+ \(mean \d+\)")


if __name__ == "__main__":
    EXE = sys.argv.pop(1)
    unittest.main()
