import Foundation
import Testing

/// The documentation articles show code of the Examples package (which `make examples` builds and
/// runs): every Swift block of an article must appear, line for line, in one of its programs, so
/// an article cannot drift from code that compiles.
@Suite struct DocExamplesTests {
    static let catalog = packageRoot + "/Sources/FaceScanKit/FaceScanKit.docc"
    static let articles = [
        "ProcessACaptureFile.md": "ProcessCapture", "LiveScanFromFrames.md": "LiveScan",
    ]

    /// The fenced ```swift blocks of a Markdown text, each as its lines.
    static func swiftBlocks(_ markdown: String) -> [[String]] {
        var blocks: [[String]] = [], current: [String]?
        for line in markdown.split(separator: "\n", omittingEmptySubsequences: false).map(
            String.init)
        {
            if current == nil, line.trimmingCharacters(in: .whitespaces) == "```swift" {
                current = []
            } else if current != nil, line.trimmingCharacters(in: .whitespaces) == "```" {
                blocks.append(current!)
                current = nil
            } else {
                current?.append(line)
            }
        }
        return blocks
    }

    static func normalised(_ lines: [String]) -> [String] {
        lines.map { $0.trimmingCharacters(in: .whitespaces) }.filter { !$0.isEmpty }
    }

    @Test(arguments: articles.keys.sorted())
    func everyCodeBlockIsInTheExamples(article: String) throws {
        let markdown = try String(contentsOfFile: Self.catalog + "/" + article, encoding: .utf8)
        let program = packageRoot + "/Examples/Sources/\(Self.articles[article]!)/main.swift"
        let source = Self.normalised(
            try String(contentsOfFile: program, encoding: .utf8).components(separatedBy: "\n"))
        let blocks = Self.swiftBlocks(markdown)
        #expect(blocks.count >= 3, "\(article) has \(blocks.count) Swift blocks")
        for block in blocks.map(Self.normalised) where !block.isEmpty {
            let found = source.indices.contains { start in
                start + block.count <= source.count
                    && Array(source[start..<(start + block.count)]) == block
            }
            #expect(
                found,
                "\(article): this block is not in \(program):\n\(block.joined(separator: "\n"))")
        }
    }

    @Test func landingPageCurates() throws {
        let landing = try String(contentsOfFile: Self.catalog + "/FaceScanKit.md", encoding: .utf8)
        #expect(landing.hasPrefix("# ``FaceScanKit``"))
        for article in Self.articles.keys {
            #expect(
                landing.contains("<doc:\(article.dropLast(3))>"),
                "landing page does not list \(article)")
        }
    }
}
