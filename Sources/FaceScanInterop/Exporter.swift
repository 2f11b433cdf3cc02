import FaceScanCore
import FaceScanExport
import FaceScanRender
import FaceScanTexture

/// Output formats of `process`: `stl`, `obj`, `png` (the thumbnail) and the other single-file
/// formats of ``MeshIO/writableExtensions`` (GLB written by facescan, 3MF through lib3mf, the
/// rest through assimp).
package enum Exporter {
    /// A textured mesh's colour: the texture and its PNG bytes (encoded once per run).
    package struct Colour: Sendable {
        /// The fused texture.
        package var texture: RGBAImage
        /// Its PNG bytes.
        package var png: [UInt8]
        /// The colour of a run from its texture and PNG bytes.
        package init(texture: RGBAImage, png: [UInt8]) {
            self.texture = texture
            self.png = png
        }
    }

    /// What follows the output's base name in the texture file beside an OBJ: `face.texture.png`.
    package static let textureSuffix = ".texture.png"

    /// Every format name `process` accepts (``FileFormat/processOutputNames``: OFF, which
    /// `convert` and `simplify` write, is not one).
    package static var supportedFormats: [String] { FileFormat.processOutputNames }

    /// Encodes `mesh`, whose coordinates are in `unit`, in `format`. Unit-less formats (STL,
    /// OBJ, PLY, …) keep `unit`; formats that state a unit (GLB metres, DAE metres, X3D metres,
    /// 3MF millimetres) are written in it, and binary FBX keeps `unit`'s numbers and states it
    /// (`UnitScaleFactor`), so they read back at the true size
    /// (``FileFormat/statedUnitMillimetres``). For `.png` the mesh is rendered with `render`
    /// (front view); `.threeMF` embeds `thumbnail` (PNG bytes), or such a rendering when nil.
    /// `printingPosition`: the mesh is a solid part standing on z = 0 (USDZ turns it y up).
    /// Throws ``FaceScanError/badSetting(_:)`` or ``FaceScanError/io(_:)``; `.uncertaintyPNG`,
    /// which needs the average's errors, not a mesh, is refused (`Pipeline` renders it).
    ///
    /// With `colour` (a textured mesh: UVs and the fused texture) the formats that hold colour
    /// carry it: OBJ names `materialLibrary` (the caller writes the MTL and texture beside it),
    /// GLB, USDZ and 3MF embed the texture (3MF: a texture2d and per-triangle texture coordinates), PLY gets a colour per vertex, the PNG thumbnail is rendered in
    /// the face's colours. Without it the bytes are those of a mesh without colour.
    package static func bytes(
        _ mesh: Mesh, format: FileFormat, unit: LengthUnit = .mm, render: RenderOptions = RenderOptions(),
        thumbnail: [UInt8]? = nil, colour: Colour? = nil, materialLibrary: String = "face.mtl",
        printingPosition: Bool = false
    ) throws(FaceScanError) -> [UInt8] {
        if let colour, mesh.uvs != nil,
            let bytes = try coloured(
                mesh, format: format, unit: unit, render: render, thumbnail: thumbnail, colour: colour,
                materialLibrary: materialLibrary, printingPosition: printingPosition)
        {
            return bytes
        }
        switch format {
        case .stl: return mesh.stlBytes()
        case .obj: return mesh.objBytes()
        case .png:
            return try Self.thumbnail(mesh, render: render)
        case .threeMF:
            return try MeshIO.bytes(
                mesh, format: format, unit: unit, thumbnail: Self.thumbnail(mesh, given: thumbnail, render: render))
        case .off, .glb, .gltf, .fbx, .ply, .dae, .x3d, .x, .threeDS, .usdz, .uncertaintyPNG:
            return try MeshIO.bytes(mesh, format: format, unit: unit, printingPosition: printingPosition)
        }
    }

    /// The bytes of a textured mesh in a format that holds its colour, or nil for the formats
    /// that do not (and for USDZ or PLY when the coloured form cannot be made): those are written
    /// as a mesh without colour.
    static func coloured(
        _ mesh: Mesh, format: FileFormat, unit: LengthUnit, render: RenderOptions, thumbnail: [UInt8]?,
        colour: Colour, materialLibrary: String, printingPosition: Bool
    ) throws(FaceScanError) -> [UInt8]? {
        switch format {
        case .obj: return mesh.objBytes(materialLibrary: materialLibrary)
        case .glb: return mesh.glbBytes(metresPerUnit: unit.millimetres / 1000, texturePNG: colour.png)
        case .usdz:
            return mesh.usdzBytes(
                metresPerUnit: unit.millimetres / 1000, printingPosition: printingPosition, texturePNG: colour.png)
        case .ply: return TexturedMesh.vertexColours(mesh, texture: colour.texture).map { mesh.plyBytes(colours: $0) }
        case .png:
            return try Self.thumbnail(mesh, render: render, texture: colour.texture)
        case .threeMF:
            return try MeshIO.bytes(
                mesh, format: format, unit: unit,
                thumbnail: Self.thumbnail(mesh, given: thumbnail, render: render, texture: colour.texture),
                texturePNG: colour.png)
        case .stl, .off, .gltf, .fbx, .dae, .x3d, .x, .threeDS, .uncertaintyPNG: return nil
        }
    }
}

extension Exporter {
    /// A thumbnail's PNG bytes: `given` when there is one, else `mesh` rendered with `render`
    /// (front view; in `texture`'s colours when given) and encoded as PNG. The one statement of
    /// the PNG output's rendering and of the 3MF package thumbnail's fallback.
    package static func thumbnail(
        _ mesh: Mesh, given: [UInt8]? = nil, render: RenderOptions, texture: RGBAImage? = nil
    ) throws(FaceScanError) -> [UInt8] {
        if let given { return given }
        let image =
            if let texture {
                try TexturedMesh.render(mesh.atWorkingMagnitude, texture: texture, options: render)
            } else {
                try Rasterizer.render(mesh.atWorkingMagnitude, options: render)
            }
        return try PNGEncoder.encode(image, name: "thumbnail")
    }
}

extension String {
    package var trimmingSpaces: String {
        var s = Substring(self)
        while s.first == " " { s.removeFirst() }
        while s.last == " " { s.removeLast() }
        return String(s)
    }
}
