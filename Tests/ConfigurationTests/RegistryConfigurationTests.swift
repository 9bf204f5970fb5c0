import Foundation
import PushCore
import TestSupport
import Testing

@testable import Configuration

@Suite struct RegistryConfigurationTests {
    static func registry(_ environment: [String: String]) throws(InvalidSetting) -> RegistryConfiguration {
        try SettingReader(variables: environment).registryConfiguration(inputTopics: ["chat.messages"])
    }

    @Test func theStoreIsInMemoryByDefault() throws {
        let registry = try Self.registry([:])
        #expect(registry.store == .memory)
        #expect(registry.mapBytes == 1024 * 1024 * 1024)
    }

    @Test func registryRecordsArePlacedByKeyUnlessToldByClient() throws {
        #expect(try Self.registry([:]).partitioning == .key)
        #expect(try Self.registry(["PUSH_REGISTRY_PARTITIONING": "client"]).partitioning == .client)
        #expect(try Self.registry(["PUSH_REGISTRY_PARTITIONING": "key"]).partitioning == .key)
        let error = #expect(throws: InvalidSetting.self) {
            try Self.registry(["PUSH_REGISTRY_PARTITIONING": "murmur2"])
        }
        #expect(error?.variable == "PUSH_REGISTRY_PARTITIONING")
        #expect(error?.reason == "'murmur2' is not one of key, client")
    }

    @Test func anLMDBStoreNamesAWritableDirectoryAndItsMap() throws {
        let path = try Repository.temporaryDirectory().path
        let registry = try Self.registry(["PUSH_DEVICE_STORE": "lmdb:\(path)", "PUSH_DEVICE_STORE_MAP_MB": "64"])
        #expect(registry.store == .lmdb(path: path))
        #expect(registry.mapBytes == 64 * 1024 * 1024)
    }

    @Test(arguments: [
        ("disk", "is not one of memory, none, lmdb:/path"), ("lmdb:", "names no directory"),
        ("lmdb:/nonexistent/registry", "is not a directory"),
    ])
    func aStoreThatCannotBeUsedNamesTheVariable(value: String, reason: String) {
        let error = #expect(throws: InvalidSetting.self) { try Self.registry(["PUSH_DEVICE_STORE": value]) }
        #expect(error?.variable == "PUSH_DEVICE_STORE")
        #expect(error?.reason.contains(reason) == true)
    }

    @Test func aFileIsNotADirectory() throws {
        let file = try Repository.temporaryFile([])
        let error = #expect(throws: InvalidSetting.self) {
            try Self.registry(["PUSH_DEVICE_STORE": "lmdb:\(file.path)"])
        }
        #expect(error?.reason.contains("is not a directory") == true)
    }

    @Test func theMapSizeIsAWholeNumberOfMegabytes() {
        let error = #expect(throws: InvalidSetting.self) { try Self.registry(["PUSH_DEVICE_STORE_MAP_MB": "0"]) }
        #expect(error?.variable == "PUSH_DEVICE_STORE_MAP_MB")
    }
}
