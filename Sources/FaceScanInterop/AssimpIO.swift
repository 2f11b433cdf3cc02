import FaceScanCore
import FaceScanExport

#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

#if Assimp
import CAssimp
#endif

/// Mesh import and export through libassimp: the only code that touches assimp.
///
/// Import merges every mesh of the scene (each instance placed by its node's accumulated
/// transform) into one ``Mesh``; faces that are not triangles after triangulation (points,
/// lines) are dropped. Vertices are joined when position and UV agree (normals are discarded
/// before joining, so flat-shaded files such as STL come back connected). UVs are kept from
/// channel 0 when every merged mesh has them.
///
/// Export builds an `aiScene` in memory (one node, one mesh with smooth normals and UVs, one
/// clay material) and hands it to `aiExportSceneToBlob`.
///
/// assimp's C API keeps its last error in a global, so every call is serialised by one lock.
///
/// Without the package's `Assimp` trait, reading and writing throw
/// ``FaceScanError/unavailable(_:)`` and ``exportFormats`` is empty.
public enum AssimpIO {
    /// One exported file: its bytes and, for the secondary files some formats write beside the
    /// main one (glTF's `.bin`), the name assimp gave it.
    public struct ExportedFile: Sendable {
        /// Name assimp gave the file (what tells a secondary file, such as glTF's `.bin`, apart).
        public var name: String
        /// The file's contents.
        public var bytes: [UInt8]
    }

    /// Reads the mesh file at `path` with assimp. Throws ``FaceScanError/io(_:)`` when the file
    /// cannot be read and ``FaceScanError/badInput(_:)`` (message `assimp: …`) when assimp cannot
    /// make sense of it.
    public static func read(path: String) throws(FaceScanError) -> Mesh {
        #if Assimp
        return try importFile(path: path)
        #else
        throw .withoutTrait("\(path): reading this mesh format", library: "assimp", trait: "Assimp")
        #endif
    }

    /// Parses mesh bytes with assimp; `formatHint` is the usual file extension (`ply`, `glb`, …).
    /// Formats that refer to other files (OBJ with MTL, glTF with external buffers) need ``read(path:)``.
    public static func parse(_ bytes: [UInt8], formatHint: String, name: String)
        throws(FaceScanError) -> Mesh
    {
        #if Assimp
        do { return try importBytes(bytes, formatHint: formatHint, name: name) } catch {
            throw .badInput(error)
        }
        #else
        throw .withoutTrait("\(name): reading \(formatHint)", library: "assimp", trait: "Assimp")
        #endif
    }

    /// Format ids assimp can export to, e.g. `plyb`, `glb2`, `3mf`, with their usual file extension.
    public static var exportFormats: [(id: String, fileExtension: String, description: String)] {
        #if Assimp
        assimpExportFormats
        #else
        []
        #endif
    }

    /// Exports `mesh` in assimp format `formatID` (see ``exportFormats``). The first file is the
    /// main one. Throws ``FaceScanError/badSetting(_:)`` for an unknown format and
    /// ``FaceScanError/io(_:)`` when assimp fails.
    ///
    /// `3mf` is refused: assimp 5.2's 3MF exporter ignores the blob request and writes a zip named
    /// `$blobfile` into the current directory (facescan writes 3MF through ``Lib3MFIO``).
    public static func export(_ mesh: Mesh, formatID: String) throws(FaceScanError)
        -> [ExportedFile]
    {
        #if Assimp
        // assimp frees parts of a scene without faces that it did not allocate (a double free).
        guard mesh.triangleCount > 0 else {
            throw .badInput(InputError(file: "mesh", field: "triangles", "has no triangle to export"))
        }
        return try exportScene(mesh, formatID: formatID)
        #else
        throw .withoutTrait("writing '\(formatID)'", library: "assimp", trait: "Assimp")
        #endif
    }
}

