"""The colours trimesh (PyPI) finds on facescan's coloured outputs at the same surface points.

Usage: sample-colours.py GRID FILE:SCALE... Each FILE (OBJ with its MTL and texture, GLB, PLY)
is loaded by trimesh as a user's script would (trimesh.load), its coordinates multiplied by
SCALE (1000 for GLB's metres, so all are millimetres). Rays along -z (the face looks along +z)
from a GRID x GRID lattice over the first file's x-y bounding box (inset by 5 %) hit each
mesh; at the first hit the colour is what trimesh's own visual gives: a texture's (the UV
interpolated across the triangle, bilinear in the image: trimesh.visual.color.
uv_to_interpolated_color) or vertex colours' (interpolated across the triangle). Prints JSON:
per file the visual's kind, the image size for a texture, and per ray [x, y, z, r, g, b,
front] of its hit (front: the triangle faces the ray's origin), or null when it missed.
"""
import json
import sys

import numpy as np
import trimesh
from trimesh.visual.color import uv_to_interpolated_color

grid = int(sys.argv[1])
files = []
for arg in sys.argv[2:]:
    path, scale = arg.rsplit(":", 1)
    files.append((path, float(scale)))


def load(path, scale):
    m = trimesh.load(path, process=False)
    if isinstance(m, trimesh.Scene):
        m = m.to_mesh()
    m.apply_scale(scale)
    return m


meshes = [load(p, s) for p, s in files]
lo, hi = meshes[0].bounds
inset = 0.05 * (hi - lo)
xs = np.linspace(lo[0] + inset[0], hi[0] - inset[0], grid)
ys = np.linspace(lo[1] + inset[1], hi[1] - inset[1], grid)
top = max(m.bounds[1][2] for m in meshes) + 10
origins = np.array([[x, y, top] for y in ys for x in xs])
directions = np.tile([0.0, 0.0, -1.0], (len(origins), 1))

out = {}
for (path, _), m in zip(files, meshes):
    locations, rays, tris = m.ray.intersects_location(origins, directions, multiple_hits=False)
    result = [None] * len(origins)
    kind = m.visual.kind
    info = {"kind": kind}
    if kind == "texture":
        mat = m.visual.material
        image = getattr(mat, "image", None) or getattr(mat, "baseColorTexture", None)
        info["image"] = list(image.size) if image is not None else None
    for loc, r, t in zip(locations, rays, tris):
        face = m.faces[t]
        bary = trimesh.triangles.points_to_barycentric(m.triangles[t][None], loc[None])[0]
        if kind == "texture" and image is not None:
            uv = (m.visual.uv[face] * bary[:, None]).sum(axis=0)
            c = uv_to_interpolated_color(uv[None], image)[0][:3]
        elif kind == "vertex":
            c = (m.visual.vertex_colors[face][:, :3].astype(float) * bary[:, None]).sum(axis=0).round()
        else:
            c = [-1, -1, -1]
        front = bool(m.face_normals[t][2] > 0)
        result[r] = [float(loc[0]), float(loc[1]), float(loc[2]), int(c[0]), int(c[1]), int(c[2]), front]
    info["hits"] = result
    out[path] = info
print(json.dumps(out))
