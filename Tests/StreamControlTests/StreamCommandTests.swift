import CameraRTP
import Capture
import StreamControl
import Testing

@Suite struct StreamCommandTests {
    @Test(arguments: [
        (["snapshot", "/tmp/still.jpg"], StreamCommand.snapshot(path: "/tmp/still.jpg")),
        (["keyframe"], .keyframe),
        (["bitrate", "800"], .bitrate(kbps: 800)),
        (["switch"], .switchCamera(.next)),
        (["switch", "front"], .switchCamera(.position(.front))),
        (["switch", "/dev/video1"], .switchCamera(.device("/dev/video1"))),
        (["control", "zoom_absolute=200"], .control(CameraControlSetting(control: .zoomAbsolute, value: 200))),
        (["control", "exposure_time_absolute=150"], .control(CameraControlSetting(control: .exposureAbsolute, value: 150))),
        (["control", "torch=on"], .control(CameraControlSetting(control: .flashLEDMode, value: 2))),
        (["control", "brightness=-10"], .control(CameraControlSetting(control: .brightness, value: -10))),
        (["orientation", "portrait"], .orientation(.portrait)),
        (["mirror", "on"], .mirror(true)),
        (["mirror", "off"], .mirror(false)),
        (["stats"], .stats),
    ])
    func wordsMakeCommands(words: [String], expected: StreamCommand) throws {
        #expect(try StreamCommand(words: words) == expected)
    }

    /// The lines a client sends, byte for byte: keys sorted, slashes as they are.
    @Test(arguments: [
        (StreamCommand.snapshot(path: "/tmp/a b/still.png"), #"{"command":"snapshot","path":"/tmp/a b/still.png"}"#),
        (.keyframe, #"{"command":"keyframe"}"#),
        (.bitrate(kbps: 800), #"{"command":"bitrate","value":800}"#),
        (.switchCamera(.next), #"{"command":"switch"}"#),
        (.switchCamera(.position(.back)), #"{"camera":"back","command":"switch"}"#),
        (.control(CameraControlSetting(control: .zoomAbsolute, value: 200)), #"{"command":"control","name":"zoom_absolute","value":200}"#),
        (.orientation(.landscapeLeft), #"{"command":"orientation","value":"landscapeLeft"}"#),
        (.mirror(true), #"{"command":"mirror","value":true}"#),
        (.stats, #"{"command":"stats"}"#),
    ])
    func commandsTravelAsOneJSONObject(command: StreamCommand, line: String) throws {
        let encoded = String(decoding: try JSONEncoderForTests.encode(command.request), as: UTF8.self)
        #expect(encoded == line)
        let decoded = try JSONDecoderForTests.decode(StreamCommandRequest.self, from: Array(line.utf8))
        #expect(try StreamCommand(request: decoded) == command)
    }

    @Test func valuesMayComeAsTextOrAsNumbers() throws {
        let lines = [
            #"{"command":"bitrate","value":"800"}"#, #"{"command":"mirror","value":"on"}"#,
            #"{"command":"control","name":"torch","value":"off"}"#, #"{"command":"mirror","value":false,"extra":1}"#,
        ]
        let commands = try lines.map { try StreamCommand(request: JSONDecoderForTests.decode(StreamCommandRequest.self, from: Array($0.utf8))) }
        #expect(commands == [
            .bitrate(kbps: 800), .mirror(true), .control(CameraControlSetting(control: .flashLEDMode, value: 0)), .mirror(false),
        ])
    }

    @Test(arguments: [
        ([String](), "no command"),
        (["frobnicate"], "unknown command 'frobnicate'; use one of snapshot, keyframe, bitrate, switch, control, orientation, mirror, stats"),
        (["bitrate"], "bitrate takes one argument: bitrate KBPS"),
        (["bitrate", "fast"], "bitrate needs a whole number of kbit/s in 1...100000, not fast"),
        (["bitrate", "0"], "not 0"),
        (["bitrate", "100001"], "not 100001"),
        (["bitrate", "800.5"], "not 800.5"),
        (["snapshot", "/tmp/still.gif"], "unknown image type"),
        (["snapshot", "still.jpg"], "an absolute file name"),
        (["switch", "front", "back"], "at most one camera"),
        (["control", "zoom"], "NAME=VALUE"),
        (["control", "warp_drive=9"], "is not NAME=VALUE with NAME one of"),
        (["control", "torch=bright"], "torch=on|off"),
        (["orientation", "sideways"], "orientation needs one of portrait, portraitUpsideDown"),
        (["mirror", "maybe"], "mirror needs on or off, not maybe"),
        (["keyframe", "now"], "keyframe takes no arguments"),
    ])
    func badWordsSayWhatIsWrong(words: [String], message: String) {
        #expect {
            try StreamCommand(words: words)
        } throws: { error in
            "\(error)".contains(message)
        }
    }

    @Test func aRequestWithoutACommandIsRefused() throws {
        let request = try JSONDecoderForTests.decode(StreamCommandRequest.self, from: Array(#"{"value":800}"#.utf8))
        #expect(throws: StreamCommandError.usage("unknown command ''; use one of snapshot, keyframe, bitrate, switch, control, orientation, mirror, stats")) {
            try StreamCommand(request: request)
        }
    }
}