#if Assimp
extension AssimpIO {
    static func importFile(path: String) throws(FaceScanError) -> Mesh {
        guard access(path, R_OK) == 0 else {
            throw .io(IOFailure(path: path, "cannot open: \(systemErrorText())"))
        }
        if try isOFF(path) {
            let bytes = try FileBytes.readMesh(path)
            return try lift { () throws(InputError) in try OFFReader.parse(bytes, name: path) }
        }
        try checkPLYHeader(path)
        return try lift { () throws(InputError) in try importScene(path: path) }
    }

    /// assimp's import of the file at `path` (checked before: readable, not OFF, a PLY header that ends).
    static func importScene(path: String) throws(InputError) -> Mesh {
        try lock.withLock { () throws(InputError) -> Mesh in
            let store = aiCreatePropertyStore()
            defer { aiReleasePropertyStore(store) }
            aiSetImportPropertyInteger(store, AI_CONFIG_PP_RVC_FLAGS, Int32(removedComponents))
            guard let scene = aiImportFileExWithProperties(path, 0, nil, store) else {
                throw InputError(file: path, "assimp: \(String(cString: aiGetErrorString()))")
            }
            return try checkedConvert(scene, name: path)
        }
    }

    /// Whether the file is OFF (by its extension or its first bytes): FaceScanKit reads OFF itself.
    /// assimp's OFF loader crashed on fuzzed files (a zero-corner face followed by more lines
    /// wraps its face count) and takes any file whose first three bytes are `off`.
    static func isOFF(_ path: String) throws(FaceScanError) -> Bool {
        if MeshFormat(path: path) == .off { return true }
        return OFFReader.looksLikeOFF(try lift { () throws(IOFailure) in try FileBytes.read(path, upTo: 256) }[...])
    }

    static func importBytes(_ bytes: [UInt8], formatHint: String, name: String) throws(InputError)
        -> Mesh
    {
        // assimp aborts the process on an empty buffer (fuzz finding).
        guard !bytes.isEmpty else { throw InputError(file: name, "empty file: no mesh") }
        if formatHint.lowercased() == "off" || OFFReader.looksLikeOFF(bytes.prefix(256)) {
            return try OFFReader.parse(bytes, name: name)
        }
        try checkPLYHeader(bytes.prefix(plyHeaderLimit), name: name)
        try checkPLYBody(bytes, name: name)
        return try lock.withLock { () throws(InputError) -> Mesh in
            let store = aiCreatePropertyStore()
            defer { aiReleasePropertyStore(store) }
            aiSetImportPropertyInteger(store, AI_CONFIG_PP_RVC_FLAGS, Int32(removedComponents))
            let scene = bytes.withUnsafeBufferPointer { b in
                b.withMemoryRebound(to: CChar.self) { c in
                    aiImportFileFromMemoryWithProperties(
                        c.baseAddress, UInt32(c.count), 0, formatHint, store)
                }
            }
            guard let scene else {
                throw InputError(file: name, "assimp: \(String(cString: aiGetErrorString()))")
            }
            return try checkedConvert(scene, name: name)
        }
    }

    static var assimpExportFormats: [(id: String, fileExtension: String, description: String)] {
        lock.withLock { () -> [(id: String, fileExtension: String, description: String)] in
            (0..<aiGetExportFormatCount()).compactMap { i in
                guard let d = aiGetExportFormatDescription(i) else { return nil }
                defer { aiReleaseExportFormatDescription(d) }
                return (
                    String(cString: d.pointee.id), String(cString: d.pointee.fileExtension),
                    String(cString: d.pointee.description)
                )
            }
        }
    }

