import FaceScanCore

extension Mesh {
    /// Wavefront OBJ text: `v`, `vn` (area-weighted vertex normals), `vt` when the mesh has UVs, and
    /// `f v/vt/vn` (or `f v//vn`). Numbers are written in shortest round-trip form (the text reads
    /// back to the same float32), independent of the locale; indices are one-based.
    ///
    /// With `materialLibrary` (the MTL file's name beside the OBJ) the text also says
    /// `mtllib NAME` and `usemtl skin` before the faces: the texture the MTL names colours them.
    public func objBytes(comment: String = "facescan", materialLibrary: String? = nil) -> [UInt8] {
        let normals = vertexNormals()
        var headerText = "# \(comment)\n# \(vertexCount) vertices, \(triangleCount) triangles\n"
        if let materialLibrary { headerText += "mtllib \(materialLibrary)\nusemtl skin\n" }
        let header = Array(headerText.utf8)
        // Each line's longest text: "vn " and three floats, "vt " and two, "f" and three corners of
        // three indices of at most 10 digits.
        let floatRoom = ByteWriter.floatRoom
        let capacity =
            header.count + 2 * positions.count * (3 + 3 * floatRoom) + (uvs?.count ?? 0) * (3 + 2 * floatRoom)
            + triangleCount * (2 + 3 * 33)
        return ByteWriter.bytes(capacity: capacity) { out in
            out.append(header)
            for p in positions { out.line(0x76, 0x20, p.x, p.y, p.z) }
            for n in normals { out.line(0x76, 0x6E, n.x, n.y, n.z) }
            for t in uvs ?? [] {
                out.byte(0x76)
                out.byte(0x74)
                out.byte(0x20)
                out.text(t.x)
                out.byte(0x20)
                out.text(t.y)
                out.byte(0x0A)
            }
            let withUV = uvs != nil
            var i = 0
            while i + 2 < triangles.count {
                out.byte(UInt8(ascii: "f"))
                for k in 0..<3 {
                    let v = UInt32(triangles[i + k]) &+ 1
                    out.byte(0x20)
                    out.text(v)
                    out.byte(0x2F)
                    if withUV { out.text(v) }
                    out.byte(0x2F)
                    out.text(v)
                }
                out.byte(0x0A)
                i += 3
            }
        }
    }
}

extension Mesh {
    /// The MTL file beside a textured OBJ: one material `skin`, white, unlit by the file's own
    /// terms (`illum 1`), its diffuse colour the image `texture` (a file name beside it).
    public static func mtlBytes(texture: String) -> [UInt8] {
        Array(
            """
            # facescan
            newmtl skin
            Ka 1 1 1
            Kd 1 1 1
            Ks 0 0 0
            d 1
            illum 1
            map_Kd \(texture)

            """.utf8)
    }

    /// Binary little-endian PLY with a colour per vertex (`red`, `green`, `blue` bytes, sRGB):
    /// what a PLY can hold of a textured face. `colours` has one entry per vertex.
    public func plyBytes(colours: [SIMD3<UInt8>]) -> [UInt8] {
        precondition(colours.count == vertexCount, "one colour per vertex")
        var out = Array(
            """
            ply
            format binary_little_endian 1.0
            comment facescan
            element vertex \(vertexCount)
            property float x
            property float y
            property float z
            property uchar red
            property uchar green
            property uchar blue
            element face \(triangleCount)
            property list uchar int vertex_indices
            end_header

            """.utf8)
        out.reserveCapacity(out.count + 15 * vertexCount + 13 * triangleCount)
        func u32(_ x: UInt32) {
            out.append(UInt8(x & 0xFF))
            out.append(UInt8((x >> 8) & 0xFF))
            out.append(UInt8((x >> 16) & 0xFF))
            out.append(UInt8(x >> 24))
        }
        for v in 0..<vertexCount {
            let p = positions[v]
            u32(p.x.bitPattern)
            u32(p.y.bitPattern)
            u32(p.z.bitPattern)
            out.append(colours[v].x)
            out.append(colours[v].y)
            out.append(colours[v].z)
        }
        for t in 0..<triangleCount {
            out.append(3)
            u32(triangles[3 * t])
            u32(triangles[3 * t + 1])
            u32(triangles[3 * t + 2])
        }
        return out
    }
}

// MARK: reading

