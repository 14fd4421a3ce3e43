#!/usr/bin/env python3
"""Markdown tables for docs/PERFORMANCE.md from a hooke-bench-gpu result file.

    scripts/perf_tables.py step RESULT.json                  whole step to tolerance, per system
    scripts/perf_tables.py fixed RESULT.json [--start OLD]   fixed 100 iterations against the floors
    scripts/perf_tables.py ablation RESULT.json              slowdown per item turned off
    scripts/perf_tables.py paths RESULT.json PATH [PATH...]  µs per iteration of forced paths (fixed)
    scripts/perf_tables.py repeats RUNS.json                 medians of repeated --paths runs

Prints the rows (header included) to stdout. A file that is missing, is not a hooke-bench-gpu
result or lacks what a table needs gets a one-line error and exit code 2.
"""
import argparse
import json
import signal
import sys

SCENES = ("cloth", "volume")
# the goals' ranges: µs per iteration against the latency floor up to res 256 (65,536 particles),
# against the bandwidth floor from res 256 on
LATENCY_MAX_PARTICLES = 70000
BANDWIDTH_MIN_PARTICLES = 60000


class BadInput(Exception):
    pass


def read_json(path):
    try:
        with open(path, encoding="utf-8") as f:
            return json.load(f)
    except OSError as e:
        raise BadInput(f"cannot read {path}: {e.strerror}")
    except json.JSONDecodeError as e:
        raise BadInput(f"{path} is not JSON: {e.msg} at line {e.lineno}")


def load(path):
    data = read_json(path)
    if not isinstance(data, dict) or not isinstance(data.get("rows"), list):
        raise BadInput(f"{path} is not a hooke-bench-gpu result (no 'rows')")
    return data


def row(data, scene, res, variant, mode):
    for r in data["rows"]:
        if (r.get("scene"), r.get("res"), r.get("variant"), r.get("mode")) == (scene, res, variant, mode):
            return r
    return None


def systems(data):
    found = {(r.get("scene"), r.get("res")) for r in data["rows"] if r.get("variant") == "fastest"}
    return [(s, res) for s in SCENES for res in sorted(r for sc, r in found if sc == s)]


def need(r, what, scene, res):
    if r is None:
        raise BadInput(f"no {what} row for {scene} {res}")
    for key in ("step_ms", "iteration_us", "cg_iterations"):
        if not isinstance(r.get(key), (int, float)):
            raise BadInput(f"the {what} row for {scene} {res} has no number '{key}'")
    return r


def describe(r):
    parts = [str(r.get("path", "?")), str(r.get("lanes", "?"))]
    tile = r.get("tile")
    if r.get("path") == "launches" and isinstance(tile, list) and tile and tile[0]:
        parts.append("tiles " + "x".join(str(t) for t in tile))
        parts.append(f"joined {r.get('direction_held', 0)}")
    return ", ".join(parts)


def count(x):
    return f"{x:g}"


def step_table(data):
    out = ["| scene | res | particles | springs | textbook | original (1–9) | **fastest** (path, lanes) "
           "| CG its | textbook / fastest | original / fastest |",
           "|---|---|---|---|---|---|---|---|---|---|"]
    for scene, res in systems(data):
        f = need(row(data, scene, res, "fastest", "tolerance"), "fastest tolerance", scene, res)
        t = need(row(data, scene, res, "textbook", "tolerance"), "textbook tolerance", scene, res)
        o = need(row(data, scene, res, "original", "tolerance"), "original tolerance", scene, res)
        out.append(
            f"| {scene} | {res} | {f.get('particles', 0):,} | {f.get('springs', 0):,} "
            f"| {t['step_ms']:.2f} [{t['iteration_us']:.1f}] | {o['step_ms']:.2f} [{o['iteration_us']:.1f}] "
            f"| **{f['step_ms']:.2f}** [{f['iteration_us']:.1f}] ({describe(f)}) | {count(f['cg_iterations'])} "
            f"| {t['step_ms'] / f['step_ms']:.1f}× | {o['step_ms'] / f['step_ms']:.1f}× |")
    return out


