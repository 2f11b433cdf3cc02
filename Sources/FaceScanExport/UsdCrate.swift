/// A binary USD layer (`usdc`, Pixar's "crate" format), version 0.8.0, written by facescan: the
/// specs (pseudo-root, prims, attributes, relationships) with their fields, as OpenUSD's
/// `Usd_CrateFile` lays them out (pxr/usd/usd/crateFile.cpp):
///
/// - a bootstrap (`PXR-USDC`, the version 0.8.0, the table of contents' offset), then the values
///   that do not fit a field's 8-byte `ValueRep` (token vectors, list ops, arrays: 8-aligned,
///   a 64-bit count, the elements little-endian, uncompressed — a reader takes uncompressed
///   arrays whatever the version);
/// - the structural sections TOKENS, STRINGS, FIELDS, FIELDSETS, PATHS, SPECS, compressed as
///   0.4.0 and later require: integer lists by USD's integer coding (deltas, the most common
///   delta, 2-bit codes, 8/16/32-bit values) and byte blocks through `TfFastCompression`'s
///   framing (a zero byte: one chunk) around an LZ4 block of literals only — valid LZ4 that
///   any LZ4 decoder reads, without a compressor;
/// - the table of contents.
///
/// Version 0.8.0 rather than an older, uncompressed one (< 0.4.0): it is the version OpenUSD
/// wrote by default from 2019 until 0.9.0 (whose only addition, timecode values, facescan does
/// not use), so every reader of the last years, Apple's included, has read files like it; the
/// compression it needs is a few dozen lines (docs/output-formats.md, "USDZ").
///
/// Paths are strings (`/face/mesh.points`); every path a list op names must be one of the specs.
/// Same specs in the same order, same bytes.
package struct UsdCrate: Sendable {
    /// A field's value: the types facescan's scenes use.
    package enum Value: Sendable {
        /// A token (inlined: its index in TOKENS).
        case token(String)
        /// A token vector (`primChildren`, `properties`).
        case tokens([String])
        /// A token list op with prepended items only (`prepend apiSchemas = [...]`).
        case prependedTokens([String])
        /// A path list op with explicit items only (`rel x = </a>`, `x.connect = </a.b>`).
        case explicitPaths([String])
        /// The specifier `def`.
        case def
        /// The variability `uniform`.
        case uniform
        /// A bool.
        case bool(Bool)
        /// A float.
        case float(Float)
        /// A double (inlined as a float when a float holds it exactly).
        case double(Double)
        /// A string (inlined: its index in STRINGS).
        case string(String)
        /// An asset path (inlined: its token index).
        case asset(String)
        /// A 3-vector of floats (`color3f`, `float3`).
        case vec3f(SIMD3<Float>)
        /// An array of 3-vectors of floats (`point3f[]`, `normal3f[]`, `float3[]`).
        case vec3fArray([SIMD3<Float>])
        /// An array of 2-vectors of floats (`texCoord2f[]`).
        case vec2fArray([SIMD2<Float>])
        /// An array of 32-bit ints (`int[]`).
        case intArray([Int32])
    }

    /// A spec's type (`SdfSpecType`).
    package enum SpecType: UInt32, Sendable {
        /// An attribute.
        case attribute = 1
        /// A prim.
        case prim = 6
        /// The layer's root, `/`: holds the layer metadata.
        case pseudoRoot = 7
        /// A relationship.
        case relationship = 8
    }

    /// The crate version written: 0.8.0.
    package static let version: [UInt8] = [0, 8, 0]

    private var specs: [(path: String, type: SpecType, fields: [(String, Value)])] = []

    /// An empty layer.
    package init() {}

    /// Adds a spec at `path` (the pseudo-root `/` first, a parent before its children) with
    /// `fields` in the order given.
    package mutating func add(_ path: String, _ type: SpecType, _ fields: [(String, Value)]) {
        specs.append((path, type, fields))
    }

    /// The layer's bytes.
    package func bytes() -> [UInt8] {
        var w = CrateWriter()
        for spec in specs { w.registerPath(spec.path) }
        w.out = [UInt8](repeating: 0, count: 88)  // the bootstrap, filled in last
        var fieldSets: [UInt32] = []
        var specPaths: [UInt32] = [], specSets: [UInt32] = [], specTypes: [UInt32] = []
        for spec in specs {
            specPaths.append(w.pathIndex[spec.path]!)
            specSets.append(UInt32(fieldSets.count))
            specTypes.append(spec.type.rawValue)
            for (name, value) in spec.fields {
                fieldSets.append(UInt32(w.fields.count))
                w.fields.append((w.token(name), w.pack(value)))
            }
            fieldSets.append(UInt32.max)  // a field set ends with a default FieldIndex (~0)
        }
        let tree = w.pathTree()  // adds the path elements' tokens, so before TOKENS
        var toc: [(String, Int, Int)] = []
        func section(_ name: String, _ body: (inout CrateWriter) -> Void) {
            let start = w.out.count
            body(&w)
            toc.append((name, start, w.out.count - start))
        }
        section("TOKENS") { w in
            var chars: [UInt8] = []
            for t in w.tokens { chars += Array(t.utf8) + [0] }
            w.u64(UInt64(w.tokens.count))
            w.u64(UInt64(chars.count))
            let block = UsdCrate.fastCompressed(chars)
            w.u64(UInt64(block.count))
            w.out += block
        }
        section("STRINGS") { w in
            w.u64(UInt64(w.strings.count))
            for s in w.strings { w.u32(s) }
        }
        section("FIELDS") { w in
            w.u64(UInt64(w.fields.count))
            w.compressedInts(w.fields.map(\.token))
            var reps: [UInt8] = []
            reps.reserveCapacity(8 * w.fields.count)
            for f in w.fields { for k in 0..<8 { reps.append(UInt8(truncatingIfNeeded: f.rep >> (8 * UInt64(k)))) } }
            let block = UsdCrate.fastCompressed(reps)
            w.u64(UInt64(block.count))
            w.out += block
        }
        section("FIELDSETS") { w in
            w.u64(UInt64(fieldSets.count))
            w.compressedInts(fieldSets)
        }
        section("PATHS") { w in
            w.u64(UInt64(w.paths.count))
            w.u64(UInt64(tree.indexes.count))
            w.compressedInts(tree.indexes)
            w.compressedInts(tree.elements.map { UInt32(bitPattern: $0) })
            w.compressedInts(tree.jumps.map { UInt32(bitPattern: $0) })
        }
        section("SPECS") { w in
            w.u64(UInt64(specPaths.count))
            w.compressedInts(specPaths)
            w.compressedInts(specSets)
            w.compressedInts(specTypes)
        }
        let tocOffset = w.out.count
        w.u64(UInt64(toc.count))
        for (name, start, size) in toc {
            var n = Array(name.utf8)
            n += [UInt8](repeating: 0, count: 16 - n.count)
            w.out += n
            w.u64(UInt64(start))
            w.u64(UInt64(size))
        }
        var boot = Array("PXR-USDC".utf8) + Self.version + [UInt8](repeating: 0, count: 5)
        for k in 0..<8 { boot.append(UInt8(truncatingIfNeeded: tocOffset >> (8 * k))) }
        w.out.replaceSubrange(0..<boot.count, with: boot)
        return w.out
    }
}

