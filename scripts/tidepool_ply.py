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

The headers are read with Python alone; the rows need numpy (Blender and ParaView ship it).
"""
import collections
import glob
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
