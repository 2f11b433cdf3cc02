// `make bench`: release-build figures for every stage. Run from the package root.
import FaceScanKit

do {
    try runPipelineBench(samplesDir: "samples")
} catch {
    print("pipeline bench failed: \(error)")
}
runDecimationBench()
