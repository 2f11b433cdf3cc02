#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Mesh file formats facescan reads and writes itself (assimp handles the rest, see ``AssimpIO``).
public enum MeshFormat: String, Sendable, CaseIterable {
    case stl, obj

    /// The format named by a path's extension, if facescan handles it natively.
    public init?(path: String) {
        guard let dot = path.lastIndex(of: "."), !path[dot...].contains("/") else { return nil }
        self.init(rawValue: path[path.index(after: dot)...].lowercased())
    }
}

/// Reading whole files (meshes, captures spooled from stdin).
public enum FileBytes {
    /// Reads a whole file (or standard input for `-`) into memory.
    public static func read(_ path: String) throws(IOFailure) -> [UInt8] {
        let fd: Int32 = path == "-" ? 0 : open(path, O_RDONLY)
        guard fd >= 0 else { throw IOFailure(path: path, "cannot open: \(String(cString: strerror(errno)))") }
        defer { if fd != 0 { close(fd) } }
        var out = [UInt8]()
        var chunk = [UInt8](repeating: 0, count: 1 << 20)
        while true {
            let n = chunk.withUnsafeMutableBytes { Glibc.read(fd, $0.baseAddress!, $0.count) }
            if n < 0 {
                if errno == EINTR { continue }
                throw IOFailure(path: path, "read failed: \(String(cString: strerror(errno)))")
            }
            if n == 0 { break }
            out.append(contentsOf: chunk[0..<n])
        }
        return out
    }
}

extension Mesh {
    /// Parses a mesh from bytes in a format facescan reads natively. `name` is used in messages.
    public static func parse(_ bytes: [UInt8], format: MeshFormat, name: String) throws(InputError) -> Mesh {
        switch format {
        case .obj: return try parseOBJ(bytes, name: name)
        case .stl: return try parseSTL(bytes, name: name)
        }
    }

    /// Reads an OBJ or STL file (by extension; by content for `-`).
    /// Throws ``IOFailure`` or ``InputError``.
    public static func read(path: String) throws -> Mesh {
        let bytes = try FileBytes.read(path)
        let format = MeshFormat(path: path) ?? (looksLikeBinarySTL(bytes) || bytes.starts(with: Array("solid".utf8)) ? .stl : .obj)
        return try parse(bytes, format: format, name: path)
    }

    static func looksLikeBinarySTL(_ b: [UInt8]) -> Bool {
        guard b.count >= 84 else { return false }
        let n = Int(UInt32(b[80]) | UInt32(b[81]) << 8 | UInt32(b[82]) << 16 | UInt32(b[83]) << 24)
        return b.count == 84 + 50 * n
    }

