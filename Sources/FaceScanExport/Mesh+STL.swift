import FaceScanCore

#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

/// Binary STL layout constants.
public enum STLLayout {
    /// Bytes of the header before the triangle count.
    public static let headerSize = 80
    /// Bytes per facet: normal and three corners (12 little-endian floats) and a 2-byte attribute count.
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

// MARK: reading

extension Mesh {
    /// True when `b` has a binary STL's size for the facet count it states.
    static func looksLikeBinarySTL(_ b: [UInt8]) -> Bool {
        guard b.count >= 84 else { return false }
        let n = Int(UInt32(b[80]) | UInt32(b[81]) << 8 | UInt32(b[82]) << 16 | UInt32(b[83]) << 24)
        return b.count == 84 + 50 * n
    }

    /// STL, binary or ASCII. Corners with bit-identical coordinates become one vertex.
    package static func parseSTL(_ b: [UInt8], name: String) throws(InputError) -> Mesh {
        var corners: [SIMD3<Float>] = []
        if looksLikeBinarySTL(b) {
            let n = (b.count - 84) / 50
            corners.reserveCapacity(3 * n)
            b.withUnsafeBytes { raw in
                for f in 0..<n {
                    for k in 0..<3 {
                        let o = 84 + 50 * f + 12 + 12 * k
                        let x = Float(
                            bitPattern: UInt32(littleEndian: raw.loadUnaligned(fromByteOffset: o, as: UInt32.self)))
                        let y = Float(
                            bitPattern: UInt32(littleEndian: raw.loadUnaligned(fromByteOffset: o + 4, as: UInt32.self)))
                        let z = Float(
                            bitPattern: UInt32(littleEndian: raw.loadUnaligned(fromByteOffset: o + 8, as: UInt32.self)))
                        corners.append(SIMD3(x, y, z))
                    }
                }
            }
        } else if b.starts(with: Array("solid".utf8)) {
            corners.reserveCapacity(b.count / 40)
            try b.withUnsafeBufferPointer { (buf) throws(InputError) in
                var s = ByteScanner(buf)
                var line = 0
                // Corners since the facet began (its `facet` line): exactly 3 at its `endfacet`.
                var facetStart = 0, facetLine = 0, facets = 0
                while !s.atEnd {
                    line += 1
                    s.skipBlanks()
                    let head = s.word()
                    if head.count == 6 && memcmp(head.base, "vertex", 6) == 0 {
                        guard let x = s.float(), let y = s.float(), let z = s.float(), s.skipBlanks(), s.atEndOfLine
                        else { throw InputError(file: name, field: "vertex", "line \(line): expected three numbers") }
                        corners.append(SIMD3(x, y, z))
                    } else if head.count == 5 && memcmp(head.base, "facet", 5) == 0 {
                        facetStart = corners.count
                        facetLine = line
                    } else if head.count == 8 && memcmp(head.base, "endfacet", 8) == 0 {
                        let n = corners.count - facetStart
                        guard n == 3 else {
                            throw InputError(
                                file: name,
                                "line \(facetLine > 0 ? facetLine : line): facet \(facets) has \(n) vertices (an STL facet is a triangle)"
                            )
                        }
                        facets += 1
                        facetStart = corners.count
                        facetLine = 0
                    }
                    s.nextLine()
                }
            }
            guard corners.count % 3 == 0 else { throw InputError(file: name, "ASCII STL has an incomplete facet") }
        } else {
            throw InputError(
                file: name,
                "not an STL file (binary size does not match its facet count, and it does not begin with 'solid')")
        }
        for c in corners where !(c.x.isFinite && c.y.isFinite && c.z.isFinite) {
            throw InputError(file: name, field: "vertex", "non-finite coordinate")
        }
        var index: [SIMD3<UInt32>: UInt32] = [:]
        var positions: [SIMD3<Float>] = []
        var tris: [UInt32] = []
        tris.reserveCapacity(corners.count)
        for c in corners {
            let key = SIMD3(c.x.bitPattern, c.y.bitPattern, c.z.bitPattern)
            if let i = index[key] {
                tris.append(i)
            } else {
                let i = UInt32(positions.count)
                index[key] = i
                positions.append(c)
                tris.append(i)
            }
        }
        return Mesh(uncheckedPositions: positions, triangles: tris)
    }
}
