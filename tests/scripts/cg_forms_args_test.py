#!/usr/bin/env python3
"""hooke-cg-forms: bad arguments are refused with one line naming them and exit code 2, before any
work; on a small volume standard PCG and Chronopoulos–Gear solve every step without a breakdown,
to the same Δv, and pipelined PCG in float breaks down in most steps, its true residual far above
theirs, with its vectors in double as well (docs/PERFORMANCE.md, "Session 27, no device"). (With its recurrences replaced every 10
iterations, where it breaks down depends on the rounding: not asserted.)

    cg_forms_args_test.py PATH/TO/hooke-cg-forms
"""
import re
import subprocess
import sys
import unittest

from refusal import assert_refused

EXE = None
FORMS = ("standard", "cg", "pipelined", "replaced", "restarted", "double")


class CgFormsArguments(unittest.TestCase):
    def test_bad_values(self):
        for args, words in [
            ([], "expects a scene, a resolution and a step count"),
            (["cloth", "8"], "expects a scene, a resolution and a step count"),
            (["cloth", "8", "3", "extra"], "expects a scene, a resolution and a step count"),
            (["sphere", "8", "3"], "the scene is cloth or volume"),
            (["cloth", "1", "3"], "RES is a whole number from 2 to 256"),
            (["volume", "257", "3"], "RES is a whole number from 2 to 256"),
            (["volume", "8x", "3"], "RES is a whole number from 2 to 256"),
            (["cloth", "8", "0"], "STEPS is a whole number from 1 to 1000"),
            (["cloth", "8", "1001"], "STEPS is a whole number from 1 to 1000"),
        ]:
            assert_refused(self, EXE, args, words)

    def test_the_forms_on_a_small_volume(self):
        p = subprocess.run([EXE, "volume", "16", "3"], capture_output=True, text=True, timeout=120)
        self.assertEqual(p.returncode, 0, p.stderr)
        out = p.stdout
        self.assertIn("volume 16: 1024 particles, 10620 springs; 3 implicit steps", out)
        cell = r" \| +(\d+)(!?) ([0-9.e+-]+)"
        rows = re.findall(r"^ +(\d+)" + cell * 6 + "$", out, re.M)
        self.assertEqual([int(r[0]) for r in rows], [0, 1, 2], out)
        for row in rows:
            for f in range(6):
                iterations, breakdown, residual = row[1 + 3 * f: 4 + 3 * f]
                self.assertTrue(1 <= int(iterations) <= 500, out)
                if f < 2:  # standard and Chronopoulos–Gear: no breakdown, a small true residual
                    self.assertEqual(breakdown, "", out)
                    self.assertLess(float(residual), 1e-3, out)
        totals = {}
        for form in FORMS:
            m = re.search(rf"(?m)^{form} +total (\d+), median [0-9.]+; worst \|b - A dv\| / \|b\| "
                          rf"([0-9.e+-]+); farthest from standard's dv ([0-9.e+-]+); breakdowns (\d+)$", out)
            self.assertIsNotNone(m, out)
            totals[form] = (int(m.group(1)), float(m.group(2)), float(m.group(3)), int(m.group(4)))
        self.assertEqual(totals["standard"][2], 0.0, out)
        self.assertLess(totals["cg"][2], 1e-3, out)  # the same Δv as standard's
        self.assertEqual(totals["standard"][3] + totals["cg"][3], 0, out)
        # pipelined CG breaks down there, in most steps, far from the solution; with its vectors in
        # double too (the float products alone break it)
        for form in ("pipelined", "double"):
            self.assertGreaterEqual(totals[form][3], 2, out)
            self.assertGreater(totals[form][1], 100 * totals["standard"][1], out)


if __name__ == "__main__":
    EXE = sys.argv.pop(1)
    unittest.main()
