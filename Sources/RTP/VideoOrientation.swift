import MediaCore

/// Coordination of video orientation, CVO (3GPP TS 26.114 §7.4.5): one data byte.
///
/// ```
///  0 1 2 3 4 5 6 7
/// +-+-+-+-+-+-+-+-+
/// |0 0 0 0|C|F|R1 R0|
/// +-+-+-+-+-+-+-+-+
/// ```
///
/// C is the camera (0 front, 1 back), F a horizontal flip, and R the clockwise rotation the
/// receiver applies, in steps of 90°. WebRTC sends only R, leaving C and F zero.
public struct VideoOrientation: Equatable, Sendable {
    public enum Camera: UInt8, Sendable {
        case front = 0
        case back = 1
    }

    public var rotation: VideoRotation
    public var camera: Camera
    public var isFlipped: Bool

    public init(rotation: VideoRotation, camera: Camera = .front, isFlipped: Bool = false) {
        self.rotation = rotation
        self.camera = camera
        self.isFlipped = isFlipped
    }

    public init(byte: UInt8) {
        rotation = VideoRotation(rawValue: Int(byte & 0x03) * 90) ?? .deg0
        camera = byte & 0x08 != 0 ? .back : .front
        isFlipped = byte & 0x04 != 0
    }

    public var byte: UInt8 {
        camera.rawValue << 3 | (isFlipped ? 0x04 : 0) | UInt8(rotation.degrees / 90)
    }

    public init(element: RTPHeaderExtensionElement) throws(WireFormatError) {
        guard element.count == 1 else {
            throw .invalid(structure: "video orientation extension", reason: "\(element.count) data bytes, expected 1")
        }
        self.init(byte: element.withUnsafeData { $0[0] })
    }

    public func element(id: UInt8) throws(WireFormatError) -> RTPHeaderExtensionElement {
        try RTPHeaderExtensionElement(id: id, bytesOf: byte)
    }
}
