/// Byte vectors written as hex, the way RFC diagrams and captures read; spaces are ignored.
public func bytes(_ hex: String) -> [UInt8] {
    let digits = hex.filter(\.isHexDigit)
    precondition(digits.count % 2 == 0, "odd number of hex digits")
    var result: [UInt8] = []
    var index = digits.startIndex
    while index < digits.endIndex {
        let next = digits.index(index, offsetBy: 2)
        result.append(UInt8(digits[index..<next], radix: 16)!)
        index = next
    }
    return result
}
