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
# Rigid bodies (bodies_*.json beside the frames of a scene with bodies): a further
# Programmable Source with kind="bodies" in both calls gives their surfaces as triangles,
# with a point array "body" (the body's index), at each frame's time.
#
# The frames are read by tidepool_ply.py, which must lie beside this file (as in Tidepool's
# scripts/ folder); its docstring gives the frame formats. Axes are Tidepool's: y is up.
import os
import sys

import numpy as np

# runpy.run_path gives this script its own path: tidepool_ply.py is found beside it.
if os.path.dirname(os.path.abspath(__file__)) not in sys.path:
    sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from tidepool_ply import (PREFIX, body_files, body_surface, frame_files, frame_time,  # noqa: E402
                          read_bodies, read_frame, read_mesh_frame)


def choose_kind(directory, kind=None):
    """`kind` if given ("points", "mesh" or "bodies"), else "points" where the directory
    has frame_*.ply (as before meshes existed), else "mesh" where it has mesh_*.ply."""
    if kind == "bodies":
        if not body_files(directory):
            raise RuntimeError("no bodies_*.json files in " + directory)
        return kind
    if kind is not None:
        if kind not in PREFIX:
            raise ValueError('kind must be "points", "mesh" or "bodies", not ' + repr(kind))
        if not frame_files(directory, kind):
            raise RuntimeError("no " + PREFIX[kind] + "*.ply files in " + directory)
        return kind
    for k in ("points", "mesh"):
        if frame_files(directory, k):
            return k
    raise RuntimeError("no frame_*.ply or mesh_*.ply files in " + directory)


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


def fill_bodies_polydata(polydata, bodies):
    """The bodies' surfaces where they are, as triangles, with a point array "body"."""
    from vtkmodules.numpy_interface import dataset_adapter as dsa
    from vtkmodules.util.numpy_support import numpy_to_vtkIdTypeArray
    from vtkmodules.vtkCommonDataModel import vtkCellArray

    points, triangles, index = [], [], []
    for k, body in enumerate(bodies):
        vertices, tris = body_surface(body, segments=32)
        triangles.append(tris.astype(np.int64) + sum(len(p) for p in points))
        points.append(vertices)
        index.append(np.full(len(vertices), k, dtype=np.int32))
    out = dsa.WrapDataObject(polydata)
    out.Points = np.concatenate(points) if points else np.zeros((0, 3), np.float32)
    out.PointData.append(np.concatenate(index) if index else np.zeros(0, np.int32), "body")
    flat = np.concatenate(triangles).ravel() if triangles else np.zeros(0, np.int64)
    cells = vtkCellArray()
    cells.SetData(numpy_to_vtkIdTypeArray(np.arange(0, len(flat) + 1, 3, dtype=np.int64), deep=1),
                  numpy_to_vtkIdTypeArray(flat, deep=1))
    polydata.SetPolys(cells)


def kind_files_and_times(directory, kind):
    """The files of `kind` and each one's simulated time."""
    if kind == "bodies":
        files = body_files(directory)
        return files, [read_bodies(path)[0] for path in files]
    files = frame_files(directory, kind)
    return files, [frame_time(path, k) for k, path in enumerate(files)]


def announce_times(algorithm, directory, kind=None):
    """For "Script (RequestInformation)": the frames' simulated times as time steps.
    kind: "points" (frame_*.ply), "mesh" (mesh_*.ply), or None: the particles where the
    directory has them, else the surface. Give the same kind as to load_frame."""
    files, times = kind_files_and_times(directory, choose_kind(directory, kind))
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
    "bodies" (bodies_*.json: the bodies' surfaces), or None: the particles where the
    directory has them, else the surface."""
    kind = choose_kind(directory, kind)
    files, times = kind_files_and_times(directory, kind)
    executive = algorithm.GetExecutive()
    info = executive.GetOutputInformation(0)
    t = info.Get(executive.UPDATE_TIME_STEP()) if info.Has(executive.UPDATE_TIME_STEP()) else times[0]
    k = min(range(len(times)), key=lambda i: abs(times[i] - t))
    # ParaView's Programmable Source has GetPolyDataOutput; other VTK algorithms GetOutput.
    output = getattr(algorithm, "GetPolyDataOutput", algorithm.GetOutput)()
    if kind == "bodies":
        fill_bodies_polydata(output, read_bodies(files[k])[1])
    elif kind == "mesh":
        fill_surface_polydata(output, read_mesh_frame(files[k]))
    else:
        fill_polydata(output, read_frame(files[k])[1])
