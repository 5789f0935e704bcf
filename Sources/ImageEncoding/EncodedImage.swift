/// One encoded still picture: the whole file's bytes.
public struct EncodedImage: Sendable {
    public let format: ImageFormat
    public let width: Int
    public let height: Int
    public let data: [UInt8]

    public init(format: ImageFormat, width: Int, height: Int, data: [UInt8]) {
        self.format = format
        self.width = width
        self.height = height
        self.data = data
    }
}
