/// Writes log values as compact JSON with sorted object keys, so equal events give equal lines.
struct JSONWriter {
    var output = ""

    mutating func write(_ value: LogMetadataValue) {
        switch value {
        case .string(let text):
            write(string: text)
        case .integer(let number):
            output += String(number)
        case .double(let number):
            // JSON has no NaN or infinity; those are written as strings in Prometheus spelling.
            if number.isFinite {
                output += String(number)
            } else {
                write(string: number.isNaN ? "NaN" : (number > 0 ? "+Inf" : "-Inf"))
            }
        case .bool(let flag):
            output += flag ? "true" : "false"
        case .array(let elements):
            output += "["
            for (index, element) in elements.enumerated() {
                if index > 0 { output += "," }
                write(element)
            }
            output += "]"
        case .dictionary(let entries):
            output += "{"
            for (index, key) in entries.keys.sorted().enumerated() {
                if index > 0 { output += "," }
                write(string: key)
                output += ":"
                if let entry = entries[key] { write(entry) }
            }
            output += "}"
        }
    }

    /// Writes `text` as a JSON string, escaping quotes, backslashes and control characters.
    mutating func write(string text: String) {
        output += "\""
        for scalar in text.unicodeScalars {
            switch scalar {
            case "\"": output += "\\\""
            case "\\": output += "\\\\"
            case "\n": output += "\\n"
            case "\r": output += "\\r"
            case "\t": output += "\\t"
            case _ where scalar.value < 0x20:
                let hex = String(scalar.value, radix: 16)
                output += "\\u" + String(repeating: "0", count: 4 - hex.count) + hex
            default:
                output.unicodeScalars.append(scalar)
            }
        }
        output += "\""
    }
}
