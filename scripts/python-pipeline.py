#!/usr/bin/env python3
"""The same job as `facescan process`, written the way a Python user would glue it together from
PyPI libraries (orjson, numpy, trimesh, meshoptimizer, Pillow). Used only to measure facescan
against it side by side (scripts/compare-python-pipeline, make bench).

usage: python-pipeline.py CAPTURE.json OUTDIR [--target N] [--units mm|m]
"""
import argparse, math, os, sys, time

import numpy as np
import orjson
import trimesh
import meshoptimizer
from PIL import Image, ImageDraw


def good(frame):
    t = frame.get("transform")
    d = frame.get("distance")
    if d is None and t is not None:
        d = math.sqrt(t[12] ** 2 + t[13] ** 2 + t[14] ** 2)
    if d is not None and not (0.3 <= d <= 0.5):
        return False
    if frame.get("trackingState", "normal") != "normal":
        return False
    if "ambientIntensity" in frame and frame["ambientIntensity"] <= 500:
        return False
    b = frame.get("blendShapes", {})
    smile = (b.get("mouthSmileLeft", 0) + b.get("mouthSmileRight", 0)) / 2
    return b.get("jawOpen", 0) < 0.4 and smile < 0.5 and b.get("browInnerUp", 0) < 0.5


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("capture")
    ap.add_argument("outdir")
    ap.add_argument("--target", type=int, default=5000)
    ap.add_argument("--units", choices=["mm", "m"], default="mm")
    a = ap.parse_args()
    os.makedirs(a.outdir, exist_ok=True)
    t0 = time.perf_counter()
    with open(a.capture, "rb") as f:
        doc = orjson.loads(f.read())
    faces = np.asarray(doc["topology"]["triangleIndices"], dtype=np.int64).reshape(-1, 3)
    total, n = None, 0
    for frame in doc["frames"]:
        if not good(frame):
            continue
        v = np.asarray(frame["vertices"], dtype=np.float64).reshape(-1, 3)
        total = v if total is None else total + v
        n += 1
        if n == 90:
            break
    mesh = trimesh.Trimesh(total / n, faces, process=False)
    trimesh.smoothing.filter_taubin(mesh, lamb=0.5, nu=0.53, iterations=4)
    vertices = np.ascontiguousarray(mesh.vertices, dtype=np.float32)
    indices = np.ascontiguousarray(mesh.faces.reshape(-1), dtype=np.uint32)
    out = np.zeros_like(indices)
    count = meshoptimizer.simplify(out, indices, vertices, target_index_count=6 * a.target, target_error=1.0)
    tri = out[:count].reshape(-1, 3)
    used, remapped = np.unique(tri, return_inverse=True)
    scale = 1000.0 if a.units == "mm" else 1.0
    result = trimesh.Trimesh(vertices[used] * scale, remapped.reshape(-1, 3), process=False)
    result.export(os.path.join(a.outdir, "face.stl"))
    result.export(os.path.join(a.outdir, "face.obj"))
    # Thumbnail: flat-shaded painter's algorithm, front view.
    size = 512
    xy = result.vertices[:, :2]
    lo, hi = xy.min(0), xy.max(0)
    s = (size - 20) / (hi - lo).max()
    px = (xy - lo) * s + 10
    px[:, 1] = size - px[:, 1]
    order = np.argsort(result.vertices[result.faces].mean(1)[:, 2])
    shade = np.clip(result.face_normals[:, 2], 0, 1)
    img = Image.new("RGBA", (size, size), (0, 0, 0, 0))
    draw = ImageDraw.Draw(img)
    for i in order:
        g = int(60 + 180 * shade[i])
        draw.polygon([tuple(p) for p in px[result.faces[i]]], fill=(g, g, g, 255))
    img.save(os.path.join(a.outdir, "face.png"))
    print(f"{n} frames, {len(result.vertices)} vertices, {time.perf_counter() - t0:.3f} s", file=sys.stderr)


if __name__ == "__main__":
    main()
