import Foundation
import Testing

/// The solid parts of the samples sliced by PrusaSlicer's command line on the printer profile in
/// Tests/printer/ (250 × 210 × 210 mm bed, 0.2 mm layers): no error or warning, extrusions in the
/// first layer, the part on the bed, filament and time read from the G-code. A missing
/// `prusa-slicer` is reported as a skipped test in a developer's shell and is a failure when `CI`
/// is set (``Tool``).
///
/// Solid parts take seconds in a debug build: these tests run ``fastFacescanBinary``.
/// Its cases run side by side (each in its own directory): run one after another they were the last
/// suites to finish in `make test`, with one core idle.
@Suite struct SlicerTests {
    static func facescan(_ args: [String]) throws -> (status: Int32, stdout: String, stderr: String) {
        try ClientImportTests.run(fastFacescanBinary, args, cwd: tempDir())
    }

    /// `--solid` and `--solid --base` reach every count asked, from a few hundred vertices to
    /// 100 000, closed and on the bed (inspect's report).
    @Test func solidsReachEveryTarget() throws {
        let capture = packageRoot + "/samples/ict-neutral/capture.json"
        for mode in [[], ["--base"]] as [[String]] {
            for target in [400, 2_500, 10_000, 20_000, 60_000, 100_000] {
                let dir = tempDir()
                let r = try Self.facescan(
                    ["process", capture, "--solid"] + mode
                        + ["-n", String(target), "--output-dir", dir, "--formats", "stl", "--quiet"])
                #expect(r.status == 0, "\(mode) \(target): \(r.stderr)")
                guard r.status == 0 else { continue }
                let i = try Self.facescan(["inspect", dir + "/capture.stl", "--json"])
                let report = (try? JSONSerialization.jsonObject(with: Data(i.stdout.utf8))) as? [String: Any]
                #expect(report?["vertices"] as? Int == target, "\(mode) \(target): \(i.stdout)")
                #expect(report?["watertight"] as? Bool == true, "\(mode) \(target): \(i.stdout)")
            }
        }
    }

    /// A printer profile of Tests/printer/ and its bed (x, y), mm.
    struct Printer: Sendable, CustomTestStringConvertible {
        var profile: String
        var bed: (x: Double, y: Double)
        var fit: String
        var testDescription: String { fit }
        static let large = Printer(
            profile: packageRoot + "/Tests/printer/prusa-250x210x210.ini", bed: (250, 210), fit: "250x210x210")
        /// A skirt one loop 6 mm from the part, stated in the profile: --fit must leave room for it.
        static let small = Printer(
            profile: packageRoot + "/Tests/printer/prusa-180x180x180.ini", bed: (180, 180), fit: "180x180x180")
    }

    struct Sliced {
        var gcode: String
        var log: String
        var status: Int32
    }

    static func slice(_ stl: String, in dir: String, on printer: Printer = .large) throws -> Sliced {
        let slicer = try Tool.require("prusa-slicer")
        let out = dir + "/part.gcode"
        let center = "\(Int(printer.bed.x / 2)),\(Int(printer.bed.y / 2))"
        let (status, stdout, stderr) = try ClientImportTests.run(
            slicer,
            ["--export-gcode", "--load", printer.profile, "--center", center, "--loglevel", "2", "-o", out, stl],
            cwd: dir)
        let gcode = (try? String(contentsOfFile: out, encoding: .utf8)) ?? ""
        return Sliced(gcode: gcode, log: stdout + stderr, status: status)
    }

    /// Value of a `; key = value` comment of the G-code.
    static func comment(_ key: String, in gcode: String) -> String? {
        for line in gcode.split(separator: "\n") where line.hasPrefix("; \(key) = ") {
            return String(line.dropFirst(key.count + 5))
        }
        return nil
    }

    /// Every sample's shell and relief, fitted to each printer, sliced: part and skirt on the bed
    /// (`--fit` leaves ``SolidOptions/defaultFitMargin`` on each side for the skirt).
    @Test(
        .enabled(if: Tool.available("prusa-slicer"), "prusa-slicer is not installed (make test-deps installs it)"),
        arguments: [[] as [String], ["--base"]], [Printer.large, Printer.small])
    func samplePartsSliceCleanly(mode: [String], printer: Printer) throws {
        for sample in sampleCaptures() {
            let dir = tempDir()
            let r = try Self.facescan(
                ["process", sample.capture, "--solid"] + mode
                    + [
                        "--fit", printer.fit, "--quality", "low", "--output-dir", dir, "--formats", "stl", "--json",
                        "--quiet",
                    ])
            #expect(r.status == 0, "\(sample.capture) \(mode): \(r.stderr)")
            let json = (try? JSONSerialization.jsonObject(with: Data(r.stdout.utf8))) as? [String: Any]
            guard r.status == 0, let stl = (json?["outputs"] as? [[String: Any]])?.first?["path"] as? String else {
                continue
            }
            let sliced = try Self.slice(stl, in: dir, on: printer)
            #expect(sliced.status == 0, "\(sample.capture) \(mode): \(sliced.log)")
            let lower = sliced.log.lowercased()
            #expect(!lower.contains("error") && !lower.contains("warning"), "\(sample.capture) \(mode): \(sliced.log)")
            // The first layer prints: an extruding move before the second layer starts.
            let layers = sliced.gcode.components(separatedBy: ";LAYER_CHANGE")
            #expect(layers.count > 10, "\(sample.capture) \(mode): \(layers.count - 1) layers")
            if layers.count > 1 {
                let first = layers[1]
                #expect(first.contains(";Z:0.2"), "first layer not at 0.2 mm")
                let extrudes = first.split(separator: "\n").contains {
                    $0.hasPrefix("G1 ") && $0.contains(" E") && $0.contains(" X")
                }
                #expect(extrudes, "\(sample.capture) \(mode): no extrusion in the first layer")
            }
            // Every extruding move on the bed, the skirt's included.
            var outside = 0
            let (bedX, bedY) = printer.bed
            for line in sliced.gcode.split(separator: "\n") where line.hasPrefix("G1 ") && line.contains(" E") {
                for word in line.split(separator: " ") {
                    if word.hasPrefix("X"), let x = Double(word.dropFirst()), !(0...bedX).contains(x) { outside += 1 }
                    if word.hasPrefix("Y"), let y = Double(word.dropFirst()), !(0...bedY).contains(y) { outside += 1 }
                }
            }
            #expect(outside == 0, "\(sample.capture) \(mode): \(outside) moves off the bed")
            let volume = Self.comment("filament used [cm3]", in: sliced.gcode) ?? "?"
            let time = Self.comment("estimated printing time (normal mode)", in: sliced.gcode) ?? "?"
            #expect(Double(volume).map { $0 > 0 } ?? false, "no filament volume in the G-code")
            print(
                "SlicerTests: \((sample.dir as NSString).lastPathComponent) \(mode.isEmpty ? "shell" : "base") on \(printer.fit): \(volume) cm³ of filament, \(time)"
            )
        }
    }
}
