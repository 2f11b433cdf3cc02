import FaceScanCore

#if Lib3MF
import CLib3MF
#endif

/// 3MF files through lib3mf (the 3MF Consortium's library, 1.8 C interface): the only code that
/// touches it.
///
/// Writing: one mesh object named `face`, one build item (identity transform: the mesh is written
/// where it is, so a solid placed on the bed stays there), `unit="millimeter"`, and the PNG
/// thumbnail, when given, as the package thumbnail (`/Metadata/thumbnail.png`). lib3mf gives
/// every object, build item and the build a random UUID; facescan sets them from a hash of the
/// mesh instead, so the same mesh gives the same bytes (lib3mf's zip entries carry a fixed
/// date already).
///
/// Colour: given the texture's PNG bytes and a mesh with UVs, the package holds the PNG
/// (`/3D/Textures/face.png`, a texture2d resource) and each triangle its corners' texture
/// coordinates (lib3mf writes them as a `texture2dgroup`, the triangles' `pid`/`p1…p3`), v = 0
/// the image's bottom row as in the 3MF materials extension (and OBJ). Without them the package
/// is the one of a mesh without colour, byte for byte.
///
/// Reading: every build item's object (mesh, or components down to meshes) placed by its
/// transforms, merged into one mesh, in millimetres whatever unit the file states.
///
/// Without the package's `Lib3MF` trait, reading and writing throw
/// ``FaceScanError/unavailable(_:)`` and the queries return nil.
public enum Lib3MFIO {
    /// The 3MF package of `mesh`, whose coordinates are millimetres, with `thumbnail` (PNG bytes)
    /// as the package thumbnail and, when `texturePNG` is given and the mesh has UVs, that texture
    /// on its triangles. Throws ``FaceScanError/io(_:)`` when lib3mf fails.
    public static func bytes(_ mesh: Mesh, thumbnail: [UInt8]? = nil, texturePNG: [UInt8]? = nil)
        throws(FaceScanError) -> [UInt8]
    {
        #if Lib3MF
        guard mesh.triangleCount > 0 else {
            throw .badInput(InputError(file: "mesh", field: "triangles", "has no triangle to export"))
        }
        do { return try writePackage(mesh, thumbnail: thumbnail, texturePNG: texturePNG) } catch {
            throw .io(error)
        }
        #else
        throw .withoutTrait("writing 3MF", library: "lib3mf", trait: "Lib3MF")
        #endif
    }

    /// The mesh of the 3MF package `bytes` (file name `name` for errors), in millimetres.
    /// Throws ``FaceScanError/badInput(_:)`` (message `lib3mf: …`) when the package cannot be
    /// read or holds no triangle.
    public static func parse(_ bytes: [UInt8], name: String) throws(FaceScanError) -> Mesh {
        #if Lib3MF
        do { return try readPackage(bytes, name: name) } catch { throw .badInput(error) }
        #else
        throw .withoutTrait("\(name): reading 3MF", library: "lib3mf", trait: "Lib3MF")
        #endif
    }

    /// The PNG package thumbnail of a 3MF package, or nil when it has none.
    public static func thumbnail(_ bytes: [UInt8]) -> [UInt8]? {
        #if Lib3MF
        packageThumbnail(bytes)
        #else
        nil
        #endif
    }

    /// The unit a 3MF package states, in millimetres per unit (nil when it cannot be read).
    public static func statedUnitMillimetres(_ bytes: [UInt8]) -> Double? {
        #if Lib3MF
        packageUnitMillimetres(bytes)
        #else
        nil
        #endif
    }
}

#if Lib3MF
extension Lib3MFIO {
    /// Millimetres per unit for lib3mf's unit codes 0…5 (micron, millimeter, centimeter, inch,
    /// foot, meter).
    static let millimetresPerUnit: [Double] = [0.001, 1, 10, 25.4, 304.8, 1000]
    static let millimetreUnitCode: UInt32 = 1
    /// The largest mesh read (as for assimp's formats): 20 million vertices, 40 million
    /// triangles, counting every placement of an object used more than once.
    static let maxVertices = 20_000_000
    static let maxTriangles = 40_000_000
    /// At most this many objects placed through build items and components (a components tree
    /// can multiply placements without adding vertices).
    static let maxPlacements = 1_000_000

    /// Where the texture lives in the package, and the OPC relationship type of a 3MF texture.
    static let texturePath = "/3D/Textures/face.png"
    static let textureRelationship = "http://schemas.microsoft.com/3dmanufacturing/2013/01/3dtexture"
    /// lib3mf's `MODELTEXTURETYPE_PNG`.
    static let pngContentType: Int32 = 1