    static func exportScene(_ mesh: Mesh, formatID: String) throws(FaceScanError) -> [ExportedFile] {
        guard formatID != "3mf" else {
            throw .badSetting(
                UsageError(
                    "assimp's 3MF exporter writes into the current directory; write 3MF through Lib3MFIO"
                ))
        }
        let scene = SceneBuilder(mesh)
        defer { scene.deallocate() }
        return try lock.withLock { () throws(FaceScanError) -> [ExportedFile] in
            let known = (0..<aiGetExportFormatCount()).contains { i in
                guard let d = aiGetExportFormatDescription(i) else { return false }
                defer { aiReleaseExportFormatDescription(d) }
                return String(cString: d.pointee.id) == formatID
            }
            if !known, let e = facescan_assimp_loaderror() {
                // libassimp is opened on first use (CAssimp/lazy.c); missing, it lists no format.
                throw .io(IOFailure(path: formatID, "assimp cannot be loaded: \(String(cString: e))"))
            }
            guard known else { throw .badSetting(UsageError("unknown mesh format '\(formatID)'")) }
            guard let blob = aiExportSceneToBlob(scene.scene, formatID, 0) else {
                let message = String(cString: aiGetErrorString())
                throw .io(
                    IOFailure(
                        path: formatID,
                        "assimp export failed: \(message.isEmpty ? "no reason given" : message)"))
            }
            defer { aiReleaseExportBlob(blob) }
            var files: [ExportedFile] = []
            var next: UnsafePointer<aiExportDataBlob>? = blob
            while let b = next {
                let bytes =
                    b.pointee.data.map {
                        Array(UnsafeRawBufferPointer(start: $0, count: b.pointee.size))
                    } ?? []
                files.append(ExportedFile(name: string(b.pointee.name), bytes: bytes))
                next = UnsafePointer(b.pointee.next)
            }
            return files
        }
    }

    // MARK: - Import

    /// The scene as the loader left it is checked first (every face index in range), since
    /// assimp's own post-processing steps read faces unchecked; then ``importSteps`` run and the
    /// result is converted. Releases `scene`.
    static func checkedConvert(_ scene: UnsafePointer<aiScene>, name: String) throws(InputError)
        -> Mesh
    {
        do {
            try checkFaces(scene.pointee, name: name)
        } catch {
            aiReleaseImport(scene)
            throw error
        }
        guard let processed = aiApplyPostProcessing(scene, importSteps) else {
            throw InputError(file: name, "assimp: \(String(cString: aiGetErrorString()))")
        }
        defer { aiReleaseImport(processed) }
        return try convert(processed.pointee, name: name)
    }

    /// Every face of every mesh names existing vertices (faces of any size, before triangulation)
    /// and has at least one; each mesh's primitive types are set from its faces (a loader that
    /// declares polygons it does not deliver makes assimp's triangulation abort the process).
    static func checkFaces(_ scene: aiScene, name: String) throws(InputError) {
        guard let meshes = scene.mMeshes else { return }
        for mi in 0..<Int(scene.mNumMeshes) {
            guard let mp = meshes[mi] else { continue }
            let m = mp.pointee
            var types: UInt32 = 0
            let n = m.mNumVertices
            let place = scene.mNumMeshes > 1 ? "mesh \(mi) " : ""
            guard m.mNumFaces == 0 || m.mFaces != nil else {
                throw InputError(file: name, "\(place)faces missing")
            }
            if n > 0 && m.mVertices == nil {
                throw InputError(file: name, "\(place)vertices missing")
            }
            for f in 0..<Int(m.mNumFaces) {
                let face = m.mFaces[f]
                guard face.mNumIndices > 0, face.mIndices != nil else {
                    throw InputError(file: name, "\(place)face \(f): no vertex indices")
                }
                switch face.mNumIndices {
                case 1: types |= aiPrimitiveType_POINT.rawValue
                case 2: types |= aiPrimitiveType_LINE.rawValue
                case 3: types |= aiPrimitiveType_TRIANGLE.rawValue
                default: types |= aiPrimitiveType_POLYGON.rawValue
                }
                for k in 0..<Int(face.mNumIndices) where face.mIndices[k] >= n {
                    throw InputError(
                        file: name,
                        "\(place)face \(f): vertex index \(Int32(bitPattern: face.mIndices[k])) out of range (\(n) vertices)"
                    )
                }
            }
            mp.pointee.mPrimitiveTypes = types
        }
    }

