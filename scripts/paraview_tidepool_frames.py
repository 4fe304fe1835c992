# Tidepool's PLY frames in ParaView (5.10 or later), with their velocities, ids and
# simulated times: particles (frame_00000.ply, ... from --export) or the water's surface
# (mesh_00000.ply, ... from --export-mesh).
#
# ParaView's own PLY reader reads the positions only (x, y, z and the standard normal,
# colour and texture columns), so the id and velocity columns of Tidepool's frames are lost
# with it. This script is for a Programmable Source instead (Sources > Alphabetical >
# Programmable Source), which then gives every frame at the simulated time in each file's
# header, as
#   - particles: points with one vertex cell each and point arrays "velocity" (m/s),
#     "speed" (m/s) and "id";
#   - surface: triangles with point arrays "Normals" (the point normals, pointing out of
#     the water, so Surface shading is smooth), "velocity" and "speed" (when the file has
#     velocities, as --export-mesh writes them):
#
#   1. Output Data Set Type: vtkPolyData.
#   2. Script:
#        import runpy
#        tidepool = runpy.run_path("/path/to/tidepool/scripts/paraview_tidepool_frames.py")
#        tidepool["load_frame"](self, "/path/to/tidepool-export-20261122-103015")
#   3. Script (RequestInformation):
#        import runpy
#        tidepool = runpy.run_path("/path/to/tidepool/scripts/paraview_tidepool_frames.py")
#        tidepool["announce_times"](self, "/path/to/tidepool-export-20261122-103015")
#   4. Apply.
#
# Which kind: a directory with frame_*.ply gives the particles, one with only mesh_*.ply
# the surface. Where both are (--export and --export-mesh into one directory), pass
# kind="mesh" to both calls for the surface, e.g.
#   tidepool["load_frame"](self, "/path/to/dir", kind="mesh")
#   tidepool["announce_times"](self, "/path/to/dir", kind="mesh")
# (and add a second Programmable Source, without kind, for the particles).
#
# Frame formats: particles (src/sim/io/particle_io.cpp): binary little-endian PLY, "comment time T s"
# in the header, then per particle: uint id, float x, y, z, vx, vy, vz. Surface
# (src/sim/io/mesh_io.cpp): binary little-endian PLY, "comment time T s" (optional), per
# vertex float x, y, z, nx, ny, nz and, from --export-mesh, vx, vy, vz; then per
# triangle uchar 3 and three uint vertex indices, counter-clockwise seen from outside the
# water. Axes are Tidepool's: y is up.
import collections
import glob
import os

import numpy as np

ROW = np.dtype([("id", "<u4"), ("x", "<f4"), ("y", "<f4"), ("z", "<f4"),
                ("vx", "<f4"), ("vy", "<f4"), ("vz", "<f4")])


# File name prefix of each kind.
PREFIX = {"points": "frame_", "mesh": "mesh_"}


def frame_files(directory, kind="points"):
    return sorted(glob.glob(os.path.join(directory, PREFIX[kind] + "*.ply")))


def choose_kind(directory, kind=None):
    """`kind` if given ("points" or "mesh"), else "points" where the directory has
    frame_*.ply (as before meshes existed), else "mesh" where it has mesh_*.ply."""
    if kind is not None:
        if kind not in PREFIX:
            raise ValueError('kind must be "points" or "mesh", not ' + repr(kind))
        if not frame_files(directory, kind):
            raise RuntimeError("no " + PREFIX[kind] + "*.ply files in " + directory)
        return kind
    for k in ("points", "mesh"):
        if frame_files(directory, k):
            return k
    raise RuntimeError("no frame_*.ply or mesh_*.ply files in " + directory)


def frame_time(path, index):
    """The simulated time in the header's "comment time T s", else the frame's index."""
    with open(path, "rb") as f:
        header = f.read(1024).split(b"end_header")[0]
    for line in header.split(b"\n"):
        if line.startswith(b"comment time "):
            return float(line.split()[2])
    return float(index)


def read_frame(path):
    data = open(path, "rb").read()
    start = data.index(b"end_header\n") + len(b"end_header\n")
    return np.frombuffer(data, dtype=ROW, offset=start)


# One surface frame: positions, normals (unit, pointing out of the water) and velocities
# (None when the file has none) as (N, 3) float32 arrays, triangles as a (T, 3) uint32
# array.
MeshFrame = collections.namedtuple("MeshFrame", "time position normal velocity triangles")

# A face row: the vertex count (always 3: Tidepool writes triangles) and the indices,
# packed (13 bytes, no padding), as PLY stores them.
FACE = np.dtype([("count", "u1"), ("index", "<u4", (3,))])


