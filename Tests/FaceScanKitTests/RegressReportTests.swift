import Foundation
import Testing

@testable import FaceScanKit
@testable import FacescanTools

#if canImport(FoundationXML)
import FoundationXML
#endif

@Suite struct RegressReportTests {
    typealias Line = Regression.Line

    let lines = [
        Line(status: .pass, sample: "a&b", metric: "frames.read", detail: "3 (expected 3)", expected: "3", found: "3"),
        Line(
            status: .fail, sample: "a&b", metric: "boundsMm", detail: "x < y & \"z\" \u{1}",
            expected: "deviation ≤ 1 µm", found: "deviation 2.5 µm"),
        Line(
            status: .changed, sample: "c", metric: "sha256.stl", detail: "abcd (expected ef01)", expected: "ef01",
            found: "abcd"),
    ]

    @Test func junitEscapesAndCountsFailures() throws {
        let text = Regression.junitXML(lines, allowChanged: false, attachments: ["a&b": ["/tmp/x<y>/heatmap.png"]])
        let doc = try XMLDocument(xmlString: text)
        let root = try #require(doc.rootElement())
        #expect(root.attribute(forName: "tests")?.stringValue == "3")
        #expect(root.attribute(forName: "failures")?.stringValue == "2")
        let suites = try doc.nodes(forXPath: "//testsuite").compactMap {
            ($0 as? XMLElement)?.attribute(forName: "name")?.stringValue
        }
        #expect(suites == ["regress.a&b", "regress.c"])
        let failure = try #require(try doc.nodes(forXPath: "//testcase[@name='boundsMm']/failure").first as? XMLElement)
        #expect(
            failure.attribute(forName: "message")?.stringValue
                == "FAIL: expected deviation ≤ 1 µm, found deviation 2.5 µm")
        #expect(failure.stringValue?.contains("x < y & \"z\" ") == true)  // the control character dropped
        let out = try doc.nodes(forXPath: "//testcase[@name='boundsMm']/system-out").first?.stringValue
        #expect(out == "[[ATTACHMENT|/tmp/x<y>/heatmap.png]]")
        // CHANGED fails unless allowed; allowed, it passes with a note.
        let allowed = try XMLDocument(xmlString: Regression.junitXML(lines, allowChanged: true))
        #expect(allowed.rootElement()?.attribute(forName: "failures")?.stringValue == "1")
        #expect(try allowed.nodes(forXPath: "//testcase[@name='sha256.stl']/failure").isEmpty)
        #expect(
            try allowed.nodes(forXPath: "//testcase[@name='sha256.stl']/system-out").first?.stringValue?.hasPrefix(
                "CHANGED (allowed)") == true)
    }

    @Test func jsonListsEveryResult() throws {
        let j = Regression.json(lines, allowChanged: true).serialized()
        let o = try #require(try JSONSerialization.jsonObject(with: Data(j.utf8)) as? [String: Any])
        #expect(o["failed"] as? Bool == true)
        #expect(o["failures"] as? Int == 1)
        let results = try #require(o["results"] as? [[String: Any]])
        #expect(results.map { $0["status"] as? String } == ["PASS", "FAIL", "CHANGED"])
        #expect(results[1]["found"] as? String == "deviation 2.5 µm")
    }
}
