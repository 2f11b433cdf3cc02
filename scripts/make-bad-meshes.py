#!/usr/bin/env python3
"""Generates the bad-mesh corpus Tests/FacescanCLITests/BadMeshes/ (Python standard library only).

Each file is a small mesh (PLY ASCII/binary, OFF, OBJ, STL ASCII/binary) broken in one way that a
hostile or careless writer produces. manifest.json lists, for each file, the exit code every
mesh-reading command (inspect, render, convert) must end with and a piece of the one-line error
message that names the element (vertex/face index, line or byte).

Usage: scripts/make-bad-meshes.py [OUT_DIR]   (default: Tests/FacescanCLITests/BadMeshes)
"""
import json
import os
import struct
import sys

PLY_HEAD = ("ply\nformat ascii 1.0\nelement vertex 3\nproperty float x\nproperty float y\nproperty float z\n"
            "element face %d\nproperty list uchar int vertex_indices\nend_header\n0 0 0\n1 0 0\n0 1 0\n")


def ply_ascii(faces):
    return (PLY_HEAD % len(faces) + "".join(f + "\n" for f in faces)).encode()


def ply_binary(nvert, faces_bytes, nfaces):
    h = ("ply\nformat binary_little_endian 1.0\nelement vertex %d\nproperty float x\nproperty float y\nproperty float z\n"
         "element face %d\nproperty list uchar int vertex_indices\nend_header\n" % (nvert, nfaces)).encode()
    return h + struct.pack("<9f", 0, 0, 0, 1, 0, 0, 0, 1, 0) + faces_bytes


def stl_ascii(facets):
    out = "solid t\n"
    for verts in facets:
        out += "facet normal 0 0 1\nouter loop\n" + "".join("vertex %s\n" % v for v in verts) + "endloop\nendfacet\n"
    return (out + "endsolid t\n").encode()


