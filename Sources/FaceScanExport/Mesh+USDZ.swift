import FaceScanCore

extension Mesh {
    /// The clay colour of the untextured material (linear RGB, as GLB's material).
    static let usdClay = SIMD3<Float>(0.8, 0.65, 0.55)
    /// The root layer's name inside the package.
    package static let usdzRootLayerName = "face.usdc"
    /// The texture's name inside the package.
    package static let usdzTextureName = "texture.png"

    /// USDZ for AR Quick Look, written by facescan itself (no zip library, no platform framework):
    /// a stored zip whose first entry is the binary root layer `face.usdc` (crate 0.8.0,
    /// `UsdCrate`) and, when `texturePNG` is given and the mesh has UVs, the PNG as
    /// `texture.png`; every entry's data 64-byte aligned, a fixed date (`StoredZip`).
    ///
    /// The scene: `defaultPrim` `face`, `metersPerUnit` 1, `upAxis` Y; an Xform `face` holding
    /// the Mesh `mesh` (points in metres: the coordinates times `metresPerUnit`, 0.001 for
    /// millimetres; triangles; vertex normals; extent; `subdivisionScheme` none; double-sided
    /// unless `printingPosition`) and the Material `material` bound to it (`MaterialBindingAPI`):
    /// a UsdPreviewSurface of plain clay, or with a texture `primvars:st` (the UVs, vertex
    /// interpolation), a UsdPrimvarReader_float2 and a UsdUVTexture reading `texture.png`
    /// wired to `diffuseColor`. `texturePNG` is not used when the mesh has no UVs.
    ///
    /// Axes: facescan's face frame is USD's (y up, the face looking along +z, as ARKit's); a
    /// part in `printingPosition` (standing on z = 0, the face looking +z up) is turned to y up,
    /// (x, y, z) → (x, z, −y): it stands on y = 0. Same mesh, same bytes. Nil when the package
    /// would pass 4 GiB (zip32).
    public func usdzBytes(metresPerUnit: Double = 0.001, printingPosition: Bool = false, texturePNG: [UInt8]? = nil)
        -> [UInt8]?
    {
        let textured = texturePNG != nil && uvs?.count == vertexCount
        let layer = usdcBytes(metresPerUnit: metresPerUnit, printingPosition: printingPosition, textured: textured)
        var entries = [StoredZip.Entry(name: Self.usdzRootLayerName, bytes: layer)]
        if textured, let texturePNG { entries.append(StoredZip.Entry(name: Self.usdzTextureName, bytes: texturePNG)) }
        return StoredZip.archive(entries)
    }

    /// The package's root layer (``usdzBytes(metresPerUnit:printingPosition:texturePNG:)``);
    /// `textured`: with `primvars:st` and the texture's shaders (the mesh must have UVs).
    package func usdcBytes(metresPerUnit: Double, printingPosition: Bool, textured: Bool) -> [UInt8] {
        var c = UsdCrate()
        addUsdMesh(to: &c, metresPerUnit: metresPerUnit, printingPosition: printingPosition, textured: textured)
        Self.addUsdMaterial(to: &c, textured: textured)
        return c.bytes()
    }

    /// The points in USD's frame (metres, y up when `printingPosition`), their unit normals (a
    /// vertex without area: the face's direction) and their bounds (zero for no vertex).
    func usdPoints(metresPerUnit: Double, printingPosition: Bool)
        -> (points: [SIMD3<Float>], normals: [SIMD3<Float>], lo: SIMD3<Float>, hi: SIMD3<Float>)
    {
        let n = vertexCount
        let normals = vertexNormals()
        // Into USD's frame: metres, y up.
        func turned(_ v: SIMD3<Float>) -> SIMD3<Float> { printingPosition ? SIMD3(v.x, v.z, -v.y) : v }
        var points: [SIMD3<Float>] = [], unitNormals: [SIMD3<Float>] = []
        points.reserveCapacity(n)
        unitNormals.reserveCapacity(n)
        var lo = SIMD3<Float>(repeating: .infinity), hi = SIMD3<Float>(repeating: -.infinity)
        for i in 0..<n {
            let p = positions[i]
            let m = turned(
                SIMD3(
                    Float(Double(p.x) * metresPerUnit), Float(Double(p.y) * metresPerUnit),
                    Float(Double(p.z) * metresPerUnit)))
            points.append(m)
            lo = pointwiseMin(lo, m)
            hi = pointwiseMax(hi, m)
            // A vertex without area gets the face's direction (+z in the face frame).
            unitNormals.append(turned(normals[i] == .zero ? SIMD3(0, 0, 1) : normals[i]))
        }
        if n == 0 { (lo, hi) = (.zero, .zero) }
        return (points, unitNormals, lo, hi)
    }