    /// The 3MF package of `mesh` (in millimetres, with `texturePNG` as its texture when the mesh
    /// has UVs, and `thumbnail` as the package thumbnail), built and serialised by lib3mf.
    static func writePackage(_ mesh: Mesh, thumbnail: [UInt8]?, texturePNG: [UInt8]? = nil) throws(IOFailure)
        -> [UInt8]
    {
        var model: L3Handle?
        guard lib3mf_createmodel(&model) == 0, let model else {
            throw IOFailure(path: "3mf", modelFailure())
        }
        defer { lib3mf_release(model) }
        try check(model, lib3mf_model_setunit(model, millimetreUnitCode), model, "setting the unit")

        var object: L3Handle?
        try check(model, lib3mf_model_addmeshobject(model, &object), model, "adding the mesh object")
        defer { lib3mf_release(object) }
        let vertices = mesh.positions.map { L3Vertex(position: ($0.x, $0.y, $0.z)) }
        var triangles = [L3Triangle](repeating: L3Triangle(), count: mesh.triangleCount)
        for t in 0..<mesh.triangleCount {
            let (a, b, c) = mesh.triangle(t)
            triangles[t] = L3Triangle(indices: (a, b, c))
        }
        try check(
            model,
            lib3mf_meshobject_setgeometry(
                object, vertices, UInt32(vertices.count), triangles, UInt32(triangles.count)),
            object, "setting the mesh")
        try check(model, lib3mf_object_setnameutf8(object, "face"), object, "naming the object")
        if let texturePNG, !texturePNG.isEmpty, let uvs = mesh.uvs, uvs.count == mesh.vertexCount {
            try addTexture(texturePNG, uvs: uvs, of: mesh, to: object, in: model)
        }
        let ids = uuids(mesh)
        try check(model, lib3mf_object_setuuidutf8(object, ids[0]), object, "setting the object's UUID")

        var item: L3Handle?
        try check(
            model,
            lib3mf_model_addbuilditem(model, object, nil, &item), model, "adding the build item")
        defer { lib3mf_release(item) }
        try check(model, lib3mf_builditem_setuuidutf8(item, ids[1]), item, "setting the build item's UUID")
        try check(model, lib3mf_model_setbuilduuidutf8(model, ids[2]), model, "setting the build's UUID")

        if let thumbnail, !thumbnail.isEmpty {
            var attachment: L3Handle?
            try check(
                model,
                lib3mf_model_getpackagethumbnailattachment(model, 1, &attachment), model,
                "adding the thumbnail")
            defer { lib3mf_release(attachment) }
            try check(
                model,
                lib3mf_attachment_readfrombuffer(attachment, thumbnail, UInt64(thumbnail.count)),
                attachment, "storing the thumbnail")
        }

        return try written(model)
    }

    /// Throws the failure lib3mf reports (on `handle`, else on `model`) when `result` is not 0.
    private static func check(_ model: L3Handle, _ result: Int32, _ handle: L3Handle?, _ what: String)
        throws(IOFailure)
    {
        guard result != 0 else { return }
        throw IOFailure(path: "3mf", "lib3mf: \(what) failed: \(lastError(handle ?? model))")
    }

