# Tidepool's PLY frames in ParaView (5.10 or later), with their velocities, ids and
# simulated times.
#
# ParaView's own PLY reader reads the positions only (x, y, z and the standard normal,
# colour and texture columns), so the id and velocity columns of Tidepool's frames are lost
# with it. This script is for a Programmable Source instead (Sources > Alphabetical >
# Programmable Source), which then gives every frame as points with point arrays
# "velocity" (m/s), "speed" (m/s) and "id", at the simulated time in each file's header:
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
# Frame format (src/sim/io.cpp): binary little-endian PLY, "comment time T s" in the
# header, then per particle: uint id, float x, y, z, vx, vy, vz.
import glob
import os

import numpy as np

ROW = np.dtype([("id", "<u4"), ("x", "<f4"), ("y", "<f4"), ("z", "<f4"),
                ("vx", "<f4"), ("vy", "<f4"), ("vz", "<f4")])


def frame_files(directory):
    return sorted(glob.glob(os.path.join(directory, "frame_*.ply")))


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


def announce_times(algorithm, directory):
    """For "Script (RequestInformation)": the frames' simulated times as time steps."""
    files = frame_files(directory)
    if not files:
        raise RuntimeError("no frame_*.ply files in " + directory)
    times = [frame_time(path, k) for k, path in enumerate(files)]
    executive = algorithm.GetExecutive()
    info = executive.GetOutputInformation(0)
    info.Remove(executive.TIME_STEPS())
    for t in times:
        info.Append(executive.TIME_STEPS(), t)
    info.Remove(executive.TIME_RANGE())
    info.Append(executive.TIME_RANGE(), times[0])
    info.Append(executive.TIME_RANGE(), times[-1])


def load_frame(algorithm, directory):
    """For "Script": the frame nearest the time ParaView asks for."""
    files = frame_files(directory)
    if not files:
        raise RuntimeError("no frame_*.ply files in " + directory)
    times = [frame_time(path, k) for k, path in enumerate(files)]
    executive = algorithm.GetExecutive()
    info = executive.GetOutputInformation(0)
    t = info.Get(executive.UPDATE_TIME_STEP()) if info.Has(executive.UPDATE_TIME_STEP()) else times[0]
    k = min(range(len(times)), key=lambda i: abs(times[i] - t))
    # ParaView's Programmable Source has GetPolyDataOutput; other VTK algorithms GetOutput.
    output = getattr(algorithm, "GetPolyDataOutput", algorithm.GetOutput)()
    fill_polydata(output, read_frame(files[k]))
