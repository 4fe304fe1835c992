# Tidepool's PLY frames in Blender (4.x) as an animation: one object per frame, each
# visible on its own frame only (keyed visibility). Two kinds of frames:
#
# - particles (--export, the panel's Record): frame_00000.ply, ...; each becomes a point
#   object with point attributes "velocity", "speed" and "id" for materials and Geometry
#   Nodes, in a collection "tidepool frames";
# - the water's surface (--export-mesh): mesh_00000.ply, ...; each becomes a triangle mesh,
#   smooth shaded with the file's normals as custom normals, with point attributes
#   "velocity" and "speed", in a collection "tidepool surface".
#
# In Blender: Scripting workspace > Text > Open this file, set FRAMES below to the
# frames' directory, then Text > Run Script. KIND below chooses what to import: "auto"
# (the default) imports whatever the directory holds, both kinds when --export and
# --export-mesh shared it; "points" or "mesh" imports that kind only. The scene's frame
# rate becomes the frames' (so playback runs at simulated speed) and its range covers them.
#
# The point objects are meshes of loose vertices, which Cycles and EEVEE do not render by
# themselves: select one, add a Geometry Nodes modifier with a Mesh to Points node
# (Radius: half the particle spacing, e.g. 0.02 m) and a Set Material node, then select
# the others, the edited one last, and Object > Link/Transfer Data > Copy Modifiers. In a
# material, an Attribute node named "speed" gives each point its speed. The surface
# objects render as they are (give them a water material the same way: select all, the
# one with the material last, Object > Link/Transfer Data > Link Materials).
#
# Where the directory also holds bodies_*.json (a scene with rigid bodies), each body
# becomes one object in a collection "tidepool bodies", its shape built once, its location
# and rotation keyed on every frame.
#
# The frames are read by tidepool_ply.py, which must lie beside this file (as in Tidepool's
# scripts/ folder): open this script from that folder. Its docstring gives the frame
# formats and other places to install it.
import os
import sys

import numpy as np

FRAMES = "/path/to/tidepool-export-20261122-103015"  # the directory of the frames
KIND = "auto"  # "auto": frame_*.ply and/or mesh_*.ply, whichever are there; "points"; "mesh"


def script_folders():
    """Where this script is: Blender runs a text block with __file__ set to the .blend
    file's path and the text's name, so the folder it was opened from comes from the
    Text Editor; `blender --python` gives the real __file__."""
    folders = [os.path.dirname(os.path.abspath(__file__))]
    try:
        import bpy

        text = bpy.context.space_data.text  # the script, when run from the Text Editor
        if text.filepath:
            folders.insert(0, os.path.dirname(bpy.path.abspath(text.filepath)))
    except (ImportError, AttributeError):
        pass
    return folders


sys.path[:0] = [f for f in script_folders() if f not in sys.path]
from tidepool_ply import (PREFIX, body_files, body_local_surface, frame_files, read_bodies,  # noqa: E402
                          read_frame, read_mesh_frame)  # (beside this script)

# Collection name of each kind.
COLLECTION = {"points": "tidepool frames", "mesh": "tidepool surface", "bodies": "tidepool bodies"}


def z_up(v):
    """Tidepool's y is up, Blender's z: (x, y, z) becomes (x, -z, y), a rotation (so the
    triangles keep their winding and the normals still point out)."""
    return np.column_stack([v[:, 0], -v[:, 2], v[:, 1]]).astype(np.float32)


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


def surface_mesh(bpy, name, frame):
    """A triangle mesh of one surface frame, with Blender's axes. Built as Blender 4.x's
    Mesh.from_pydata builds it (add the elements, set loop starts and corner vertices,
    then let update() make the edges), but from numpy buffers: from_pydata turns every
    coordinate into a Python number, slow for the hundreds of thousands of triangles a
    frame has."""
    mesh = bpy.data.meshes.new(name)
    n, t = len(frame.position), len(frame.triangles)
    mesh.vertices.add(n)
    mesh.loops.add(3 * t)
    mesh.polygons.add(t)
    mesh.vertices.foreach_set("co", z_up(frame.position).ravel())
    mesh.polygons.foreach_set("loop_start", np.arange(0, 3 * t, 3, dtype=np.int32))
    mesh.polygons.foreach_set("vertices", frame.triangles.astype(np.int32).ravel())
    mesh.update(calc_edges=True)
    # Smooth shading: Blender 4.1+ has shade_smooth() (and new faces are smooth already);
    # 4.0 keeps a use_smooth flag per face.
    if hasattr(mesh, "shade_smooth"):
        mesh.shade_smooth()
    else:
        mesh.polygons.foreach_set("use_smooth", np.ones(t, dtype=bool))
    # The file's normals come from the density field's gradient, smoother than the
    # triangles' own; keep them as custom normals where this Blender can. 4.0 shows custom
    # normals only with Auto Smooth on, and splits them at edges sharper than its angle
    # (so the angle goes to 180 degrees: no split); 4.1 removed use_auto_smooth and always
    # shows them.
    if n and t and hasattr(mesh, "normals_split_custom_set_from_vertices"):
        if hasattr(mesh, "use_auto_smooth"):
            mesh.use_auto_smooth = True
            mesh.auto_smooth_angle = np.pi
        mesh.normals_split_custom_set_from_vertices(z_up(frame.normal))
    if frame.velocity is not None:
        velocity = z_up(frame.velocity)
        mesh.attributes.new("velocity", "FLOAT_VECTOR", "POINT").data.foreach_set(
            "vector", velocity.ravel())
        mesh.attributes.new("speed", "FLOAT", "POINT").data.foreach_set(
            "value", np.sqrt((velocity * velocity).sum(axis=1)))
    mesh.update()
    return mesh


