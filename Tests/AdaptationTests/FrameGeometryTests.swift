import FrameProcessing
import TestSupport
import Testing
@testable import Adaptation

@Suite struct FrameGeometryTests {
    struct Case: Sendable, CustomTestStringConvertible {
        var input: (Int, Int)
        var request: (Int, Int)
        var output: (Int, Int)
        var crop: CropRect

        var testDescription: String { "\(input.0)x\(input.1) asked \(request.0)x\(request.1)" }
    }

    @Test(arguments: [
        // Plain downscales keep the whole picture.
        Case(input: (1280, 720), request: (640, 360), output: (640, 360), crop: CropRect(x: 0, y: 0, width: 1280, height: 720)),
        Case(input: (1920, 1080), request: (1280, 720), output: (1280, 720), crop: CropRect(x: 0, y: 0, width: 1920, height: 1080)),
        // 4:3 asked 16:9: the middle 360 rows.
        Case(input: (640, 480), request: (640, 360), output: (640, 360), crop: CropRect(x: 0, y: 60, width: 640, height: 360)),
        // 16:9 asked 4:3: the middle 960 columns.
        Case(input: (1280, 720), request: (640, 480), output: (640, 480), crop: CropRect(x: 160, y: 0, width: 960, height: 720)),
        // Odd input: one column and one row too many.
        Case(input: (641, 361), request: (640, 360), output: (640, 360), crop: CropRect(x: 0, y: 0, width: 641, height: 360)),
        // An odd request rounds down to even.
        Case(input: (1280, 720), request: (641, 361), output: (640, 360), crop: CropRect(x: 0, y: 0, width: 1280, height: 720)),
        // Portrait inputs keep their orientation, whichever way the request is written.
        Case(input: (720, 1280), request: (640, 360), output: (360, 640), crop: CropRect(x: 0, y: 0, width: 720, height: 1280)),
        Case(input: (720, 1280), request: (360, 640), output: (360, 640), crop: CropRect(x: 0, y: 0, width: 720, height: 1280)),
        Case(input: (480, 640), request: (640, 360), output: (360, 640), crop: CropRect(x: 60, y: 0, width: 360, height: 640)),
        // A request larger than the input crops to its aspect but does not upscale.
        Case(input: (640, 480), request: (1280, 720), output: (640, 360), crop: CropRect(x: 0, y: 60, width: 640, height: 360)),
        Case(input: (641, 361), request: (1920, 1080), output: (640, 360), crop: CropRect(x: 0, y: 0, width: 640, height: 360)),
        // Square inputs count as portrait, as in libwebrtc.
        Case(input: (480, 480), request: (640, 360), output: (270, 480), crop: CropRect(x: 105, y: 0, width: 270, height: 480)),
        // Tiny requests give the smallest even size.
        Case(input: (1280, 720), request: (1, 1), output: (2, 2), crop: CropRect(x: 280, y: 0, width: 720, height: 720)),
    ])
    func exactSizes(_ test: Case) {
        let geometry = FrameGeometry(
            inputWidth: test.input.0, inputHeight: test.input.1,
            request: .exact(width: test.request.0, height: test.request.1))
        #expect(geometry.width == test.output.0)
        #expect(geometry.height == test.output.1)
        #expect(geometry.crop == test.crop)
    }

    @Test(arguments: [
        Case(input: (1280, 720), request: (640, 360), output: (640, 360), crop: CropRect(x: 0, y: 0, width: 1280, height: 720)),
        // 3/4 (960×540) is too many pixels, 1/2 is the largest step that fits.
        Case(input: (1280, 720), request: (800, 450), output: (640, 360), crop: CropRect(x: 0, y: 0, width: 1280, height: 720)),
        Case(input: (1280, 720), request: (480, 270), output: (480, 270), crop: CropRect(x: 0, y: 0, width: 1280, height: 720)),
        Case(input: (1280, 720), request: (320, 180), output: (320, 180), crop: CropRect(x: 0, y: 0, width: 1280, height: 720)),
        // Divisible by 3: the series starts with 2/3.
        Case(input: (1920, 1080), request: (1280, 720), output: (1280, 720), crop: CropRect(x: 0, y: 0, width: 1920, height: 1080)),
        // No scale, but the crop is aligned to even.
        Case(input: (641, 361), request: (1280, 720), output: (640, 360), crop: CropRect(x: 0, y: 0, width: 640, height: 360)),
        // 640×360 of a 4:3 picture, then 3/4.
        Case(input: (640, 480), request: (480, 270), output: (480, 270), crop: CropRect(x: 0, y: 60, width: 640, height: 360)),
    ])
    func libwebrtcScaleSteps(_ test: Case) {
        let geometry = FrameGeometry(
            inputWidth: test.input.0, inputHeight: test.input.1,
            request: .scaleSteps(width: test.request.0, height: test.request.1))
        #expect(geometry.width == test.output.0)
        #expect(geometry.height == test.output.1)
        #expect(geometry.crop == test.crop)
    }

