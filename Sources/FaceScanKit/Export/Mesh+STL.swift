/// Binary STL layout constants.
public enum STLLayout {
    public static let headerSize = 80
    public static let facetSize = 50
    /// Header text; deliberately does not begin with `solid` so readers never take it for ASCII STL.
    public static let header = "facescan binary STL"
}

extension Mesh {
    /// Binary STL: 80-byte header, little-endian `UInt32` facet count, then 50 bytes per facet
    /// (unit normal, three corners as float32, zero attribute). Degenerate facets get a (0,0,0)
    /// normal, never NaN. Size = 84 + 50 · triangleCount.
    public func stlBytes() -> [UInt8] {
        let n = triangleCount
        var out = [UInt8](repeating: 0, count: STLLayout.headerSize + 4 + STLLayout.facetSize * n)
        out.withUnsafeMutableBytes { raw in
            let base = raw.baseAddress!
            let hdr = Array(STLLayout.header.utf8)
            for (i, b) in hdr.enumerated() { base.storeBytes(of: b, toByteOffset: i, as: UInt8.self) }
            base.storeBytes(of: UInt32(n).littleEndian, toByteOffset: 80, as: UInt32.self)
            positions.withUnsafeBufferPointer { p in
                triangles.withUnsafeBufferPointer { t in
                    var off = 84
                    for f in 0..<n {
                        let a = p[Int(t[3 * f])], b = p[Int(t[3 * f + 1])], c = p[Int(t[3 * f + 2])]
                        let nrm = Mesh.unitNormal(a, b, c)
                        Self.store(nrm, base, off)
                        Self.store(a, base, off + 12)
                        Self.store(b, base, off + 24)
                        Self.store(c, base, off + 36)
                        off += STLLayout.facetSize  // the 2-byte attribute count stays 0
                    }
                }
            }
        }
        return out
    }

    @inline(__always)
    private static func store(_ v: SIMD3<Float>, _ base: UnsafeMutableRawPointer, _ off: Int) {
        base.storeBytes(of: v.x.bitPattern.littleEndian, toByteOffset: off, as: UInt32.self)
        base.storeBytes(of: v.y.bitPattern.littleEndian, toByteOffset: off + 4, as: UInt32.self)
        base.storeBytes(of: v.z.bitPattern.littleEndian, toByteOffset: off + 8, as: UInt32.self)
    }
}