    /// No `aiProcess_Triangulate`: ``convert(_:name:)`` cuts polygons itself, as the OBJ reader
    /// does (assimp's ear clipping ran for minutes on a PLY face of 100 000 corners).
    static let importSteps = aiProcess_JoinIdenticalVertices.rawValue | aiProcess_RemoveComponent.rawValue

    static let removedComponents =
        aiComponent_NORMALS.rawValue | aiComponent_TANGENTS_AND_BITANGENTS.rawValue
        | aiComponent_COLORS.rawValue | aiComponent_BONEWEIGHTS.rawValue
        | aiComponent_ANIMATIONS.rawValue

    /// Walks the node tree, appending every referenced mesh transformed to scene space.
    ///
    /// assimp hands over what the file says, checked or not (a PLY face may name vertex 4 billion):
    /// every face index is checked against its mesh's vertex count and every coordinate, after the
    /// transform, must be finite. Errors name the mesh, face or vertex (numbered from 0 as in the
    /// file). Limits: ``maxVertices`` vertices and ``maxTriangles`` triangles in all.
    static func convert(_ scene: aiScene, name: String) throws(InputError) -> Mesh {
        var gathered = SceneMeshes(scene: scene, name: name)
        if let root = scene.mRootNode {
            try gathered.visit(root, identity, depth: 0)
        } else if let meshes = scene.mMeshes {
            for i in 0..<Int(scene.mNumMeshes) {
                if let m = meshes[i] { try gathered.append(m.pointee, identity, meshIndex: i) }
            }
        }
        guard !gathered.triangles.isEmpty else {
            throw InputError(file: name, "assimp: the file holds no triangles")
        }
        let uvs = gathered.allHaveUV && gathered.uvs.count == gathered.positions.count ? gathered.uvs : nil
        return Mesh(uncheckedPositions: gathered.positions, triangles: gathered.triangles, uvs: uvs)
    }

    /// The largest mesh read through assimp (the README's limits): 20 million vertices and
    /// 40 million triangles.
    static let maxVertices = 20_000_000
    static let maxTriangles = 40_000_000

    static let identity = aiMatrix4x4(
        a1: 1, a2: 0, a3: 0, a4: 0, b1: 0, b2: 1, b3: 0, b4: 0,
        c1: 0, c2: 0, c3: 1, c4: 0, d1: 0, d2: 0, d3: 0, d4: 1)

    /// Row-major 4×4 product `a · b` (assimp matrices transform column vectors).
    static func multiply(_ a: aiMatrix4x4, _ b: aiMatrix4x4) -> aiMatrix4x4 {
        let ra = rows(a), rb = rows(b)
        var out = [Float](repeating: 0, count: 16)
        for i in 0..<4 {
            for j in 0..<4 {
                var s: Float = 0
                for k in 0..<4 { s += ra[4 * i + k] * rb[4 * k + j] }
                out[4 * i + j] = s
            }
        }
        return aiMatrix4x4(
            a1: out[0], a2: out[1], a3: out[2], a4: out[3], b1: out[4], b2: out[5], b3: out[6],
            b4: out[7],
            c1: out[8], c2: out[9], c3: out[10], c4: out[11], d1: out[12], d2: out[13], d3: out[14],
            d4: out[15])
    }

    static func rows(_ m: aiMatrix4x4) -> [Float] {
        [
            m.a1, m.a2, m.a3, m.a4, m.b1, m.b2, m.b3, m.b4, m.c1, m.c2, m.c3, m.c4, m.d1, m.d2,
            m.d3, m.d4,
        ]
    }

