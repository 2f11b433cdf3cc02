#!/usr/bin/env python3
"""Generates the bad-input corpus Tests/FacescanCLITests/BadInputs/ (Python standard library only).

Every file is derived from one small valid capture (a 4x4 grid patch, 16 vertices, 18 triangles,
three frames: two with `vertices`, one with `verticesBase64`), broken in exactly one way.
manifest.json lists, for each file, how it is fed (`file` argument or `stdin`), the expected exit
code, and the frame index and field the one-line error message must name (null: must not name a
frame / no field required).

Usage: scripts/make-bad-inputs.py [OUT_DIR]   (default: Tests/FacescanCLITests/BadInputs)
"""
import base64
import json
import os
import struct
import sys

N = 4
TRIS = []
for y in range(N - 1):
    for x in range(N - 1):
        a = y * N + x
        b, c = a + 1, a + N
        d = c + 1
        TRIS += [a, b, c, c, b, d]
NV = N * N


def grid(dz=0.0):
    xyz = []
    for y in range(N):
        for x in range(N):
            u, v = x / (N - 1) - 0.5, y / (N - 1) - 0.5
            xyz += [round(u * 0.15, 6), round(v * 0.2, 6), round(0.05 - (u * u + v * v) * 0.1 + dz, 6)]
    return xyz


def nums(values):
    return "[" + ",".join(repr(v) if isinstance(v, float) else str(v) for v in values) + "]"


def b64floats(values):
    return '"' + base64.b64encode(struct.pack("<%df" % len(values), *values)).decode() + '"'


V0 = grid()
V1 = grid(0.0005)
V2 = grid(-0.0005)
UVS = [c for y in range(N) for x in range(N) for c in (x / (N - 1), y / (N - 1))]
TOPO = '{"triangleIndices":%s,"textureCoordinates":%s}' % (nums(TRIS), nums(UVS))
SETTINGS = '{"targetVertexCount":16,"smoothingIterations":1}'
GOOD = {
    "transform": "[1,0,0,0,0,1,0,0,0,0,1,0,0.01,0.02,-0.4,1]",
    "trackingState": '"normal"',
    "ambientIntensity": "900",
    "blendShapes": '{"jawOpen":0.05,"mouthSmileLeft":0.1}',
}


def frame(vertices=None, b64=None, **over):
    """A frame as JSON text; `over` maps keys to raw JSON (None removes the key)."""
    f = {}
    if b64 is not None:
        f["verticesBase64"] = b64
    elif vertices == "":
        pass  # neither vertices nor verticesBase64
    else:
        f["vertices"] = vertices if vertices is not None else nums(V0)
    f.update(GOOD)
    for k, v in over.items():
        if v is None:
            f.pop(k, None)
        else:
            f[k] = v
    return "{" + ",".join('"%s":%s' % (k, v) for k, v in f.items()) + "}"


FRAMES = [frame(nums(V0), timestamp="0"), frame(nums(V1), timestamp="0.033"), frame(b64=b64floats(V2), timestamp="0.066")]


def header(**over):
    h = {"format": '"facescan-capture"', "version": "1", "settings": SETTINGS, "topology": TOPO}
    for k, v in over.items():
        if v is None:
            h.pop(k, None)
        else:
            h[k] = v
    return h


def doc(frames=None, frames_first=False, extra=None, **over):
    """A JSON document; `frames` is a list of frame texts (or a raw string), `over` overrides header keys."""
    h = header(**over)
    fr = frames if frames is not None else FRAMES
    ftext = fr if isinstance(fr, str) else "[" + ",".join(fr) + "]"
    members = ['"%s":%s' % (k, v) for k, v in h.items()]
    if frames_first:
        members.insert(0, '"frames":' + ftext)
    else:
        members.append('"frames":' + ftext)
    if extra:
        members += extra
    return "{" + ",".join(members) + "}"