TRI = ["0 0 0", "1 0 0", "0 1 0"]
CASES = [
    # (file, kind, content, exit, contains)
    ("ply-index-out-of-range.ply", "PLY face index past the vertex count", ply_ascii(["3 0 1 7"]), 2,
     "face 0: vertex index 7 out of range (3 vertices)"),
    ("ply-index-negative.ply", "PLY negative face index", ply_ascii(["3 0 1 2", "3 0 -1 2"]), 2,
     "face 1: vertex index -1 out of range"),
    ("ply-index-huge.ply", "PLY face index 2^31-1", ply_ascii(["3 0 1 2147483647"]), 2,
     "face 0: vertex index 2147483647 out of range"),
    ("ply-list-255-truncated.ply", "binary PLY list count 255, then the file ends",
     ply_binary(3, struct.pack("<B3i", 3, 0, 1, 2) + struct.pack("<B3i", 255, 0, 1, 2), 2), 2,
     "element 'face' record 1: list of 255 values runs past the end of the file"),
    ("ply-vertices-truncated.ply", "binary PLY declaring 1000 vertices, holding 3",
     ply_binary(1000, b"", 0), 2, "element 'vertex': 1000 records of 12 bytes run past the end of the file"),
    ("ply-faces-count-huge.ply", "binary PLY declaring 2^31-1 faces",
     ply_binary(3, struct.pack("<B3i", 3, 0, 1, 2), 2147483647), 2, "element 'face': 2147483647 records cannot fit"),
    ("ply-binary-index-out-of-range.ply", "binary PLY face index past the vertex count",
     ply_binary(3, struct.pack("<B3i", 3, 0, 1, 3), 1), 2, "face 0: vertex index 3 out of range (3 vertices)"),
    ("ply-no-end-header.ply", "PLY header that never ends",
     b"ply\nformat ascii 1.0\nelement vertex 3\n" + b"comment x\n" * 10000, 2, "end_header"),
    ("off-index-out-of-range.off", "OFF face index past the vertex count",
     b"OFF\n3 1 0\n0 0 0\n1 0 0\n0 1 0\n3 0 1 9\n", 2, "line 6: face 0: vertex index 9 out of range (3 vertices)"),
    ("off-index-negative.off", "OFF negative face index",
     b"OFF\n# comment\n3 2 0\n0 0 0\n1 0 0\n0 1 0\n3 0 1 2\n3 0 -2 1\n", 2, "line 8: face 1: vertex index -2 out of range"),
    ("obj-index-out-of-range.obj", "OBJ face index past the vertex count",
     b"v 0 0 0\nv 1 0 0\nv 0 1 0\nf 1 2 4\n", 2, "line 4: index 4 out of range (3 defined)"),
    ("obj-index-zero.obj", "OBJ face index 0", b"v 0 0 0\nv 1 0 0\nv 0 1 0\nf 0 1 2\n", 2, "line 4: bad index '0'"),
    ("obj-nan.obj", "OBJ vertex coordinate nan", b"v 0 0 0\nv nan 0 0\nv 0 1 0\nf 1 2 3\n", 2,
     "line 2: expected a finite number"),
    ("obj-continued-bad-index.obj", "OBJ bad index after a line continuation",
     b"v 0 0 0\nv 1 0 0\nv 0 1 0\nf 1 2 \\\n 3\nf 1 2 x\n", 2, "line 6: bad index 'x'"),
    ("obj-no-faces.obj", "OBJ with vertices and no face", b"v 0 0 0\nv 1 0 0\nv 0 1 0\n", 2, "no triangles"),
    ("stl-facet-4-vertices.stl", "ASCII STL facet with 4 vertices",
     stl_ascii([TRI + ["1 1 0"], TRI]), 2, "line 2: facet 0 has 4 vertices"),
    ("stl-facet-2-vertices.stl", "ASCII STL facet with 2 vertices",
     stl_ascii([TRI, TRI[:2], TRI]), 2, "facet 1 has 2 vertices"),
    ("stl-ascii-bad-number.stl", "ASCII STL vertex with two numbers",
     stl_ascii([["0 0 0", "1 0", "0 1 0"]]), 2, "line 5: expected three numbers"),
    ("stl-binary-nan.stl", "binary STL with a NaN coordinate",
     b"\0" * 80 + struct.pack("<I", 1) + struct.pack("<12fH", 0, 0, 1, 0, 0, 0, float("nan"), 0, 0, 0, 1, 0, 0), 2,
     "non-finite coordinate"),
    ("off-fuzz-abort.off", "OFF that made assimp's triangulation abort the process (found by make fuzz)",
     b"OFF\n4 2 0\n0 0 0\n1 0 0 1 0\n3 0 2 2\n4 0 1 2 3\n", 2,
     # Refused before assimp now: it declares more records than it has lines (once "face 0: no vertex indices").
     "line 2: 4 vertices and 2 faces declared, more than the 4 lines that follow"),
    ("ply-bad-number.ply", "PLY with a coordinate that is not a number (found by make fuzz: leaks inside assimp)",
     ply_ascii(["3 0 1 2"]).replace(b"1 0 0\n", b"1 ! 0\n"), 2, "as a real number"),
    ("ply-garbled-header.ply", "binary PLY whose header is garbage (found by make fuzz: SIGSEGV inside assimp)",
     open(os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "Tests", "Fuzz", "corpus", "assimp",
                       "ply-garbled-header-segv"), "rb").read()[1:], 2, "'end_header' is not followed by a line end"),
    ("stl-neither.stl", "STL that is neither binary nor ASCII", b"\1" * 100, 2, "not an STL file"),
    # assimp reads header lines forever (found by make fuzz: over 10 s) unless an end_header line ends the header.
    ("ply-magic-capitalised-no-end-header.ply", "PLY magic written 'Ply', header never ends (found by make fuzz: assimp busy for ever)",
     b"Ply\nformat ascii 1.0\nelement vertex 3\nproperty float x\nproperty float y\nproperty float z\n0 0 0\n", 2,
     "PLY header without end_header"),
    ("ply-magic-after-nul-line-no-end-header.ply",
     "PLY whose magic follows a NUL and a line end, header never ends (found by make fuzz: assimp busy for ever)",
     b"\0\nply\nformat ascii 1.0\nelement vertex 3\nproperty float x\nproperty float y\nproperty float z\n"
     b"nd_header\n0 0 0\n1 0 0\n0 1 0\n", 2, "PLY header without end_header"),
    ("ply-end-header-in-comment.ply", "PLY whose only end_header is inside a comment (assimp busy for ever)",
     PLY_HEAD.replace("end_header\n", "comment end_header\n").encode() % 1 + b"3 0 1 2\n", 2,
     "PLY header line 9: 'end_header' must begin its own line"),
    ("ply-end-header-after-cr.ply", "PLY whose end_header follows a lone carriage return (assimp busy for ever)",
     PLY_HEAD.replace("end_header\n", "\rend_header\n").encode() % 1 + b"3 0 1 2\n", 2,
     "PLY header line 9: 'end_header' must begin its own line"),
    # Counts assimp trusts (found by make fuzz: >60 s and 3 GB for 80 bytes): they must fit in the lines that follow.
    ("off-count-63-digits.off", "OFF without keyword whose vertex count has 63 digits (found by make fuzz: assimp wraps it to 954 million)",
     open(os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "Tests", "Fuzz", "corpus", "assimp",
                       "off-count-63-digits-timeout"), "rb").read()[1:], 2, "line 1: 888888888888888888888888"),
    ("off-keyword-glued-count.off", "OFF keyword running into an 11-digit vertex count (found by make fuzz: >30 s and 2.5 GB)",
     b"OFF99999999999\n3 1 0\n0 0 0\n1 0 0\n0 1 0\n3 0 1 2\n", 2,
     "line 1: expected the OFF keyword or the vertex and face counts, found 'OFF99999999999'"),
    ("off-keyword-glued-index-out-of-range.off", "OFF keyword running into the counts, face index out of range (found by make fuzz: SIGSEGV inside assimp)",
     b"OFF3 1 0\n0 0 0\n1 0 0\n0 1 0\n3 0 1 5\n", 2, "line 1: expected the OFF keyword or the vertex and face counts, found 'OFF3'"),
    ("off-zero-corner-face-then-lines.off", "OFF whose only face has no corner, more lines after it (found by make fuzz: assimp 5.2 "
     "does not count such a face, wraps its face count and crashes)",
     b"OFF\n1 1 0\n4 2 0\n0 0 0\npk\n3 1 1 0\n", 2, "the file holds no triangles"),
    ("off-index-not-a-number.off", "OFF face whose index is a word",
     b"OFF\n3 1 0\n0 0 0\n1 0 0\n0 1 0\n3 0 1 two\n", 2, "line 6: face 0: bad vertex index 'two'"),
    ("off-face-short.off", "OFF face with fewer indices than its corner count",
     b"OFF\n3 1 0\n0 0 0\n1 0 0\n0 1 0\n4 0 1 2\n", 2, "line 6: face 0: expected a corner count and that many indices"),
    ("off-vertex-nan.off", "OFF vertex with a NaN coordinate",
     b"OFF\n3 1 0\n0 0 0\n1 nan 0\n0 1 0\n3 0 1 2\n", 2, "line 4: vertex 1: expected 3 finite coordinates"),
    ("off-binary.off", "binary OFF",
     b"OFF BINARY\n" + struct.pack(">iii", 3, 1, 0) + struct.pack(">9f", 0, 0, 0, 1, 0, 0, 0, 1, 0), 2,
     "line 1: binary OFF is not supported"),
    ("off-vertex-count-huge.off", "OFF declaring 999 999 999 vertices in 6 lines",
     b"OFF\n999999999 1 0\n0 0 0\n1 0 0\n0 1 0\n3 0 1 2\n", 2,
     "line 2: 999999999 vertices and 1 faces declared, more than the 4 lines that follow"),
    ("off-face-count-huge.off", "OFF declaring 99 999 999 faces",
     b"OFF\n3 99999999\n0 0 0\n1 0 0\n0 1 0\n3 0 1 2\n", 2, "line 2: 3 vertices and 99999999 faces declared"),
    ("ply-ascii-vertex-count-huge.ply", "ASCII PLY declaring 999 999 999 vertices",
     PLY_HEAD.replace("vertex 3", "vertex 999999999").encode() % 1 + b"3 0 1 2\n", 2,
     "PLY header line 3: element 'vertex' declares 999999999 records, more than the 4 lines after the header hold"),
    ("ply-ascii-face-count-huge.ply", "ASCII PLY declaring 999 999 999 faces",
     PLY_HEAD.encode() % 999999999 + b"3 0 1 2\n", 2, "PLY header line 7: element 'face' declares 999999999 records"),
]


def main():
    out = sys.argv[1] if len(sys.argv) > 1 else os.path.join(os.path.dirname(__file__), "..", "Tests", "FacescanCLITests", "BadMeshes")
    os.makedirs(out, exist_ok=True)
    manifest = {"comment": "Generated by scripts/make-bad-meshes.py. Every mesh command (inspect, render, convert) must "
                           "end with `exit` and one line on stderr naming the file and containing `contains`.",
                "cases": []}
    for name, kind, content, code, contains in CASES:
        with open(os.path.join(out, name), "wb") as f:
            f.write(content)
        manifest["cases"].append({"file": name, "kind": kind, "exit": code, "contains": contains})
    with open(os.path.join(out, "manifest.json"), "w") as f:
        json.dump(manifest, f, indent=1)
        f.write("\n")


if __name__ == "__main__":
    main()
