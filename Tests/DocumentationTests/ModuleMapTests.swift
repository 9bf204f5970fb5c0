import Foundation
import TestSupport
import Testing

/// README's module table (module → imports) is `Package.swift`'s target graph, so the map a newcomer reads cannot
/// drift from the build.
@Suite struct ModuleMapTests {
    /// Every target that is not a test target, with its dependencies, from `Package.swift`'s text.
    static func packageTargets() throws -> [String: Set<String>] {
        let text = try String(contentsOf: Repository.path("Package.swift"), encoding: .utf8)
        var targets: [String: Set<String>] = [:]
        for match in text.matches(
            of: /\.(target|systemLibrary|executableTarget)\(\s*name: "([^"]+)"(.*?)\)(,|\n)/.dotMatchesNewlines())
        {
            var dependencies: Set<String> = []
            if let list = String(match.3).firstMatch(of: /dependencies: \[([^\]]*)\]/) {
                dependencies = Set(list.1.matches(of: /"([^"]+)"/).map { String($0.1) })
            }
            targets[String(match.2)] = dependencies
        }
        return targets
    }

    /// The rows of README's module table: each module named in the first cell, with the modules of the third.
    static func readmeModules() throws -> [String: Set<String>] {
        let text = try String(contentsOf: Repository.path("README.md"), encoding: .utf8)
        guard let table = text.firstMatch(of: /\| module \| role \| imports \|\n\|---\|---\|---\|\n((?:\|.*\n)+)/)
        else {
            return [:]
        }
        var modules: [String: Set<String>] = [:]
        for row in table.1.split(separator: "\n") {
            let cells = row.split(separator: "|", omittingEmptySubsequences: false).map {
                $0.trimmingCharacters(in: .whitespaces)
            }
            guard cells.count >= 4 else { continue }
            let imports = Set(cells[3].matches(of: /`([^`]+)`/).map { String($0.1) })
            for name in cells[1].matches(of: /`([^`]+)`/) { modules[String(name.1)] = imports }
        }
        return modules
    }

    @Test func theReadmeModuleTableEqualsThePackagesTargets() throws {
        let package = try Self.packageTargets()
        let readme = try Self.readmeModules()
        #expect(package.count >= 15, "Package.swift parsed: \(package.keys.sorted())")
        for name in Set(package.keys).union(readme.keys).sorted() {
            #expect(
                readme[name] == package[name],
                "\(name): README \(readme[name].map { $0.sorted() } ?? []), Package.swift \(package[name].map { $0.sorted() } ?? [])"
            )
        }
    }
}
