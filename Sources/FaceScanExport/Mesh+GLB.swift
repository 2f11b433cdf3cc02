import FaceScanCore

extension Mesh {
    /// Binary glTF 2.0 (GLB), written by facescan itself rather than by assimp: assimp 5.2's
    /// exporter lists extensions in `extensionsUsed` that the file does not use
    /// (`KHR_materials_volume`, `FB_ngon_encoding`) and cannot be told not to, and GLB is small
    /// and fully specified.
    ///
    /// glTF lengths are metres by definition: positions are multiplied by `metresPerUnit` (the
    /// length of one mesh unit in metres, 0.001 for millimetres). One scene, one node, one mesh
    /// with one triangle primitive: POSITION (with min/max), NORMAL (unit length; a vertex
    /// without area gets +z), TEXCOORD_0 when the mesh has UVs (v flipped: glTF's origin is the
    /// top left), UNSIGNED_INT indices, one clay-coloured metallic-roughness material. No
    /// extensions. Same mesh, same bytes.
    ///
    /// With `texturePNG` (and UVs) the material's base colour is that image, embedded in the
    /// buffer after the indices (`images`, `textures`, `samplers`), its factor white.
    ///
    /// GLB states its lengths in 32 bits: a file over 4 GiB (some 75 million vertices) cannot be
    /// written, and asking for one stops the program rather than write wrong lengths.
    public func glbBytes(metresPerUnit: Double = 0.001, texturePNG: [UInt8]? = nil) -> [UInt8] {
        let layout = GLBLayout(self, texturePNG: texturePNG)
        let png = layout.uvBytes > 0 ? texturePNG : nil
        let (lo, hi) = glbBounds(metresPerUnit: metresPerUnit)
        var jsonBytes = Array(glbJSON(layout, lo: lo, hi: hi, png: png).utf8)
        while jsonBytes.count % 4 != 0 { jsonBytes.append(0x20) }
        let total = 12 + 8 + jsonBytes.count + 8 + layout.binCount
        precondition(total <= Int(UInt32.max), "GLB: \(total) bytes, over the format's 4 GiB")
        // Header, JSON chunk, BIN chunk, written once into the file's bytes.
        return ByteWriter.bytes(capacity: total) { out in
            out.append(Array("glTF".utf8))
            out.littleEndian(UInt32(2))
            out.littleEndian(UInt32(total))
            out.littleEndian(UInt32(jsonBytes.count))
            out.append(Array("JSON".utf8))
            out.append(jsonBytes)
            out.littleEndian(UInt32(layout.binCount))
            out.append([0x42, 0x49, 0x4E, 0x00])
            glbBuffer(layout, metresPerUnit: metresPerUnit, png: png, into: &out)
        }
    }

    /// The positions' bounds in metres, as the buffer writes them (zero for no vertex): the
    /// mesh's own ``Mesh/bounds`` converted, corner by corner (the conversion is monotonic, so
    /// the converted corners bound the converted positions exactly).
    func glbBounds(metresPerUnit: Double) -> (lo: SIMD3<Float>, hi: SIMD3<Float>) {
        let (lo, hi) = bounds
        let a = metres(lo, metresPerUnit), b = metres(hi, metresPerUnit)
        return (pointwiseMin(a, b), pointwiseMax(a, b))
    }

    /// A position in metres.
    @inline(__always)
    private func metres(_ p: SIMD3<Float>, _ metresPerUnit: Double) -> SIMD3<Float> {
        SIMD3<Float>(
            Float(Double(p.x) * metresPerUnit), Float(Double(p.y) * metresPerUnit), Float(Double(p.z) * metresPerUnit))
    }

    /// The GLB's one buffer, 4-byte aligned, appended to `out`: POSITION (metres), NORMAL,
    /// TEXCOORD_0, indices, then the texture's PNG.
    func glbBuffer(_ layout: GLBLayout, metresPerUnit: Double, png: [UInt8]?, into out: inout ByteWriter) {
        let normals = vertexNormals()
        let start = out.count
        for p in positions { out.float32LE(metres(p, metresPerUnit)) }
        precondition(out.count - start == layout.positionBytes)
        for q in normals { out.float32LE(q == .zero ? SIMD3<Float>(0, 0, 1) : q) }
        precondition(out.count - start == layout.positionBytes + layout.normalBytes)
        if layout.uvBytes > 0, let uvs {
            for t in uvs {
                out.float32LE(t.x)
                out.float32LE(1 - t.y)
            }
        }
        precondition(out.count - start == layout.indexOffset)
        for t in triangles { out.littleEndian(t) }
        out.pad(to: start + layout.imageOffset)
        if let png { out.append(png) }
        out.pad(to: start + layout.binCount)
    }