    package static func string(_ s: aiString) -> String {
        withUnsafeBytes(of: s.data) { raw in
            String(decoding: raw.prefix(min(Int(s.length), raw.count)), as: UTF8.self)
        }
    }

    static func setString(_ s: inout aiString, _ value: String) {
        let bytes = Array(value.utf8.prefix(1000))
        s.length = UInt32(bytes.count)
        withUnsafeMutableBytes(of: &s.data) { raw in
            for (i, b) in bytes.enumerated() { raw[i] = b }
            raw[bytes.count] = 0
        }
    }

    static let lock = AssimpLock()
}

/// Serialises calls into assimp (its C API reports errors through a global).
final class AssimpLock: @unchecked Sendable {
    private let mutex: UnsafeMutablePointer<pthread_mutex_t>

    init() {
        mutex = .allocate(capacity: 1)
        pthread_mutex_init(mutex, nil)
    }

    func withLock<T, E: Error>(_ body: () throws(E) -> T) throws(E) -> T {
        pthread_mutex_lock(mutex)
        defer { pthread_mutex_unlock(mutex) }
        return try body()
    }
}

/// The meshes of an `aiScene` gathered into one triangle list in scene space, for
/// ``AssimpIO/convert(_:name:)``: each mesh a node references, transformed by the node's
/// accumulated transform, its indices and coordinates checked.
struct SceneMeshes {
    let scene: aiScene
    let name: String
    var positions: [SIMD3<Float>] = []
    var uvs: [SIMD2<Float>] = []
    /// Whether every mesh so far has UV channel 0.
    var allHaveUV = true
    var triangles: [UInt32] = []

    init(scene: aiScene, name: String) {
        self.scene = scene
        self.name = name
    }

    /// Appends the meshes of `node` and of its children (at most 256 deep), `parent` the
    /// transform above it.
    mutating func visit(_ node: UnsafeMutablePointer<aiNode>, _ parent: aiMatrix4x4, depth: Int)
        throws(InputError)
    {
        guard depth < 256 else { return }
        let t = AssimpIO.multiply(parent, node.pointee.mTransformation)
        for k in 0..<Int(node.pointee.mNumMeshes) {
            guard let list = node.pointee.mMeshes else { break }
            let mi = Int(list[k])
            if mi < Int(scene.mNumMeshes), let meshes = scene.mMeshes, let m = meshes[mi] {
                try append(m.pointee, t, meshIndex: mi)
            }
        }
        for c in 0..<Int(node.pointee.mNumChildren) {
            guard let children = node.pointee.mChildren else { break }
            if let child = children[c] { try visit(child, t, depth: depth + 1) }
        }
    }

    /// Appends mesh `m` (number `meshIndex` of the scene) transformed by `t`: its vertices, then
    /// its faces.
    mutating func append(_ m: aiMesh, _ t: aiMatrix4x4, meshIndex: Int) throws(InputError) {
        let base = UInt32(positions.count)
        let n = Int(m.mNumVertices)
        guard n > 0, let verts = m.mVertices else { return }
        guard positions.count + n <= AssimpIO.maxVertices else {
            throw InputError(
                file: name,
                "more than \(AssimpIO.maxVertices) vertices (facescan's limit for a mesh file)")
        }
        let uv = m.mTextureCoords.0
        if uv == nil { allHaveUV = false }
        let place = scene.mNumMeshes > 1 ? "mesh \(meshIndex) " : ""
        for i in 0..<n {
            let p = verts[i]
            let q = SIMD3<Float>(
                t.a1 * p.x + t.a2 * p.y + t.a3 * p.z + t.a4,
                t.b1 * p.x + t.b2 * p.y + t.b3 * p.z + t.b4,
                t.c1 * p.x + t.c2 * p.y + t.c3 * p.z + t.c4)
            guard q.x.isFinite && q.y.isFinite && q.z.isFinite else {
                throw InputError(file: name, "\(place)vertex \(i): non-finite coordinate")
            }
            positions.append(q)
            if let uv { uvs.append(SIMD2(uv[i].x, uv[i].y)) }
        }
        try appendFaces(m, base: base, vertexCount: n, place: place)
    }