/// The crate writer's tables and output while a layer is written.
private struct CrateWriter {
    var out: [UInt8] = []
    var tokens: [String] = []
    var tokenIndex: [String: UInt32] = [:]
    var strings: [UInt32] = []
    var stringIndex: [String: UInt32] = [:]
    var paths: [String] = []
    var pathIndex: [String: UInt32] = [:]
    var fields: [(token: UInt32, rep: UInt64)] = []

    init() {
        // Token 0 is one no property can be named: OpenUSD's compressed paths mark a property
        // element by a negative token index, which index 0 cannot be (OpenUSD issue 811); its
        // writer reserves index 0 the same way.
        _ = token(";-)")
    }

    mutating func token(_ s: String) -> UInt32 {
        if let i = tokenIndex[s] { return i }
        let i = UInt32(tokens.count)
        tokens.append(s)
        tokenIndex[s] = i
        return i
    }

    mutating func string(_ s: String) -> UInt32 {
        if let i = stringIndex[s] { return i }
        let i = UInt32(strings.count)
        strings.append(token(s))
        stringIndex[s] = i
        return i
    }

    mutating func registerPath(_ p: String) {
        precondition(pathIndex[p] == nil, "spec \(p) added twice")
        pathIndex[p] = UInt32(paths.count)
        paths.append(p)
    }

    mutating func u32(_ v: UInt32) {
        for k in 0..<4 { out.append(UInt8(truncatingIfNeeded: v >> (8 * UInt32(k)))) }
    }

    mutating func u64(_ v: UInt64) {
        for k in 0..<8 { out.append(UInt8(truncatingIfNeeded: v >> (8 * UInt64(k)))) }
    }

    mutating func f32(_ f: Float) { u32(f.bitPattern) }

    mutating func align8() {
        while out.count % 8 != 0 { out.append(0) }
    }

