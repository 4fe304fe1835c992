"""Tidepool's PLY frames, read for the scripts beside this file:
blender_import_tidepool_frames.py (Blender) and paraview_tidepool_frames.py (ParaView) both
import it, so that there is one reader of the frames, not a copy in each.

Installing: keep this file in the same folder as the script you run, as Tidepool's scripts/
folder has them (copying a script elsewhere, copy this file with it). Each script puts its
own folder on sys.path before it imports this module: ParaView's runpy.run_path gives the
script its path; in Blender, open the script from that folder (Text > Open) and Run Script.
Alternatively put this file where that Python finds modules anyway, e.g. Blender's
scripts/modules folder (Preferences > File Paths > Script Directories).

Frame formats: particles (src/sim/io/particle_io.cpp, --export and the panel's Record):
binary little-endian PLY, "comment time T s" in the header, then per particle: uint id,
float x, y, z, vx, vy, vz. Surface (src/sim/io/mesh_io.cpp, --export-mesh): binary
little-endian PLY, "comment time T s" (optional), per vertex float x, y, z, nx, ny, nz
and, from --export-mesh, vx, vy, vz; then per triangle uchar 3 and three uint vertex
indices, counter-clockwise seen from outside the water (normals point out). Axes are
Tidepool's: y is up.

Bodies (src/sim/io/particle_io.cpp, beside either kind of frame when the scene has rigid
bodies): bodies_00000.json, ... {"time": T, "bodies": [...]}, each body with the keys of a
scene's bodies array: shape ("box", "sphere", "capsule"), size (box, full) or radius and
length (capsule: its cylinder's, along its own y), or for a mesh body file and scale (the
OBJ or PLY file it was read from; its position and orientation are then the file's origin
and axes), density, kinematic, position, orientation (a quaternion [w, x, y, z]), velocity,
angular_velocity. body_surface() turns one into triangles.

The headers are read with Python alone; the rows need numpy (Blender and ParaView ship it).
"""
import collections
import glob
import json
import math
import os

# File name prefix of each kind of frame.
PREFIX = {"points": "frame_", "mesh": "mesh_"}

END_HEADER = b"end_header\n"

# One surface frame, in Tidepool's axes (y up): positions, normals (unit, pointing out of
# the water) and velocities (None when the file has none) as (N, 3) float32 arrays,
# triangles as a (T, 3) uint32 array.
MeshFrame = collections.namedtuple("MeshFrame", "time position normal velocity triangles")

# Where a surface frame's rows are: the time in its header (or None), the offset of the
# first vertex, the vertex and triangle counts and the floats per vertex (6, or 9 with
# velocities).
MeshLayout = collections.namedtuple("MeshLayout", "time start vertices triangles width")


def frame_files(directory, kind="points"):
    """The frames of `kind` ("points": frame_*.ply, "mesh": mesh_*.ply) in `directory`,
    in order."""
    return sorted(glob.glob(os.path.join(directory, PREFIX[kind] + "*.ply")))


def header_time(header):
    """The simulated time in a header's "comment time T s" line, or None."""
    for line in header.split(b"\n"):
        if line.startswith(b"comment time "):
            return float(line.split()[2])
    return None


def frame_time(path, index):
    """The simulated time in a frame's header, else the frame's index."""
    with open(path, "rb") as f:
        header = f.read(1024).split(b"end_header")[0]
    time = header_time(header)
    return float(index) if time is None else time


def read_frame(path):
    """(simulated time or None, rows) of one particle frame (frame_*.ply): a numpy record
    array with fields id, x, y, z, vx, vy, vz."""
    import numpy as np

    row = np.dtype([("id", "<u4"), ("x", "<f4"), ("y", "<f4"), ("z", "<f4"),
                    ("vx", "<f4"), ("vy", "<f4"), ("vz", "<f4")])
    with open(path, "rb") as f:
        data = f.read()
    start = data.index(END_HEADER) + len(END_HEADER)
    return header_time(data[:start]), np.frombuffer(data, dtype=row, offset=start)


