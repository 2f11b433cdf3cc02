extension Mesh {
    /// Wavefront OBJ text: `v`, `vn` (area-weighted vertex normals), `vt` when the mesh has UVs, and
    /// `f v/vt/vn` (or `f v//vn`). Numbers are written in shortest round-trip form (the text reads
    /// back to the same float32), independent of the locale; indices are one-based.
    public func objBytes(comment: String = "facescan") -> [UInt8] {
        let normals = vertexNormals()
        var out = TextBuffer(capacity: positions.count * 90 + triangles.count * 14)
        out.append("# \(comment)\n# \(vertexCount) vertices, \(triangleCount) triangles\n")
        for p in positions { out.line("v ", p.x, p.y, p.z) }
        for n in normals { out.line("vn ", n.x, n.y, n.z) }
        if let uvs {
            for t in uvs {
                out.append("vt ")
                out.append(t.x)
                out.byte(0x20)
                out.append(t.y)
                out.byte(0x0A)
            }
        }
        let withUV = uvs != nil
        var i = 0
        while i < triangles.count {
            out.byte(UInt8(ascii: "f"))
            for k in 0..<3 {
                let v = Int(triangles[i + k]) + 1
                out.byte(0x20)
                out.append(v)
                out.byte(0x2F)
                if withUV { out.append(v) }
                out.byte(0x2F)
                out.append(v)
            }
            out.byte(0x0A)
            i += 3
        }
        return out.bytes
    }
}

/// Appends ASCII text and numbers to a byte array without going through `String` per value.
struct TextBuffer {
    var bytes: [UInt8] = []

    init(capacity: Int) { bytes.reserveCapacity(capacity) }

    mutating func byte(_ b: UInt8) { bytes.append(b) }

    mutating func append(_ s: String) { bytes.append(contentsOf: s.utf8) }

    /// Shortest text that reads back to the same `Float` (the standard library's algorithm).
    mutating func append(_ f: Float) {
        var d = f.description
        d.withUTF8 { bytes.append(contentsOf: $0) }
    }

    mutating func append(_ n: Int) {
        precondition(n >= 0)
        if n < 10 {
            bytes.append(UInt8(48 + n))
            return
        }
        var digits: (UInt8, UInt8, UInt8, UInt8, UInt8, UInt8, UInt8, UInt8, UInt8, UInt8,
                     UInt8, UInt8, UInt8, UInt8, UInt8, UInt8, UInt8, UInt8, UInt8, UInt8) =
            (0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0)
        var k = 0
        var v = n
        withUnsafeMutableBytes(of: &digits) { d in
            while v > 0 {
                d[k] = UInt8(48 + v % 10)
                v /= 10
                k += 1
            }
            while k > 0 {
                k -= 1
                bytes.append(d[k])
            }
        }
    }

    mutating func line(_ head: String, _ x: Float, _ y: Float, _ z: Float) {
        append(head)
        append(x)
        byte(0x20)
        append(y)
        byte(0x20)
        append(z)
        byte(0x0A)
    }
}
