import ArgumentParser
import FaceScanKit
import FacescanTools

#if canImport(Glibc)
import Glibc
#endif

extension RenderView: ExpressibleByArgument {}

struct RenderCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "render", abstract: "Render a mesh to a PNG thumbnail (clay shading, transparent background).")

    @Argument(
        help: "Mesh file (OBJ, STL, or any format assimp reads; - for OBJ/STL on standard input).",
        completion: Completions.meshFile)
    var mesh: String
    @Argument(help: "Output PNG file, or - for standard output.", completion: Completions.pngFile) var output: String
    @Option(parsing: .unconditional, help: "Width and height of the image in pixels.") var size: Int = 512
    @Option(help: "Camera position: \(RenderView.allCases.map(\.rawValue).joined(separator: ", ")).") var view:
        RenderView = .front
    @Option(parsing: .unconditional, help: "Samples per pixel along each axis (2 = 4 samples per pixel).")
    var supersample: Int = 2
    @Option(
        help:
            "Texture PNG for a mesh with UVs (default: NAME.texture.png beside a NAME.obj or NAME.glb, as process writes it); the render is in its colours.",
        completion: Completions.pngFile)
    var texture: String?

    @OptionGroup var verbosity: Verbosity

    func validate() throws {
        guard (1...8192).contains(size) else { throw ValidationError("--size must be between 1 and 8192") }
        guard (1...8).contains(supersample) else { throw ValidationError("--supersample must be between 1 and 8") }
        guard output == "-" || output.lowercased().hasSuffix(".png") else {
            throw ValidationError("render writes PNG: OUT must end in .png, or be - for standard output")
        }
        try Terminal.refuseBinaryOutput(output, format: .png)
    }

    func run() throws {
        let m = try MeshInput.read(mesh, command: "render")
        let options = RenderOptions(size: size, view: view, supersample: supersample)
        var texturePath = texture
        if texturePath == nil, mesh != "-", let dot = mesh.lastIndex(of: ".") {
            let beside = String(mesh[..<dot]) + ".texture.png"
            if access(beside, R_OK) == 0 { texturePath = beside }
        }
        let image: RGBAImage
        if let texturePath, m.uvs != nil {
            let tex = try PNGEncoder.decode(FileBytes.read(texturePath, upTo: 1 << 28), name: texturePath)
            image = try TexturedMesh.render(m.atWorkingMagnitude, texture: tex, options: options)
        } else {
            image = try Rasterizer.render(m.atWorkingMagnitude, options: options)
        }
        try OutputSet.write(PNGEncoder.encode(image, name: output), to: output)
        verbosity.note(
            "\(mesh): \(m.vertexCount) vertices, \(m.triangleCount) triangles rendered to \(output) (\(size)×\(size))")
    }
}