def mesh_layout(data, path):
    """The MeshLayout of a surface frame's bytes. Reads the header rather than assuming
    it, so that a file from another writer fails here with a sentence (naming `path`)
    instead of becoming a garbled mesh."""
    end = data.find(END_HEADER)
    if not data.startswith(b"ply\n") or end < 0:
        raise ValueError(path + ": not a PLY file")
    time, elements, vertex_properties, face_list = None, [], [], None
    for line in data[:end].split(b"\n"):
        words = line.split()
        if not words:
            continue
        if words[0] == b"format" and words[1:2] != [b"binary_little_endian"]:
            raise ValueError(path + ": not a binary little-endian PLY")
        elif words[:2] == [b"comment", b"time"]:
            time = float(words[2])
        elif words[0] == b"element":
            elements.append((words[1], int(words[2])))
        elif words[0] == b"property" and elements and elements[-1][0] == b"vertex":
            if words[1] not in (b"float", b"float32"):
                raise ValueError(path + ": vertex property " + words[-1].decode() +
                                 " is not a float")
            vertex_properties.append(words[-1])
        elif words[0] == b"property" and elements and elements[-1][0] == b"face":
            face_list = words[1:4]
    names = [b"x", b"y", b"z", b"nx", b"ny", b"nz"]
    if [e[0] for e in elements] != [b"vertex", b"face"] or \
            vertex_properties not in (names, names + [b"vx", b"vy", b"vz"]) or \
            face_list not in ([b"list", b"uchar", b"uint"], [b"list", b"uint8", b"uint32"]):
        raise ValueError(path + ": not a Tidepool mesh frame "
                         "(x y z nx ny nz [vx vy vz], triangles)")
    return MeshLayout(time, end + len(END_HEADER), elements[0][1], elements[1][1],
                      len(vertex_properties))


def read_mesh_frame(path):
    """The MeshFrame of one mesh_*.ply file; a ValueError with a sentence for a file that
    is not one, or is truncated."""
    import numpy as np

    # A face row: the vertex count (always 3: Tidepool writes triangles) and the indices,
    # packed (13 bytes, no padding), as PLY stores them.
    face = np.dtype([("count", "u1"), ("index", "<u4", (3,))])
    with open(path, "rb") as f:
        data = f.read()
    time, start, n, t, width = mesh_layout(data, path)
    try:  # frombuffer refuses to read past the end: a truncated file stops here
        rows = np.frombuffer(data, dtype="<f4", count=n * width, offset=start).reshape(n, width)
        faces = np.frombuffer(data, dtype=face, count=t, offset=start + rows.nbytes)
    except ValueError:
        raise ValueError(path + ": truncated") from None
    if (faces["count"] != 3).any():
        raise ValueError(path + ": a face that is not a triangle")
    triangles = faces["index"]
    if t and int(triangles.max()) >= n:
        raise ValueError(path + ": a face names a vertex that does not exist")
    velocity = np.ascontiguousarray(rows[:, 6:9]) if width == 9 else None
    return MeshFrame(time, np.ascontiguousarray(rows[:, 0:3]), np.ascontiguousarray(rows[:, 3:6]),
                     velocity, np.ascontiguousarray(triangles))


def body_files(directory):
    """The bodies files (bodies_*.json) in `directory`, in order: one per frame."""
    return sorted(glob.glob(os.path.join(directory, "bodies_*.json")))


def read_bodies(path):
    """(simulated time, list of bodies as dicts) of one bodies_*.json file."""
    with open(path) as f:
        data = json.load(f)
    return float(data["time"]), list(data["bodies"])


def rotate(q, points):
    """Points (N, 3) turned by the unit quaternion q = [w, x, y, z]."""
    import numpy as np

    w, x, y, z = (float(c) for c in q)
    m = np.array([[1 - 2 * (y * y + z * z), 2 * (x * y - w * z), 2 * (x * z + w * y)],
                  [2 * (x * y + w * z), 1 - 2 * (x * x + z * z), 2 * (y * z - w * x)],
                  [2 * (x * z - w * y), 2 * (y * z + w * x), 1 - 2 * (x * x + y * y)]])
    return np.asarray(points, dtype=np.float64) @ m.T


