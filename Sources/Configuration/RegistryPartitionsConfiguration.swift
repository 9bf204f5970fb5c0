import PushCore

extension SettingReader {
    /// `PUSH_REGISTRY_PARTITIONING`: `key` (the default) or `client`.
    func registryPartitioning() throws(InvalidSetting) -> RegistryPartitioning {
        let name = "PUSH_REGISTRY_PARTITIONING"
        guard let text = optional(name) else { return .key }
        guard let partitioning = RegistryPartitioning(rawValue: text) else {
            throw InvalidSetting(variable: name, reason: "'\(text)' is not one of key, client")
        }
        return partitioning
    }

    /// `PUSH_REGISTRY_RETAINED_COPIES`: 0 to 1,000, default 4.
    func retainedRegistryCopies() throws(InvalidSetting) -> Int {
        try integer("PUSH_REGISTRY_RETAINED_COPIES", default: 4, in: 0...1_000)
    }
}
