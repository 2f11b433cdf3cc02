#!/usr/bin/env python3
"""Write scripts/ict-arkit-topology.json: an ARKit-sized (1 220-vertex) face topology on the ICT face.

usage: scripts/make-arkit-topology.py DATA_DIR [OUT.json]     (needs pymeshlab: pip install pymeshlab)

The ICT-FaceKit neutral face (DATA_DIR/ict-face/neutral.obj, 9 409 vertices) decimated with
quadric edge collapses that keep vertex positions (`optimalplacement=False`): every kept vertex
is a vertex of the dense face, so it lies on the dense surface for any identity mix, as a
tracker's vertices lie on the face it tracks. The face count is searched until exactly 1 220
vertices remain. The output lists, for each coarse vertex, its index in the dense mesh
(`denseVertex`) and the coarse triangles (`triangles`, counter-clockwise from outside);
scripts/make-samples.py builds the `ict-arkit` sample from it with the standard library alone.
"""
import json
import os
import sys

import numpy as np
import pymeshlab

TARGET = 1220


def decimate(path, faces):
    ms = pymeshlab.MeshSet()
    ms.load_new_mesh(path)
    ms.meshing_decimation_quadric_edge_collapse(
        targetfacenum=faces, optimalplacement=False, preservenormal=True, preserveboundary=True,
        boundaryweight=2.0, qualitythr=0.5, autoclean=True)
    ms.meshing_remove_unreferenced_vertices()
    m = ms.current_mesh()
    return m.vertex_matrix(), m.face_matrix()


def main():
    if len(sys.argv) not in (2, 3):
        sys.exit(__doc__.split('\n\n')[1])
    data = sys.argv[1]
    out = sys.argv[2] if len(sys.argv) == 3 else os.path.join(os.path.dirname(__file__), 'ict-arkit-topology.json')
    path = os.path.join(data, 'ict-face', 'neutral.obj')
    dense = []
    for line in open(path):
        if line.startswith('v '):
            dense.append(tuple(float(x) for x in line.split()[1:4]))
    index = {}
    for i, v in enumerate(dense):
        index.setdefault(v, i)
    lo, hi = 1500, 2600
    while True:
        faces = (lo + hi) // 2
        V, F = decimate(path, faces)
        if len(V) == TARGET or hi - lo <= 1:
            break
        if len(V) < TARGET:
            lo = faces
        else:
            hi = faces
    if len(V) != TARGET:
        sys.exit(f'reached {len(V)} vertices, not {TARGET}')
    # pymeshlab keeps the kept vertices' coordinates bit for bit (doubles read from the OBJ text).
    dv = [index[tuple(float(c) for c in v)] for v in V]
    doc = {'source': 'ICT-FaceKit neutral.obj, quadric edge collapse keeping vertex positions (pymeshlab)',
           'denseVertex': dv, 'triangles': [int(x) for x in np.asarray(F).ravel()]}
    with open(out, 'w') as f:
        json.dump(doc, f, separators=(',', ':'))
        f.write('\n')
    print(f'{out}: {len(V)} vertices, {len(F)} triangles (target faces {faces})', file=sys.stderr)


if __name__ == '__main__':
    main()
