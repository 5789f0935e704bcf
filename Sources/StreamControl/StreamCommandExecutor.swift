import Adaptation
import CameraRTP
import Capture
import Glibc
import ImageEncoding
import MediaCore

/// Carries out commands on a running pipeline and answers each: what the control socket calls
/// for every line it reads. Every command maps to one `StreamPipeline` method.
public struct StreamCommandExecutor: Sendable {
    public let pipeline: StreamPipeline

    public init(pipeline: StreamPipeline) {
        self.pipeline = pipeline
    }

    /// `execute` in the shape `ControlSocketServer` takes: the work runs in a task of its own.
    public func handle(_ command: StreamCommand, reply: @escaping @Sendable (StreamControlReply) -> Void) {
        Task { reply(await execute(command)) }
    }

    public func execute(_ command: StreamCommand) async -> StreamControlReply {
        do {
            return try await perform(command)
        } catch {
            return .failed(Self.failure(of: error), "\(error)")
        }
    }

    private func perform(_ command: StreamCommand) async throws -> StreamControlReply {
        switch command {
        case .snapshot(let path):
            let format = try ImageFile.checkOutput(path)
            let snapshot = try await pipeline.snapshot(format: format)
            try ImageFile.write(snapshot.image.data, to: path)
            return StreamControlReply(snapshot: .init(
                path: path, width: snapshot.image.width, height: snapshot.image.height,
                sizeBytes: snapshot.image.data.count, timestampNs: snapshot.timestampNs))
        case .keyframe:
            pipeline.requestKeyframe()
            return StreamControlReply()
        case .bitrate(let kbps):
            try pipeline.setTargetBitrate(kbps: kbps)
            return StreamControlReply(targetBitrateKbps: pipeline.targetBitrateKbps)
        case .switchCamera(let selection):
            let status = try await pipeline.switchCamera(to: selection)
            return StreamControlReply(camera: StreamControlStatus.Camera(status))
        case .control(let setting):
            let value = try await pipeline.setCameraControl(setting)
            return StreamControlReply(control: .init(name: setting.control.rawValue, value: value))
        case .orientation(let orientation):
            try pipeline.setDeviceOrientation(orientation)
            return StreamControlReply(orientation: orientation)
        case .mirror(let on):
            pipeline.setMirror(on)
            return StreamControlReply(mirror: on)
        case .stats:
            return StreamControlReply(stats: pipeline.stats.snapshot, status: pipeline.controlStatus)
        }
    }

    /// Errors the user can fix by asking differently are `.invalid` (a bad path, a missing or
    /// busy camera, a control it lacks); the rest are `.failed`.
    static func failure(of error: any Error) -> StreamControlReply.Failure {
        switch error {
        case let error as StreamControlError:
            error == .notStreaming ? .failed : .invalid
        case is CameraControlError:
            .invalid
        case let error as V4L2Error:
            [EBUSY, ENOENT, ENODEV, ENXIO, EACCES, EPERM, ENOTTY, EINVAL].contains(error.code) ? .invalid : .failed
        case let error as CameraCaptureError:
            switch error {
            case .notACamera, .unsupportedPixelFormat, .invalidFrameRate: .invalid
            case .stalled, .stoppedBeforeStart, .notCapturing, .noDecodableFrames: .failed
            }
        case let error as OutputFileError:
            error.isDiskFailure ? .failed : .invalid
        default:
            .failed
        }
    }
}