extension Mesh {
    /// Wavefront OBJ: `v`, `vt` and `f` (polygons fanned into triangles; `v`, `v/vt`, `v//vn`,
    /// `v/vt/vn` and negative indices). UVs are kept when every vertex has one texture coordinate.
    ///
    /// One pass over the bytes. Lines end at `\n`; words are separated by spaces, tabs and `\r`.
    /// The first word selects the line kind (`v`, `vt`, `f`; anything else, comments included, is
    /// skipped). Numbers are whatever `Float(String)` accepts (the common decimal forms go through
    /// ``FastFloat``, which rounds identically); they must be finite. Indices are whatever
    /// `Int(String)` accepts, except 0; only the first two `/`-separated fields of a corner are read.
    /// A `\\` at the end of a line continues it on the next (messages give physical line numbers).
    /// Texture indices that point nowhere while the positions are sound drop the texture
    /// coordinates with one warning (``MeshWarnings``) instead of refusing the file.
    package static func parseOBJ(_ b: [UInt8], name: String) throws(InputError) -> Mesh {
        if let joined = joinContinuedLines(b) {
            return try parseOBJ(joined.bytes, name: name, continued: joined.merged)
        }
        return try parseOBJ(b, name: name, continued: [])
    }

    /// `b` with each backslash-newline (`\\\n` or `\\\r\n`) turned into blanks, and the offsets of the
    /// newlines so merged; nil when there is none (no copy).
    static func joinContinuedLines(_ b: [UInt8]) -> (bytes: [UInt8], merged: [Int])? {
        guard b.contains(UInt8(ascii: "\\")) else { return nil }
        var out = b
        var merged: [Int] = []
        var i = 0
        while i < out.count {
            if out[i] == UInt8(ascii: "\\") {
                var j = i + 1
                if j < out.count && out[j] == 0x0D { j += 1 }
                if j < out.count && out[j] == 0x0A {
                    for k in i..<j { out[k] = 0x20 }
                    out[j] = 0x0D  // a blank for ByteScanner
                    merged.append(j)
                    i = j
                }
            }
            i += 1
        }
        return merged.isEmpty ? nil : (out, merged)
    }

    static func parseOBJ(_ b: [UInt8], name: String, continued: [Int]) throws(InputError) -> Mesh {
        var positions: [SIMD3<Float>] = []
        var texcoords: [SIMD2<Float>] = []
        var tris: [UInt32] = []
        var uvOf: [Int32] = []
        var uvConsistent = true
        var danglingTexture: (line: Int, index: Int, defined: Int)?
        positions.reserveCapacity(b.count / 64)
        tris.reserveCapacity(b.count / 16)
        try ByteScanner.scan(b) { (s: inout ByteScanner) throws(InputError) in
            var logicalLine = 0, lineNo = 0, mergedBefore = 0
            while !s.atEnd {
                logicalLine += 1
                if !continued.isEmpty {
                    while mergedBefore < continued.count && continued[mergedBefore] < s.i { mergedBefore += 1 }
                }
                lineNo = logicalLine + mergedBefore
                s.skipBlanks()
                let head = s.word()
                if head.count == 1 && s[head.lowerBound] == UInt8(ascii: "v") {
                    guard let x = s.finiteFloat(), let y = s.finiteFloat(), let z = s.finiteFloat() else {
                        throw InputError(file: name, field: "v", "line \(lineNo): expected a finite number")
                    }
                    positions.append(SIMD3(x, y, z))
                } else if s.matches(head, "vt") {
                    guard let u = s.finiteFloat(), let v = s.finiteFloat() else {
                        throw InputError(file: name, field: "vt", "line \(lineNo): expected a finite number")
                    }
                    texcoords.append(SIMD2(u, v))
                } else if head.count == 1 && s[head.lowerBound] == UInt8(ascii: "f") {
                    if uvOf.count < positions.count {
                        uvOf.append(contentsOf: repeatElement(-2, count: positions.count - uvOf.count))
                    }
                    var fan = PolygonFan()
                    let faceStart = tris.count
                    while s.skipBlanks(), !s.atEndOfLine {
                        let wordStart = s.i
                        guard let vi = s.index() else { throw objBadIndex(name, lineNo, s, wordStart) }
                        guard let v = resolveIndex(vi, positions.count) else {
                            throw objIndexOutOfRange(name, lineNo, vi, positions.count)
                        }
                        var t = -1
                        if s.peek == UInt8(ascii: "/") {
                            s.i += 1
                            if s.peek != UInt8(ascii: "/"), !ByteScanner.isDelimiter(s.peek) {
                                guard let ti = s.index() else { throw objBadIndex(name, lineNo, s, wordStart) }
                                if let r = resolveIndex(ti, texcoords.count) {
                                    t = r
                                } else if danglingTexture == nil {
                                    danglingTexture = (lineNo, ti, texcoords.count)
                                }
                            }
                        }
                        _ = s.word()  // a normal index (or anything after the second '/') is not read
                        if uvOf[v] == -2 { uvOf[v] = Int32(t) } else if uvOf[v] != Int32(t) { uvConsistent = false }
                        fan.add(UInt32(v), to: &tris)
                    }
                    let corners = fan.corners
                    guard corners >= 3 else {
                        throw InputError(file: name, field: "f", "line \(lineNo): a face needs at least 3 corners")
                    }
                    if corners > maxFanCorners { restrip(&tris, from: faceStart, corners: corners) }
                }
                s.nextLine()
            }
        }
        var uvs: [SIMD2<Float>]? = nil
        if let d = danglingTexture {
            MeshWarnings.emit(
                "\(name): line \(d.line): texture coordinate index \(d.index) out of range (\(d.defined) defined); texture coordinates ignored"
            )
        } else if uvConsistent, !texcoords.isEmpty, uvOf.count == positions.count, !uvOf.contains(where: { $0 < 0 }) {
            uvs = uvOf.map { texcoords[Int($0)] }
        }
        return Mesh(uncheckedPositions: positions, triangles: tris, uvs: uvs)
    }

