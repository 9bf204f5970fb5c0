import Foundation
import TestSupport
import Testing

/// Every relative link of the README, `docs/` and the runbook leads somewhere: to a file or folder of the repository
/// and, with a `#fragment`, to a heading of that file; every repository path they name exists. Moving a section or
/// a file cannot leave a reader at a dead end.
@Suite struct DocumentationLinkTests {
    /// The Markdown files a reader follows links through: the README, every page of `docs/` and the runbook.
    static func documents() throws -> [String] {
        let pages = try FileManager.default.contentsOfDirectory(atPath: Repository.path("docs").path)
            .filter { $0.hasSuffix(".md") }
            .map { "docs/\($0)" }
        return ["README.md", "deploy/RUNBOOK.md"] + pages.sorted()
    }

    /// The lines of a Markdown text outside fenced code blocks, where a `](…)` or a `#` is Markdown.
    static func proseLines(_ text: String) -> [Substring] {
        var inFence = false
        var lines: [Substring] = []
        for line in text.split(separator: "\n", omittingEmptySubsequences: false) {
            if line.hasPrefix("```") {
                inFence.toggle()
            } else if !inFence {
                lines.append(line)
            }
        }
        return lines
    }

    /// A heading's anchor as GitHub makes it: lower-cased, punctuation but `-` and `_` dropped, spaces to `-`.
    static func anchor(ofHeading heading: some StringProtocol) -> String {
        let kept = heading.lowercased().unicodeScalars.filter {
            CharacterSet.alphanumerics.contains($0) || $0 == "-" || $0 == "_" || $0 == " "
        }
        return String(String.UnicodeScalarView(kept)).replacingOccurrences(of: " ", with: "-")
    }

    /// The anchors of a Markdown text's headings; a repeated heading gets `-1`, `-2`, … as on GitHub.
    static func anchors(_ text: String) -> Set<String> {
        var seen: [String: Int] = [:]
        var anchors: Set<String> = []
        for line in proseLines(text) {
            guard let heading = line.firstMatch(of: /^#{1,6} (.*)$/) else { continue }
            let base = anchor(ofHeading: heading.1.trimmingCharacters(in: .whitespaces))
            let count = seen[base, default: 0]
            seen[base] = count + 1
            anchors.insert(count == 0 ? base : "\(base)-\(count)")
        }
        return anchors
    }

    /// The relative link targets of a Markdown text (web and mail links left out), in order.
    static func relativeLinks(_ text: String) -> [String] {
        proseLines(text).flatMap { line in
            line.matches(of: /\]\(([^)\s]+)\)/).map { String($0.1) }
        }
        .filter { !$0.hasPrefix("http://") && !$0.hasPrefix("https://") && !$0.hasPrefix("mailto:") }
    }

    /// Why a link of `document` leads nowhere, or nil when its file exists and its fragment names a heading there.
    static func problem(ofLink link: String, in document: String) throws -> String? {
        let parts = link.split(separator: "#", maxSplits: 1, omittingEmptySubsequences: false)
        let file = String(parts[0])
        let target =
            file.isEmpty
            ? Repository.path(document)
            : Repository.path(document).deletingLastPathComponent().appending(path: file).standardizedFileURL
        guard FileManager.default.fileExists(atPath: target.path) else { return "\(link): no such file" }
        guard parts.count == 2 else { return nil }
        let text = try String(contentsOf: target, encoding: .utf8)
        return anchors(text).contains(String(parts[1])) ? nil : "\(link): no such heading"
    }

    /// The repository paths a text names (`deploy/local/demo.sh`, `Sources/Configuration`, …), fenced
    /// examples included; patterns (`Sources/C*`, `Tests/<Module>Tests`) and lines about `kubectl`, whose
    /// `deploy/push-worker` is a Kubernetes resource, left out.
    static func repositoryPaths(_ text: String) -> [String] {
        text.split(separator: "\n").filter { !$0.contains("kubectl") }.flatMap { line in
            line.matches(of: /(?:^|[\s`(\["'=])((?:deploy|Sources|Tests|schemas|docs|\.ci)\/[\w.\/-]*\w)(?![*<])/).map {
                String($0.1)
            }
        }
    }

    @Test func headingAnchorsAreGitHubs() {
        #expect(
            Self.anchor(ofHeading: "Languages: fallback texts and the apps' strings")
                == "languages-fallback-texts-and-the-apps-strings")
        #expect(
            Self.anchor(ofHeading: "The transport on nghttp2 (`PUSH_HTTP_TRANSPORT=nghttp2`)")
                == "the-transport-on-nghttp2-push_http_transportnghttp2")
        #expect(Self.anchors("# Tests\n```\n# not a heading\n```\n## Tests\n") == ["tests", "tests-1"])
    }

    @Test func aLinkToAMissingFileOrHeadingIsFound() throws {
        #expect(
            try Self.problem(ofLink: "docs/no-such-page.md", in: "README.md") == "docs/no-such-page.md: no such file")
        #expect(try Self.problem(ofLink: "#no-such-heading", in: "README.md") == "#no-such-heading: no such heading")
        #expect(try Self.problem(ofLink: "../README.md#guarantees", in: "docs/worker.md") == nil)
    }

    @Test func repositoryPathsAreFoundInText() {
        let text =
            "Run `bash deploy/local/demo.sh`; see Sources/Configuration, `Tests/<Module>Tests`, `Sources/C*`.\n"
            + "`kubectl rollout restart deploy/push-worker`\n"
        #expect(Self.repositoryPaths(text) == ["deploy/local/demo.sh", "Sources/Configuration"])
    }

    @Test func everyRepositoryPathTheDocumentationNamesExists() throws {
        for document in try Self.documents() {
            let text = try String(contentsOf: Repository.path(document), encoding: .utf8)
            for path in Self.repositoryPaths(text) {
                #expect(
                    FileManager.default.fileExists(atPath: Repository.path(path).path),
                    "\(document): \(path) does not exist")
            }
        }
    }

    @Test func everyRelativeLinkOfTheDocumentationResolves() throws {
        let documents = try Self.documents()
        #expect(documents.count > 10, "documents: \(documents)")
        for document in documents {
            let text = try String(contentsOf: Repository.path(document), encoding: .utf8)
            for link in Self.relativeLinks(text) {
                let problem = try Self.problem(ofLink: link, in: document)
                #expect(problem == nil, "\(document): \(problem ?? "")")
            }
        }
    }
}