def read_mesh_frame(path):
    """The MeshFrame of one mesh_*.ply file. Reads the header rather than assuming it, so
    that a file from another writer, or a truncated one, fails here with a sentence
    instead of becoming a garbled mesh."""
    data = open(path, "rb").read()
    end = data.find(b"end_header\n")
    if not data.startswith(b"ply\n") or end < 0:
        raise ValueError(path + ": not a PLY file")
    start = end + len(b"end_header\n")
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
    n, t = elements[0][1], elements[1][1]
    width = len(vertex_properties)
    try:  # frombuffer refuses to read past the end: a truncated file stops here
        rows = np.frombuffer(data, dtype="<f4", count=n * width, offset=start).reshape(n, width)
        faces = np.frombuffer(data, dtype=FACE, count=t, offset=start + rows.nbytes)
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


def fill_polydata(polydata, rows):
    """Points with one vertex cell each (so that every representation draws them)."""
    from vtkmodules.numpy_interface import dataset_adapter as dsa
    from vtkmodules.util.numpy_support import numpy_to_vtkIdTypeArray
    from vtkmodules.vtkCommonDataModel import vtkCellArray

    out = dsa.WrapDataObject(polydata)
    out.Points = np.column_stack([rows["x"], rows["y"], rows["z"]])
    velocity = np.column_stack([rows["vx"], rows["vy"], rows["vz"]])
    out.PointData.append(velocity, "velocity")
    out.PointData.append(np.sqrt((velocity * velocity).sum(axis=1)), "speed")
    out.PointData.append(np.ascontiguousarray(rows["id"]), "id")
    n = len(rows)
    cells = vtkCellArray()
    cells.SetData(numpy_to_vtkIdTypeArray(np.arange(n + 1, dtype=np.int64), deep=1),
                  numpy_to_vtkIdTypeArray(np.arange(n, dtype=np.int64), deep=1))
    polydata.SetVerts(cells)


def fill_surface_polydata(polydata, frame):
    """Triangles, with the file's normals as the point normals (they come from the density
    field's gradient, smoother than the triangles' own) and the velocities when present."""
    from vtkmodules.numpy_interface import dataset_adapter as dsa
    from vtkmodules.util.numpy_support import numpy_to_vtkIdTypeArray
    from vtkmodules.vtkCommonDataModel import vtkCellArray

    out = dsa.WrapDataObject(polydata)
    out.Points = frame.position
    out.PointData.append(frame.normal, "Normals")
    point_data = polydata.GetPointData()
    point_data.SetNormals(point_data.GetArray("Normals"))
    if frame.velocity is not None:
        out.PointData.append(frame.velocity, "velocity")
        out.PointData.append(np.sqrt((frame.velocity * frame.velocity).sum(axis=1)), "speed")
    t = len(frame.triangles)
    cells = vtkCellArray()
    cells.SetData(numpy_to_vtkIdTypeArray(np.arange(0, 3 * t + 1, 3, dtype=np.int64), deep=1),
                  numpy_to_vtkIdTypeArray(frame.triangles.astype(np.int64).ravel(), deep=1))
    polydata.SetPolys(cells)


def announce_times(algorithm, directory, kind=None):
    """For "Script (RequestInformation)": the frames' simulated times as time steps.
    kind: "points" (frame_*.ply), "mesh" (mesh_*.ply), or None: the particles where the
    directory has them, else the surface. Give the same kind as to load_frame."""
    files = frame_files(directory, choose_kind(directory, kind))
    times = [frame_time(path, k) for k, path in enumerate(files)]
    executive = algorithm.GetExecutive()
    info = executive.GetOutputInformation(0)
    info.Remove(executive.TIME_STEPS())
    for t in times:
        info.Append(executive.TIME_STEPS(), t)
    info.Remove(executive.TIME_RANGE())
    info.Append(executive.TIME_RANGE(), times[0])
    info.Append(executive.TIME_RANGE(), times[-1])


def load_frame(algorithm, directory, kind=None):
    """For "Script": the frame nearest the time ParaView asks for. kind: "points"
    (frame_*.ply: points with vertex cells), "mesh" (mesh_*.ply: triangles with normals),
    or None: the particles where the directory has them, else the surface."""
    kind = choose_kind(directory, kind)
    files = frame_files(directory, kind)
    times = [frame_time(path, k) for k, path in enumerate(files)]
    executive = algorithm.GetExecutive()
    info = executive.GetOutputInformation(0)
    t = info.Get(executive.UPDATE_TIME_STEP()) if info.Has(executive.UPDATE_TIME_STEP()) else times[0]
    k = min(range(len(times)), key=lambda i: abs(times[i] - t))
    # ParaView's Programmable Source has GetPolyDataOutput; other VTK algorithms GetOutput.
    output = getattr(algorithm, "GetPolyDataOutput", algorithm.GetOutput)()
    if kind == "mesh":
        fill_surface_polydata(output, read_mesh_frame(files[k]))
    else:
        fill_polydata(output, read_frame(files[k]))
