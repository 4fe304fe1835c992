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
# Frame formats: particles (src/sim/io/particle_io.cpp): binary little-endian PLY, "comment time T s"
# in the header, then per particle: uint id, float x, y, z, vx, vy, vz. Surface
# (src/sim/io/mesh_io.cpp): binary little-endian PLY, "comment time T s" (optional), per
# vertex float x, y, z, nx, ny, nz and, from --export-mesh, vx, vy, vz; then per
# triangle uchar 3 and three uint vertex indices, counter-clockwise seen from outside the
# water (normals point out).
import collections
import glob
import os

import numpy as np

FRAMES = "/path/to/tidepool-export-20261122-103015"  # the directory of the frames
KIND = "auto"  # "auto": frame_*.ply and/or mesh_*.ply, whichever are there; "points"; "mesh"

# File name prefix and collection name of each kind.
PREFIX = {"points": "frame_", "mesh": "mesh_"}
COLLECTION = {"points": "tidepool frames", "mesh": "tidepool surface"}

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


# One surface frame, in Tidepool's axes (y up): positions, normals (unit, pointing out of
# the water) and velocities (None when the file has none) as (N, 3) float32 arrays,
# triangles as a (T, 3) uint32 array.
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


def frame_files(directory, kind):
    return sorted(glob.glob(os.path.join(directory, PREFIX[kind] + "*.ply")))


def import_frames(bpy, directory, kind="auto"):
    """Imports the frames of `kind` ("points", "mesh", or "auto": every kind the directory
    holds) into one collection per kind. Returns {kind: number of frames}."""
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
