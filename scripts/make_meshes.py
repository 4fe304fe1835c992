#!/usr/bin/env python3
"""Writes the shipped collider meshes to assets/meshes/ as OBJ: closed solids, their triangles
counter-clockwise seen from outside, metres, +y up. Python 3, no other modules.

    python3 scripts/make_meshes.py [OUT_DIR]

  cup.obj           a cup: the solid of revolution of its wall's cross-section (outer radius
                    0.18, height 0.25, wall and bottom 0.04 thick), inner and outer walls joined
                    at the rim
  boat_hull.obj     an open-topped hull 0.7 long (x), 0.3 wide (z), 0.12 high: a tub with flared
                    sides 0.045 thick and a floor 0.04 thick, its plan a stadium
  duck.obj          a toy duck about 0.24 long: body, head, beak and tail as ellipsoids joined
                    by a smooth minimum, its surface found along rays from a point inside body
                    and head (a radial function of the direction: one closed surface)
  paddle_wheel.obj  a hub of radius 0.08 with 8 paddles to radius 0.3, 0.2 wide along the axle
                    (z): a 2D outline extruded
Each is checked here before it is written: every edge shared by two triangles running along it
in opposite directions, and a positive volume (else its triangles are reversed)."""
import math
import os
import sys


class Mesh:
    def __init__(self):
        self.vertices = []
        self.triangles = []

    def vertex(self, p):
        self.vertices.append(tuple(float(c) for c in p))
        return len(self.vertices) - 1

    def quad(self, a, b, c, d):
        """a b c d counter-clockwise (seen from the side the normal points to)."""
        self.triangles.append((a, b, c))
        self.triangles.append((a, c, d))

    def volume(self):
        v = 0.0
        for i, j, k in self.triangles:
            a, b, c = self.vertices[i], self.vertices[j], self.vertices[k]
            v += (a[0] * (b[1] * c[2] - b[2] * c[1]) + a[1] * (b[2] * c[0] - b[0] * c[2]) +
                  a[2] * (b[0] * c[1] - b[1] * c[0])) / 6.0
        return v

    def check_closed(self, name):
        directed = {}
        for t in self.triangles:
            if len(set(t)) != 3:
                raise SystemExit(f'{name}: a triangle with a repeated vertex {t}')
            for e in range(3):
                key = (t[e], t[(e + 1) % 3])
                directed[key] = directed.get(key, 0) + 1
        for (a, b), n in directed.items():
            if n != 1 or directed.get((b, a), 0) != 1:
                raise SystemExit(f'{name}: edge {a}-{b} is not shared by exactly two triangles '
                                 'running opposite ways')

    def orient_outward(self):
        if self.volume() < 0.0:
            self.triangles = [(a, c, b) for a, b, c in self.triangles]


def subdivide(profile, longest):
    """The polyline with every segment split into pieces no longer than `longest`."""
    out = [profile[0]]
    for p, q in zip(profile, profile[1:]):
        n = max(1, math.ceil(math.dist(p, q) / longest))
        for k in range(1, n + 1):
            out.append(tuple(p[i] + (q[i] - p[i]) * k / n for i in range(len(p))))
    return out


def loft(mesh, rings, bottom, top):
    """Rings of equally many points (lists of vertex indices, in the same turning sense) joined
    by bands, closed at both ends by fans to the vertices `bottom` and `top`."""
    n = len(rings[0])
    for k in range(n):
        k1 = (k + 1) % n
        mesh.triangles.append((bottom, rings[0][k1], rings[0][k]))
        mesh.triangles.append((top, rings[-1][k], rings[-1][k1]))
    for lower, upper in zip(rings, rings[1:]):
        for k in range(n):
            k1 = (k + 1) % n
            mesh.quad(lower[k], lower[k1], upper[k1], upper[k])


def revolve(profile, segments):
    """The surface of revolution about y of a polyline (rho, y) from the axis to the axis."""
    mesh = Mesh()
    bottom = mesh.vertex((0.0, profile[0][1], 0.0))
    rings = []
    for rho, y in profile[1:-1]:
        rings.append([mesh.vertex((rho * math.cos(2 * math.pi * k / segments), y,
                                   -rho * math.sin(2 * math.pi * k / segments)))
                      for k in range(segments)])
    top = mesh.vertex((0.0, profile[-1][1], 0.0))
    loft(mesh, rings, bottom, top)
    return mesh


