"""What lib3mf (the 3MF Consortium's library, 2.x, PyPI's `lib3mf`) reads from a 3MF package.

Usage: check-3mf.py PACKAGE OUTDIR. Prints JSON: lib3mf's version, every mesh object's vertices
and triangles, and per triangle the texture coordinates of its three corners with the id of the
texture2d they refer to (null for a triangle without texture coordinates); each texture2d's image
is written to OUTDIR/texture-<id>.png and named in "textures" with its path in the package and its
content type. ColourClientTests compares it with what facescan meant to write.
"""
import json
import os
import sys

import lib3mf

package, outdir = sys.argv[1], sys.argv[2]
wrapper = lib3mf.get_wrapper()
model = wrapper.CreateModel()
model.QueryReader("3mf").ReadFromFile(package)

textures = {}
it = model.GetTexture2Ds()
while it.MoveNext():
    t = it.GetCurrentTexture2D()
    att = t.GetAttachment()
    path = os.path.join(outdir, "texture-%d.png" % t.GetResourceID())
    with open(path, "wb") as f:
        f.write(bytes(att.WriteToBuffer()))
    textures[t.GetResourceID()] = {"file": path, "packagePath": att.GetPath(), "contentType": int(t.GetContentType())}

objects = []
it = model.GetMeshObjects()
while it.MoveNext():
    m = it.GetCurrentMeshObject()
    vertices = [list(v.Coordinates) for v in m.GetVertices()]
    triangles = [list(t.Indices) for t in m.GetTriangleIndices()]
    corners = []
    groups = {}
    for p in m.GetAllTriangleProperties():
        rid = p.ResourceID
        if rid == 0:
            corners.append(None)
            continue
        if rid not in groups:
            try:
                groups[rid] = model.GetTexture2DGroupByID(rid)
            except lib3mf.ELib3MFException:
                groups[rid] = None
        g = groups[rid]
        if g is None:
            corners.append(None)
            continue
        uv = [g.GetTex2Coord(pid) for pid in p.PropertyIDs]
        corners.append({"texture": g.GetTexture2D().GetResourceID(), "uv": [[c.U, c.V] for c in uv]})
    objects.append({"name": m.GetName(), "vertices": vertices, "triangles": triangles, "corners": corners})

print(json.dumps({
    "version": list(wrapper.GetLibraryVersion()),
    "textures": {str(k): v for k, v in textures.items()},
    "objects": objects,
}))