def read_mesh_file(path, scale=1.0):
    """(vertices (N, 3), triangles (T, 3)) of an OBJ file or an ascii PLY file (polygons split
    into fans), its coordinates times `scale`: the mesh a mesh body was read from."""
    import numpy as np

    vertices, triangles = [], []
    with open(path, "rb") as f:
        data = f.read()
    if path.lower().endswith(".ply"):
        head, _, body = data.partition(END_HEADER)
        lines = head.decode("ascii", "replace").splitlines()
        if "format ascii 1.0" not in lines:
            raise ValueError(path + ": only ascii PLY is read here (convert it, or use OBJ)")
        counts = {l.split()[1]: int(l.split()[2]) for l in lines if l.startswith("element ")}
        rows = body.decode("ascii").split("\n")
        for row in rows[:counts.get("vertex", 0)]:
            vertices.append([float(c) for c in row.split()[:3]])
        for row in rows[counts.get("vertex", 0):counts.get("vertex", 0) + counts.get("face", 0)]:
            ids = [int(c) for c in row.split()[1:]]
            triangles += [(ids[0], ids[k], ids[k + 1]) for k in range(1, len(ids) - 1)]
    else:
        for line in data.decode("utf-8", "replace").splitlines():
            parts = line.split()
            if parts[:1] == ["v"]:
                vertices.append([float(c) for c in parts[1:4]])
            elif parts[:1] == ["f"]:
                ids = [int(c.split("/")[0]) for c in parts[1:]]
                ids = [i - 1 if i > 0 else len(vertices) + i for i in ids]
                triangles += [(ids[0], ids[k], ids[k + 1]) for k in range(1, len(ids) - 1)]
    return (np.array(vertices, dtype=np.float64) * float(scale),
            np.array(triangles, dtype=np.uint32).reshape(-1, 3))


def body_local_surface(body, segments=16):
    """(vertices (N, 3), triangles (T, 3)) of a body's surface in its own frame (centred on
    its centre, Tidepool's axes; a mesh's in its file's frame), counter-clockwise seen from
    outside: a mesh's file, a box's 12 triangles,
    or a sphere or capsule as `segments` around by segments / 2 + 1 rings (a capsule's
    hemispheres apart by its length along y)."""
    import numpy as np

    if body["shape"] == "mesh":
        return read_mesh_file(body["file"], body.get("scale", 1.0))
    if body["shape"] == "box":
        h = np.asarray(body["size"], dtype=np.float64) / 2
        corners = np.array([[sx, sy, sz] for sx in (-1, 1) for sy in (-1, 1) for sz in (-1, 1)]) * h
        # Corner k has x = k & 4, y = k & 2, z = k & 1; two triangles per face, outward.
        faces = [(0, 1, 3, 2), (4, 6, 7, 5), (0, 4, 5, 1), (2, 3, 7, 6), (0, 2, 6, 4), (1, 5, 7, 3)]
        triangles = [t for a, b, c, d in faces for t in ((a, b, c), (a, c, d))]
        return corners, np.array(triangles, dtype=np.uint32)
    r = float(body["radius"])
    half = float(body.get("length", 0.0)) / 2 if body["shape"] == "capsule" else 0.0
    rings = segments // 2 + 1  # from the top pole (theta 0) to the bottom one (theta pi)
    mid = rings // 2
    # The rings between the poles as (theta index, y offset); a capsule has its equator
    # twice, the cylinder between.
    if half > 0:
        rows = [(i, half) for i in range(1, mid + 1)] + [(i, -half) for i in range(mid, rings - 1)]
    else:
        rows = [(i, 0.0) for i in range(1, rings - 1)]
    vertices = [(0.0, r + half, 0.0)]  # the top pole, then the rings, then the bottom pole
    for i, offset in rows:
        theta = math.pi * i / (rings - 1)
        for j in range(segments):
            phi = 2 * math.pi * j / segments
            vertices.append((r * math.sin(theta) * math.cos(phi), r * math.cos(theta) + offset,
                             r * math.sin(theta) * math.sin(phi)))
    vertices.append((0.0, -r - half, 0.0))
    bottom = len(vertices) - 1
    ring = lambda a, j: 1 + a * segments + j % segments  # noqa: E731
    triangles = []
    for j in range(segments):
        triangles.append((0, ring(0, j + 1), ring(0, j)))
        triangles.append((bottom, ring(len(rows) - 1, j), ring(len(rows) - 1, j + 1)))
    for a in range(len(rows) - 1):  # ring a above ring a + 1
        for j in range(segments):
            triangles.append((ring(a, j), ring(a, j + 1), ring(a + 1, j + 1)))
            triangles.append((ring(a, j), ring(a + 1, j + 1), ring(a + 1, j)))
    return np.array(vertices, dtype=np.float64), np.array(triangles, dtype=np.uint32)


def body_surface(body, segments=16):
    """The body's surface where it is: body_local_surface turned by its orientation and
    moved to its position (world, Tidepool's axes), as float32 vertices and triangles."""
    import numpy as np

    local, triangles = body_local_surface(body, segments)
    world = rotate(body["orientation"], local) + np.asarray(body["position"], dtype=np.float64)
    return world.astype(np.float32), triangles