    @Test func findScaleFollowsTheThreeQuartersTwoThirdsSeries() {
        let steps = [(921_600, 1, 1), (518_400, 3, 4), (230_400, 1, 2), (129_600, 3, 8), (57_600, 1, 4), (32_400, 3, 16)]
        for (maxPixels, numerator, denominator) in steps {
            #expect(ScaleFraction.find(inputWidth: 1280, inputHeight: 720, maxPixelCount: maxPixels)
                == ScaleFraction(numerator: numerator, denominator: denominator), "\(maxPixels) pixels")
        }
        // Divisible by 9: 2/3 twice first.
        #expect(ScaleFraction.find(inputWidth: 1440, inputHeight: 1080, maxPixelCount: 640 * 480)
            == ScaleFraction(numerator: 4, denominator: 9))
    }

    @Test(arguments: [nil, ResolutionRequest.exact(width: 0, height: 360), .scaleSteps(width: -1, height: 1)])
    func noUsableRequestIsIdentity(_ request: ResolutionRequest?) {
        let geometry = FrameGeometry(inputWidth: 641, inputHeight: 361, request: request)
        #expect(geometry.isIdentity)
    }

    @Test func sameSizeRequestIsIdentity() {
        #expect(FrameGeometry(inputWidth: 1280, inputHeight: 720, request: .exact(width: 1280, height: 720)).isIdentity)
        #expect(FrameGeometry(inputWidth: 720, inputHeight: 1280, request: .exact(width: 1280, height: 720)).isIdentity)
        #expect(FrameGeometry(inputWidth: 1280, inputHeight: 720, request: .scaleSteps(width: 1280, height: 720)).isIdentity)
    }

    @Test func inputsTooSmallForAnEvenSizePassUnchanged() {
        for request in [ResolutionRequest.exact(width: 640, height: 360), .scaleSteps(width: 640, height: 360)] {
            for (width, height) in [(1, 1), (1, 720), (1280, 1)] {
                let geometry = FrameGeometry(inputWidth: width, inputHeight: height, request: request)
                #expect(geometry.isIdentity, "\(width)x\(height) \(request)")
            }
        }
    }

    /// Any input and request: the crop fits inside the input even after the scaler rounds its
    /// origin down to even, the output is even, and nothing grows.
    @Test func arbitrarySizesStayEvenInsideAndNeverUpscale() {
        var generator = SplitMix64(state: 2024)
        for _ in 0..<20_000 {
            let inputWidth = Int.random(in: 1...2000, using: &generator)
            let inputHeight = Int.random(in: 1...2000, using: &generator)
            let requestWidth = Int.random(in: 1...2000, using: &generator)
            let requestHeight = Int.random(in: 1...2000, using: &generator)
            for request in [ResolutionRequest.exact(width: requestWidth, height: requestHeight),
                            .scaleSteps(width: requestWidth, height: requestHeight)] {
                let geometry = FrameGeometry(inputWidth: inputWidth, inputHeight: inputHeight, request: request)
                let label = "\(inputWidth)x\(inputHeight) \(request)"
                if geometry.isIdentity { continue }
                let crop = geometry.crop
                #expect(crop.x >= 0 && crop.y >= 0 && crop.width > 0 && crop.height > 0, "\(label)")
                #expect((crop.x & ~1) + crop.width <= inputWidth && (crop.y & ~1) + crop.height <= inputHeight, "\(label)")
                #expect(geometry.width % 2 == 0 && geometry.height % 2 == 0 && geometry.width > 0 && geometry.height > 0, "\(label)")
                #expect(geometry.width <= crop.width && geometry.height <= crop.height, "\(label)")
            }
        }
    }

    @Test func exactRequestsThatFitAreMetExactly() {
        var generator = SplitMix64(state: 77)
        for _ in 0..<5_000 {
            let inputWidth = Int.random(in: 2...2000, using: &generator)
            let inputHeight = Int.random(in: 2...inputWidth, using: &generator)
            let requestWidth = Int.random(in: 1...inputWidth, using: &generator) & ~1
            let requestHeight = Int.random(in: 1...requestWidth + 1, using: &generator) & ~1
            guard requestWidth >= 2, requestHeight >= 2, requestHeight <= requestWidth else { continue }
            let crop = (min(inputWidth, inputHeight * requestWidth / requestHeight),
                        min(inputHeight, inputWidth * requestHeight / requestWidth))
            guard requestWidth <= crop.0, requestHeight <= crop.1, inputWidth > inputHeight else { continue }
            let geometry = FrameGeometry(
                inputWidth: inputWidth, inputHeight: inputHeight,
                request: .exact(width: requestWidth, height: requestHeight))
            #expect(geometry.width == requestWidth && geometry.height == requestHeight,
                    "\(inputWidth)x\(inputHeight) asked \(requestWidth)x\(requestHeight)")
        }
    }
}