    /// The GLB's JSON chunk (unpadded): the scene, its node, mesh, material (the texture's
    /// image, texture and sampler with `png`), accessors and buffer views of `layout`.
    func glbJSON(_ layout: GLBLayout, lo: SIMD3<Float>, hi: SIMD3<Float>, png: [UInt8]?) -> String {
        let n = vertexCount
        let positionBytes = layout.positionBytes, normalBytes = layout.normalBytes, uvBytes = layout.uvBytes
        func num(_ f: Float) -> String {
            let s = "\(f)"
            return s.hasSuffix(".0") ? String(s.dropLast(2)) : s
        }
        func vec(_ v: SIMD3<Float>) -> String { "[\(num(v.x)),\(num(v.y)),\(num(v.z))]" }
        var views = [
            #"{"buffer":0,"byteOffset":0,"byteLength":\#(positionBytes),"byteStride":12,"target":34962}"#,
            #"{"buffer":0,"byteOffset":\#(positionBytes),"byteLength":\#(normalBytes),"byteStride":12,"target":34962}"#,
        ]
        var accessors = [
            #"{"bufferView":0,"componentType":5126,"count":\#(n),"type":"VEC3","min":\#(vec(lo)),"max":\#(vec(hi))}"#,
            #"{"bufferView":1,"componentType":5126,"count":\#(n),"type":"VEC3"}"#,
        ]
        var attributes = #""POSITION":0,"NORMAL":1"#
        if uvBytes > 0 {
            views.append(
                #"{"buffer":0,"byteOffset":\#(positionBytes + normalBytes),"byteLength":\#(uvBytes),"byteStride":8,"target":34962}"#
            )
            accessors.append(#"{"bufferView":2,"componentType":5126,"count":\#(n),"type":"VEC2"}"#)
            attributes += #","TEXCOORD_0":2"#
        }
        views.append(
            #"{"buffer":0,"byteOffset":\#(layout.indexOffset),"byteLength":\#(layout.indexBytes),"target":34963}"#)
        accessors.append(
            #"{"bufferView":\#(views.count - 1),"componentType":5125,"count":\#(triangles.count),"type":"SCALAR"}"#)
        var material =
            #"{"name":"clay","pbrMetallicRoughness":{"baseColorFactor":[0.8,0.65,0.55,1],"metallicFactor":0,"roughnessFactor":0.8}}]"#
        if let png {
            views.append(#"{"buffer":0,"byteOffset":\#(layout.imageOffset),"byteLength":\#(png.count)}"#)
            material =
                #"{"name":"skin","pbrMetallicRoughness":{"baseColorTexture":{"index":0},"metallicFactor":0,"roughnessFactor":0.8}}],"#
                + #""textures":[{"sampler":0,"source":0}],"samplers":[{"magFilter":9729,"minFilter":9729,"wrapS":33071,"wrapT":33071}],"#
                + #""images":[{"name":"texture","mimeType":"image/png","bufferView":\#(views.count - 1)}]"#
        }
        return """
            {"asset":{"version":"2.0","generator":"facescan"},"scene":0,"scenes":[{"nodes":[0]}],\
            "nodes":[{"mesh":0,"name":"face"}],\
            "meshes":[{"name":"face","primitives":[{"attributes":{\(attributes)},"indices":\(accessors.count - 1),"material":0,"mode":4}]}],\
            "materials":[\(material),\
            "accessors":[\(accessors.joined(separator: ","))],\
            "bufferViews":[\(views.joined(separator: ","))],\
            "buffers":[{"byteLength":\(layout.binCount)}]}
            """
    }
}

/// Where each part of a mesh's GLB buffer goes, in bytes, 4-byte aligned: POSITION, NORMAL,
/// TEXCOORD_0 (when the mesh has one UV per vertex), the indices, then the texture's PNG.
struct GLBLayout {
    let positionBytes: Int
    let normalBytes: Int
    let uvBytes: Int
    let indexOffset: Int
    let indexBytes: Int
    let imageOffset: Int
    let binCount: Int

    init(_ mesh: Mesh, texturePNG: [UInt8]?) {
        let n = mesh.vertexCount
        positionBytes = 12 * n
        normalBytes = 12 * n
        uvBytes = mesh.uvs?.count == n ? 8 * n : 0
        indexOffset = positionBytes + normalBytes + uvBytes
        indexBytes = 4 * mesh.triangles.count
        let image = (indexOffset + indexBytes + 3) & ~3
        imageOffset = image
        let png = uvBytes > 0 ? texturePNG : nil
        binCount = png.map { (image + $0.count + 3) & ~3 } ?? image
    }
}
