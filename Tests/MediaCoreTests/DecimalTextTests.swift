import MediaCore
import Testing

@Suite struct DecimalTextTests {
    @Test(arguments: [
        (3.14159, 1, 0, "3.1"), (2.0, 1, 5, "  2.0"), (1499.6, 0, 7, "   1500"), (29.97, 2, 0, "29.97"),
        (0.05, 1, 0, "0.1"), (-1.25, 1, 0, "-1.3"), (-0.04, 1, 0, "0.0"), (7.0, 0, 0, "7"), (0.001, 3, 6, " 0.001"),
        (123456.5, 1, 3, "123456.5"),
    ])
    func writesFixedDecimals(value: Double, decimals: Int, width: Int, expected: String) {
        #expect(DecimalText.fixed(value, decimals: decimals, width: width) == expected)
    }

    @Test func writesWhatIsNotANumberAsPrintfDoes() {
        #expect(DecimalText.fixed(.nan, decimals: 1) == "nan")
        #expect(DecimalText.fixed(.infinity, decimals: 1) == "inf")
        #expect(DecimalText.fixed(-.infinity, decimals: 1, width: 5) == " -inf")
    }
}
