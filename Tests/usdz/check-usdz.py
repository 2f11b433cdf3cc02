#!/usr/bin/env python3
"""check-usdz: what Pixar's USD (usd-core from PyPI) finds in a USDZ package, as one JSON object.

    check-usdz.py PACKAGE.usdz

Prints {"opened", "metersPerUnit", "upAxis", "defaultPrim", "meshes": [{"path", "points",
"faces", "faceVertices", "extent", "computedExtent", "normals", "st", "material", "textures":
[{"asset", "resolved", "bytes", "head"}]}], "validators": {name: [error messages]},
"validatorsRun", "rootLayer", "rootMagic", "entries": [{"name", "stored", "dataOffset",
"size"}], "crcOK"}. The Swift test (Tests/FacescanCLITests/USDZClientTests.swift) asserts on it.
Needs usd-core (make usd-venv installs it into .venv-usd).
"""

import json
import struct
import sys
import zipfile

from pxr import Ar, Usd, UsdGeom, UsdShade, UsdValidation

# The validators issue 57 names; every other registered validator runs too (all must be silent).
NAMED = [
    "usdUtilsValidators:RootPackageValidator",
    "usdUtilsValidators:UsdzPackageValidator",
    "usdUtilsValidators:FileExtensionValidator",
    "usdUtilsValidators:PackageEncapsulationValidator",
    "usdGeomValidators:StageMetadataChecker",
]


def zip_facts(path):
    entries = []
    with open(path, "rb") as f:
        raw = f.read()
    with zipfile.ZipFile(path) as z:
        crc_ok = z.testzip() is None
        for info in z.infolist():
            h = info.header_offset
            sig, = struct.unpack_from("<I", raw, h)
            name_len, extra_len = struct.unpack_from("<HH", raw, h + 26)
            entries.append({
                "name": info.filename,
                "stored": info.compress_type == zipfile.ZIP_STORED and sig == 0x04034B50,
                "dataOffset": h + 30 + name_len + extra_len,
                "size": info.file_size,
                "date": list(info.date_time),
            })
        first = z.infolist()[0].filename if z.infolist() else None
        magic = z.read(first)[:8].decode("latin-1") if first else ""
    return entries, crc_ok, first, magic


def main():
    path = sys.argv[1]
    out = {}
    out["entries"], out["crcOK"], out["rootLayer"], out["rootMagic"] = zip_facts(path)
    stage = Usd.Stage.Open(path)
    out["opened"] = bool(stage)
    if not stage:
        print(json.dumps(out))
        return
    out["metersPerUnit"] = UsdGeom.GetStageMetersPerUnit(stage)
    out["upAxis"] = str(UsdGeom.GetStageUpAxis(stage))
    out["defaultPrim"] = str(stage.GetDefaultPrim().GetPath()) if stage.GetDefaultPrim() else None
    meshes = []
    resolver = Ar.GetResolver()
    for prim in stage.Traverse():
        if not prim.IsA(UsdGeom.Mesh):
            continue
        mesh = UsdGeom.Mesh(prim)
        points = mesh.GetPointsAttr().Get() or []
        counts = mesh.GetFaceVertexCountsAttr().Get() or []
        extent = mesh.GetExtentAttr().Get()
        computed = UsdGeom.Boundable.ComputeExtentFromPlugins(mesh, Usd.TimeCode.Default())
        normals = mesh.GetNormalsAttr().Get() or []
        st = UsdGeom.PrimvarsAPI(prim).GetPrimvar("st")
        material, _ = UsdShade.MaterialBindingAPI(prim).ComputeBoundMaterial()
        textures = []
        if material:
            for shader_prim in Usd.PrimRange(material.GetPrim()):
                shader = UsdShade.Shader(shader_prim)
                if not shader or shader.GetIdAttr().Get() != "UsdUVTexture":
                    continue
                asset = shader.GetInput("file").Get()
                resolved = asset.resolvedPath if asset else ""
                data = resolver.OpenAsset(Ar.ResolvedPath(resolved)) if resolved else None
                blob = bytes(data.GetBuffer()) if data else b""
                textures.append({
                    "asset": asset.path if asset else None,
                    "resolved": resolved,
                    "bytes": len(blob),
                    "head": list(blob[:8]),
                })
        surface = material.ComputeSurfaceSource()[0] if material else None
        meshes.append({
            "path": str(prim.GetPath()),
            "points": len(points),
            "faces": len(counts),
            "faceVertices": sorted(set(counts)),
            "extent": [list(extent[0]), list(extent[1])] if extent else None,
            "computedExtent": [list(computed[0]), list(computed[1])] if computed else None,
            "normals": len(normals),
            "normalsInterpolation": str(mesh.GetNormalsInterpolation()),
            "subdivisionScheme": str(mesh.GetSubdivisionSchemeAttr().Get()),
            "st": {"count": len(st.Get() or []), "interpolation": str(st.GetInterpolation())} if st else None,
            "material": str(material.GetPath()) if material else None,
            "surface": str(surface.GetIdAttr().Get()) if surface else None,
            "textures": textures,
        })
    out["meshes"] = meshes
    registry = UsdValidation.ValidationRegistry()
    validators = registry.GetOrLoadAllValidators()
    names = [v.GetMetadata().name for v in validators]
    out["validatorsRun"] = sorted(names)
    out["missingValidators"] = [n for n in NAMED if n not in names]
    errors = UsdValidation.ValidationContext(validators).Validate(stage)
    found = {}
    for e in errors:
        if e.GetType() == UsdValidation.ValidationErrorType.Error or \
                e.GetType() == UsdValidation.ValidationErrorType.Warn:
            key = e.GetValidator().GetMetadata().name if e.GetValidator() else e.GetName()
            found.setdefault(key, []).append("%s: %s" % (e.GetName(), e.GetMessage()))
    out["validators"] = found
    print(json.dumps(out))


if __name__ == "__main__":
    main()
