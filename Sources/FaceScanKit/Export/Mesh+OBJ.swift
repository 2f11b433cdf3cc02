extension Mesh {
    /// Wavefront OBJ text: `v`, `vn` (area-weighted vertex normals), `vt` when the mesh has UVs, and
    /// `f v/vt/vn` (or `f v//vn`). Numbers are written in shortest round-trip form, independent of
    /// the locale; indices are one-based.
    public func objBytes(comment: String = "facescan") -> [UInt8] {
        let normals = vertexNormals()
        var s = ""
        s.reserveCapacity(positions.count * 80 + triangles.count * 12)
        s += "# \(comment)\n"
        s += "# \(vertexCount) vertices, \(triangleCount) triangles\n"
        for p in positions { s += "v \(p.x) \(p.y) \(p.z)\n" }
        for n in normals { s += "vn \(n.x) \(n.y) \(n.z)\n" }
        if let uvs {
            for t in uvs { s += "vt \(t.x) \(t.y)\n" }
        }
        let withUV = uvs != nil
        var i = 0
        while i < triangles.count {
            s += "f"
            for k in 0..<3 {
                let v = triangles[i + k] + 1
                s += withUV ? " \(v)/\(v)/\(v)" : " \(v)//\(v)"
            }
            s += "\n"
            i += 3
        }
        return Array(s.utf8)
    }
}
