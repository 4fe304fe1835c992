# Tidepool's PLY frames in Blender (4.x) as an animation: one point object per frame, each
# visible on its own frame only (keyed visibility), with point attributes "velocity",
# "speed" and "id" for materials and Geometry Nodes.
#
# In Blender: Scripting workspace > Text > Open this file, set FRAMES below to the
# frames' directory, then Text > Run Script. The scene's frame rate becomes the frames'
# (so playback runs at simulated speed) and its range covers them.
#
# The objects are meshes of loose vertices, which Cycles and EEVEE do not render by
# themselves: select one, add a Geometry Nodes modifier with a Mesh to Points node
# (Radius: half the particle spacing, e.g. 0.02 m) and a Set Material node, then select
# the others, the edited one last, and Object > Link/Transfer Data > Copy Modifiers. In a
# material, an Attribute node named "speed" gives each point its speed.
#
# Frame format (src/sim/io.cpp): binary little-endian PLY, "comment time T s" in the
# header, then per particle: uint id, float x, y, z, vx, vy, vz.
import glob
import os

import numpy as np

FRAMES = "/path/to/tidepool-export-20261122-103015"  # the directory of frame_*.ply

ROW = np.dtype([("id", "<u4"), ("x", "<f4"), ("y", "<f4"), ("z", "<f4"),
                ("vx", "<f4"), ("vy", "<f4"), ("vz", "<f4")])


def read_frame(path):
    """(simulated time or None, rows) of one frame file."""
    data = open(path, "rb").read()
    start = data.index(b"end_header\n") + len(b"end_header\n")
    time = None
    for line in data[:start].split(b"\n"):
        if line.startswith(b"comment time "):
            time = float(line.split()[2])
    return time, np.frombuffer(data, dtype=ROW, offset=start)


def frame_mesh(bpy, name, rows):
    """A mesh of one vertex per particle, with Blender's axes: Tidepool's y is up, Blender's
    z is up, so (x, y, z) becomes (x, -z, y)."""
    mesh = bpy.data.meshes.new(name)
    mesh.vertices.add(len(rows))
    co = np.column_stack([rows["x"], -rows["z"], rows["y"]]).astype(np.float32)
    mesh.vertices.foreach_set("co", co.ravel())
    velocity = np.column_stack([rows["vx"], -rows["vz"], rows["vy"]]).astype(np.float32)
    mesh.attributes.new("velocity", "FLOAT_VECTOR", "POINT").data.foreach_set(
        "vector", velocity.ravel())
    mesh.attributes.new("speed", "FLOAT", "POINT").data.foreach_set(
        "value", np.sqrt((velocity * velocity).sum(axis=1)))
    mesh.attributes.new("id", "INT", "POINT").data.foreach_set(
        "value", rows["id"].astype(np.int32))
    mesh.update()
    return mesh


def import_frames(bpy, directory):
    files = sorted(glob.glob(os.path.join(directory, "frame_*.ply")))
    if not files:
        raise RuntimeError("no frame_*.ply files in " + directory)
    scene = bpy.context.scene
    collection = bpy.data.collections.new("tidepool frames")
    scene.collection.children.link(collection)
    times = []
    for k, path in enumerate(files):
        time, rows = read_frame(path)
        times.append(time)
        name = os.path.splitext(os.path.basename(path))[0]
        obj = bpy.data.objects.new(name, frame_mesh(bpy, name, rows))
        collection.objects.link(obj)
        frame = scene.frame_start + k
        # Hidden before and after its own frame; boolean keys hold until the next key.
        for f, hidden in ((frame - 1, True), (frame, False), (frame + 1, True)):
            obj.hide_viewport = obj.hide_render = hidden
            obj.keyframe_insert("hide_viewport", frame=f)
            obj.keyframe_insert("hide_render", frame=f)
    scene.frame_end = scene.frame_start + len(files) - 1
    known = [t for t in times if t is not None]
    if len(known) > 1 and known[-1] > known[0]:
        scene.render.fps = max(1, round((len(known) - 1) / (known[-1] - known[0])))
        scene.render.fps_base = 1.0
    return len(files)


if __name__ == "__main__":
    import bpy

    print("tidepool: imported", import_frames(bpy, FRAMES), "frames from", FRAMES)
