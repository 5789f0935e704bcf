import FrameProcessing

/// The output size a sink asks for. Both kinds follow the input's orientation, as libwebrtc's
/// `VideoAdapter::OnOutputFormatRequest` does ("maintain input orientation"): a 1280×720
/// request gives 720×1280 from a portrait camera. Inputs wider than tall are landscape; square
/// ones count as portrait, as in `VideoAdapter::AdaptFrameResolution`.
public enum ResolutionRequest: Sendable, Equatable {
    /// Exactly this size, rounded down to even: the input is cropped (centred) to the
    /// requested aspect ratio and scaled down to it. An input too small for it is only cropped,
    /// never upscaled.
    case exact(width: Int, height: Int)
    /// libwebrtc's own choice: crop to this aspect ratio, then scale by the largest step of
    /// the 3/4, 2/3 series (`FindScale`) that gives at most `width × height` pixels. Sizes stay
    /// exact fractions of the crop, which scale cleanly, but may fall short of the request
    /// (1280×720 asked 800×450 gives 640×360).
    case scaleSteps(width: Int, height: Int)
}

/// How one input picture becomes one output picture: the centred crop rectangle, scaled to
/// `width × height`. A pure function of the input size and the request.
public struct FrameGeometry: Sendable, Equatable {
    /// Output sizes are multiples of this, as libwebrtc's default `resolution_alignment` for
    /// I420, whose chroma planes are half size.
    public static let alignment = 2

    public let inputWidth: Int
    public let inputHeight: Int
    public let crop: CropRect
    public let width: Int
    public let height: Int

    /// True when the output is the input, untouched: no crop and no scale.
    public var isIdentity: Bool {
        width == inputWidth && height == inputHeight
            && crop == CropRect(x: 0, y: 0, width: inputWidth, height: inputHeight)
    }

    /// Decides the geometry for one input size. With no request, or one whose width or height
    /// is not positive, the frame passes unchanged; so does an input too small to give an even
    /// size without upscaling (1×1), and a `scaleSteps` request so small that no aligned step
    /// reaches it.
    public init(inputWidth: Int, inputHeight: Int, request: ResolutionRequest?) {
        self.inputWidth = inputWidth
        self.inputHeight = inputHeight
        let decided: (crop: CropRect, width: Int, height: Int)? = switch request {
        case .exact(let width, let height):
            Self.exact(inputWidth: inputWidth, inputHeight: inputHeight, requestWidth: width, requestHeight: height)
        case .scaleSteps(let width, let height):
            Self.scaleSteps(inputWidth: inputWidth, inputHeight: inputHeight, requestWidth: width, requestHeight: height)
        case nil:
            nil
        }
        if let decided, decided.width > 0, decided.height > 0 {
            crop = decided.crop
            width = decided.width
            height = decided.height
        } else {
            crop = CropRect(x: 0, y: 0, width: inputWidth, height: inputHeight)
            width = inputWidth
            height = inputHeight
        }
    }

    private static func exact(
        inputWidth: Int, inputHeight: Int, requestWidth: Int, requestHeight: Int
    ) -> (crop: CropRect, width: Int, height: Int)? {
        guard let aspect = orientedAspect(inputWidth: inputWidth, inputHeight: inputHeight,
                                          requestWidth: requestWidth, requestHeight: requestHeight) else { return nil }
        // Round the request down to even, but ask for at least the smallest even size.
        let targetWidth = max(alignDown(aspect.width), alignment)
        let targetHeight = max(alignDown(aspect.height), alignment)
        let cropped = aspectCrop(inputWidth: inputWidth, inputHeight: inputHeight, aspectWidth: targetWidth, aspectHeight: targetHeight)
        if targetWidth <= cropped.width, targetHeight <= cropped.height {
            return (centred(cropped.width, cropped.height, inputWidth, inputHeight), targetWidth, targetHeight)
        }
        // Too small to scale down to the request: crop to an even size and do not scale.
        let width = alignDown(cropped.width)
        let height = alignDown(cropped.height)
        return (centred(width, height, inputWidth, inputHeight), width, height)
    }