def ndjson(frames=None, **over):
    h = header(**over)
    lines = ["{" + ",".join('"%s":%s' % (k, v) for k, v in h.items()) + "}"]
    lines += frames if frames is not None else FRAMES
    return "\n".join(lines) + "\n"


def frames_with(i, f):
    out = list(FRAMES)
    out[i] = f
    return out


def cut_after(text, marker, extra=0, occurrence=1):
    """`text` truncated just after the `occurrence`-th `marker` (+ `extra` bytes)."""
    p = -1
    for _ in range(occurrence):
        p = text.index(marker, p + 1)
    return text[: p + len(marker) + extra]


CASES = []


def case(name, content, exit=2, frame=None, field=None, feed="file", kind="", contains=None, json_report=False):
    if isinstance(content, str):
        content = content.encode("utf-8", "surrogatepass")
    CASES.append(dict(name=name, content=content, exit=exit, frame=frame, field=field, feed=feed,
                      kind=kind, contains=contains, json=json_report))


def build():
    D = doc()
    ND = ndjson()
    # --- not a capture at all
    case("empty.json", b"", kind="empty file", contains="empty input")
    case("whitespace-only.json", " \n\t\r\n  ", kind="whitespace only", contains="empty input")
    case("not-json.json", "hello, world\n", kind="not JSON")
    case("binary-garbage.json", bytes(range(256)), kind="binary bytes")
    case("utf8-bom.json", b"\xef\xbb\xbf" + D.encode(), kind="byte-order mark before the object")
    case("top-array.json", "[" + D + "]", kind="JSON array at top level")
    case("top-number.json", "42\n", kind="number at top level")
    case("top-string.json", '"facescan-capture"\n', kind="string at top level")
    case("top-null.json", "null", kind="null at top level")
    case("empty-object.json", "{}", field="format", kind="empty object")
    case("key-not-string.json", "{format:\"facescan-capture\"}", kind="unquoted key")
    case("missing-colon.json", D.replace('"version":1', '"version" 1'), kind="missing ':'", contains="after \"version\"")
    # --- truncation
    case("trunc-mid-number.json", cut_after(D, '"vertices":[', 200, occurrence=2)
         .rstrip("0123456789.-e,") + "0.03", frame=1, field="vertices", kind="truncated mid-number")
    case("trunc-mid-string.json", cut_after(D, '"trackingState":"no', occurrence=2), frame=1, field="trackingState",
         kind="truncated mid-string")
    case("trunc-mid-frame.json", cut_after(D, '"ambientIntensity":900,', occurrence=2), frame=1,
         kind="truncated mid-frame (before a key)")
    case("trunc-mid-topology.json", cut_after(D, '"triangleIndices":[0,1,4,4,1,5,'), field="topology.triangleIndices",
         kind="truncated mid-topology")
    case("trunc-before-frames-end.json", D[:-2], frame=3, field="frames", kind="truncated after the last frame")
    case("trunc-mid-header-ndjson.ndjson", cut_after(ND, '"settings":{"targetVertexCount":'), field="settings.targetVertexCount",
         kind="NDJSON truncated in the header line")
    case("trunc-after-header-ndjson.ndjson", ND.split("\n")[0] + "\n" + '{"vertices":[0.1,', frame=0, field="vertices",
         kind="NDJSON truncated after the header line (in the first frame)")
    case("trunc-stdin.json", cut_after(D, '"vertices":[', 100, occurrence=2), feed="stdin", frame=1,
         field="vertices", kind="document truncated on standard input (stdin closed early)")
    case("trunc-stdin-frames-first.json", doc(frames_first=True)[:300], feed="stdin", frame=0, field="vertices",
         kind="frames-first document truncated on standard input (spooled)")
    # --- header
    case("format-wrong.json", doc(format='"facescan-captur"'), field="format", kind="wrong format")
    case("format-number.json", doc(format="1"), field="format", kind="format not a string")
    case("format-missing.json", doc(format=None), field="format", kind="format missing")
    case("version-2.json", doc(version="2"), field="version", kind="wrong version")
    case("version-1.5.json", doc(version="1.5"), field="version", kind="fractional version")
    case("version-missing.json", doc(version=None), field="version", kind="version missing")
    case("version-string.json", doc(version='"1"'), field="version", kind="version as a string")
    case("topology-missing.json", doc(topology=None), field="topology", kind="topology missing")
    case("topology-not-object.json", doc(topology=nums(TRIS)), field="topology", kind="topology not an object")
    case("topology-twice-after-frames.json", doc(extra=['"topology":' + TOPO]), field="topology",
         kind="topology repeated after the frames")
    # --- triangle indices
    T = lambda tris: doc(topology='{"triangleIndices":%s}' % tris)
    case("tri-missing.json", doc(topology='{"textureCoordinates":%s}' % nums(UVS)), field="topology.triangleIndices",
         kind="triangleIndices missing")
    case("tri-empty.json", T("[]"), field="topology.triangleIndices", kind="triangleIndices empty")
    case("tri-not-array.json", T('"0,1,4"'), field="topology.triangleIndices", kind="triangleIndices not an array")
    case("tri-string.json", T('[0,"1",4]'), field="topology.triangleIndices", kind="string in triangleIndices")
    case("tri-negative.json", T("[0,1,-4]"), field="topology.triangleIndices", kind="negative index")
    case("tri-fraction.json", T("[0,1,4.5]"), field="topology.triangleIndices", kind="non-integer index")
    case("tri-out-of-range.json", T("[0,1,%d]" % NV), field="topology.triangleIndices", kind="index out of range")
    case("tri-not-multiple-of-3.json", T("[0,1,4,4]"), field="topology.triangleIndices", kind="count not a multiple of 3")
    case("tri-1e30.json", T("[0,1,1e30]"), field="topology.triangleIndices", kind="index 1e30")
    case("tri-null.json", T("[0,1,null]"), field="topology.triangleIndices", kind="null in triangleIndices")
    case("uv-wrong-length.json", doc(topology='{"triangleIndices":%s,"textureCoordinates":%s}' % (nums(TRIS), nums(UVS[:-2]))),
         field="topology.textureCoordinates", kind="textureCoordinates of the wrong length")
    case("uv-not-array.json", doc(topology='{"triangleIndices":%s,"textureCoordinates":{}}' % nums(TRIS)),
         field="topology.textureCoordinates", kind="textureCoordinates not an array")
    # --- frames container
    case("frames-not-array.json", doc(frames="{}"), field="frames", kind="frames not an array")
    case("frame-not-object.json", doc(frames=[FRAMES[0], "[1,2,3]"]), frame=1, kind="frame not an object")
    case("frames-trailing-comma.json", doc(frames="[" + FRAMES[0] + ",]"), frame=1,
         kind="trailing comma in frames")
    case("frames-duplicate.json", doc(extra=['"frames":[' + FRAMES[0] + "]"]), field="frames", kind="duplicate frames")
    case("frames-duplicate-frames-first.json", doc(frames_first=True, extra=['"frames":[' + FRAMES[0] + "]"]),
         field="frames", kind="duplicate frames, first before the header")
    case("frames-missing-comma.json", doc(frames="[" + FRAMES[0] + FRAMES[1] + "]"), frame=1, field="frames",
         kind="missing ',' between frames")
    case("trailing-garbage.json", D + "\nx", kind="garbage after the document", contains="after the capture")
    case("trailing-second-document.json", D + D, kind="two documents")
    # --- vertices
    VF = lambda i, text: doc(frames=frames_with(i, frame(text)))
    case("vertices-not-multiple-of-3.json", VF(0, nums(V0[:-1])), frame=0, field="vertices", kind="vertex array not a multiple of 3")
    case("vertices-count-differs.json", VF(1, nums(V1[:-3])), frame=1, field="vertices", kind="vertex count differs between frames")
    case("vertices-empty.json", VF(1, "[]"), frame=1, field="vertices", kind="vertices empty")
    case("vertices-not-array.json", VF(1, '"0.1,0.2"'), frame=1, field="vertices", kind="vertices not an array")
    case("vertices-null.json", VF(1, "null"), frame=1, field="vertices", kind="vertices null")
    vbad = lambda tok: VF(1, nums(V1[:5]) [:-1] + "," + tok + "," + nums(V1[6:])[1:])
    case("vertices-nan.json", vbad("NaN"), frame=1, field="vertices", kind="NaN token")
    case("vertices-infinity.json", vbad("Infinity"), frame=1, field="vertices", kind="Infinity token")
    case("vertices-minus-infinity.json", vbad("-Infinity"), frame=1, field="vertices", kind="-Infinity token")
    case("vertices-1e999.json", vbad("1e999"), frame=1, field="vertices", kind="1e999 (overflows)")
    case("vertices-minus-1e999.json", vbad("-1e999"), frame=1, field="vertices", kind="-1e999 (overflows)")
    case("vertices-1e39.json", vbad("1e39"), frame=1, field="vertices", kind="finite double, overflows float32")
    case("vertices-long-number.json", vbad("1" * 2000), frame=1, field="vertices", kind="2000-digit number")
    case("vertices-string.json", vbad('"0.1"'), frame=1, field="vertices", kind="string where a number belongs")
    case("vertices-true.json", vbad("true"), frame=1, field="vertices", kind="true in a vertex array")
    case("vertices-null-element.json", vbad("null"), frame=1, field="vertices", kind="null in a vertex array")
    case("vertices-leading-zero.json", vbad("01"), frame=1, field="vertices", kind="number with a leading zero")
    case("vertices-bare-dot.json", vbad(".5"), frame=1, field="vertices", kind="number starting with '.'")
    case("vertices-trailing-dot.json", vbad("1."), frame=1, field="vertices", kind="number ending with '.'")
    case("vertices-plus.json", vbad("+1"), frame=1, field="vertices", kind="number with '+'")
    case("vertices-bare-exponent.json", vbad("1e"), frame=1, field="vertices", kind="exponent without digits")
    case("vertices-hex.json", vbad("0x10"), frame=1, field="vertices", kind="hex number")
    case("vertices-double-minus.json", vbad("--1"), frame=1, field="vertices", kind="'--1'")
    case("vertices-nested-array.json", vbad("[0]"), frame=1, field="vertices", kind="array inside a vertex array")
    case("vertices-missing.json", doc(frames=frames_with(1, frame(""))),
         frame=1, field="vertices", kind="both vertices and verticesBase64 absent")
    # --- base64
    BF = lambda text: doc(frames=frames_with(2, frame(b64=text)))
    good64 = b64floats(V2)
    case("b64-bad-char.json", BF(good64[:10] + "*" + good64[11:]), frame=2, field="verticesBase64", kind="bad base64 character")
    case("b64-bad-padding.json", BF(good64[:-5] + '=A=="'), frame=2, field="verticesBase64", kind="bad base64 padding")
    case("b64-length-not-multiple-of-4.json", BF(good64[:-2] + '"'), frame=2, field="verticesBase64",
         kind="base64 length not a multiple of 4")
    case("b64-not-whole-floats.json", BF('"AAAAAAAA"'), frame=2, field="verticesBase64", kind="base64 of 6 bytes (not whole float32s)")
    case("b64-not-multiple-of-12.json", BF(b64floats(V2[:-1])), frame=2, field="verticesBase64",
         kind="base64 of a float count not a multiple of 3")
    case("b64-count-differs.json", BF(b64floats(V2[:-3])), frame=2, field="verticesBase64", kind="base64 vertex count differs")
    case("b64-nan.json", BF(b64floats([float("nan")] + V2[1:])), frame=2, field="verticesBase64", kind="base64 encoding NaN")
    case("b64-infinity.json", BF(b64floats(V2[:-1] + [float("-inf")])), frame=2, field="verticesBase64",
         kind="base64 encoding -Infinity")
    case("b64-empty.json", BF('""'), frame=2, field="verticesBase64", kind="empty base64")
    case("b64-not-string.json", BF("[1,2,3]"), frame=2, field="verticesBase64", kind="verticesBase64 not a string")
    # --- frame metadata
    MF = lambda **kw: doc(frames=frames_with(1, frame(nums(V1), **kw)))
    case("transform-15.json", MF(transform="[1,0,0,0,0,1,0,0,0,0,1,0,0.01,0.02,-0.4]"), frame=1, field="transform",
         kind="transform of 15 numbers")
    case("transform-17.json", MF(transform="[1,0,0,0,0,1,0,0,0,0,1,0,0.01,0.02,-0.4,1,1]"), frame=1, field="transform",
         kind="transform of 17 numbers")
    case("transform-not-array.json", MF(transform='{"m":1}'), frame=1, field="transform", kind="transform not an array")
    case("transform-string.json", MF(transform='[1,0,0,0,0,1,0,0,0,0,1,0,"0.01",0.02,-0.4,1]'), frame=1, field="transform",
         kind="string in transform")
    case("tracking-unknown.json", MF(trackingState='"sideways"'), frame=1, field="trackingState", kind="unknown trackingState")
    case("tracking-not-string.json", MF(trackingState="1"), frame=1, field="trackingState", kind="trackingState not a string")
    case("tracking-control-chars.json", MF(trackingState='"a\\nb\\u001b[31mc"'), frame=1, field="trackingState",
         kind="escaped newline/ESC in an echoed string (message stays one line)")
    case("blend-negative.json", MF(blendShapes='{"jawOpen":-0.1}'), frame=1, field="blendShapes.jawOpen", kind="blend shape < 0")
    case("blend-above-1.json", MF(blendShapes='{"browInnerUp":1.5}'), frame=1, field="blendShapes.browInnerUp", kind="blend shape > 1")
    case("blend-not-number.json", MF(blendShapes='{"mouthSmileLeft":"high"}'), frame=1, field="blendShapes.mouthSmileLeft",
         kind="blend shape not a number")
    case("blendshapes-not-object.json", MF(blendShapes="[0.1]"), frame=1, field="blendShapes", kind="blendShapes not an object")
    case("distance-negative.json", MF(distance="-0.4"), frame=1, field="distance", kind="negative distance")
    case("distance-string.json", MF(distance='"0.4"'), frame=1, field="distance", kind="distance a string")
    case("ambient-negative.json", MF(ambientIntensity="-900"), frame=1, field="ambientIntensity", kind="negative ambientIntensity")
    case("ambient-bool.json", MF(ambientIntensity="true"), frame=1, field="ambientIntensity", kind="ambientIntensity a boolean")
    case("timestamp-string.json", MF(timestamp='"now"'), frame=1, field="timestamp", kind="timestamp a string")
    # --- settings
    S = lambda s: doc(settings=s)
    case("settings-not-object.json", S('"high"'), field="settings", kind="settings not an object")
    case("settings-quality-unknown.json", S('{"quality":"ultra"}'), field="settings.quality", kind="unknown quality")
    case("settings-quality-number.json", S('{"quality":3}'), field="settings.quality", kind="quality not a string")
    case("settings-units-unknown.json", S('{"units":"inch"}'), field="settings.units", kind="unknown units")
    case("settings-maxframes-0.json", S('{"maxFrames":0}'), field="settings.maxFrames", kind="maxFrames 0")
    case("settings-maxframes-1.5.json", S('{"maxFrames":1.5}'), field="settings.maxFrames", kind="maxFrames 1.5")
    case("settings-scale-0.json", S('{"scale":0}'), field="settings.scale", kind="scale 0")
    case("settings-scale-negative.json", S('{"scale":-2}'), field="settings.scale", kind="negative scale")
    case("settings-scale-huge.json", S('{"scale":1e300}'), field="settings.scale", kind="scale overflowing float32 output")
    case("settings-exportformats-unknown.json", S('{"exportFormats":["stl","xyz"]}'), field="settings.exportFormats",
         kind="unknown export format (even when --formats overrides it)")
    case("settings-exportformats-not-array.json", S('{"exportFormats":"stl"}'), field="settings.exportFormats",
         kind="exportFormats not an array")
    case("settings-exportformats-empty.json", S('{"exportFormats":[]}'), field="settings.exportFormats",
         kind="exportFormats empty")
    case("settings-smoothing-negative.json", S('{"smoothingIterations":-1}'), field="settings.smoothingIterations",
         kind="negative smoothingIterations")
    case("settings-target-0.json", S('{"targetVertexCount":0}'), field="settings.targetVertexCount", kind="targetVertexCount 0")
    case("settings-target-3.json", S('{"targetVertexCount":3}'), field="settings.targetVertexCount",
         kind="targetVertexCount below the 4 a mesh needs")
    case("settings-mindistance-negative.json", S('{"minDistance":-1}'), field="settings.minDistance", kind="negative minDistance")
    # --- strings and escapes
    case("escape-invalid.json", MF(trackingState='"norm\\qal"'), frame=1, field="trackingState", kind="invalid escape")
    case("escape-invalid-skipped.json", MF(note='"bad \\q escape"'), frame=1, field="note",
         kind="invalid escape in an ignored key")
    case("escape-bad-hex.json", MF(trackingState='"\\u00zz"'), frame=1, field="trackingState", kind="\\u escape with non-hex digits")
    case("escape-bad-hex-skipped.json", doc(extra=['"comment":"\\u12"']), field="comment", kind="short \\u escape in an ignored key")
    case("control-char-in-string.json", MF(trackingState='"nor\tmal"'), frame=1, field="trackingState",
         kind="raw control character in a string")
    case("surrogate-unpaired-high.json", MF(trackingState='"\\ud800"'), frame=1, field="trackingState", kind="unpaired high surrogate")
    case("surrogate-unpaired-low.json", MF(trackingState='"\\udc00x"'), frame=1, field="trackingState", kind="lone low surrogate")
    case("surrogate-bad-pair.json", MF(trackingState='"\\ud800\\u0041"'), frame=1, field="trackingState",
         kind="high surrogate followed by a non-surrogate")
    case("format-long-string.json", doc(format='"' + "x" * 5000 + '"'), field="format", kind="5000-byte wrong format string")
    # --- structure of ignored values
    case("deep-nesting-unclosed.json", doc(extra=['"deep":' + "[" * 100000]), field="deep",
         kind="100 000 nested arrays, never closed, in an ignored key")
    case("deep-nesting-mismatched.json", doc(extra=['"deep":' + "[" * 100000 + "0" + "}" * 100000]),
         field="deep", kind="100 000 nested containers closed by the wrong brackets")
    case("skipped-mismatched-bracket.json", MF(extra='{"a":[1,2}'), frame=1, field="extra", kind="'[' closed by '}' in an ignored key")
    case("skipped-object-missing-colon.json", MF(extra='{"a":1,"b"}'), frame=1, field="extra",
         kind="object member without ':' in an ignored key")
    case("skipped-array-with-colon.json", MF(extra='[1,"a":2]'), frame=1, field="extra", kind="':' inside an array in an ignored key")
    case("skipped-bad-literal.json", MF(extra="[tru]"), frame=1, field="extra", kind="bad literal in an ignored key")
    # --- NDJSON
    nd = lambda frames: ndjson(frames)
    case("ndjson-bad-line-middle.ndjson", nd([FRAMES[0], FRAMES[1], "this is not JSON", FRAMES[0]]), frame=2,
         kind="NDJSON garbage line in the middle")
    case("ndjson-bad-field-middle.ndjson", nd([FRAMES[0], FRAMES[1], frame(nums(V1), trackingState='"lost"'), FRAMES[0]]),
         frame=2, field="trackingState", kind="NDJSON bad field in the middle")
    case("ndjson-header-with-frames-then-lines.ndjson", doc() + "\n" + FRAMES[0] + "\n", kind="document followed by NDJSON lines")
    case("ndjson-header-only.ndjson", ndjson([]), exit=3, kind="NDJSON header and no frames (nothing accepted)")
    case("ndjson-stdin-bad-line.ndjson", nd([FRAMES[0], "[]"]), feed="stdin", frame=1, kind="NDJSON bad frame on standard input")
    case("stdin-not-json.json", "not json at all", feed="stdin", kind="not JSON on standard input")
    case("stdin-empty.json", "", feed="stdin", kind="empty standard input", contains="empty input")
    # --- nothing accepted (exit 3)
    rej = [frame(nums(V0), trackingState='"limited"'), frame(nums(V1), distance="0.9"),
           frame(b64=b64floats(V2), ambientIntensity="100"), frame(nums(V0), blendShapes='{"jawOpen":0.9}')]
    case("all-rejected.json", doc(frames=rej), exit=3, kind="every frame rejected by the gate", json_report=True)
    case("all-rejected-stdin.ndjson", ndjson(rej), exit=3, feed="stdin", kind="every frame rejected, NDJSON on stdin",
         json_report=True)
    case("no-frames.json", doc(frames="[]"), exit=3, kind="empty frames array", json_report=True)
    # --- issue 23: what may stand before the first NDJSON frame (the message names frame 0)
    first_nl = ND.index("\n") + 1
    case("ndjson-bom-before-frame0.ndjson", ND[:first_nl] + "\ufeff" + ND[first_nl:], frame=0,
         kind="NDJSON with a byte-order mark before the first frame line", contains="byte-order mark")
    case("ndjson-formfeed-before-frame0.ndjson", ND[:first_nl] + "\f" + ND[first_nl:], frame=0,
         kind="NDJSON with a form feed before the first frame line", contains="expected a frame object")


