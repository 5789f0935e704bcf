/// An error the CLI reports in one line, with the exit code it implies.
package struct CLIError: Error, CustomStringConvertible {
    enum Kind {
        /// Bad usage or input: exit code 2.
        case usage
        /// Something failed while running: exit code 1.
        case runtime
    }

    let kind: Kind
    let message: String

    package var description: String { message }

    package static func usage(_ message: String) -> CLIError { CLIError(kind: .usage, message: message) }
    package static func runtime(_ message: String) -> CLIError { CLIError(kind: .runtime, message: message) }
}