    /// Stores `texturePNG` in `model`'s package as the texture of `object` (a mesh object of
    /// `mesh`), each triangle's corners mapped by `uvs`, with the default property lib3mf needs.
    private static func addTexture(
        _ texturePNG: [UInt8], uvs: [SIMD2<Float>], of mesh: Mesh, to object: L3Handle?, in model: L3Handle
    ) throws(IOFailure) {
        var attachment: L3Handle?
        try check(
            model,
            lib3mf_model_addattachmentutf8(model, texturePath, textureRelationship, &attachment), model,
            "adding the texture")
        defer { lib3mf_release(attachment) }
        try check(
            model,
            lib3mf_attachment_readfrombuffer(attachment, texturePNG, UInt64(texturePNG.count)), attachment,
            "storing the texture")
        var texture: L3Handle?
        try check(
            model,
            lib3mf_model_addtexture2dfromattachment(model, attachment, &texture), model,
            "adding the texture resource")
        defer { lib3mf_release(texture) }
        try check(model, lib3mf_texture2d_setcontenttype(texture, pngContentType), texture, "typing the texture")
        var textureID: UInt32 = 0
        try check(model, lib3mf_resource_getresourceid(texture, &textureID), texture, "reading the texture's id")
        var corners = [L3TriangleTexture](repeating: L3TriangleTexture(), count: mesh.triangleCount)
        for t in 0..<mesh.triangleCount {
            let (a, b, c) = mesh.triangle(t)
            let ua = uvs[Int(a)], ub = uvs[Int(b)], uc = uvs[Int(c)]
            corners[t] = L3TriangleTexture(textureID: textureID, u: (ua.x, ub.x, uc.x), v: (ua.y, ub.y, uc.y))
        }
        var handler: L3Handle?
        try check(model, lib3mf_meshobject_createpropertyhandler(object, &handler), object, "creating the properties")
        defer { lib3mf_release(handler) }
        try check(
            model,
            lib3mf_propertyhandler_settexturearray(handler, corners), handler, "setting the texture coordinates")
        // lib3mf requires an object-level property beside per-triangle ones: the texture's
        // corner (0, 0), what the solid's back and plinth (UV 0) show too.
        var fallback: L3Handle?
        try check(
            model,
            lib3mf_object_createdefaultpropertyhandler(object, &fallback), object, "creating the default property")
        defer { lib3mf_release(fallback) }
        try check(
            model,
            lib3mf_defaultpropertyhandler_settexture(fallback, textureID, 0, 0), fallback,
            "setting the default property")
    }

    /// The 3MF package of `model`, as lib3mf's writer serialises it.
    private static func written(_ model: L3Handle) throws(IOFailure) -> [UInt8] {
        var writer: L3Handle?
        try check(model, lib3mf_model_querywriter(model, "3mf", &writer), model, "creating the writer")
        defer { lib3mf_release(writer) }
        var size: UInt64 = 0
        try check(model, lib3mf_writer_getstreamsize(writer, &size), writer, "sizing the package")
        var out = [UInt8](repeating: 0, count: Int(size))
        try check(
            model,
            out.withUnsafeMutableBufferPointer {
                lib3mf_writer_writetobuffer(writer, $0.baseAddress, size)
            },
            writer, "writing the package")
        return out
    }

    static func readPackage(_ bytes: [UInt8], name: String) throws(InputError) -> Mesh {
        var model: L3Handle?
        guard lib3mf_createmodel(&model) == 0, let model else {
            throw InputError(file: name, modelFailure())
        }
        defer { lib3mf_release(model) }
        var reader: L3Handle?
        guard lib3mf_model_queryreader(model, "3mf", &reader) == 0, let reader else {
            throw InputError(file: name, "lib3mf: cannot create a reader: \(lastError(model))")
        }
        defer { lib3mf_release(reader) }
        guard
            bytes.withUnsafeBufferPointer({
                lib3mf_reader_readfrombuffer(reader, $0.baseAddress, UInt64($0.count))
            }) == 0
        else {
            throw InputError(file: name, "lib3mf: \(lastError(reader))")
        }
        var unit: UInt32 = millimetreUnitCode
        _ = lib3mf_model_getunit(model, &unit)
        let toMillimetres = Int(unit) < millimetresPerUnit.count ? millimetresPerUnit[Int(unit)] : 1

        var placed = Placements(toMillimetres: toMillimetres)
        var items: L3Handle?
        guard lib3mf_model_getbuilditems(model, &items) == 0, let items else {
            throw InputError(file: name, "lib3mf: \(lastError(model))")
        }
        defer { lib3mf_release(items) }
        var more: Int32 = 0
        while lib3mf_builditemiterator_movenext(items, &more) == 0, more != 0 {
            var item: L3Handle?
            guard lib3mf_builditemiterator_getcurrent(items, &item) == 0, let item else { continue }
            defer { lib3mf_release(item) }
            var transform = L3Transform()
            _ = lib3mf_builditem_getobjecttransform(item, &transform)
            var object: L3Handle?
            guard lib3mf_builditem_getobjectresource(item, &object) == 0, let object else {
                continue
            }
            defer { lib3mf_release(object) }
            placed.append(object, matrix(transform), depth: 0)
        }
        let (positions, triangles) = (placed.positions, placed.triangles)
        if let failure = placed.failure { throw InputError(file: name, "lib3mf: \(failure)") }
        guard !triangles.isEmpty else {
            throw InputError(file: name, "lib3mf: the file holds no triangles")
        }
        if let i = positions.firstIndex(where: {
            !($0.x.isFinite && $0.y.isFinite && $0.z.isFinite)
        }) {
            throw InputError(file: name, field: "vertex \(i)", "non-finite coordinate")
        }
        return Mesh(uncheckedPositions: positions, triangles: triangles)
    }