    /// STL, binary or ASCII. Corners with bit-identical coordinates become one vertex.
    public static func parseSTL(_ b: [UInt8], name: String) throws(InputError) -> Mesh {
        var corners: [SIMD3<Float>] = []
        if looksLikeBinarySTL(b) {
            let n = (b.count - 84) / 50
            corners.reserveCapacity(3 * n)
            b.withUnsafeBytes { raw in
                for f in 0..<n {
                    for k in 0..<3 {
                        let o = 84 + 50 * f + 12 + 12 * k
                        let x = Float(bitPattern: UInt32(littleEndian: raw.loadUnaligned(fromByteOffset: o, as: UInt32.self)))
                        let y = Float(bitPattern: UInt32(littleEndian: raw.loadUnaligned(fromByteOffset: o + 4, as: UInt32.self)))
                        let z = Float(bitPattern: UInt32(littleEndian: raw.loadUnaligned(fromByteOffset: o + 8, as: UInt32.self)))
                        corners.append(SIMD3(x, y, z))
                    }
                }
            }
        } else if b.starts(with: Array("solid".utf8)) {
            var line = 0
            for raw in b.split(separator: UInt8(ascii: "\n"), omittingEmptySubsequences: false) {
                line += 1
                let words = raw.split(whereSeparator: { $0 == 32 || $0 == 9 || $0 == 13 })
                guard words.first.map({ $0.elementsEqual("vertex".utf8) }) == true else { continue }
                guard words.count == 4,
                      let x = Float(String(decoding: words[1], as: UTF8.self)),
                      let y = Float(String(decoding: words[2], as: UTF8.self)),
                      let z = Float(String(decoding: words[3], as: UTF8.self))
                else { throw InputError(file: name, field: "vertex", "line \(line): expected three numbers") }
                corners.append(SIMD3(x, y, z))
            }
            guard corners.count % 3 == 0 else { throw InputError(file: name, "ASCII STL has an incomplete facet") }
        } else {
            throw InputError(file: name, "not an STL file (binary size does not match its facet count, and it does not begin with 'solid')")
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
        return Mesh(positions: positions, triangles: tris)
    }

    /// Wavefront OBJ: `v`, `vt` and `f` (polygons fanned into triangles; `v`, `v/vt`, `v//vn`,
    /// `v/vt/vn` and negative indices). UVs are kept when every vertex has one texture coordinate.
    public static func parseOBJ(_ b: [UInt8], name: String) throws(InputError) -> Mesh {
        var positions: [SIMD3<Float>] = []
        var texcoords: [SIMD2<Float>] = []
        var tris: [UInt32] = []
        var uvOf: [Int32] = []
        var uvConsistent = true
        var lineNo = 0
        var poly: [(Int, Int)] = []
        for raw in b.split(separator: UInt8(ascii: "\n"), omittingEmptySubsequences: false) {
            lineNo += 1
            let words = raw.split(whereSeparator: { $0 == 32 || $0 == 9 || $0 == 13 })
            guard let head = words.first else { continue }
            func num(_ i: Int) throws(InputError) -> Float {
                guard i < words.count, let v = Float(String(decoding: words[i], as: UTF8.self)), v.isFinite else {
                    throw InputError(file: name, field: String(decoding: head, as: UTF8.self), "line \(lineNo): expected a finite number")
                }
                return v
            }
            if head.elementsEqual("v".utf8) {
                positions.append(SIMD3(try num(1), try num(2), try num(3)))
            } else if head.elementsEqual("vt".utf8) {
                texcoords.append(SIMD2(try num(1), try num(2)))
            } else if head.elementsEqual("f".utf8) {
                poly.removeAll(keepingCapacity: true)
                for w in words.dropFirst() {
                    let parts = w.split(separator: UInt8(ascii: "/"), maxSplits: 2, omittingEmptySubsequences: false)
                    func idx(_ s: ArraySlice<UInt8>, _ count: Int) throws(InputError) -> Int {
                        guard let i = Int(String(decoding: s, as: UTF8.self)), i != 0 else {
                            throw InputError(file: name, field: "f", "line \(lineNo): bad index '\(String(decoding: w, as: UTF8.self))'")
                        }
                        let r = i > 0 ? i - 1 : count + i
                        guard r >= 0 && r < count else {
                            throw InputError(file: name, field: "f", "line \(lineNo): index \(i) out of range (\(count) defined)")
                        }
                        return r
                    }
                    let v = try idx(parts[0], positions.count)
                    var t = -1
                    if parts.count > 1, !parts[1].isEmpty { t = try idx(parts[1], texcoords.count) }
                    poly.append((v, t))
                }
                guard poly.count >= 3 else { throw InputError(file: name, field: "f", "line \(lineNo): a face needs at least 3 corners") }
                if uvOf.count < positions.count { uvOf.append(contentsOf: repeatElement(-2, count: positions.count - uvOf.count)) }
                for (v, t) in poly {
                    if uvOf[v] == -2 { uvOf[v] = Int32(t) } else if uvOf[v] != Int32(t) { uvConsistent = false }
                }
                for k in 1..<(poly.count - 1) {
                    tris.append(UInt32(poly[0].0))
                    tris.append(UInt32(poly[k].0))
                    tris.append(UInt32(poly[k + 1].0))
                }
            }
        }
        var uvs: [SIMD2<Float>]? = nil
        if uvConsistent, !texcoords.isEmpty, uvOf.count == positions.count, !uvOf.contains(where: { $0 < 0 }) {
            uvs = uvOf.map { texcoords[Int($0)] }
        }
        return Mesh(positions: positions, triangles: tris, uvs: uvs)
    }
}