    /// Appends the faces of `m`, whose vertices start at `base`: points and lines are skipped; a
    /// polygon is cut into a fan of triangles, or a strip beyond 64 corners (as the OBJ reader
    /// does: no vertex in hundreds of its triangles).
    mutating func appendFaces(_ m: aiMesh, base: UInt32, vertexCount n: Int, place: String) throws(InputError) {
        guard let faces = m.mFaces else { return }
        for f in 0..<Int(m.mNumFaces) where faces[f].mNumIndices >= 3 {
            let corners = Int(faces[f].mNumIndices)
            guard let idx = faces[f].mIndices else {
                throw InputError(file: name, "\(place)face \(f): no indices")
            }
            for k in 0..<corners where Int(idx[k]) >= n {
                throw InputError(
                    file: name,
                    "\(place)face \(f): vertex index \(idx[k]) out of range (\(n) vertices)")
            }
            guard triangles.count + 3 * (corners - 2) <= 3 * AssimpIO.maxTriangles else {
                throw InputError(
                    file: name,
                    "more than \(AssimpIO.maxTriangles) triangles (facescan's limit for a mesh file)")
            }
            let start = triangles.count
            var fan = PolygonFan()
            for k in 0..<corners { fan.add(base + idx[k], to: &triangles) }
            if corners > Mesh.maxFanCorners { Mesh.restrip(&triangles, from: start, corners: corners) }
        }
    }
}

/// An `aiScene` built by hand for export: one root node holding one mesh (positions, smooth
/// vertex normals, UV channel 0 when present, triangles) and one material (name and a clay
/// diffuse colour). Every struct and array is allocated here and released by ``deallocate()``;
/// assimp's exporter copies the scene and never frees it.
struct SceneBuilder {
    let scene: UnsafeMutablePointer<aiScene>
    private var blocks: [UnsafeMutableRawPointer] = []

    init(_ mesh: Mesh) {
        var blocks = Blocks()
        let m = Self.mesh(mesh, &blocks)
        let material = Self.clayMaterial(&blocks)
        // Root node: identity transform, mesh 0.
        let node = blocks.alloc(aiNode.self, 1, aiNode())
        AssimpIO.setString(&node.pointee.mName, "facescan")
        node.pointee.mTransformation = AssimpIO.identity
        let nodeMeshes = blocks.alloc(UInt32.self, 1, 0)
        node.pointee.mNumMeshes = 1
        node.pointee.mMeshes = nodeMeshes

        let s = blocks.alloc(aiScene.self, 1, aiScene())
        let meshList = blocks.alloc(Optional<UnsafeMutablePointer<aiMesh>>.self, 1, m)
        let materialList = blocks.alloc(Optional<UnsafeMutablePointer<aiMaterial>>.self, 1, material)
        s.pointee.mRootNode = node
        s.pointee.mNumMeshes = 1
        s.pointee.mMeshes = meshList
        s.pointee.mNumMaterials = 1
        s.pointee.mMaterials = materialList
        s.pointee.mFlags = UInt32(AI_SCENE_FLAGS_NON_VERBOSE_FORMAT)
        scene = s
        self.blocks = blocks.list
    }

    /// The blocks a scene is made of, each zero-filled when allocated and kept to be freed.
    struct Blocks {
        var list: [UnsafeMutableRawPointer] = []

        /// `count` (at least one) values `zero`.
        mutating func alloc<T>(_ type: T.Type, _ count: Int, _ zero: T) -> UnsafeMutablePointer<T> {
            let p = UnsafeMutablePointer<T>.allocate(capacity: max(count, 1))
            p.initialize(repeating: zero, count: max(count, 1))
            list.append(UnsafeMutableRawPointer(p))
            return p
        }
    }

