import MediaCore

/// Renders the test pattern and reads back the frame index from its bar code.
///
/// The picture: a diagonal luma ramp that moves 4 pixels per frame over a fixed colour field; a
/// box in the top-left corner with the index in digits; and along the bottom, the low 16 bits of
/// the index as black and white cells, most significant first, which survive lossy coding.
public struct TestPatternRenderer: Sendable {
    public let width: Int
    public let height: Int
    private let lumaRamp: [UInt8]
    private let chromaURow: [UInt8]
    private let chromaVColumn: [UInt8]

    public static let barcodeBits = 16
    private static let black: UInt8 = 16
    private static let white: UInt8 = 235

    public init(width: Int, height: Int) {
        self.width = width
        self.height = height
        lumaRamp = (0..<(2 * width)).map { UInt8(16 + (($0 % width) * 219) / width) }
        let chromaWidth = (width + 1) / 2
        let chromaHeight = (height + 1) / 2
        chromaURow = (0..<chromaWidth).map { UInt8(48 + ($0 * 160) / chromaWidth) }
        chromaVColumn = (0..<chromaHeight).map { UInt8(208 - ($0 * 160) / chromaHeight) }
    }

    /// Draws frame `index` into `buffer`, which must be `width × height`.
    public func render(index: Int, into buffer: I420Buffer) {
        lumaRamp.withUnsafeBufferPointer { ramp in
            for row in 0..<height {
                let offset = (index * 4 + row / 2) % width
                (buffer.dataY + row * buffer.strideY).update(from: ramp.baseAddress! + offset, count: width)
            }
        }
        chromaURow.withUnsafeBufferPointer { uRow in
            for row in 0..<buffer.chromaHeight {
                (buffer.dataU + row * buffer.strideU).update(from: uRow.baseAddress!, count: buffer.chromaWidth)
                (buffer.dataV + row * buffer.strideV).update(repeating: chromaVColumn[row], count: buffer.chromaWidth)
            }
        }
        drawCounter(index, into: buffer)
        if let layout = BarcodeLayout(width: width, height: height) {
            for bit in 0..<Self.barcodeBits {
                let isSet = (index >> (Self.barcodeBits - 1 - bit)) & 1 == 1
                fill(buffer, x: bit * layout.cellWidth, y: layout.top, width: layout.cellWidth, height: layout.barHeight,
                     luma: isSet ? Self.white : Self.black)
            }
        }
    }

    /// Reads the low 16 bits of the frame index from a (possibly decoded, lossy) picture of the
    /// pattern, or nil when the picture is too small to carry the bar code.
    public static func readIndex(from buffer: I420Buffer) -> Int? {
        guard let layout = BarcodeLayout(width: buffer.width, height: buffer.height) else { return nil }
        var index = 0
        for bit in 0..<barcodeBits {
            let x0 = bit * layout.cellWidth + layout.cellWidth / 4
            let x1 = bit * layout.cellWidth + (3 * layout.cellWidth) / 4
            let y0 = layout.top + layout.barHeight / 4
            let y1 = layout.top + (3 * layout.barHeight) / 4
            var sum = 0
            for y in y0...y1 {
                for x in x0...x1 { sum += Int(buffer.dataY[y * buffer.strideY + x]) }
            }
            let mean = sum / ((y1 - y0 + 1) * (x1 - x0 + 1))
            index = index << 1 | (mean > 126 ? 1 : 0)
        }
        return index
    }

    private func drawCounter(_ index: Int, into buffer: I420Buffer) {
        let scale = max(1, height / 48)
        let digits = Array(String(index).utf8).map { Int($0 - 48) }
        let boxWidth = (digits.count * 4 + 1) * scale
        fill(buffer, x: 2 * scale, y: 2 * scale, width: boxWidth, height: 7 * scale, luma: Self.black)
        for (position, digit) in digits.enumerated() {
            for (row, bits) in Self.glyphs[digit].enumerated() {
                for column in 0..<3 where (bits >> (2 - column)) & 1 == 1 {
                    fill(buffer, x: (3 + position * 4 + column) * scale, y: (3 + row) * scale,
                         width: scale, height: scale, luma: Self.white)
                }
            }
        }
    }

    /// Fills a rectangle, clipped to the picture, with a grey of the given luma.
    private func fill(_ buffer: I420Buffer, x: Int, y: Int, width: Int, height: Int, luma: UInt8) {
        let x0 = max(0, x), y0 = max(0, y)
        let x1 = min(buffer.width, x + width), y1 = min(buffer.height, y + height)
        guard x0 < x1, y0 < y1 else { return }
        for row in y0..<y1 {
            (buffer.dataY + row * buffer.strideY + x0).update(repeating: luma, count: x1 - x0)
        }
        for row in (y0 / 2)..<((y1 + 1) / 2) {
            (buffer.dataU + row * buffer.strideU + x0 / 2).update(repeating: 128, count: (x1 + 1) / 2 - x0 / 2)
            (buffer.dataV + row * buffer.strideV + x0 / 2).update(repeating: 128, count: (x1 + 1) / 2 - x0 / 2)
        }
    }

    /// 3×5 digit glyphs, one row of three bits per entry.
    private static let glyphs: [[UInt8]] = [
        [0b111, 0b101, 0b101, 0b101, 0b111], [0b010, 0b110, 0b010, 0b010, 0b111],
        [0b111, 0b001, 0b111, 0b100, 0b111], [0b111, 0b001, 0b111, 0b001, 0b111],
        [0b101, 0b101, 0b111, 0b001, 0b001], [0b111, 0b100, 0b111, 0b001, 0b111],
        [0b111, 0b100, 0b111, 0b101, 0b111], [0b111, 0b001, 0b001, 0b001, 0b001],
        [0b111, 0b101, 0b111, 0b101, 0b111], [0b111, 0b101, 0b111, 0b001, 0b111],
    ]
}

/// Where the bar code sits: 16 cells across the bottom edge, on even coordinates.
private struct BarcodeLayout {
    let cellWidth: Int
    let barHeight: Int
    let top: Int

    init?(width: Int, height: Int) {
        cellWidth = (width / TestPatternRenderer.barcodeBits) & ~1
        barHeight = max(4, (height / 12) & ~1)
        top = (height - barHeight) & ~1
        guard cellWidth >= 4, height >= 3 * barHeight else { return nil }
    }
}
