#!/usr/bin/env python3
"""Writes a closed torus surface as an OFF file, the input TetGen turns into assets/torus.node/.ele.

The torus stands upright: its axis is z, so the ring lies in the xy plane and hangs from its top
once the top is pinned. Triangles are wound counter-clockwise seen from outside. Output is
deterministic (fixed-point coordinates), so the asset can be rebuilt bit for bit; see
assets/README.md for the exact commands.
"""

import argparse
import math
import sys


def torus(major, minor, segments, sides, centre):
    """Vertices and outward-wound triangles of a torus around the z axis."""
    cx, cy, cz = centre
    vertices = []
    for i in range(segments):
        u = 2.0 * math.pi * i / segments
        for j in range(sides):
            v = 2.0 * math.pi * j / sides
            ring = major + minor * math.cos(v)
            vertices.append((cx + ring * math.cos(u), cy + ring * math.sin(u), cz + minor * math.sin(v)))

    def vid(i, j):
        return (i % segments) * sides + (j % sides)

    # each quad (i, j)-(i+1, j)-(i+1, j+1)-(i, j+1) is counter-clockwise seen from outside
    triangles = []
    for i in range(segments):
        for j in range(sides):
            a, b, c, d = vid(i, j), vid(i + 1, j), vid(i + 1, j + 1), vid(i, j + 1)
            triangles.append((a, b, c))
            triangles.append((a, c, d))
    return vertices, triangles


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("output", help="OFF file to write")
    parser.add_argument("--major", type=float, default=0.5, help="major radius, m (default 0.5)")
    parser.add_argument("--minor", type=float, default=0.2, help="minor radius, m (default 0.2)")
    parser.add_argument("--segments", type=int, default=32, help="steps around the ring (default 32)")
    parser.add_argument("--sides", type=int, default=12, help="steps around the tube (default 12)")
    parser.add_argument("--centre-y", type=float, default=1.3,
                        help="height of the ring's centre, m (default 1.3: the top sits at y = 2)")
    args = parser.parse_args()
    if not (0 < args.minor < args.major) or args.segments < 3 or args.sides < 3:
        sys.exit("make_torus_off: need 0 < minor < major, segments >= 3 and sides >= 3")

    vertices, triangles = torus(args.major, args.minor, args.segments, args.sides,
                                (0.0, args.centre_y, 0.0))
    with open(args.output, "w", encoding="ascii", newline="\n") as f:
        # no comment lines: TetGen 1.5's OFF reader does not skip them
        f.write("OFF\n")
        f.write(f"{len(vertices)} {len(triangles)} 0\n")
        for x, y, z in vertices:
            f.write(f"{x:.6f} {y:.6f} {z:.6f}\n")
        for a, b, c in triangles:
            f.write(f"3 {a} {b} {c}\n")


if __name__ == "__main__":
    main()