    // ValueRep: bit 63 array, 62 inlined, 61 compressed, bits 48-55 the type, 0-47 the payload.
    static func rep(_ type: UInt64, inlined: Bool = false, array: Bool = false, _ payload: UInt64) -> UInt64 {
        (array ? 1 << 63 : 0) | (inlined ? 1 << 62 : 0) | type << 48 | (payload & (1 << 48 - 1))
    }

    /// Writes a value that does not fit its rep (at the current offset) and returns the rep.
    mutating func pack(_ value: UsdCrate.Value) -> UInt64 {
        // Type numbers: crateDataTypes.h.
        switch value {
        case .token(let t): return Self.rep(11, inlined: true, UInt64(token(t)))
        case .string(let s): return Self.rep(10, inlined: true, UInt64(string(s)))
        case .asset(let a): return Self.rep(12, inlined: true, UInt64(token(a)))
        case .def: return Self.rep(42, inlined: true, 0)
        case .uniform: return Self.rep(44, inlined: true, 1)
        case .bool(let b): return Self.rep(1, inlined: true, b ? 1 : 0)
        case .float(let f): return Self.rep(8, inlined: true, UInt64(f.bitPattern))
        case .double(let d):
            if Double(Float(d)) == d { return Self.rep(9, inlined: true, UInt64(Float(d).bitPattern)) }
            let at = out.count
            u64(d.bitPattern)
            return Self.rep(9, UInt64(at))
        case .tokens(let ts):
            return packList(ts.map { token($0) }, header: nil, type: 41)
        case .prependedTokens(let ts):
            return packList(ts.map { token($0) }, header: 1 << 5, type: 32)  // _ListOpHeader: HasPrependedItems
        case .explicitPaths(let ps):
            let ids = ps.map { p -> UInt32 in
                guard let i = pathIndex[p] else { preconditionFailure("list op names \(p), not a spec") }
                return i
            }
            return packList(ids, header: 1 << 0 | 1 << 1, type: 34)  // IsExplicit, HasExplicitItems
        case .vec3f(let v):
            // Inlined when every component is an exact int8 (crateValueInliners.h).
            let c = [v.x, v.y, v.z]
            if c.allSatisfy({ $0 >= -128 && $0 <= 127 && $0.rounded() == $0 }) {
                let bytes = c.map { UInt64(UInt8(bitPattern: Int8($0))) }
                return Self.rep(24, inlined: true, bytes[0] | bytes[1] << 8 | bytes[2] << 16)
            }
            let at = out.count
            for x in c { f32(x) }
            return Self.rep(24, UInt64(at))
        case .vec3fArray(let a):
            guard !a.isEmpty else { return Self.rep(24, array: true, 0) }
            align8()
            let at = out.count
            u64(UInt64(a.count))
            out.reserveCapacity(out.count + 12 * a.count)
            for v in a {
                f32(v.x)
                f32(v.y)
                f32(v.z)
            }
            return Self.rep(24, array: true, UInt64(at))
        case .vec2fArray(let a):
            guard !a.isEmpty else { return Self.rep(20, array: true, 0) }
            align8()
            let at = out.count
            u64(UInt64(a.count))
            out.reserveCapacity(out.count + 8 * a.count)
            for v in a {
                f32(v.x)
                f32(v.y)
            }
            return Self.rep(20, array: true, UInt64(at))
        case .intArray(let a):
            guard !a.isEmpty else { return Self.rep(3, array: true, 0) }
            align8()
            let at = out.count
            u64(UInt64(a.count))
            out.reserveCapacity(out.count + 4 * a.count)
            for i in a { u32(UInt32(bitPattern: i)) }
            return Self.rep(3, array: true, UInt64(at))
        }
    }

    /// Writes a list of indices (at the current offset): its list-op `header` byte when given, the
    /// count, the indices; returns the rep of `type`.
    mutating func packList(_ ids: [UInt32], header: UInt8?, type: UInt64) -> UInt64 {
        let at = out.count
        if let header { out.append(header) }
        u64(UInt64(ids.count))
        for i in ids { u32(i) }
        return Self.rep(type, UInt64(at))
    }

