import FaceScanCore
import FaceScanInterop
import FaceScanRender

extension Stages {
    /// One file of stage 3: its name (`NAME.FORMAT`; beside an OBJ of a coloured mesh
    /// `NAME.mtl` and `NAME.texture.png`), the format the report lists it as, its bytes.
    struct File: Sendable {
        /// The file's name, without a directory.
        var name: String
        /// `stl`, `obj`, …, `mtl`, `texture.png`: what `Report.outputs` calls it.
        var format: String
        /// The file's bytes.
        var bytes: [UInt8]
    }

    /// 3. Write: each of `formats` (each once, in their order) encoded and handed to `output` as
    /// `name.FORMAT`, an OBJ's material and texture beside it when the mesh is coloured. The
    /// thumbnail is rendered once, for the PNG and the 3MF package thumbnail, `thumbnailSize`
    /// pixels on its longest side, on `renderThreads` threads. Returns the milliseconds spent
    /// rendering (the thumbnail and the uncertainty picture).
    static func write(
        _ shaped: Shaped, formats: [OutputFormat], name outputName: String, thumbnailSize: Int, renderThreads: Int = 1,
        output: (File) throws(FaceScanError) -> Void
    ) throws(FaceScanError) -> Double {
        let mesh = shaped.mesh
        let settings = shaped.average.settings
        var unique: [FileFormat] = []
        for f in formats.map(\.fileFormat) where !unique.contains(f) { unique.append(f) }
        var renderMs = 0.0
        var thumbnail: [UInt8]?  // rendered once, for the PNG and the 3MF package thumbnail
        // The texture's PNG (encoded once) when the capture had colour and the mesh kept its UVs.
        let colour = try shaped.average.texture.flatMap { (t) throws(FaceScanError) -> Exporter.Colour? in
            mesh.uvs == nil ? nil : Exporter.Colour(texture: t, png: try PNGEncoder.encode(t, name: "texture"))
        }
        for format in unique {
            var formatClock = Stopwatch()
            let bytes: [UInt8]
            switch format {
            case .png, .threeMF:
                if thumbnail == nil {
                    thumbnail = try Exporter.bytes(
                        mesh, format: .png, render: RenderOptions(size: thumbnailSize, threads: renderThreads),
                        colour: colour)
                    renderMs = formatClock.lap()
                }
                bytes =
                    format == .png
                    ? thumbnail ?? []
                    : try Exporter.bytes(
                        mesh, format: format, unit: settings.units, thumbnail: thumbnail, colour: colour,
                        materialLibrary: outputName + ".mtl", printingPosition: settings.solid != nil)
            case .uncertaintyPNG:
                bytes = try uncertaintyPicture(shaped.average, size: thumbnailSize)
                renderMs += formatClock.lap()
            default:
                // Formats with a stated unit are written at the true size whatever --units says.
                bytes = try Exporter.bytes(
                    mesh, format: format, unit: settings.units, thumbnail: thumbnail, colour: colour,
                    materialLibrary: outputName + ".mtl", printingPosition: settings.solid != nil)
            }
            try output(File(name: outputName + "." + format.name, format: format.name, bytes: bytes))
            if format == .obj, let colour {
                // The OBJ's material and its texture beside it.
                try output(
                    File(
                        name: outputName + ".mtl", format: "mtl",
                        bytes: Mesh.mtlBytes(texture: outputName + Exporter.textureSuffix)))
                try output(File(name: outputName + Exporter.textureSuffix, format: "texture.png", bytes: colour.png))
            }
        }
        return renderMs
    }

    /// The averaged face (before smoothing) coloured by each vertex's standard error in µm, with
    /// a legend, as PNG bytes (front view, at least `Heatmap.minimumSize` pixels); all zero and
    /// said so under the picture when one frame was averaged (no estimate).
    static func uncertaintyPicture(_ average: Average, size: Int) throws(FaceScanError) -> [UInt8] {
        let se = average.standardErrors
        let um = se?.map { $0 * 1e6 } ?? [Double](repeating: 0, count: average.mesh.vertexCount)
        let noise = Report.Noise(standardErrors: se ?? [])
        let caption =
            se == nil
            ? ["standard error: one frame averaged, no estimate"]
            : [
                "standard error of the average",
                "median \(Heatmap.label(noise.medianStandardErrorUm)) µm, 95%: \(Heatmap.label(noise.p95StandardErrorUm)) µm",
            ]
        let rendered = try Heatmap.render(
            average.mesh, valuesUm: um, caption: caption,
            options: RenderOptions(size: max(size, Heatmap.minimumSize)))
        return try PNGEncoder.encode(rendered.image, name: "uncertainty")
    }
}
