import CameraRTP
import Testing
@testable import CamrtpCLI

/// `--simulcast` and `--temporal-layers`: what they set, and the one line a bad value gets.
@Suite struct LayerOptionsTests {
    static func source(width: Int, height: Int) -> CaptureSource {
        .testPattern(width: width, height: height, fps: 30, pace: .fast, rotation: .deg0)
    }

    static func usageMessage(_ body: () throws -> Void) -> String? {
        do {
            try body()
            return nil
        } catch {
            return LayerOptions.message(for: error)
        }
    }

    @Test func simulcastReachesThePipelineWithThreeTemporalLayersByDefault() throws {
        var configuration = PipelineConfiguration()
        try LayerOptions.parse(["--simulcast", "3"]).apply(to: &configuration, for: Self.source(width: 1280, height: 720))
        #expect((configuration.simulcast, configuration.encoder.temporalLayers) == (3, 3))
        try LayerOptions.parse(["--simulcast", "2", "--temporal-layers", "1"]).apply(to: &configuration, for: Self.source(width: 640, height: 360))
        #expect((configuration.simulcast, configuration.encoder.temporalLayers) == (2, 1))
        try LayerOptions.parse([]).apply(to: &configuration, for: Self.source(width: 640, height: 360))
        #expect((configuration.simulcast, configuration.encoder.temporalLayers) == (1, 1))
    }

    @Test(arguments: [
        (["--simulcast", "4"], "--simulcast must be 1, 2 or 3, not 4"),
        (["--simulcast", "0"], "--simulcast must be 1, 2 or 3, not 0"),
        (["--simulcast", "2", "--temporal-layers", "5"], "--temporal-layers must be 1, 2 or 3, not 5"),
    ])
    func countsOutOfRangeAreRefused(arguments: [String], message: String) {
        #expect(Self.usageMessage { _ = try LayerOptions.parse(arguments) } == message)
    }

    @Test(arguments: [
        (640, 360, 3, "--simulcast 3: 640x360 is too small for 3 simulcast encodings: it takes at most 2 (3 need at least 960x540)"),
        (1281, 720, 2, "--simulcast 2: 1281x720 does not halve exactly for 2 simulcast encodings: both sides must be multiples of 2"),
    ])
    func aSizeThatCannotBeSplitIsRefused(width: Int, height: Int, count: Int, message: String) throws {
        let options = try LayerOptions.parse(["--simulcast", "\(count)"])
        var configuration = PipelineConfiguration()
        #expect(Self.usageMessage { try options.apply(to: &configuration, for: Self.source(width: width, height: height)) } == message)
    }

    /// A receiver that takes one stream cannot take simulcast, and the line says where it goes.
    @Test func singleStreamCommandsRefuseSimulcast() throws {
        #expect(Self.usageMessage { try LayerOptions.parse(["--simulcast", "2"]).refuseSimulcast(command: "send") }
            == "--simulcast is for publish and serve, which pick among several streams for their receivers; send makes one stream")
        #expect(Self.usageMessage { try SingleStreamOptions.parse(["--simulcast", "2"]).validate(command: "record") }
            == "--simulcast is for publish and serve, which pick among several streams for their receivers; record makes one stream")
        #expect(Self.usageMessage { try SingleStreamOptions.parse([]).validate(command: "loopback") } == nil)
    }
}
