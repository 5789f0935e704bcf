/// An error the CLI reports in one line, with the exit code it implies.
struct CLIError: Error, CustomStringConvertible {
    enum Kind {
        /// Bad usage or input: exit code 2.
        case usage
        /// Something failed while running: exit code 1.
        case runtime
    }

    let kind: Kind
    let message: String

    var description: String { message }

    static func usage(_ message: String) -> CLIError { CLIError(kind: .usage, message: message) }
    static func runtime(_ message: String) -> CLIError { CLIError(kind: .runtime, message: message) }
}
