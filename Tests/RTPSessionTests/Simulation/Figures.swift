/// How the simulation tests print their figures: one decimal, with units.
enum Figures {
    static func percent(_ share: Double) -> String {
        "\(rounded(share * 100)) %"
    }

    static func seconds(_ value: Double?) -> String {
        value.map { "\(rounded($0)) s" } ?? "never"
    }

    static func rounded(_ value: Double) -> Double {
        (value * 10).rounded() / 10
    }
}