    /// The mesh a 3MF package's build places, gathered object by object: every mesh object's
    /// vertices, in millimetres, through the transforms that place it, and its triangles; the
    /// first failure (a limit passed, an index out of range, lib3mf's error) stops the walk.
    struct Placements {
        var positions: [SIMD3<Float>] = []
        var triangles: [UInt32] = []
        var failure: String?
        var placements = 0
        let toMillimetres: Double

        /// Appends a mesh object placed by `t` (3×4, column 3 the translation), or walks a
        /// components object.
        mutating func append(_ object: L3Handle, _ t: [Double], depth: Int) {
            guard depth < 32, failure == nil else { return }
            placements += 1
            guard placements <= maxPlacements else {
                failure =
                    "more than \(maxPlacements) object placements (components nested too widely)"
                return
            }
            var isMesh: Int32 = 0, isComponents: Int32 = 0
            _ = lib3mf_object_ismeshobject(object, &isMesh)
            if isMesh != 0 {
                var nv: UInt32 = 0, nt: UInt32 = 0
                guard lib3mf_meshobject_getvertexcount(object, &nv) == 0,
                    lib3mf_meshobject_gettrianglecount(object, &nt) == 0
                else {
                    failure = lastError(object)
                    return
                }
                guard positions.count + Int(nv) <= maxVertices,
                    triangles.count / 3 + Int(nt) <= maxTriangles
                else {
                    failure =
                        "more than \(maxVertices) vertices or \(maxTriangles) triangles placed (facescan's limit for a mesh file)"
                    return
                }
                var v = [L3Vertex](repeating: L3Vertex(), count: Int(nv))
                var tri = [L3Triangle](repeating: L3Triangle(), count: Int(nt))
                var got: UInt32 = 0
                guard nv == 0 || lib3mf_meshobject_getvertices(object, &v, nv, &got) == 0,
                    nt == 0 || lib3mf_meshobject_gettriangleindices(object, &tri, nt, &got) == 0
                else {
                    failure = lastError(object)
                    return
                }
                let base = UInt32(positions.count)
                positions.reserveCapacity(positions.count + v.count)
                triangles.reserveCapacity(triangles.count + 3 * tri.count)
                for p in v {
                    let x = Double(p.position.0), y = Double(p.position.1), z = Double(p.position.2)
                    positions.append(
                        SIMD3(
                            Float((t[0] * x + t[1] * y + t[2] * z + t[3]) * toMillimetres),
                            Float((t[4] * x + t[5] * y + t[6] * z + t[7]) * toMillimetres),
                            Float((t[8] * x + t[9] * y + t[10] * z + t[11]) * toMillimetres)))
                }
                for k in tri {
                    guard k.indices.0 < nv, k.indices.1 < nv, k.indices.2 < nv else {
                        failure = "triangle index out of range"
                        return
                    }
                    triangles.append(base + k.indices.0)
                    triangles.append(base + k.indices.1)
                    triangles.append(base + k.indices.2)
                }
                return
            }
            _ = lib3mf_object_iscomponentsobject(object, &isComponents)
            guard isComponents != 0 else { return }
            var count: UInt32 = 0
            _ = lib3mf_componentsobject_getcomponentcount(object, &count)
            for i in 0..<count {
                var component: L3Handle?
                guard lib3mf_componentsobject_getcomponent(object, i, &component) == 0,
                    let component
                else { continue }
                defer { lib3mf_release(component) }
                var transform = L3Transform()
                _ = lib3mf_component_gettransform(component, &transform)
                var child: L3Handle?
                guard lib3mf_component_getobjectresource(component, &child) == 0, let child else {
                    continue
                }
                defer { lib3mf_release(child) }
                append(child, compose(t, matrix(transform)), depth: depth + 1)
            }
        }
    }

    /// `body` on the model of a 3MF package read from `bytes`; nil when it cannot be read.
    private static func withModel<T>(_ bytes: [UInt8], _ body: (L3Handle) -> T?) -> T? {
        var model: L3Handle?
        guard lib3mf_createmodel(&model) == 0, let model else { return nil }
        defer { lib3mf_release(model) }
        var reader: L3Handle?
        guard lib3mf_model_queryreader(model, "3mf", &reader) == 0, let reader else { return nil }
        defer { lib3mf_release(reader) }
        guard
            bytes.withUnsafeBufferPointer({
                lib3mf_reader_readfrombuffer(reader, $0.baseAddress, UInt64($0.count))
            }) == 0
        else { return nil }
        return body(model)
    }