def cup():
    radius, height, wall, floor = 0.18, 0.25, 0.04, 0.04
    # The cross-section of the cup's material, from the outside of the bottom's centre around to
    # the inside of the floor's centre.
    profile = [(0.0, 0.0), (radius, 0.0), (radius, height), (radius - wall, height),
               (radius - wall, floor), (0.0, floor)]
    return revolve(subdivide(profile, 0.035), 56)


def stadium(half_length, radius, per_side, per_arc):
    """Points around a stadium in the x-z plane (its straight sides along x), turning from +x
    towards -z; the same count for any radius, so that offset stadiums correspond."""
    pts = []
    for k in range(per_side):  # the side at z = +radius, from x = -half_length to +half_length
        pts.append((-half_length + 2 * half_length * k / per_side, radius))
    for k in range(per_arc):  # the end at +x, from z = +radius to -radius
        a = math.pi / 2 - math.pi * k / per_arc
        pts.append((half_length + radius * math.cos(a), radius * math.sin(a)))
    for k in range(per_side):  # the side at z = -radius, back to -half_length
        pts.append((half_length - 2 * half_length * k / per_side, -radius))
    for k in range(per_arc):  # the end at -x
        a = -math.pi / 2 - math.pi * k / per_arc
        pts.append((-half_length + radius * math.cos(a), radius * math.sin(a)))
    return pts


def boat_hull():
    half_length, half_width, height = 0.2, 0.15, 0.12  # 0.7 x 0.3 overall: the ends are round
    wall, floor, flare = 0.045, 0.04, 0.03
    # The section (inset from the deck's outline, y): keel edge, deck outside, deck inside,
    # floor inside; each a stadium inset from the deck's outline by its first number.
    section = [(flare, 0.0), (0.0, height), (wall, height), (flare + wall, floor)]
    section = subdivide(section, 0.03)
    mesh = Mesh()
    bottom = mesh.vertex((0.0, 0.0, 0.0))
    rings = []
    for inset, y in section:
        pts = stadium(half_length, half_width - inset, 16, 20)
        rings.append([mesh.vertex((x, y, z)) for x, z in pts])
    top = mesh.vertex((0.0, floor, 0.0))
    loft(mesh, rings, bottom, top)
    return mesh


def smooth_min(a, b, k):
    """min(a, b) with the corner rounded over a width k (the polynomial smooth minimum)."""
    h = max(0.0, min(1.0, 0.5 + 0.5 * (b - a) / k))
    return b + (a - b) * h - k * h * (1.0 - h)


def duck(rings=44, segments=56):
    # Ellipsoids (centre, semi-axes) joined by a smooth minimum of their scaled implicit
    # functions; the surface is where that is 0, found along rays from `centre`, which lies in
    # both the body and the head (so their union is star-shaped about it; the beak and tail
    # stick out along rays from it and the smoothing fills their creases).
    centre = (0.03, 0.1, 0.0)
    parts = [((0.0, 0.06, 0.0), (0.1, 0.06, 0.075)),       # body
             ((0.055, 0.135, 0.0), (0.045, 0.045, 0.045)),  # head
             ((0.105, 0.13, 0.0), (0.035, 0.011, 0.022)),   # beak
             ((-0.085, 0.085, 0.0), (0.035, 0.022, 0.035))]  # tail

    def field(x):
        value = None
        for c, s in parts:
            q = math.sqrt(sum(((x[i] - c[i]) / s[i]) ** 2 for i in range(3)))
            f = (q - 1.0) * min(s)
            value = f if value is None else smooth_min(value, f, 0.012)
        return value

    def surface(theta, phi):  # theta from +y (0) to -y (pi), phi around y
        d = (math.sin(theta) * math.cos(phi), math.cos(theta), -math.sin(theta) * math.sin(phi))
        at = lambda t: tuple(centre[i] + t * d[i] for i in range(3))
        t = 0.25  # outside everything: step in to the last crossing, then bisect it
        while field(at(t)) > 0.0:
            t -= 0.002
        lo, hi = t, t + 0.002
        for _ in range(30):
            mid = 0.5 * (lo + hi)
            lo, hi = (mid, hi) if field(at(mid)) <= 0.0 else (lo, mid)
        return at(lo)

    mesh = Mesh()
    bottom = mesh.vertex(surface(math.pi, 0.0))
    layers = []
    for i in range(rings - 1, 0, -1):  # from the bottom up
        theta = math.pi * i / rings
        layers.append([mesh.vertex(surface(theta, 2 * math.pi * k / segments))
                       for k in range(segments)])
    top = mesh.vertex(surface(0.0, 0.0))
    loft(mesh, layers, bottom, top)
    return mesh