    /// `VideoAdapter::AdaptFrameResolution` with `target_pixel_count == max_pixel_count ==
    /// width × height`, as `OnOutputFormatRequest(VideoFormat)` sets them.
    private static func scaleSteps(
        inputWidth: Int, inputHeight: Int, requestWidth: Int, requestHeight: Int
    ) -> (crop: CropRect, width: Int, height: Int)? {
        guard let aspect = orientedAspect(inputWidth: inputWidth, inputHeight: inputHeight,
                                          requestWidth: requestWidth, requestHeight: requestHeight) else { return nil }
        let cropped = aspectCrop(inputWidth: inputWidth, inputHeight: inputHeight, aspectWidth: aspect.width, aspectHeight: aspect.height)
        let scale = ScaleFraction.find(
            inputWidth: cropped.width, inputHeight: cropped.height, maxPixelCount: aspect.width * aspect.height)
        // Widen the crop a little so that the output is aligned and an exact fraction of it.
        let cropWidth = roundUp(cropped.width, multiple: scale.denominator * alignment, max: inputWidth)
        let cropHeight = roundUp(cropped.height, multiple: scale.denominator * alignment, max: inputHeight)
        let width = cropWidth / scale.denominator * scale.numerator
        let height = cropHeight / scale.denominator * scale.numerator
        return (centred(cropWidth, cropHeight, inputWidth, inputHeight), width, height)
    }

    /// The request turned to the input's orientation; nil when it has no positive size.
    private static func orientedAspect(
        inputWidth: Int, inputHeight: Int, requestWidth: Int, requestHeight: Int
    ) -> (width: Int, height: Int)? {
        guard requestWidth > 0, requestHeight > 0 else { return nil }
        let long = max(requestWidth, requestHeight)
        let short = min(requestWidth, requestHeight)
        return inputWidth > inputHeight ? (long, short) : (short, long)
    }

    /// The largest part of the input with the requested aspect ratio.
    private static func aspectCrop(inputWidth: Int, inputHeight: Int, aspectWidth: Int, aspectHeight: Int) -> (width: Int, height: Int) {
        (min(inputWidth, inputHeight * aspectWidth / aspectHeight),
         min(inputHeight, inputWidth * aspectHeight / aspectWidth))
    }

    private static func centred(_ width: Int, _ height: Int, _ inputWidth: Int, _ inputHeight: Int) -> CropRect {
        CropRect(x: (inputWidth - width) / 2, y: (inputHeight - height) / 2, width: width, height: height)
    }

    private static func alignDown(_ value: Int) -> Int {
        value / alignment * alignment
    }

    /// libwebrtc's `roundUp`: the next multiple of `multiple`, but never above `max`.
    private static func roundUp(_ value: Int, multiple: Int, max: Int) -> Int {
        let rounded = (value + multiple - 1) / multiple * multiple
        return rounded <= max ? rounded : max / multiple * multiple
    }
}

/// A scale factor `numerator / denominator` from the series libwebrtc's `VideoAdapter` uses.
struct ScaleFraction: Equatable {
    var numerator: Int
    var denominator: Int

    /// The output pixel count when both sides of `pixelCount` pixels are scaled by this.
    func scaledPixelCount(_ pixelCount: Int) -> Int {
        numerator * numerator * pixelCount / (denominator * denominator)
    }

    /// `FindScale` (media/base/video_adapter.cc) with target = max pixels: steps down by 3/4
    /// and 2/3 alternately and takes the step nearest to `maxPixelCount` without exceeding it,
    /// never above 1/1. Like libwebrtc's default (`WebRTC-Video-VariableStartScaleFactor`), an
    /// input divisible by 3 starts with 2/3 (1920×1080 → 1280×720), and by 9 with 2/3 twice.
    static func find(inputWidth: Int, inputHeight: Int, maxPixelCount: Int) -> ScaleFraction {
        let inputPixelCount = inputWidth * inputHeight
        guard maxPixelCount < inputPixelCount else { return ScaleFraction(numerator: 1, denominator: 1) }
        // 6/6 and 36/36 are 1/1 written so that the 2/3 branch applies first (once or twice).
        var current = ScaleFraction(numerator: 1, denominator: 1)
        if inputWidth % 3 == 0, inputHeight % 3 == 0 { current = ScaleFraction(numerator: 6, denominator: 6) }
        if inputWidth % 9 == 0, inputHeight % 9 == 0 { current = ScaleFraction(numerator: 36, denominator: 36) }
        var best = ScaleFraction(numerator: 1, denominator: 1)
        var bestDifference = Int.max
        while current.scaledPixelCount(inputPixelCount) > maxPixelCount {
            if current.numerator % 3 == 0, current.denominator % 2 == 0 {
                current.numerator /= 3
                current.denominator /= 2
            } else {
                current.numerator *= 3
                current.denominator *= 4
            }
            let pixelCount = current.scaledPixelCount(inputPixelCount)
            if pixelCount <= maxPixelCount, maxPixelCount - pixelCount < bestDifference {
                bestDifference = maxPixelCount - pixelCount
                best = current
            }
        }
        let divisor = greatestCommonDivisor(best.numerator, best.denominator)
        return ScaleFraction(numerator: best.numerator / divisor, denominator: best.denominator / divisor)
    }

    private static func greatestCommonDivisor(_ a: Int, _ b: Int) -> Int {
        b == 0 ? a : greatestCommonDivisor(b, a % b)
    }
}
