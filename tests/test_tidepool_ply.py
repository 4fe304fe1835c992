"""The PLY reader shared by the Blender and ParaView scripts (scripts/tidepool_ply.py), on
small frames written here byte for byte as the app writes them (src/sim/io/particle_io.cpp,
src/sim/io/mesh_io.cpp). The headers are checked with Python alone; the rows, and the two
scripts finding the module beside them, where numpy is installed (Blender and ParaView ship
it; the test machines need not). Run by CTest as Scripts.TidepoolPly."""
import os
import runpy
import struct
import subprocess
import sys
import tempfile
import unittest

sys.dont_write_bytecode = True  # no __pycache__ in the source tree
SCRIPTS = os.path.normpath(os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "scripts"))
sys.path.insert(0, SCRIPTS)
import tidepool_ply  # noqa: E402

try:
    import numpy  # noqa: F401
    HAVE_NUMPY = True
except ImportError:
    HAVE_NUMPY = False
NEEDS_NUMPY = "numpy is not installed here (Blender and ParaView ship it)"

PARTICLES = [(0, 0.1, 0.2, 0.3, 1.0, 0.0, -1.0), (1, 0.4, 0.5, 0.6, 0.0, 2.0, 0.0)]
VERTICES = [(0, 0, 0), (1, 0, 0), (0, 1, 0), (0, 0, 1)]
TRIANGLES = [(0, 2, 1), (0, 1, 3)]


def particle_frame(time=0.25):
    header = "ply\nformat binary_little_endian 1.0\ncomment Tidepool particles, rows in id order\n"
    if time is not None:
        header += "comment time %.9g s\n" % time
    header += ("element vertex %d\nproperty uint id\nproperty float x\nproperty float y\n"
               "property float z\nproperty float vx\nproperty float vy\nproperty float vz\n"
               "end_header\n") % len(PARTICLES)
    return header.encode() + b"".join(struct.pack("<I6f", *p) for p in PARTICLES)


def mesh_header(velocity=True, time=0.5, vertex_type="float"):
    header = "ply\nformat binary_little_endian 1.0\ncomment Tidepool water surface\n"
    if time is not None:
        header += "comment time %.9g s\n" % time
    names = ["x", "y", "z", "nx", "ny", "nz"] + (["vx", "vy", "vz"] if velocity else [])
    header += "element vertex %d\n" % len(VERTICES)
    header += "".join("property %s %s\n" % (vertex_type, n) for n in names)
    header += "element face %d\nproperty list uchar uint vertex_indices\nend_header\n" % len(TRIANGLES)
    return header.encode()


def mesh_frame(velocity=True, time=0.5, count=3, last_index=3):
    rows = b""
    for k, v in enumerate(VERTICES):
        values = list(v) + [0.0, 1.0, 0.0] + ([float(k), 0.0, 0.0] if velocity else [])
        rows += struct.pack("<%df" % len(values), *values)
    triangles = [TRIANGLES[0], TRIANGLES[1][:2] + (last_index,)]
    faces = b"".join(struct.pack("<B3I", count, *t) for t in triangles)
    return mesh_header(velocity, time) + rows + faces