def paddle_wheel():
    hub, outer, width, paddles, half_z = 0.08, 0.3, 0.04, 8, 0.1
    h = width / 2
    s_hub = math.sqrt(hub * hub - h * h)  # where a paddle's side meets the hub
    delta = math.atan2(h, s_hub)
    outline = []  # counter-clockwise in the x-y plane
    for k in range(paddles):
        a = 2 * math.pi * k / paddles
        e, t = (math.cos(a), math.sin(a)), (-math.sin(a), math.cos(a))
        for s, side in ((s_hub, -h), (outer, -h), (outer, h), (s_hub, h)):
            outline.append((s * e[0] + side * t[0], s * e[1] + side * t[1]))
        a_next = 2 * math.pi * (k + 1) / paddles
        arc = 6
        for j in range(1, arc):  # the hub between this paddle and the next
            b = a + delta + (a_next - a - 2 * delta) * j / arc
            outline.append((hub * math.cos(b), hub * math.sin(b)))
    mesh = Mesh()
    back = [mesh.vertex((x, y, -half_z)) for x, y in outline]
    front = [mesh.vertex((x, y, half_z)) for x, y in outline]
    cb, cf = mesh.vertex((0.0, 0.0, -half_z)), mesh.vertex((0.0, 0.0, half_z))
    n = len(outline)
    for k in range(n):  # the outline is star-shaped about the axle: fans close the faces
        k1 = (k + 1) % n
        mesh.triangles.append((cf, front[k], front[k1]))
        mesh.triangles.append((cb, back[k1], back[k]))
        mesh.quad(back[k], back[k1], front[k1], front[k])
    return mesh


def write_obj(mesh, path, title):
    with open(path, 'w', newline='\n') as f:
        f.write(f'# {title}\n# Made by scripts/make_meshes.py; metres, +y up. '
                f'{len(mesh.vertices)} vertices, {len(mesh.triangles)} triangles.\n')
        f.write(f'o {os.path.splitext(os.path.basename(path))[0]}\n')
        for v in mesh.vertices:
            f.write('v {:.6f} {:.6f} {:.6f}\n'.format(*(0.0 if abs(c) < 5e-7 else c for c in v)))
        for a, b, c in mesh.triangles:
            f.write(f'f {a + 1} {b + 1} {c + 1}\n')


def main():
    out = sys.argv[1] if len(sys.argv) > 1 else os.path.join(os.path.dirname(__file__), '..',
                                                             'assets', 'meshes')
    os.makedirs(out, exist_ok=True)
    shapes = [('cup.obj', cup, 'A cup: outer radius 0.18 m, height 0.25 m, wall and bottom 0.04 m'),
              ('boat_hull.obj', boat_hull, 'An open-topped hull 0.7 x 0.3 m, 0.12 m high'),
              ('duck.obj', duck, 'A toy duck about 0.24 m long'),
              ('paddle_wheel.obj', paddle_wheel,
               'A paddle wheel: radius 0.3 m, 0.2 m along its axle (z)')]
    for name, make, title in shapes:
        mesh = make()
        mesh.orient_outward()
        mesh.check_closed(name)
        assert len(mesh.triangles) <= 5000, f'{name}: {len(mesh.triangles)} triangles'
        write(mesh, os.path.join(out, name), title)
    # The benchmarks' collider of 10,000 triangles (docs/benchmarks.md), beside them.
    if len(sys.argv) <= 1:
        mesh = duck(72, 72)
        mesh.orient_outward()
        mesh.check_closed('duck_10k.obj')
        write(mesh, os.path.join(os.path.dirname(__file__), '..', 'bench', 'duck_10k.obj'),
              'The toy duck at 10,224 triangles (the benchmarks\' mesh collider)')


def write(mesh, path, title):
    write_obj(mesh, path, title)
    print(f'{os.path.basename(path)}: {len(mesh.vertices)} vertices, {len(mesh.triangles)} triangles, '
          f'volume {mesh.volume():.6f} m^3')


if __name__ == '__main__':
    main()