    /// The `aiMesh` of `mesh`: vertices, normals, UVs, faces (their index arrays in one block).
    static func mesh(_ mesh: Mesh, _ blocks: inout Blocks) -> UnsafeMutablePointer<aiMesh> {
        let n = mesh.vertexCount, tn = mesh.triangleCount
        let m = blocks.alloc(aiMesh.self, 1, aiMesh())
        m.pointee.mPrimitiveTypes = aiPrimitiveType_TRIANGLE.rawValue
        m.pointee.mNumVertices = UInt32(n)
        let verts = blocks.alloc(aiVector3D.self, n, aiVector3D())
        let norms = blocks.alloc(aiVector3D.self, n, aiVector3D())
        let normals = mesh.vertexNormals()
        for i in 0..<n {
            let p = mesh.positions[i], q = normals[i]
            verts[i] = aiVector3D(x: p.x, y: p.y, z: p.z)
            norms[i] = aiVector3D(x: q.x, y: q.y, z: q.z)
        }
        m.pointee.mVertices = verts
        m.pointee.mNormals = norms
        if let uvs = mesh.uvs {
            let tc = blocks.alloc(aiVector3D.self, n, aiVector3D())
            for i in 0..<n { tc[i] = aiVector3D(x: uvs[i].x, y: uvs[i].y, z: 0) }
            m.pointee.mTextureCoords.0 = tc
            m.pointee.mNumUVComponents.0 = 2
        }
        let faces = blocks.alloc(aiFace.self, tn, aiFace())
        let indices = blocks.alloc(UInt32.self, 3 * tn, 0)
        for t in 0..<tn {
            for k in 0..<3 { indices[3 * t + k] = mesh.triangles[3 * t + k] }
            faces[t] = aiFace(mNumIndices: 3, mIndices: indices + 3 * t)
        }
        m.pointee.mNumFaces = UInt32(tn)
        m.pointee.mFaces = faces
        m.pointee.mMaterialIndex = 0
        AssimpIO.setString(&m.pointee.mName, "face")
        return m
    }

    /// The material: name and diffuse colour (a clay tone).
    static func clayMaterial(_ blocks: inout Blocks) -> UnsafeMutablePointer<aiMaterial> {
        func property(_ key: String, _ type: aiPropertyTypeInfo, _ data: [UInt8])
            -> UnsafeMutablePointer<aiMaterialProperty>
        {
            let p = blocks.alloc(aiMaterialProperty.self, 1, aiMaterialProperty())
            AssimpIO.setString(&p.pointee.mKey, key)
            p.pointee.mType = type
            p.pointee.mDataLength = UInt32(data.count)
            let d = blocks.alloc(CChar.self, data.count, 0)
            for (i, b) in data.enumerated() { d[i] = CChar(bitPattern: b) }
            p.pointee.mData = d
            return p
        }
        let matName = "clay"
        var nameData = withUnsafeBytes(of: UInt32(matName.utf8.count).littleEndian) { Array($0) }
        nameData += Array(matName.utf8) + [0]
        var colorData: [UInt8] = []
        for c: Float in [0.8, 0.65, 0.55, 1] {
            colorData += withUnsafeBytes(of: c.bitPattern.littleEndian) { Array($0) }
        }
        let props = blocks.alloc(Optional<UnsafeMutablePointer<aiMaterialProperty>>.self, 2, nil)
        props[0] = property("?mat.name", aiPTI_String, nameData)
        props[1] = property("$clr.diffuse", aiPTI_Float, colorData)
        let material = blocks.alloc(aiMaterial.self, 1, aiMaterial())
        material.pointee.mProperties = props
        material.pointee.mNumProperties = 2
        material.pointee.mNumAllocated = 2
        return material
    }

    /// Frees every block (the structs hold only trivially copyable fields).
    func deallocate() {
        for b in blocks { b.deallocate() }
    }
}
#endif