def main():
    here = os.path.dirname(os.path.abspath(__file__))
    out = sys.argv[1] if len(sys.argv) > 1 else os.path.join(here, "..", "Tests", "FacescanCLITests", "BadInputs")
    os.makedirs(out, exist_ok=True)
    build()
    names = set()
    for old in os.listdir(out):
        os.remove(os.path.join(out, old))
    with open(os.path.join(out, "base.json"), "w") as f:
        f.write(doc())
    with open(os.path.join(out, "base.ndjson"), "w") as f:
        f.write(ndjson())
    contents = set()
    manifest = []
    for c in CASES:
        assert c["name"] not in names, c["name"]
        assert (c["content"], c["feed"]) not in contents, c["name"] + " duplicates another input"
        names.add(c["name"])
        contents.add((c["content"], c["feed"]))
        with open(os.path.join(out, c["name"]), "wb") as f:
            f.write(c["content"])
        entry = {"file": c["name"], "kind": c["kind"], "feed": c["feed"], "exit": c["exit"], "frame": c["frame"],
                 "field": c["field"]}
        if c["contains"]:
            entry["contains"] = c["contains"]
        if c["json"]:
            entry["jsonReport"] = True
        manifest.append(entry)
    with open(os.path.join(out, "manifest.json"), "w") as f:
        json.dump({"comment": "Generated by scripts/make-bad-inputs.py; base.json/base.ndjson are the valid captures "
                              "every case is derived from.",
                   "valid": ["base.json", "base.ndjson"], "cases": manifest}, f, indent=1)
        f.write("\n")
    print("%d bad inputs written to %s" % (len(manifest), os.path.normpath(out)))


if __name__ == "__main__":
    main()
