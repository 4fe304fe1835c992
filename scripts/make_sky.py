#!/usr/bin/env python3
"""Writes assets/textures/sky.png: an equirectangular sky for the surface mode's reflections.

A vertical gradient (pale at the horizon, deeper blue overhead), a soft grey-green ground
below the horizon, and a sun with a glow. Top row = straight up, bottom row = straight
down, u = atan2(z, x) / 2 pi + 0.5 (what shaders/surface_shade.frag reads). Pure Python
(zlib + struct), no image library needed.  Usage: scripts/make_sky.py [OUT.png]
"""
import math
import struct
import sys
import zlib

W, H = 512, 256
# Sun direction, world space (y up): the renderer's key light, normalised.
SUN = (-0.4, 1.0, 0.55)
n = math.sqrt(sum(c * c for c in SUN))
SUN = tuple(c / n for c in SUN)


def mix(a, b, t):
    return tuple(x + (y - x) * t for x, y in zip(a, b))


def colour(direction):
    x, y, z = direction
    horizon = (0.80, 0.87, 0.93)
    zenith = (0.20, 0.42, 0.78)
    ground_near = (0.42, 0.44, 0.40)
    ground_far = (0.22, 0.23, 0.22)
    if y >= 0.0:
        c = mix(horizon, zenith, math.pow(y, 0.55))
    else:
        c = mix(ground_near, ground_far, math.pow(-y, 0.6))
        # a thin bright band just under the horizon so it reads as a line
        c = mix(c, horizon, math.exp(-(-y) * 40.0) * 0.6)
    cos_sun = x * SUN[0] + y * SUN[1] + z * SUN[2]
    glow = math.pow(max(cos_sun, 0.0), 64.0) * 0.5 + math.pow(max(cos_sun, 0.0), 8.0) * 0.12
    disc = 1.0 if cos_sun > 0.9992 else 0.0
    c = tuple(min(1.0, ch + glow * w + disc) for ch, w in zip(c, (1.0, 0.95, 0.8)))
    return c


def main():
    out = sys.argv[1] if len(sys.argv) > 1 else "assets/textures/sky.png"
    rows = bytearray()
    for j in range(H):
        theta = math.pi * (j + 0.5) / H  # 0 = up
        rows.append(0)  # PNG filter: none
        for i in range(W):
            phi = 2.0 * math.pi * ((i + 0.5) / W - 0.5)
            d = (math.sin(theta) * math.cos(phi), math.cos(theta), math.sin(theta) * math.sin(phi))
            rows.extend(int(round(255 * max(0.0, min(1.0, ch)))) for ch in colour(d))

    def chunk(tag, data):
        body = tag + data
        return struct.pack(">I", len(data)) + body + struct.pack(">I", zlib.crc32(body) & 0xFFFFFFFF)

    png = b"\x89PNG\r\n\x1a\n" + chunk(b"IHDR", struct.pack(">IIBBBBB", W, H, 8, 2, 0, 0, 0))
    png += chunk(b"IDAT", zlib.compress(bytes(rows), 9)) + chunk(b"IEND", b"")
    with open(out, "wb") as f:
        f.write(png)
    print("wrote", out, W, "x", H)


if __name__ == "__main__":
    main()