    /// The layer's root, `/face` and `/face/mesh` with its attributes (``usdcBytes(metresPerUnit:printingPosition:textured:)``).
    func addUsdMesh(to c: inout UsdCrate, metresPerUnit: Double, printingPosition: Bool, textured: Bool) {
        let (points, unitNormals, lo, hi) = usdPoints(metresPerUnit: metresPerUnit, printingPosition: printingPosition)
        let counts = [Int32](repeating: 3, count: triangleCount)
        let indices = triangles.map { Int32(bitPattern: $0) }

        var meshProperties = [
            "doubleSided", "extent", "faceVertexCounts", "faceVertexIndices", "material:binding", "normals", "points",
        ]
        if textured { meshProperties.append("primvars:st") }
        meshProperties.append("subdivisionScheme")
        if printingPosition { meshProperties.removeFirst() }

        c.add(
            "/", .pseudoRoot,
            [
                ("defaultPrim", .token("face")), ("metersPerUnit", .double(1)), ("upAxis", .token("Y")),
                ("primChildren", .tokens(["face"])),
            ])
        c.add(
            "/face", .prim,
            [("specifier", .def), ("typeName", .token("Xform")), ("primChildren", .tokens(["mesh", "material"]))])
        c.add(
            "/face/mesh", .prim,
            [
                ("specifier", .def), ("typeName", .token("Mesh")),
                ("apiSchemas", .prependedTokens(["MaterialBindingAPI"])), ("properties", .tokens(meshProperties)),
            ])
        if !printingPosition {
            // An open face: its inside shows too.
            c.add("/face/mesh.doubleSided", .attribute, Self.uniform("bool", .bool(true)))
        }
        c.add("/face/mesh.extent", .attribute, [("typeName", .token("float3[]")), ("default", .vec3fArray([lo, hi]))])
        c.add(
            "/face/mesh.faceVertexCounts", .attribute, [("typeName", .token("int[]")), ("default", .intArray(counts))])
        c.add(
            "/face/mesh.faceVertexIndices", .attribute,
            [("typeName", .token("int[]")), ("default", .intArray(indices))])
        c.add(
            "/face/mesh.material:binding", .relationship,
            [("variability", .uniform), ("targetPaths", .explicitPaths(["/face/material"]))])
        c.add(
            "/face/mesh.normals", .attribute,
            [
                ("typeName", .token("normal3f[]")), ("default", .vec3fArray(unitNormals)),
                ("interpolation", .token("vertex")),
            ])
        c.add("/face/mesh.points", .attribute, [("typeName", .token("point3f[]")), ("default", .vec3fArray(points))])
        if textured, let uvs {
            // Mesh UVs have their origin at the bottom left, as USD's st.
            c.add(
                "/face/mesh.primvars:st", .attribute,
                [
                    ("typeName", .token("texCoord2f[]")), ("default", .vec2fArray(uvs)),
                    ("interpolation", .token("vertex")),
                ])
        }
        c.add("/face/mesh.subdivisionScheme", .attribute, Self.uniform("token", .token("none")))
    }

    /// `/face/material`: the preview surface, clay-coloured or reading the texture through `st`.
    static func addUsdMaterial(to c: inout UsdCrate, textured: Bool) {
        let material = "/face/material"
        c.add(
            material, .prim,
            [
                ("specifier", .def), ("typeName", .token("Material")),
                ("primChildren", .tokens(textured ? ["surface", "uv", "texture"] : ["surface"])),
                ("properties", .tokens(["outputs:surface"])),
            ])
        c.add(
            material + ".outputs:surface", .attribute,
            [
                ("typeName", .token("token")),
                ("connectionPaths", .explicitPaths([material + "/surface.outputs:surface"])),
            ])
        let surface = material + "/surface"
        c.add(
            surface, .prim,
            [
                ("specifier", .def), ("typeName", .token("Shader")),
                (
                    "properties",
                    .tokens([
                        "info:id", "inputs:diffuseColor", "inputs:metallic", "inputs:roughness", "outputs:surface",
                    ])
                ),
            ])
        c.add(surface + ".info:id", .attribute, Self.uniform("token", .token("UsdPreviewSurface")))
        c.add(
            surface + ".inputs:diffuseColor", .attribute,
            textured
                ? [
                    ("typeName", .token("color3f")),
                    ("connectionPaths", .explicitPaths([material + "/texture.outputs:rgb"])),
                ]
                : [("typeName", .token("color3f")), ("default", .vec3f(Self.usdClay))])
        c.add(surface + ".inputs:metallic", .attribute, [("typeName", .token("float")), ("default", .float(0))])
        c.add(surface + ".inputs:roughness", .attribute, [("typeName", .token("float")), ("default", .float(0.8))])
        c.add(surface + ".outputs:surface", .attribute, [("typeName", .token("token"))])
        if textured {
            let reader = material + "/uv", texture = material + "/texture"
            c.add(
                reader, .prim,
                [
                    ("specifier", .def), ("typeName", .token("Shader")),
                    ("properties", .tokens(["info:id", "inputs:varname", "outputs:result"])),
                ])
            c.add(reader + ".info:id", .attribute, Self.uniform("token", .token("UsdPrimvarReader_float2")))
            c.add(reader + ".inputs:varname", .attribute, [("typeName", .token("string")), ("default", .string("st"))])
            c.add(reader + ".outputs:result", .attribute, [("typeName", .token("float2"))])
            c.add(
                texture, .prim,
                [
                    ("specifier", .def), ("typeName", .token("Shader")),
                    (
                        "properties",
                        .tokens(["info:id", "inputs:file", "inputs:sourceColorSpace", "inputs:st", "outputs:rgb"])
                    ),
                ])
            c.add(texture + ".info:id", .attribute, Self.uniform("token", .token("UsdUVTexture")))
            c.add(
                texture + ".inputs:file", .attribute,
                [("typeName", .token("asset")), ("default", .asset(Self.usdzTextureName))])
            c.add(
                texture + ".inputs:sourceColorSpace", .attribute,
                [("typeName", .token("token")), ("default", .token("sRGB"))])
            c.add(
                texture + ".inputs:st", .attribute,
                [("typeName", .token("float2")), ("connectionPaths", .explicitPaths([reader + ".outputs:result"]))])
            c.add(texture + ".outputs:rgb", .attribute, [("typeName", .token("float3"))])
        }
    }

    /// A uniform attribute's fields: its type name, `uniform`, its value.
    private static func uniform(_ typeName: String, _ value: UsdCrate.Value) -> [(String, UsdCrate.Value)] {
        [("typeName", .token(typeName)), ("variability", .uniform), ("default", value)]
    }
}