def z_up_rotation(q):
    """A rotation [w, x, y, z] in Tidepool's axes as the same rotation in Blender's: c q c^-1,
    c the quarter turn about x that z_up() makes."""
    def mul(a, b):
        return (a[0] * b[0] - a[1] * b[1] - a[2] * b[2] - a[3] * b[3],
                a[0] * b[1] + a[1] * b[0] + a[2] * b[3] - a[3] * b[2],
                a[0] * b[2] - a[1] * b[3] + a[2] * b[0] + a[3] * b[1],
                a[0] * b[3] + a[1] * b[2] - a[2] * b[1] + a[3] * b[0])
    h = np.sqrt(0.5)
    return mul(mul((h, h, 0.0, 0.0), tuple(float(c) for c in q)), (h, -h, 0.0, 0.0))


def import_bodies(bpy, directory, collection):
    """The bodies of bodies_*.json: one object per body (its shape from the first file it
    is in), its location and rotation keyed on each file's frame. Returns the files' count."""
    scene = bpy.context.scene
    objects = []
    files = body_files(directory)
    for i, path in enumerate(files):
        _, bodies = read_bodies(path)
        for k, body in enumerate(bodies):
            if k == len(objects):
                vertices, triangles = body_local_surface(body, segments=32)
                mesh = bpy.data.meshes.new("body_%d" % k)
                mesh.from_pydata(z_up(vertices).tolist(), [], triangles.tolist())
                mesh.update()
                obj = bpy.data.objects.new("body_%d_%s" % (k, body["shape"]), mesh)
                obj.rotation_mode = "QUATERNION"
                collection.objects.link(obj)
                objects.append(obj)
            obj = objects[k]
            obj.location = z_up(np.array([body["position"]], dtype=np.float64))[0]
            obj.rotation_quaternion = z_up_rotation(body["orientation"])
            obj.keyframe_insert("location", frame=scene.frame_start + i)
            obj.keyframe_insert("rotation_quaternion", frame=scene.frame_start + i)
    return len(files)


def import_frames(bpy, directory, kind="auto"):
    """Imports the frames of `kind` ("points", "mesh", or "auto": every kind the directory
    holds) into one collection per kind, and the bodies where there are bodies files.
    Returns {kind: number of frames} ("bodies" among them)."""
    if kind not in ("auto",) + tuple(PREFIX):
        raise ValueError('KIND must be "auto", "points" or "mesh", not ' + repr(kind))
    kinds = [k for k in PREFIX if kind in ("auto", k) and frame_files(directory, k)]
    if not kinds:
        wanted = " or ".join(PREFIX[k] + "*.ply" for k in PREFIX if kind in ("auto", k))
        raise RuntimeError("no " + wanted + " files in " + directory)
    scene = bpy.context.scene
    counts, times = {}, []
    for k in kinds:
        files = frame_files(directory, k)
        collection = bpy.data.collections.new(COLLECTION[k])
        scene.collection.children.link(collection)
        kind_times = []
        for i, path in enumerate(files):
            name = os.path.splitext(os.path.basename(path))[0]
            if k == "points":
                time, rows = read_frame(path)
                mesh = frame_mesh(bpy, name, rows)
            else:
                frame = read_mesh_frame(path)
                time, mesh = frame.time, surface_mesh(bpy, name, frame)
            kind_times.append(time)
            obj = bpy.data.objects.new(name, mesh)
            collection.objects.link(obj)
            # Frame i of either kind on scene frame start + i: --export and --export-mesh
            # record at the same rate from the same steps, so their numbers agree.
            frame_number = scene.frame_start + i
            # Hidden before and after its own frame; boolean keys hold until the next key.
            for f, hidden in ((frame_number - 1, True), (frame_number, False),
                              (frame_number + 1, True)):
                obj.hide_viewport = obj.hide_render = hidden
                obj.keyframe_insert("hide_viewport", frame=f)
                obj.keyframe_insert("hide_render", frame=f)
        counts[k] = len(files)
        if len(kind_times) > len(times):
            times = kind_times
    if body_files(directory):
        collection = bpy.data.collections.new(COLLECTION["bodies"])
        scene.collection.children.link(collection)
        counts["bodies"] = import_bodies(bpy, directory, collection)
    scene.frame_end = scene.frame_start + max(counts.values()) - 1
    known = [t for t in times if t is not None]
    if len(known) > 1 and known[-1] > known[0]:
        scene.render.fps = max(1, round((len(known) - 1) / (known[-1] - known[0])))
        scene.render.fps_base = 1.0
    return counts


if __name__ == "__main__":
    import bpy

    for kind, frames in import_frames(bpy, FRAMES, KIND).items():
        print("tidepool: imported", frames, kind, "frames from", FRAMES)
