import FaceScanCore
import FaceScanRender

/// Output formats of `process`: `stl`, `obj`, `png` (the thumbnail) and the other single-file
/// formats of ``MeshIO/writableExtensions`` (GLB written by facescan, 3MF through lib3mf, the
/// rest through assimp).
package enum Exporter {
    /// Every format name `process` accepts (``FileFormat/processOutputNames``: OFF, which
    /// `convert` and `simplify` write, is not one).
    package static var supportedFormats: [String] { FileFormat.processOutputNames }

    /// Encodes `mesh`, whose coordinates are in `unit`, in `format`. Unit-less formats (STL,
    /// OBJ, PLY, …) keep `unit`; formats that state a unit (GLB metres, DAE metres, X3D metres,
    /// 3MF millimetres) are written in it, and binary FBX keeps `unit`'s numbers and states it
    /// (`UnitScaleFactor`), so they read back at the true size
    /// (``MeshIO/statedUnitMillimetres(format:)``). For `png` the mesh is rendered with `render`
    /// (front view); `3mf` embeds `thumbnail` (PNG bytes), or such a rendering when nil.
    /// `printingPosition`: the mesh is a solid part standing on z = 0 (USDZ turns it y up).
    /// Throws ``UsageError`` or ``IOFailure``.
    package static func bytes(
        _ mesh: Mesh, format: String, unit: LengthUnit = .mm, render: RenderOptions = RenderOptions(),
        thumbnail: [UInt8]? = nil, printingPosition: Bool = false
    ) throws -> [UInt8] {
        switch format {
        case "stl": return mesh.stlBytes()
        case "obj": return mesh.objBytes()
        case "png":
            return try PNGEncoder.encode(Rasterizer.render(mesh.atWorkingMagnitude, options: render), name: "thumbnail")
        case "3mf":
            let png =
                try thumbnail
                ?? PNGEncoder.encode(Rasterizer.render(mesh.atWorkingMagnitude, options: render), name: "thumbnail")
            return try MeshIO.bytes(mesh, format: format, unit: unit, thumbnail: png)
        default: return try MeshIO.bytes(mesh, format: format, unit: unit, printingPosition: printingPosition)
        }
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