class Frames(unittest.TestCase):
    def setUp(self):
        self.folder = tempfile.TemporaryDirectory()
        self.dir = self.folder.name

    def tearDown(self):
        self.folder.cleanup()

    def write(self, name, data):
        path = os.path.join(self.dir, name)
        with open(path, "wb") as f:
            f.write(data)
        return path

    def test_frame_files_and_times(self):
        for k in (2, 0, 1):
            self.write("frame_%05d.ply" % k, particle_frame(time=0.1 * k if k else None))
        self.write("mesh_00000.ply", mesh_frame())
        files = tidepool_ply.frame_files(self.dir)
        self.assertEqual([os.path.basename(f) for f in files],
                         ["frame_00000.ply", "frame_00001.ply", "frame_00002.ply"])
        self.assertEqual(len(tidepool_ply.frame_files(self.dir, "mesh")), 1)
        # The header's time, else the frame's index.
        self.assertEqual([tidepool_ply.frame_time(f, k) for k, f in enumerate(files)], [0.0, 0.1, 0.2])
        self.assertEqual(tidepool_ply.frame_time(files[0], 7), 7.0)

    def test_mesh_layout(self):
        for velocity in (True, False):
            data = mesh_frame(velocity)
            layout = tidepool_ply.mesh_layout(data, "m.ply")
            self.assertEqual(layout, (0.5, len(mesh_header(velocity)), 4, 2, 9 if velocity else 6))
        self.assertIsNone(tidepool_ply.mesh_layout(mesh_frame(time=None), "m.ply").time)

    def test_files_that_are_no_mesh_frame_are_refused_with_a_sentence(self):
        cases = [
            (b"solid cube\n", "m.ply: not a PLY file"),
            (mesh_frame().replace(b"binary_little_endian", b"ascii"), "m.ply: not a binary little-endian PLY"),
            (mesh_header(vertex_type="double"), "m.ply: vertex property x is not a float"),
            (particle_frame(), "m.ply: vertex property id is not a float"),
            (mesh_frame().replace(b"element face", b"element edge"),
             "m.ply: not a Tidepool mesh frame (x y z nx ny nz [vx vy vz], triangles)"),
        ]
        for data, says in cases:
            with self.assertRaises(ValueError) as refused:
                tidepool_ply.mesh_layout(data, "m.ply")
            self.assertEqual(str(refused.exception), says)

    @unittest.skipUnless(HAVE_NUMPY, NEEDS_NUMPY)
    def test_particle_rows(self):
        time, rows = tidepool_ply.read_frame(self.write("frame_00000.ply", particle_frame()))
        self.assertEqual(time, 0.25)
        self.assertEqual(list(rows["id"]), [0, 1])
        self.assertAlmostEqual(float(rows["y"][1]), 0.5, places=6)
        self.assertAlmostEqual(float(rows["vz"][0]), -1.0, places=6)

    @unittest.skipUnless(HAVE_NUMPY, NEEDS_NUMPY)
    def test_mesh_rows(self):
        frame = tidepool_ply.read_mesh_frame(self.write("mesh_00000.ply", mesh_frame()))
        self.assertEqual(frame.time, 0.5)
        self.assertEqual(frame.position.shape, (4, 3))
        self.assertEqual(frame.normal[2].tolist(), [0.0, 1.0, 0.0])
        self.assertEqual(frame.velocity[:, 0].tolist(), [0.0, 1.0, 2.0, 3.0])
        self.assertEqual(frame.triangles.tolist(), [list(t) for t in TRIANGLES])
        self.assertIsNone(tidepool_ply.read_mesh_frame(self.write("m.ply", mesh_frame(False))).velocity)
        cases = [(mesh_frame()[:-5], "truncated"), (mesh_frame(count=4), "a face that is not a triangle"),
                 (mesh_frame(last_index=4), "a face names a vertex that does not exist")]
        for data, says in cases:
            path = self.write("bad.ply", data)
            with self.assertRaises(ValueError) as refused:
                tidepool_ply.read_mesh_frame(path)
            self.assertEqual(str(refused.exception), path + ": " + says)

    def test_bodies_files_and_times(self):
        for k in (1, 0):
            self.write("bodies_%05d.json" % k, b'{"time": %g, "bodies": [{"shape": "sphere", '
                       b'"radius": 0.1, "position": [0, 0.5, 0], "orientation": [1, 0, 0, 0]}]}' % (0.1 * k))
        files = tidepool_ply.body_files(self.dir)
        self.assertEqual([os.path.basename(f) for f in files], ["bodies_00000.json", "bodies_00001.json"])
        time, bodies = tidepool_ply.read_bodies(files[1])
        self.assertEqual(time, 0.1)
        self.assertEqual(bodies[0]["shape"], "sphere")

    @unittest.skipUnless(HAVE_NUMPY, NEEDS_NUMPY)
    def test_body_surfaces_are_closed_outward_and_placed(self):
        import numpy as np

        def volume(vertices, triangles):  # Gauss: positive for outward triangles
            a, b, c = (vertices[triangles[:, i]] for i in range(3))
            return float(np.einsum("ij,ij->i", a, np.cross(b, c)).sum()) / 6

        turn = [np.cos(np.pi / 4), 0.0, np.sin(np.pi / 4), 0.0]  # a quarter turn about y
        cases = [({"shape": "box", "size": [0.4, 0.2, 0.6]}, 0.048, 1e-9),
                 ({"shape": "sphere", "radius": 0.1}, 4 / 3 * np.pi * 1e-3, 0.08),
                 ({"shape": "capsule", "radius": 0.1, "length": 0.3}, np.pi * 0.01 * 0.3 + 4 / 3 * np.pi * 1e-3, 0.08)]
        for body, exact, tolerance in cases:
            vertices, triangles = tidepool_ply.body_local_surface(body)
            self.assertAlmostEqual(volume(vertices, triangles) / exact, 1.0, delta=tolerance, msg=body["shape"])
            # Every edge is shared by two triangles, once each way: closed.
            edges = {(int(t[i]), int(t[(i + 1) % 3])) for t in triangles for i in range(3)}
            self.assertTrue(all((b, a) in edges for a, b in edges), body["shape"])
            placed = dict(body, position=[1.0, 2.0, 3.0], orientation=turn)
            world, _ = tidepool_ply.body_surface(placed)
            self.assertTrue(np.allclose(world.mean(axis=0) if body["shape"] == "box" else
                                        (world.min(axis=0) + world.max(axis=0)) / 2, [1, 2, 3], atol=1e-5))
        # The box turned a quarter about y: its x size (0.4) now lies along z.
        world, _ = tidepool_ply.body_surface(dict(cases[0][0], position=[0, 0, 0], orientation=turn))
        self.assertTrue(np.allclose(world.max(axis=0) - world.min(axis=0), [0.6, 0.2, 0.4], atol=1e-6))

    @unittest.skipUnless(HAVE_NUMPY, NEEDS_NUMPY)
    def test_mesh_bodies_are_read_from_their_file_and_placed_by_its_origin(self):
        import numpy as np

        # The shipped cup (OBJ) at scale 0.5, and a tetrahedron as an ascii PLY.
        cup = os.path.join(SCRIPTS, "..", "assets", "meshes", "cup.obj")
        body = {"shape": "mesh", "file": cup, "scale": 0.5, "position": [1.0, 2.0, 3.0],
                "orientation": [1.0, 0.0, 0.0, 0.0]}
        vertices, triangles = tidepool_ply.body_local_surface(body)
        self.assertEqual(len(triangles), 2800)
        self.assertTrue(np.allclose(vertices.min(axis=0), [-0.09, 0.0, -0.09], atol=1e-6))
        world, _ = tidepool_ply.body_surface(body)
        self.assertTrue(np.allclose(world.min(axis=0), [0.91, 2.0, 2.91], atol=1e-5), world.min(axis=0))
        ply = self.write("tet.ply", b"ply\nformat ascii 1.0\nelement vertex 4\nproperty float x\n"
                         b"property float y\nproperty float z\nelement face 1\nproperty list uchar int "
                         b"vertex_indices\nend_header\n0 0 0\n1 0 0\n0 1 0\n0 0 1\n4 0 1 2 3\n")
        vertices, triangles = tidepool_ply.read_mesh_file(ply, 2.0)
        self.assertEqual(vertices.shape, (4, 3))
        self.assertEqual(triangles.tolist(), [[0, 1, 2], [0, 2, 3]])
        self.assertEqual(float(vertices[3][2]), 2.0)

    @unittest.skipUnless(HAVE_NUMPY, NEEDS_NUMPY)
    def test_blender_rotations_are_the_same_turn_in_z_up_axes(self):
        import numpy as np

        blender = runpy.run_path(os.path.join(SCRIPTS, "blender_import_tidepool_frames.py"))
        q = np.array([0.9, 0.1, -0.3, 0.2])
        q /= np.linalg.norm(q)
        p = np.array([[0.3, -0.2, 0.7]])
        # Turning then converting the axes equals converting then turning by the converted q.
        expected = blender["z_up"](tidepool_ply.rotate(q, p))
        got = tidepool_ply.rotate(blender["z_up_rotation"](q), blender["z_up"](p))
        self.assertTrue(np.allclose(got, expected, atol=1e-6))

    @unittest.skipUnless(HAVE_NUMPY, NEEDS_NUMPY)
    def test_each_script_finds_the_module_beside_it(self):
        # As ParaView's Programmable Source runs them: runpy.run_path, from another folder
        # and with nothing of Tidepool on the path.
        self.write("mesh_00000.ply", mesh_frame())
        for script in ("paraview_tidepool_frames.py", "blender_import_tidepool_frames.py"):
            code = ("import runpy, sys; g = runpy.run_path(sys.argv[1]); "
                    "print(len(g['read_mesh_frame'](sys.argv[2]).triangles))")
            done = subprocess.run([sys.executable, "-c", code, os.path.join(SCRIPTS, script),
                                   os.path.join(self.dir, "mesh_00000.ply")],
                                  cwd=self.dir, capture_output=True, text=True,
                                  env=dict(os.environ, PYTHONDONTWRITEBYTECODE="1"))
            self.assertEqual(done.returncode, 0, script + ": " + done.stderr)
            self.assertEqual(done.stdout.strip(), "2", script)


if __name__ == "__main__":
    unittest.main(verbosity=2)
