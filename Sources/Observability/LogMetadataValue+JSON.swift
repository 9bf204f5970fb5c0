import Essentials

extension JSONWriter {
    /// Writes a log value as compact JSON with sorted object keys, so equal events give equal lines. JSON has no
    /// NaN or infinity: those are written as strings in Prometheus spelling (`NaN`, `+Inf`, `-Inf`).
    mutating func value(_ value: LogMetadataValue) {
        switch value {
        case .string(let text):
            string(text)
        case .integer(let number):
            integer(number)
        case .double(let number):
            if number.isFinite {
                self.number(literal: String(number))
            } else {
                string(number.isNaN ? "NaN" : (number > 0 ? "+Inf" : "-Inf"))
            }
        case .bool(let flag):
            bool(flag)
        case .array(let elements):
            beginArray()
            for element in elements { self.value(element) }
            endArray()
        case .dictionary(let entries):
            beginObject()
            for (key, entry) in entries.sorted(by: { $0.key < $1.key }) {
                self.key(key)
                self.value(entry)
            }
            endObject()
        }
    }
}
