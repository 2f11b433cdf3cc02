import Foundation
import Synchronization
import Testing

@testable import FaceScanKit

/// A flat `side × side` grid (metres, 0.4 m in front of the camera): its topology and positions.
private func grid(_ side: Int = 6) -> (Topology, [Float]) {
    var xyz: [Float] = []
    for y in 0..<side {
        for x in 0..<side { xyz += [Float(x) * 0.01, Float(y) * 0.01, -0.4] }
    }
    return (Topology(triangles: gridTriangles(side: side)), xyz)
}

/// A good frame: the grid moved by deterministic noise of `noise` metres (plus `offset`).
private func frame(
    _ base: [Float], noise: Float = 1e-4, offset: Float = 0, seed: UInt64,
    metadata: FrameMetadata = FrameMetadata(distance: 0.4, ambientIntensity: 1000)
) -> Frame {
    var rng = SplitMix64(seed: seed)
    let xyz = base.map { $0 + offset + Float(rng.gaussian()) * noise }
    return Frame(xyz: xyz, metadata: metadata)
}

private let samplesDirectory =
    URL(fileURLWithPath: #filePath).deletingLastPathComponent()
    .deletingLastPathComponent().deletingLastPathComponent().path + "/samples"

/// Reads every frame of the capture at `path` into memory (with its topology and its settings
/// resolved as `facescan process` resolves them without flags).
private func loadCapture(_ path: String) throws -> (Topology, ScanSettings, [Frame]) {
    let reader = try CaptureReader(path: path)
    try reader.readHeader()
    let settings = ScanSettings(options: PipelineOptions(), settings: try CaptureSettings(reader.settings))
    var frames: [Frame] = []
    var f = Frame()
    while try reader.nextFrame(&f) { frames.append(f) }
    return (reader.topology!, settings, frames)
}

@Suite struct FaceScanSessionTests {
    /// Each rejection reason gives its reason and the app's instruction, at once; accepted
    /// frames count toward maxFrames; frames after the scan is complete are ignored.
    @Test func verdictsAndInstructionsForEveryReason() throws {
        let (topology, base) = grid()
        var settings = ScanSettings()
        settings.maxFrames = 2
        var session = try FaceScanSession(topology: topology, settings: settings)
        let cases: [(FrameMetadata, Rejection?, String?)] = [
            (FrameMetadata(distance: 0.2), .distance, "Move back — too close"),
            (FrameMetadata(distance: 0.7), .distance, "Move closer"),
            (FrameMetadata(distance: 0.4, tracking: .limited), .tracking, "Keep face steady"),
            (FrameMetadata(distance: 0.4, ambientIntensity: 100), .lighting, "Need better lighting"),
            (FrameMetadata(distance: 0.4, ambientIntensity: 1000, jawOpen: 0.9), .expression, "Relax your face"),
            (
                FrameMetadata(distance: 0.4, ambientIntensity: 1000, mouthSmileLeft: 0.8, mouthSmileRight: 0.8),
                .expression, "Relax your face"
            ),
            (FrameMetadata(distance: 0.4, ambientIntensity: 1000), nil, nil),
        ]
        for (i, (meta, reason, text)) in cases.enumerated() {
            let v = try session.add(frame(base, seed: UInt64(i), metadata: meta))
            #expect(v.frameIndex == i)
            #expect(v.rejection == reason, "frame \(i)")
            #expect(v.instruction == text, "frame \(i)")
            #expect(v.isAccepted == (reason == nil))
            #expect(v.acceptedFrames == (reason == nil ? 1 : 0))
            #expect(v.maxFrames == 2)
        }
        #expect(session.report.frames.rejected.distance == 2)
        #expect(session.report.frames.rejected.tracking == 1)
        #expect(session.report.frames.rejected.lighting == 1)
        #expect(session.report.frames.rejected.expression == 2)
        let last = try session.add(frame(base, seed: 99))
        #expect(last.isAccepted && last.isComplete && last.progress == 1)
        // Complete: a further frame is neither accepted nor rejected, and not counted.
        let extra = try session.add(frame(base, seed: 100, metadata: FrameMetadata(distance: 0.1)))
        #expect(!extra.isAccepted && extra.rejection == nil && extra.isComplete)
        #expect(session.report.frames.read == 8 && session.report.frames.accepted == 2)
    }

    /// The progress of accepted frames toward maxFrames.
    @Test func progressTowardMaxFrames() throws {
        let (topology, base) = grid()
        var session = try FaceScanSession(topology: topology, settings: ScanSettings(maxFrames: 4))
        var seen: [Double] = []
        for i in 0..<4 { seen.append(try session.add(frame(base, seed: UInt64(i))).progress) }
        #expect(seen == [0.25, 0.5, 0.75, 1])
        #expect(session.isComplete)
    }

    /// A frame far from the others is reported as an outlier: among the warm-up frames once they
    /// are judged together, after the warm-up at once.
    @Test func reportsOutliersWhenDecided() throws {
        let (topology, base) = grid()
        var session = try FaceScanSession(topology: topology)
        var found: [(at: Int, frames: [Int])] = []
        for i in 0..<14 {
            let bad = i == 3 || i == 11
            let v = try session.add(frame(base, offset: bad ? 0.01 : 0, seed: UInt64(i)))
            #expect(v.isAccepted)
            if !v.newOutliers.isEmpty { found.append((i, v.newOutliers)) }
        }
        #expect(found.count == 2)
        #expect(found.first?.at == RobustAccumulator.warmUp - 1 && found.first?.frames == [3])
        #expect(found.last?.at == 11 && found.last?.frames == [11])
        #expect(session.report.frames.rejected.outlier == 2)
        let result = try session.finish()
        #expect(result.report.frames.rejected.outlier == 2)
        #expect(result.report.frames.accepted == 14)
    }

    /// Frames of a sample pushed one by one give the mesh `Pipeline.process` writes: the same STL bytes.
    @Test func finishGivesTheBytesOfPipelineProcess() throws {
        let path = samplesDirectory + "/mediapipe/capture.json"
        let (topology, settings, frames) = try loadCapture(path)
        var session = try FaceScanSession(topology: topology, settings: settings)
        for f in frames where !session.isComplete { _ = try session.add(f) }
        let result = try session.finish()
        let stl = try Exporter.bytes(result.mesh, format: .stl, unit: settings.units)

        let dir = makeTempDir()
        var options = PipelineOptions()
        options.outputDirectory = dir
        options.formats = ["stl"]
        let report = try Pipeline.process(input: path, options: options)
        let written = try #require(FileManager.default.contents(atPath: dir + "/capture.stl"))
        #expect(stl == [UInt8](written))
        #expect(result.report.frames == report.frames)
        #expect(result.report.mesh == report.mesh)
        #expect(result.report.accuracy == report.accuracy)
    }

    /// The thumbnail `process` writes is the same PNG whether it is rendered on one thread or
    /// two (the default on two cores).
    @Test func thumbnailIsTheSameOnOneOrTwoRenderThreads() throws {
        let path = samplesDirectory + "/ict-arkit/capture.json"
        var pngs: [[UInt8]] = []
        for threads in [1, 2] {
            let dir = makeTempDir()
            var options = PipelineOptions()
            options.outputDirectory = dir
            options.formats = ["png", "stl"]
            options.renderThreads = threads
            _ = try Pipeline.process(input: path, options: options)
            pngs.append([UInt8](try #require(FileManager.default.contents(atPath: dir + "/capture.png"))))
        }
        #expect(pngs[0].count > 1_000 && pngs[0] == pngs[1])
    }

    /// A capture in memory gives the mesh the file pipeline gives.
    @Test func processesACaptureInMemory() throws {
        let path = samplesDirectory + "/ict-identity-ndjson/capture.ndjson"
        let bytes = try #require(FileManager.default.contents(atPath: path))
        let result = try FaceScan.process(capture: bytes)
        let dir = makeTempDir()
        var options = PipelineOptions()
        options.outputDirectory = dir
        options.formats = ["stl"]
        let report = try Pipeline.process(input: path, options: options)
        let written = try #require(FileManager.default.contents(atPath: dir + "/capture.stl"))
        #expect(try Exporter.bytes(result.mesh, format: .stl, unit: .mm) == [UInt8](written))
        #expect(result.report.frames == report.frames)
        #expect(result.report.outputs.isEmpty)
        // Explicit settings replace the capture's.
        let small = try FaceScan.process(capture: [UInt8](bytes), settings: ScanSettings(targetVertices: 500))
        #expect(small.mesh.vertexCount == 500)
    }

    /// The async entry stops between frames once its task is cancelled.
    @Test func asyncEntryHonoursCancellation() async throws {
        let path = samplesDirectory + "/mediapipe/capture.json"
        let bytes = try #require(FileManager.default.contents(atPath: path))
        let outcome = await Task { () async -> FaceScanError? in
            withUnsafeCurrentTask { $0?.cancel() }
            do throws(FaceScanError) {
                _ = try await FaceScan.process(capture: bytes)
                return nil
            } catch {
                return error
            }
        }.value
        guard case .cancelled = outcome else {
            Issue.record("expected .cancelled, got \(String(describing: outcome))")
            return
        }
        // Cancelled after the third frame: the check runs between frames.
        var checks = 0
        #expect {
            _ = try FaceScan.run(
                [UInt8](bytes), nil, "m",
                isCancelled: {
                    checks += 1
                    return checks > 3
                })
        } throws: { error in
            guard let e = error as? FaceScanError, case .cancelled = e else { return false }
            return true
        }
        #expect(checks == 4)
        // Not cancelled: the async entry gives the mesh.
        let result = try await FaceScan.process(capture: [UInt8](bytes))
        #expect(result.mesh.vertexCount > 0)
    }

    /// The work behind a cancelled call stops too, inside its long steps (the async `finish`
    /// returns at once; this is about the processor it keeps using): a shell of 400 000 vertices,
    /// about 0.7 s of refinement then 3.6 s of the solid step in the release build `make test`
    /// runs (far longer in a debug build), cancelled 1 s and 2 s into the job, ends with
    /// `.cancelled` within 1.5 s (0.24–0.31 s measured beside the CLI tests; checks between the
    /// steps only would run on to the solid step's end, 2.4 s and more later). The cancel comes
    /// from a thread of its own: the test pool's threads may be kept busy by other tests.
    /// `facescan-bench cancel` gives the release build's figures over the whole run (largest
    /// 10–30 ms).
    @Test func cancelledWorkStopsInsideTheLongSteps() async throws {
        let bytes = try #require(FileManager.default.contents(atPath: samplesDirectory + "/ict-arkit/capture.json"))
        let settings = ScanSettings(targetVertices: 400_000, solid: SolidOptions())
        for delay in [1.0, 2.0] {
            let probe = CancelProbe()
            let task = Task.detached { () -> (FaceScanError?, ContinuousClock.Instant) in
                probe.started.withLock { $0 = true }
                do throws(FaceScanError) {
                    _ = try await FaceScan.process(capture: bytes, settings: settings)
                    return (nil, .now)
                } catch {
                    return (error, .now)
                }
            }
            let canceller = Thread {
                while !probe.started.withLock({ $0 }) { usleep(1_000) }
                usleep(useconds_t(delay * 1e6))
                probe.cancelledAt.withLock { $0 = .now }
                task.cancel()
            }
            canceller.start()
            let (error, endedAt) = await task.value
            #expect(error == .cancelled, "cancelled \(delay) s into the job")
            let cancelledAt = try #require(probe.cancelledAt.withLock { $0 })
            print("cancelled \(delay) s into the job: stopped \(endedAt - cancelledAt) later")
            #expect(endedAt - cancelledAt < .milliseconds(1500), "cancelled \(delay) s into the job")
        }
    }

    /// No accepted frame: `finish` throws `.noAcceptedFrames`, carrying the counts so far.
    @Test func noAcceptedFramesIsATypedError() throws {
        let (topology, base) = grid()
        var session = try FaceScanSession(topology: topology)
        for i in 0..<3 { _ = try session.add(frame(base, seed: UInt64(i), metadata: FrameMetadata(distance: 0.9))) }
        do throws(FaceScanError) {
            _ = try session.finish()
            Issue.record("finish succeeded without accepted frames")
        } catch .noAcceptedFrames(let failure) {
            #expect(failure.report.frames.read == 3)
            #expect(failure.report.frames.rejected.distance == 3)
            #expect(failure.report.mesh.inputVertices == base.count / 3)
        } catch {
            Issue.record("unexpected \(error)")
        }
    }

    /// Frames a caller builds are checked as the reader checks a capture's.
    @Test func refusesFramesThatDoNotFit() throws {
        let (topology, base) = grid()
        var session = try FaceScanSession(topology: topology)
        _ = try session.add(frame(base, seed: 1))
        #expect(throws: FaceScanError.self) { _ = try session.add(Frame(xyz: Array(base.dropLast(3)))) }
        var nan = base
        nan[4] = .nan
        #expect(throws: FaceScanError.self) { _ = try session.add(Frame(xyz: nan)) }
        #expect(throws: FaceScanError.self) { _ = try FaceScanSession(topology: Topology(triangles: [0, 1])) }
        #expect(throws: FaceScanError.self) {
            _ = try FaceScanSession(topology: topology, settings: ScanSettings(maxFrames: 0))
        }
        var fresh = try FaceScanSession(topology: topology)
        // Index 5 is out of range for two vertices.
        #expect(throws: FaceScanError.self) { _ = try fresh.add(Frame(xyz: [0, 0, 0, 1, 0, 0])) }
    }

    /// A hostile setting is refused when the session is made, before any frame, as `.badSetting`
    /// naming the field; valid settings survive a JSON round trip unchanged.
    @Test func hostileSettingsAreRefusedUpFront() throws {
        let (topology, _) = grid()
        var cases: [(ScanSettings, String)] = []
        func add(_ field: String, _ change: (inout ScanSettings) -> Void) {
            var s = ScanSettings()
            change(&s)
            cases.append((s, field))
        }
        add("ScanSettings.maxFrames") { $0.maxFrames = -1 }
        add("ScanSettings.targetVertices") { $0.targetVertices = 3 }
        add("ScanSettings.smoothing") { $0.smoothing = .passes(-7) }
        add("ScanSettings.scale") { $0.scale = .nan }
        add("ScanSettings.noiseLimit") { $0.noiseLimit = .infinity }
        add("ScanSettings.formats") { $0.formats = [] }
        add("ScanSettings.gate.minDistance") { $0.gate.minDistance = .nan }
        add("ScanSettings.gate.maxDistance") {
            $0.gate.minDistance = 0.5
            $0.gate.maxDistance = 0.3
        }
        add("ScanSettings.gate.maxSmile") { $0.gate.maxSmile = -1 }
        add("ScanSettings.solid.thickness") { $0.solid = SolidOptions(thickness: -2) }
        add("ScanSettings.solid.depth") { $0.solid = SolidOptions(depth: .nan) }
        add("ScanSettings.solid.fit") { $0.solid = SolidOptions(fit: SIMD3(100, 0, 100)) }
        for (settings, field) in cases {
            do throws(FaceScanError) {
                _ = try FaceScanSession(topology: topology, settings: settings)
                Issue.record("\(field): accepted")
            } catch .badSetting(let e) {
                #expect(e.field == field)
                #expect(e.message.hasPrefix(field + " must be"), "\(e.message)")
            } catch {
                Issue.record("\(field): \(error)")
            }
        }
        var settings = ScanSettings(targetVertices: 777, solid: SolidOptions(thickness: 3, fit: SIMD3(200, 200, 100)))
        settings.gate.maxDistance = 0.6
        settings.formats = [.stl, .threeMF, .png]
        try settings.validate()
        let json = try JSONEncoder().encode(settings)
        #expect(try JSONDecoder().decode(ScanSettings.self, from: json) == settings)
        #expect(String(decoding: json, as: UTF8.self).contains("\"3mf\""))
        for value in [Quality.high] {
            #expect(try JSONDecoder().decode(Quality.self, from: JSONEncoder().encode(value)) == value)
        }
        let units = try JSONDecoder().decode([LengthUnit].self, from: JSONEncoder().encode(LengthUnit.allCases))
        #expect(units == LengthUnit.allCases)
        let formats = try JSONDecoder().decode([MeshFormat].self, from: JSONEncoder().encode(MeshFormat.allCases))
        #expect(formats == MeshFormat.allCases)
        #expect(Set([settings, settings]).count == 1)
    }

    /// Errors read as one line through `localizedDescription`, and compare equal.
    @Test func errorsAreLocalizedAndEquatable() {
        let errors: [FaceScanError] = [
            .badInput(InputError(file: "f.json", frame: 3, field: "vertices", "bad\nline")),
            .badSetting(
                UsageError("ScanSettings.maxFrames must be at least 1, found 0", field: "ScanSettings.maxFrames")),
            .io(IOFailure(path: "/x", "No such file")), .cancelled, .unavailable("PLY needs assimp"),
            .noAcceptedFrames(NoAcceptedFrames(file: "c.json", report: Report(input: "c.json"))),
        ]
        for e in errors {
            let text = (e as any Error).localizedDescription
            #expect(text == e.description)
            #expect(!text.contains("\n") && !text.contains("FaceScanKit.FaceScanError"), "\(text)")
            #expect(e == e)
        }
        #expect(errors[0] != errors[1])
        #expect(FaceScanError.cancelled.localizedDescription == "cancelled")
    }

    /// A distance rejection says too close or too far; NaN is neither; NaN blend shapes fail.
    @Test func guidanceSaysTooCloseOrTooFar() throws {
        let (topology, base) = grid()
        var session = try FaceScanSession(topology: topology)
        let cases: [(FrameMetadata, Guidance)] = [
            (FrameMetadata(distance: 0.1), .tooClose), (FrameMetadata(distance: 0.9), .tooFar),
            (FrameMetadata(distance: .nan), .distanceUnknown),
            (FrameMetadata(distance: 0.4, tracking: .notAvailable), .keepSteady),
            (FrameMetadata(distance: 0.4, ambientIntensity: .nan), .needMoreLight),
            (FrameMetadata(distance: 0.4, jawOpen: .nan), .relaxFace),
        ]
        for (i, (meta, guidance)) in cases.enumerated() {
            let v = try session.add(frame(base, seed: UInt64(i), metadata: meta))
            #expect(v.guidance == guidance, "case \(i)")
            #expect(v.rejection == guidance.rejection)
            #expect(v.instruction == guidance.defaultText)
        }
        #expect(Guidance.tooClose.defaultText == "Move back — too close")
        #expect(Guidance.tooFar.defaultText == "Move closer")
    }

    /// ARKit-shaped input: Int16 indices, transforms and blend shapes by ARKit's names give the
    /// same distance as the capture reader (translation length; relative to the camera).
    @Test func arkitShapedInput() throws {
        let topology = try Topology(triangleIndices: [Int16(0), 1, 2, 2, 1, 3])
        #expect(topology.triangles == [0, 1, 2, 2, 1, 3])
        #expect(try Topology(triangleIndices: [UInt16(0), 1, 2]).triangles == [0, 1, 2])
        #expect(throws: FaceScanError.self) { _ = try Topology(triangleIndices: [Int16(0), -1, 2]) }
        #expect(throws: FaceScanError.self) { _ = try Topology(triangleIndices: [Int16(0), 1]) }
        var anchor: [Float] = [1, 0, 0, 0, 0, 1, 0, 0, 0, 0, 1, 0, 0.1, 0.2, -0.3, 1]
        let meta = try FrameMetadata(
            anchorTransform: anchor, ambientIntensity: 800,
            blendShapes: ["jawOpen": 0.25, "mouthSmile_L": 0.5, "mouthSmile_R": 0.1, "eyeBlink_L": 1])
        #expect(abs(meta.distance! - (0.01 + 0.04 + 0.09 as Double).squareRoot()) < 1e-6)
        #expect(meta.jawOpen == 0.25 && meta.mouthSmileLeft == 0.5 && meta.mouthSmileRight == Double(Float(0.1)))
        let camera: [Float] = [1, 0, 0, 0, 0, 1, 0, 0, 0, 0, 1, 0, 0.1, 0.2, 0.1, 1]
        let relative = try FrameMetadata(anchorTransform: anchor, cameraTransform: camera)
        #expect(abs(relative.distance! - 0.4) < 1e-6)
        anchor[13] = .nan
        #expect(throws: FaceScanError.self) { _ = try FrameMetadata(anchorTransform: anchor) }
        #expect(throws: FaceScanError.self) { _ = try FrameMetadata(anchorTransform: [1, 2, 3]) }
        #expect(throws: FaceScanError.self) {
            _ = try FrameMetadata(anchorTransform: camera, blendShapes: ["jawOpen": 2])
        }
    }

    /// finish(progress:) reports its stages in order and gives the same mesh as finish();
    /// cancelled, it throws `.cancelled` and leaves the session usable.
    @Test func asyncFinishReportsProgressAndCanBeCancelled() async throws {
        let (topology, base) = grid(12)
        let settings = ScanSettings(maxFrames: 4, targetVertices: 200)
        var session = try FaceScanSession(topology: topology, settings: settings)
        for i in 0..<4 { _ = try session.add(frame(base, seed: UInt64(i))) }
        let stages = Mutex<[FinishProgress.Stage]>([])
        let expected = try finishNow(session)
        let result = try await session.finish { p in stages.withLock { $0.append(p.stage) } }
        #expect(result.mesh == expected.mesh)
        let seen = stages.withLock { $0 }
        #expect(seen == [.averaging, .smoothing, .decimating, .scaling, .done], "\(seen)")

        let frozen = session
        let task = Task { () async -> FaceScanError? in
            do throws(FaceScanError) {
                _ = try await frozen.finish()
                return nil
            } catch {
                return error
            }
        }
        task.cancel()
        let outcome = await task.value
        #expect(outcome == .cancelled)
        // Cancelled before it starts, too; the session itself is unchanged.
        let early = await Task { () async -> FaceScanError? in
            withUnsafeCurrentTask { $0?.cancel() }
            do throws(FaceScanError) {
                _ = try await frozen.finish()
                return nil
            } catch {
                return error
            }
        }.value
        #expect(early == .cancelled)
        #expect(try finishNow(session).mesh == expected.mesh)
    }
}

/// The synchronous ``FaceScanSession/finish()`` (an async context would pick the async form).
private func finishNow(_ session: FaceScanSession) throws -> ScanResult { try session.finish() }

/// When a cancellation test's job started and when its canceller cancelled it.
private final class CancelProbe: Sendable {
    let started = Mutex(false)
    let cancelledAt = Mutex<ContinuousClock.Instant?>(nil)
}