    static func packageThumbnail(_ bytes: [UInt8]) -> [UInt8]? {
        withModel(bytes) { model in
            var attachment: L3Handle?
            guard lib3mf_model_getpackagethumbnailattachment(model, 0, &attachment) == 0,
                let attachment
            else { return nil }
            defer { lib3mf_release(attachment) }
            var size: UInt64 = 0
            guard lib3mf_attachment_getstreamsize(attachment, &size) == 0 else { return nil }
            var out = [UInt8](repeating: 0, count: Int(size))
            guard
                out.withUnsafeMutableBufferPointer({
                    lib3mf_attachment_writetobuffer(attachment, $0.baseAddress, size)
                }) == 0
            else { return nil }
            return out
        }
    }

    static func packageUnitMillimetres(_ bytes: [UInt8]) -> Double? {
        withModel(bytes) { model in
            var unit: UInt32 = 0
            guard lib3mf_model_getunit(model, &unit) == 0, Int(unit) < millimetresPerUnit.count
            else { return nil }
            return millimetresPerUnit[Int(unit)]
        }
    }

    // MARK: - Helpers

    /// Why no model could be created: lib3mf missing at run time (it is opened on first use), else
    /// lib3mf's refusal.
    static func modelFailure() -> String {
        guard let e = facescan_lib3mf_loaderror() else { return "lib3mf: cannot create a model" }
        return "lib3mf cannot be loaded: \(String(cString: e))"
    }

    /// lib3mf's message for the last error on `handle`.
    static func lastError(_ handle: L3Handle) -> String {
        var code: UInt32 = 0
        var message: UnsafePointer<CChar>?
        guard lib3mf_getlasterror(handle, &code, &message) == 0, let message else {
            return "unknown error"
        }
        let text = String(cString: message)
        return text.isEmpty ? "error \(code)" : text
    }

    /// A lib3mf transform as 12 doubles, row by row (column 3 the translation).
    static func matrix(_ t: L3Transform) -> [Double] {
        withUnsafeBytes(of: t.fields) { raw in raw.bindMemory(to: Float.self).map(Double.init) }
    }

    /// `a · b` for 3×4 affine matrices (row by row, column 3 the translation).
    static func compose(_ a: [Double], _ b: [Double]) -> [Double] {
        var out = [Double](repeating: 0, count: 12)
        for i in 0..<3 {
            for j in 0..<4 {
                var s = j == 3 ? a[4 * i + 3] : 0
                for k in 0..<3 { s += a[4 * i + k] * b[4 * k + j] }
                out[4 * i + j] = s
            }
        }
        return out
    }

    /// Three UUIDs (object, build item, build) from a hash of the mesh: the same mesh gives the
    /// same ids. Formatted as version-8 (custom) UUIDs with the RFC 4122 variant.
    static func uuids(_ mesh: Mesh) -> [String] {
        var h: UInt64 = 0xcbf2_9ce4_8422_2325
        func mix(_ x: UInt32) {
            for shift in stride(from: 0, to: 32, by: 8) {
                h ^= UInt64((x >> UInt32(shift)) & 0xff)
                h = h &* 0x0000_0100_0000_01b3
            }
        }
        for p in mesh.positions { mix(p.x.bitPattern); mix(p.y.bitPattern); mix(p.z.bitPattern) }
        for i in mesh.triangles { mix(i) }
        return (0..<3).map { (k: UInt64) -> String in
            var hi = splitmix(h &+ 2 * k), lo = splitmix(h &+ 2 * k + 1)
            hi = (hi & ~0xf000) | 0x8000  // version 8
            lo = (lo & 0x3fff_ffff_ffff_ffff) | 0x8000_0000_0000_0000  // variant 10
            let a = hex(hi, 16), b = hex(lo, 16)
            return
                "\(a.prefix(8))-\(a.dropFirst(8).prefix(4))-\(a.suffix(4))-\(b.prefix(4))-\(b.suffix(12))"
        }
    }

    static func splitmix(_ x: UInt64) -> UInt64 {
        var z = x &+ 0x9e37_79b9_7f4a_7c15
        z = (z ^ (z >> 30)) &* 0xbf58_476d_1ce4_e5b9
        z = (z ^ (z >> 27)) &* 0x94d0_49bb_1331_11eb
        return z ^ (z >> 31)
    }

    static func hex(_ x: UInt64, _ digits: Int) -> String {
        let s = String(x, radix: 16)
        return String(repeating: "0", count: max(0, digits - s.count)) + s
    }
}
#endif