def fixed_table(data, start):
    floors = data.get("floors") or {}
    latency = floors.get("latency_graph_us")
    if not isinstance(latency, (int, float)) or latency <= 0:
        raise BadInput("no latency floor ('floors'.'latency_graph_us')")
    head = "| scene | res |" + (" start |" if start else "") + (
        " **now** |" + (" now / start |" if start else "") +
        " textbook / now | latency floor | bandwidth floor | now / latency | now / bandwidth |")
    columns = head.count("|") - 1
    out = [head, "|" + "---|" * columns]
    for scene, res in systems(data):
        if row(data, scene, res, "fastest", "fixed") is None and data.get("skipped_for_time"):
            # a run that ran out of its --budget: the system's fixed rows were not measured
            out.append(f"| {scene} | {res} | " + " | ".join(["–"] * (columns - 3))
                       + " | skipped for time |")
            continue
        f = need(row(data, scene, res, "fastest", "fixed"), "fastest fixed", scene, res)
        t = need(row(data, scene, res, "textbook", "fixed"), "textbook fixed", scene, res)
        bw = need(row(data, scene, res, "floor_bandwidth", "tolerance"), "bandwidth floor", scene, res)
        cells = [scene, str(res)]
        if start:
            s = need(row(start, scene, res, "fastest", "fixed"), "start's fastest fixed", scene, res)
            cells.append(f"{s['step_ms']:.2f} [{s['iteration_us']:.1f}]")
        cells.append(f"**{f['step_ms']:.2f}** [{f['iteration_us']:.1f}]")
        if start:
            cells.append(f"{f['step_ms'] / s['step_ms']:.2f}")
        floor_bw, particles = bw["iteration_us"], f.get("particles", 0)
        cells += [f"{t['step_ms'] / f['step_ms']:.1f}×", f"{latency:.2f}", f"{floor_bw:.1f}",
                  f"{f['iteration_us'] / latency:.2f}×" if particles <= LATENCY_MAX_PARTICLES else "–",
                  f"{f['iteration_us'] / floor_bw:.2f}×"
                  if particles >= BANDWIDTH_MIN_PARTICLES and floor_bw > 0 else "–"]
        out.append("| " + " | ".join(cells) + " |")
    return out


def ablation_table(data):
    entries = data.get("ablation")
    if not isinstance(entries, list) or not entries:
        raise BadInput("no 'ablation' entries")
    columns = sorted({(a.get("scene"), a.get("res")) for a in entries},
                     key=lambda c: (SCENES.index(c[0]) if c[0] in SCENES else 9, c[1] or 0))
    # the ablation's own base run where the file has it (an --ablation-only run has no rows)
    base = {c: (row(data, c[0], c[1], "fastest", "tolerance") or {}).get("cg_iterations")
            for c in columns}
    for a in entries:
        its = a.get("fastest_cg_iterations")
        if isinstance(its, (int, float)):
            base[(a.get("scene"), a.get("res"))] = its
    items, names, by_item = [], {}, {}
    for a in entries:
        key = str(a.get("disabled"))
        if key not in by_item:
            items.append(key)
            by_item[key] = {}
        names[key] = a.get("name", "")
        by_item[key][(a.get("scene"), a.get("res"))] = a
    out = ["| item off | " + " | ".join(f"{s} {r}" for s, r in columns) + " |",
           "|---|" + "---|" * len(columns)]
    for key in items:
        cells = []
        for c in columns:
            a = by_item[key].get(c)
            slowdown = a.get("slowdown") if a else None
            if not a or not a.get("applies", True) or not isinstance(slowdown, (int, float)):
                cells.append("n/a")
                continue
            cell = f"{slowdown:.2f}"
            its = a.get("cg_iterations")
            if isinstance(its, (int, float)) and isinstance(base[c], (int, float)) and abs(its - base[c]) > 0.01:
                cell += f" ({count(its)} it)"
            cells.append(cell)
        out.append(f"| {key} {names[key]} | " + " | ".join(cells) + " |")
    return out


