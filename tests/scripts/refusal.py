"""The check every executable's argument test makes: the arguments are refused with exit code 2,
nothing on stdout and one line on stderr that contains `words`. Returns stderr."""
import subprocess


def assert_refused(test, exe, args, words, timeout=60):
    p = subprocess.run([exe, *args], capture_output=True, text=True, timeout=timeout)
    test.assertEqual(p.returncode, 2, f"{args}: {p.stderr}")
    test.assertEqual(p.stdout, "", args)
    test.assertEqual(len(p.stderr.strip().splitlines()), 1, f"{args}: {p.stderr}")
    test.assertIn(words, p.stderr, args)
    return p.stderr
