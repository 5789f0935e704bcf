import CameraRTP
import Testing

@Suite struct SourceSpecTests {
    @Test(arguments: [
        ("auto", SourceSpec.auto),
        ("camera", .camera(device: nil)),
        ("camera:/dev/video2", .camera(device: "/dev/video2")),
        ("testsrc", .testPattern(width: 1280, height: 720, fps: 30)),
        ("testsrc:640x480", .testPattern(width: 640, height: 480, fps: 30)),
        ("testsrc:320x240@15", .testPattern(width: 320, height: 240, fps: 15)),
        ("y4m:clip.y4m", .y4m(path: "clip.y4m")),
        ("y4m:C:/odd:name.y4m", .y4m(path: "C:/odd:name.y4m")),
        ("fake-camera", .fakeCamera(spec: nil)),
        ("fake-camera:MJPG:1280x720@30", .fakeCamera(spec: "MJPG:1280x720@30")),
    ])
    func parses(text: String, spec: SourceSpec) throws {
        #expect(try SourceSpec(parsing: text) == spec)
    }

    @Test(arguments: [
        ("webcam", "--source \"webcam\": unknown source; use auto, camera[:DEVICE], testsrc[:WxH[@FPS]], y4m:PATH or fake-camera[:[POSITION=]FOURCC[:WxH[@FPS]],...]"),
        ("y4m:", "--source \"y4m:\": expected y4m:PATH, such as y4m:clip.y4m"),
        ("testsrc:640", "--source \"testsrc:640\": expected testsrc:WxH or testsrc:WxH@FPS with sides 2...16383, such as testsrc:1280x720@30"),
        ("testsrc:0x480", "--source \"testsrc:0x480\": expected testsrc:WxH or testsrc:WxH@FPS with sides 2...16383, such as testsrc:1280x720@30"),
        ("testsrc:640x480@0", "--source \"testsrc:640x480@0\": expected testsrc:WxH or testsrc:WxH@FPS with sides 2...16383, such as testsrc:1280x720@30"),
        ("testsrc:8000x8000", "--source \"testsrc:8000x8000\": 8000x8000 is 64000000 pixels; camrtp takes at most 9437184, such as 3840x2160 or 4096x2304"),
    ])
    func rejectsWithTheFix(text: String, message: String) {
        do {
            _ = try SourceSpec(parsing: text)
            Issue.record("\(text) parsed")
        } catch {
            #expect(error.description == message)
        }
    }
}
