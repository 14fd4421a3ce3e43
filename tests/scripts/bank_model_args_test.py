#!/usr/bin/env python3
"""hooke-bank-model: bad arguments are refused with one line naming them and exit code 2, before
any work; a small run prints the four placements' passes, item 51's under the default's, and the
rows whose every neighbour is in their own block.

    bank_model_args_test.py PATH/TO/hooke-bank-model
"""
import re
import subprocess
import sys
import unittest

from refusal import assert_refused

EXE = None


class BankModelArguments(unittest.TestCase):
    def test_bad_values(self):
        for args, words in [
            ([], "expects a scene and a resolution"),
            (["cloth"], "expects a scene and a resolution"),
            (["sphere", "8"], "the scene is cloth or volume"),
            (["cloth", "1"], "RES is a whole number from 2 to 512 for cloth"),
            (["cloth", "513"], "RES is a whole number from 2 to 512 for cloth"),
            (["volume", "129"], "RES is a whole number from 2 to 128 for volume"),
            (["volume", "8x"], "RES is a whole number from 2 to 128 for volume"),
            (["cloth", "8", "100"], "BLOCK is a multiple of 32 from 32 to 1024"),
            (["cloth", "8", "2048"], "BLOCK is a multiple of 32 from 32 to 1024"),
            (["cloth", "8", "128", "3"], "LANES is 1, 2, 4, 8, 16 or 32"),
            (["cloth", "8", "128", "64"], "LANES is 1, 2, 4, 8, 16 or 32"),
            (["cloth", "8", "128", "1", "extra"], "expects a scene and a resolution"),
        ]:
            assert_refused(self, EXE, args, words)

    def test_a_small_run(self):
        # volume 12 (432 particles) in 4 blocks of 128 on one lane: the numbers are the model's,
        # the same on every machine
        p = subprocess.run([EXE, "volume", "12", "128"], capture_output=True, text=True, timeout=120)
        self.assertEqual(p.returncode, 0, p.stderr)
        out = p.stdout
        self.assertIn("volume 12: 432 particles, 4136 springs; blocks of 128 threads, 1 to a row: 4 blocks", out)
        rows = re.findall(r"^\| (.+?) \| (\d+) \| (\d+) \| (\d+) \| (\d+) \| ([0-9.]+) \| (\d+) \|$", out, re.M)
        self.assertEqual(len(rows), 4, out)
        for _, words, springs, slots, walk, _, _ in rows:
            self.assertEqual(int(words) + int(springs) + int(slots), int(walk), out)
        default, placed = rows[2], rows[3]
        self.assertEqual(default[1:], ("82", "329", "559", "970", "2.099", "56"), out)
        self.assertEqual(placed[1:], ("82", "329", "444", "855", "1.668", "57"), out)
        self.assertRegex(out, r"(?m)^u' in the last row's entry order .*: at least 426$")
        self.assertIn("rows with every neighbour in their own block: 164 of 432 (38.0 %), 33.4 % of "
                      "the entries; warps of such rows alone: 0 of 14 (4 with them first in their "
                      "block)\n", out)

    def test_rows_inside_their_block_on_several_lanes(self):
        # 512 threads 4 to a row: the same 128-row blocks as above, so the same rows, in warps of 8
        # rows (54); and blocks of 256 rows, the second part-full (176 rows) and partly inside
        for args, line in [
            (["volume", "12", "512", "4"],
             "164 of 432 (38.0 %), 33.4 % of the entries; warps of such rows alone: 4 of 54 (18 with "
             "them first in their block)"),
            (["volume", "12", "256"],
             "308 of 432 (71.3 %), 68.6 % of the entries; warps of such rows alone: 2 of 14 (9 with "
             "them first in their block)"),
        ]:
            p = subprocess.run([EXE] + args, capture_output=True, text=True, timeout=120)
            self.assertEqual(p.returncode, 0, p.stderr)
            self.assertIn("rows with every neighbour in their own block: " + line + "\n", p.stdout)

    def test_one_block_holds_every_neighbour(self):
        # the whole volume in one block: every row's neighbours are its block's own rows, and
        # every warp (13 full and one of 16 rows) holds only such rows, in any order
        p = subprocess.run([EXE, "volume", "12", "512"], capture_output=True, text=True, timeout=120)
        self.assertEqual(p.returncode, 0, p.stderr)
        self.assertIn("rows with every neighbour in their own block: 432 of 432 (100.0 %), 100.0 % of "
                      "the entries; warps of such rows alone: 14 of 14 (14 with them first in their block)\n", p.stdout)

    def test_several_lanes_keep_the_spring_order(self):
        # item 47 runs on one lane only: three placements, none by direction
        p = subprocess.run([EXE, "volume", "16", "512", "4"], capture_output=True, text=True, timeout=120)
        self.assertEqual(p.returncode, 0, p.stderr)
        rows = re.findall(r"^\| (.+?) \| (\d+) \| (\d+) \| (\d+) \| (\d+) \| ([0-9.]+) \| (\d+) \|$", p.stdout, re.M)
        self.assertEqual(len(rows), 3, p.stdout)
        self.assertNotIn("by direction", p.stdout)
        self.assertLess(int(rows[2][3]), int(rows[1][3]), p.stdout)


if __name__ == "__main__":
    EXE = sys.argv.pop(1)
    unittest.main()