def paths_table(data, wanted):
    paths = data.get("paths")
    if not isinstance(paths, list):
        raise BadInput("no 'paths' entries")
    found = {}
    for p in paths:
        if p.get("mode") == "fixed" and p.get("path") in wanted and isinstance(p.get("iteration_us"), (int, float)):
            found[(p.get("scene"), p.get("res"), p["path"])] = p["iteration_us"]
    if not found:
        raise BadInput("none of the paths " + ", ".join(wanted) + " in fixed mode")
    out = ["| system | " + " | ".join(wanted) + " |", "|---|" + "---|" * len(wanted)]
    for scene, res in systems(data):
        cells = [f"{found[(scene, res, w)]:.3f}" if (scene, res, w) in found else "–" for w in wanted]
        if any(c != "–" for c in cells):
            out.append(f"| {scene} {res} | " + " | ".join(cells) + " |")
    return out


def load_runs(path):
    """A merged file of repeated `--scene … --paths` runs: {"runs": [result, ...]}, each result
    with its own 'commit' (the build it measured)."""
    data = read_json(path)
    runs = data.get("runs") if isinstance(data, dict) else None
    if not isinstance(runs, list) or not runs or not all(isinstance(r, dict) for r in runs):
        raise BadInput(f"{path} is not a file of repeated runs (no 'runs')")
    return runs


def median(values):
    v = sorted(values)
    n = len(v)
    return v[n // 2] if n % 2 else (v[n // 2 - 1] + v[n // 2]) / 2


def repeats_table(runs):
    """Per system, the median µs per iteration (fixed) of every build's default ('fastest') and
    of each path it ran, columns in the order they first appear; and the widest spread
    (max − min) / median of any one configuration over its repeats."""
    samples, columns, names = {}, [], {}
    for run in runs:
        build = str(run.get("commit", "?"))
        entries = [(r, "default") for r in run.get("rows", []) if r.get("variant") == "fastest"]
        entries += [(p, p.get("path")) for p in run.get("paths", [])]
        for r, label in entries:
            if r.get("mode") != "fixed" or not isinstance(r.get("iteration_us"), (int, float)):
                continue
            column, system = (build, label), (r.get("scene"), r.get("res"))
            if column not in columns:
                columns.append(column)
            names[system] = r.get("particles")
            samples.setdefault((system, column), []).append(r["iteration_us"])
    if not samples:
        raise BadInput("no fixed-count rows in the runs")
    out = ["| system | particles | " + " | ".join(f"{b} {l}" for b, l in columns) + " | spread |",
           "|---|---|" + "---|" * (len(columns) + 1)]
    order = [(s, res) for s in SCENES for res in sorted({r for sc, r in names if sc == s})]
    for system in order:
        cells, spread = [], 0.0
        for column in columns:
            v = samples.get((system, column))
            if not v:
                cells.append("–")
                continue
            m = median(v)
            cells.append(f"{m:.2f}")
            spread = max(spread, (max(v) - min(v)) / m * 100 if m > 0 else 0.0)
        particles = names[system]
        out.append(f"| {system[0]} {system[1]} | " + (f"{particles:,}" if isinstance(particles, int) else "?")
                   + " | " + " | ".join(cells) + f" | {spread:.1f} % |")
    return out


def main(argv):
    signal.signal(signal.SIGPIPE, signal.SIG_DFL)  # piped into head: stop quietly
    parser = argparse.ArgumentParser(description="docs/PERFORMANCE.md tables from a hooke-bench-gpu result")
    sub = parser.add_subparsers(dest="table", required=True)
    sub.add_parser("step").add_argument("result")
    fixed = sub.add_parser("fixed")
    fixed.add_argument("result")
    fixed.add_argument("--start", help="an earlier result for the start column")
    sub.add_parser("ablation").add_argument("result")
    paths = sub.add_parser("paths")
    paths.add_argument("result")
    paths.add_argument("path", nargs="+")
    sub.add_parser("repeats").add_argument("result")
    args = parser.parse_args(argv)
    try:
        if args.table == "repeats":
            print("\n".join(repeats_table(load_runs(args.result))))
            return 0
        data = load(args.result)
        if args.table == "step":
            lines = step_table(data)
        elif args.table == "fixed":
            lines = fixed_table(data, load(args.start) if args.start else None)
        elif args.table == "ablation":
            lines = ablation_table(data)
        else:
            lines = paths_table(data, args.path)
    except BadInput as e:
        print(f"perf_tables: {e}", file=sys.stderr)
        return 2
    print("\n".join(lines))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
