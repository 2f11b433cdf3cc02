import Testing

@testable import FaceScanInterop
@testable import FaceScanKit

/// The one format table (FileFormat) and the types and lists that read it.
@Suite struct FormatTableTests {
    @Test func namesAreUniqueAndResolve() {
        let names = FileFormat.all.flatMap { [$0.name] + $0.aliases }
        #expect(Set(names).count == names.count)
        for f in FileFormat.all {
            #expect(FileFormat.named(f.name.uppercased()) == f)
            for a in f.aliases { #expect(FileFormat.named(" \(a) ") == f) }
        }
        #expect(FileFormat.named("xyz") == nil)
    }

    /// The public enums name the table's rows: every output of `process` is an OutputFormat, every
    /// MeshFormat a row facescan writes and, unless it is write-only (USDZ), reads.
    @Test func theEnumsAgreeWithTheTable() {
        #expect(Set(OutputFormat.allCases.map(\.rawValue)) == Set(FileFormat.processOutputNames))
        for m in MeshFormat.allCases {
            let row = FileFormat.named(m.rawValue)
            #expect(row?.writer != nil && (row?.reader != nil) == m.isReadable, "\(m)")
            #expect(m.isNative == (row?.reader == .facescan), "\(m)")
        }
        #expect(Exporter.supportedFormats == FileFormat.processOutputNames)
        #expect(
            MeshIO.writableExtensions == [
                "obj", "stl", "3ds", "3mf", "dae", "fbx", "glb", "off", "ply", "usdz", "x", "x3d",
            ])
    }

    @Test func unitsAndWritersComeFromTheTable() {
        #expect(MeshIO.statedUnitMillimetres(format: "collada") == 1000)
        #expect(MeshIO.statedUnitMillimetres(format: "3MF") == 1)
        #expect(MeshIO.statedUnitMillimetres(format: "stl") == nil)
        #expect(MeshIO.assimpExportIDs == ["ply": "plyb", "dae": "collada", "x3d": "x3d", "x": "x", "3ds": "3ds"])
        // Every writable format's writer is available or reported as missing, never unknown.
        let m = try? Mesh(
            positions: [[0, 0, 0], [1, 0, 0], [0, 1, 0], [0, 0, 1]], triangles: [0, 2, 1, 0, 1, 3, 0, 3, 2, 1, 2, 3])
        for name in MeshIO.writableExtensions {
            do {
                _ = try MeshIO.bytes(m!, format: #require(FileFormat.named(name)))
            } catch {
                #expect(!"\(error)".contains("unknown"), "\(name): \(error)")
            }
        }
    }
}
