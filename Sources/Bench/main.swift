// `make bench`: release-build figures for every stage. Run from the package root.
// `facescan-bench [pipeline] [decimation] [accuracy] [samples]` runs only the named sections.
import FaceScanKit

let wanted = Set(CommandLine.arguments.dropFirst())
func section(_ name: String) -> Bool { wanted.isEmpty || wanted.contains(name) }

if section("pipeline") {
    do { try runPipelineBench(samplesDir: "samples") } catch { print("pipeline bench failed: \(error)") }
}
if section("decimation") { runDecimationBench() }
if section("accuracy") {
    do { try runAccuracyBench(samplesDir: "samples") } catch { print("accuracy bench failed: \(error)") }
}
if section("samples") {
    do { try runSampleAccuracyBench(samplesDir: "samples") } catch { print("sample accuracy bench failed: \(error)") }
}
