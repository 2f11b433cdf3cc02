import FaceScanCore

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
        return ByteWriter.bytes(capacity: STLLayout.headerSize + 4 + STLLayout.facetSize * n) { out in
            out.append(Array(STLLayout.header.utf8))
            out.pad(to: STLLayout.headerSize)
            out.littleEndian(UInt32(n))
            var f = 0
            while f < n {
                let a = positions[Int(triangles[3 * f])], b = positions[Int(triangles[3 * f + 1])]
                let c = positions[Int(triangles[3 * f + 2])]
                out.float32LE(Mesh.unitNormal(a, b, c))
                out.float32LE(a)
                out.float32LE(b)
                out.float32LE(c)
                out.littleEndian(UInt16(0))  // the attribute count
                f += 1
            }
        }
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
            ByteScanner.scan(b) { s in
                for f in 0..<n {
                    for k in 0..<3 {
                        let o = 84 + 50 * f + 12 + 12 * k
                        corners.append(SIMD3(s.float32LE(at: o), s.float32LE(at: o + 4), s.float32LE(at: o + 8)))
                    }
                }
            }
        } else if b.starts(with: Array("solid".utf8)) {
            corners.reserveCapacity(b.count / 40)
            try ByteScanner.scan(b) { (s: inout ByteScanner) throws(InputError) in
                var line = 0
                // Corners since the facet began (its `facet` line): exactly 3 at its `endfacet`.
                var facetStart = 0, facetLine = 0, facets = 0
                while !s.atEnd {
                    line += 1
                    s.skipBlanks()
                    let head = s.word()
                    if s.matches(head, "vertex") {
                        guard let x = s.float(), let y = s.float(), let z = s.float(), s.skipBlanks(), s.atEndOfLine
                        else { throw InputError(file: name, field: "vertex", "line \(line): expected three numbers") }
                        corners.append(SIMD3(x, y, z))
                    } else if s.matches(head, "facet") {
                        facetStart = corners.count
                        facetLine = line
                    } else if s.matches(head, "endfacet") {
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