    /// Polygons with more corners than this are triangulated as a zig-zag strip instead of a fan:
    /// a fan's first corner would be shared by every triangle (a vertex of valence 100 000 for a
    /// 100 000-gon), which the decimator's per-vertex work does not scale to.
    package static let maxFanCorners = 64

    /// Rewrites the fan of `corners - 2` triangles at `tris[from...]` (first corner, then each
    /// pair of neighbours) as a strip over the same polygon, winding kept: the corners are taken
    /// alternately from both ends, so every vertex is in at most four of its triangles.
    package static func restrip(_ tris: inout [UInt32], from start: Int, corners n: Int) {
        var c = [UInt32](repeating: 0, count: n)
        c[0] = tris[start]
        c[1] = tris[start + 1]
        for k in 1..<(n - 1) { c[k + 1] = tris[start + 3 * (k - 1) + 2] }
        var l = 0, r = n - 1, o = start, left = true
        while r - l >= 2 {
            if left {
                tris[o] = c[l]; tris[o + 1] = c[l + 1]; tris[o + 2] = c[r]
                l += 1
            } else {
                tris[o] = c[l]; tris[o + 1] = c[r - 1]; tris[o + 2] = c[r]
                r -= 1
            }
            o += 3
            left.toggle()
        }
    }

    /// A 1-based or negative (relative) OBJ index as a 0-based one, nil when out of range.
    @inline(__always)
    static func resolveIndex(_ i: Int, _ count: Int) -> Int? {
        let r = i > 0 ? i - 1 : count + i
        return r >= 0 && r < count ? r : nil
    }

    @inline(never)
    static func objBadIndex(_ name: String, _ line: Int, _ s: ByteScanner, _ wordStart: Int) -> InputError {
        var s = s
        s.i = wordStart
        let text = s.text(s.word())
        return InputError(file: name, field: "f", "line \(line): bad index '\(text)'")
    }

    @inline(never)
    static func objIndexOutOfRange(_ name: String, _ line: Int, _ i: Int, _ count: Int) -> InputError {
        InputError(file: name, field: "f", "line \(line): index \(i) out of range (\(count) defined)")
    }
}

/// Cuts a polygon into triangles as its corners come: a fan from the first corner (first,
/// previous, this) from the third corner on. The readers of OBJ, OFF and assimp's meshes share it.
package struct PolygonFan {
    private(set) var corners = 0
    private var first: UInt32 = 0
    private var previous: UInt32 = 0

    package init() {}

    @inline(__always)
    package mutating func add(_ corner: UInt32, to triangles: inout [UInt32]) {
        if corners == 0 {
            first = corner
        } else if corners >= 2 {
            triangles.append(first)
            triangles.append(previous)
            triangles.append(corner)
        }
        previous = corner
        corners += 1
    }
}