    /// The paths as PATHS stores them from 0.4.0 on: depth first from `/`, each node's path
    /// index, its element's token index (negative for a property) and its jump (0: a sibling
    /// follows, −1: a child follows, −2: neither, else both: the sibling is that many entries on).
    mutating func pathTree() -> (indexes: [UInt32], elements: [Int32], jumps: [Int32]) {
        var children: [String: [String]] = [:]
        var element: [String: (name: String, isProperty: Bool)] = [:]
        for p in paths where p != "/" {
            let parent: String, name: String, isProperty: Bool
            if let dot = p.lastIndex(of: "."), !p[dot...].contains("/") {
                (parent, name, isProperty) = (String(p[..<dot]), String(p[p.index(after: dot)...]), true)
            } else {
                let slash = p.lastIndex(of: "/")!
                let head = String(p[..<slash])
                (parent, name, isProperty) = (head.isEmpty ? "/" : head, String(p[p.index(after: slash)...]), false)
            }
            precondition(pathIndex[parent] != nil, "spec \(p) has no parent spec")
            children[parent, default: []].append(p)
            element[p] = (name, isProperty)
        }
        var indexes: [UInt32] = [], elements: [Int32] = [], jumps: [Int32] = []
        func visit(_ p: String, hasSibling: Bool) {
            let me = indexes.count
            indexes.append(pathIndex[p]!)
            if let e = element[p] {
                let t = Int32(token(e.name))
                elements.append(e.isProperty ? -t : t)
            } else {
                elements.append(0)  // the root's element is not read
            }
            jumps.append(0)
            let kids = children[p] ?? []
            for (k, kid) in kids.enumerated() { visit(kid, hasSibling: k + 1 < kids.count) }
            switch (!kids.isEmpty, hasSibling) {
            case (true, true): jumps[me] = Int32(indexes.count - me)
            case (false, true): jumps[me] = 0
            case (true, false): jumps[me] = -1
            case (false, false): jumps[me] = -2
            }
        }
        visit("/", hasSibling: false)
        return (indexes, elements, jumps)
    }

    /// `values` by USD's integer coding (Usd_IntegerCompression, integerCoding.cpp), through
    /// `UsdCrate.fastCompressed`, after its 64-bit length.
    mutating func compressedInts(_ values: [UInt32]) {
        let block = UsdCrate.fastCompressed(UsdCrate.integerCoded(values))
        u64(UInt64(block.count))
        out += block
    }

}

extension UsdCrate {
    /// The integer coding: the deltas from one value to the next (the first from 0), the most
    /// common delta (the largest of equally common ones), 2 bits per value (0: the common
    /// delta, 1: an 8-bit, 2: a 16-bit, 3: a 32-bit delta follows), then the deltas that are
    /// not the common one, little-endian.
    static func integerCoded(_ values: [UInt32]) -> [UInt8] {
        guard !values.isEmpty else { return [] }
        var deltas: [Int32] = []
        deltas.reserveCapacity(values.count)
        var previous: Int32 = 0
        for v in values {
            let s = Int32(bitPattern: v)
            deltas.append(s &- previous)
            previous = s
        }
        var counts: [Int32: Int] = [:]
        var common: Int32 = 0, commonCount = 0
        for d in deltas {
            let n = counts[d, default: 0] + 1
            counts[d] = n
            if n > commonCount || (n == commonCount && d > common) { (common, commonCount) = (d, n) }
        }
        var codes = [UInt8](repeating: 0, count: (2 * deltas.count + 7) / 8)
        var tail: [UInt8] = []
        for (i, d) in deltas.enumerated() {
            let code: UInt8
            if d == common {
                code = 0
            } else if d >= Int32(Int8.min) && d <= Int32(Int8.max) {
                code = 1
                tail.append(UInt8(bitPattern: Int8(d)))
            } else if d >= Int32(Int16.min) && d <= Int32(Int16.max) {
                code = 2
                let u = UInt16(bitPattern: Int16(d))
                tail += [UInt8(u & 0xFF), UInt8(u >> 8)]
            } else {
                code = 3
                let u = UInt32(bitPattern: d)
                for k in 0..<4 { tail.append(UInt8(truncatingIfNeeded: u >> (8 * UInt32(k)))) }
            }
            codes[i / 4] |= code << (2 * UInt8(i % 4))
        }
        let c = UInt32(bitPattern: common)
        return (0..<4).map { UInt8(truncatingIfNeeded: c >> (8 * UInt32($0))) } + codes + tail
    }

    /// `bytes` in TfFastCompression's framing: a zero byte (one chunk), then one LZ4 block
    /// holding a single sequence of literals: the token (literal length in its high nibble, 15
    /// and then 255s and a last byte for longer runs, no match) and the bytes themselves.
    static func fastCompressed(_ bytes: [UInt8]) -> [UInt8] {
        precondition(bytes.count <= 0x7E00_0000, "one LZ4 chunk holds at most LZ4_MAX_INPUT_SIZE bytes")
        var out: [UInt8] = [0]
        out.reserveCapacity(bytes.count + bytes.count / 255 + 8)
        if bytes.count < 15 {
            out.append(UInt8(bytes.count) << 4)
        } else {
            out.append(0xF0)
            var rest = bytes.count - 15
            while rest >= 255 {
                out.append(255)
                rest -= 255
            }
            out.append(UInt8(rest))
        }
        return out + bytes
    }
}
