import MediaCore

/// How the user holds the device, as `UIDeviceOrientation`: on Linux the application sets it
/// (from a sensor, or a fixed mounting).
public enum DeviceOrientation: String, Sendable, CaseIterable, Codable {
    case portrait, portraitUpsideDown, landscapeLeft, landscapeRight, faceUp, faceDown, unknown
}

/// WebRTC's rotation table (`RTCCameraVideoCapturer`): the clockwise rotation a receiver must
/// apply, from the device orientation and the camera position. Flat and unknown orientations
/// say nothing about which way is up and keep the previous value. External cameras follow the
/// back-camera column, as WebRTC treats every camera that is not the front one.
public enum CameraRotation {
    public static func rotation(
        for orientation: DeviceOrientation, position: CameraPosition, previous: VideoRotation
    ) -> VideoRotation {
        switch orientation {
        case .portrait: .deg90
        case .portraitUpsideDown: .deg270
        case .landscapeLeft: position == .front ? .deg180 : .deg0
        case .landscapeRight: position == .front ? .deg0 : .deg180
        case .faceUp, .faceDown, .unknown: previous
        }
    }
}
