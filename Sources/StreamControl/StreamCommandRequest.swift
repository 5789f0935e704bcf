/// A control-socket request as it travels: one JSON object per line, such as
/// `{"command":"bitrate","value":800}`. Fields a command does not use are left out; which ones
/// each command takes is listed on `StreamCommand`. Decoding is loose on purpose (a value may
/// come as a number or as text) so that `StreamCommand(request:)` can say what is wrong in words.
public struct StreamCommandRequest: Sendable, Codable, Equatable {
    /// A JSON scalar: what `value` holds.
    public enum Value: Sendable, Codable, Equatable {
        case integer(Int)
        case number(Double)
        case boolean(Bool)
        case string(String)

        public init(from decoder: any Decoder) throws {
            let container = try decoder.singleValueContainer()
            if let flag = try? container.decode(Bool.self) {
                self = .boolean(flag)
            } else if let integer = try? container.decode(Int.self) {
                self = .integer(integer)
            } else if let number = try? container.decode(Double.self) {
                self = .number(number)
            } else {
                self = .string(try container.decode(String.self))
            }
        }

        public func encode(to encoder: any Encoder) throws {
            var container = encoder.singleValueContainer()
            switch self {
            case .integer(let integer): try container.encode(integer)
            case .number(let number): try container.encode(number)
            case .boolean(let flag): try container.encode(flag)
            case .string(let text): try container.encode(text)
            }
        }

        /// The value as a word: `800`, `800.5`, `true`, `portrait`.
        public var text: String {
            switch self {
            case .integer(let integer): String(integer)
            case .number(let number): String(number)
            case .boolean(let flag): String(flag)
            case .string(let text): text
            }
        }
    }

    public var command: String?
    /// `control`: the control's name.
    public var name: String?
    public var value: Value?
    /// `snapshot`: the absolute file to write.
    public var path: String?
    /// `switch`: front, back or a device; absent for the next camera.
    public var camera: String?

    public init(command: String?, name: String? = nil, value: Value? = nil, path: String? = nil, camera: String? = nil) {
        self.command = command
        self.value = value
        self.path = path
        self.camera = camera
        self.name = name
    }
}
