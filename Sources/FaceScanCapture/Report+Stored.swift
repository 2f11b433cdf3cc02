import FaceScanCore

/// Reading a ``Report`` back from its JSON (here, beside the JSON reader it uses; the writer,
/// ``Report/json``, is in Support/Report.swift).
extension Report {
    /// A report as ``json`` wrote it (batch stores it in `NAME.report.json`); missing members stay 0.
    package init(stored j: JSONValue) {
        self.init(input: j["input"]?.stringValue ?? "")
        func int(_ v: JSONValue?) -> Int { v?.number.map { Int(exactly: $0.rounded()) ?? 0 } ?? 0 }
        let f = j["frames"]
        frames.read = int(f?["read"])
        frames.accepted = int(f?["accepted"])
        frames.rejected.distance = int(f?["rejected"]?["distance"])
        frames.rejected.tracking = int(f?["rejected"]?["tracking"])
        frames.rejected.lighting = int(f?["rejected"]?["lighting"])
        frames.rejected.expression = int(f?["rejected"]?["expression"])
        frames.rejected.outlier = int(f?["outlier"])
        let m = j["mesh"]
        mesh.inputVertices = int(m?["inputVertices"])
        mesh.inputTriangles = int(m?["inputTriangles"])
        mesh.outputVertices = int(m?["outputVertices"])
        mesh.outputTriangles = int(m?["outputTriangles"])
        let t = j["timingsMs"]
        func ms(_ k: String) -> Double { t?[k]?.number ?? 0 }
        timingsMs.ingest = ms("ingest")
        timingsMs.smooth = ms("smooth")
        timingsMs.decimate = ms("decimate")
        timingsMs.refine = ms("refine")
        timingsMs.render = ms("render")
        timingsMs.export = ms("export")
        timingsMs.total = ms("total")
        if case .array(let outs)? = j["outputs"] {
            outputs = outs.compactMap { o in
                guard let format = o["format"]?.stringValue, let path = o["path"]?.stringValue else { return nil }
                return Output(format: format, path: path, bytes: int(o["bytes"]))
            }
        }
        if case .array(let ws)? = j["warnings"] { warnings = ws.compactMap(\.stringValue) }
    }
}
