import ArgumentParser
import CameraRTP
import VP8

/// Scalability: temporal layers, for `send`, `publish` and `serve`, and simulcast, for `publish`
/// and `serve`.
package struct LayerOptions: ParsableArguments {
    @Option(parsing: .unconditional, help: ArgumentHelp(
        "VP8 temporal layers, 1...3: with 2 or 3, frames carry their layer (RFC 7741 TID) and a viewer of serve or an SFU may take the lower layers alone at 1/2 or 1/4 of the frame rate (default 1; 3 with --simulcast).",
        discussion: "Receivers that know nothing of layers decode every frame; the layers cost a little compression.",
        valueName: "n"))
    package var temporalLayers: Int?

    @Option(help: ArgumentHelp(
        "VP8 simulcast for publish and serve: 1...3 encodings of each picture (full, half and quarter size), so that an SFU, or serve itself, sends each viewer the one its network carries (default 1). 3 need at least 960x540, 2 at least 480x270, with sides that halve exactly.",
        valueName: "n"))
    package var simulcast: Int = 1

    package init() {}

    package func validate() throws {
        guard SimulcastLayout.supportedCounts.contains(simulcast) else {
            throw ValidationError("--simulcast must be 1, 2 or 3, not \(simulcast)")
        }
        guard VP8TemporalLayers.supportedLayerCounts.contains(layerCount) else {
            throw ValidationError("--temporal-layers must be 1, 2 or 3, not \(layerCount)")
        }
    }

    /// Each encoding's temporal layers: as given, else 3 with simulcast (libwebrtc's
    /// `DefaultNumberOfTemporalLayers`) and 1 without.
    package var layerCount: Int {
        temporalLayers ?? (simulcast > 1 ? 3 : 1)
    }

    /// Each layer's cumulative share of the encoder's rate, base first; `[1]` with one.
    package var cumulativeRateShares: [Double] {
        VP8TemporalLayers.cumulativeRateShares(layerCount: layerCount)
    }

    /// Refuses `--simulcast` on a command whose receiver takes one stream.
    package func refuseSimulcast(command: String) throws {
        guard simulcast == 1 else {
            throw ValidationError(Self.singleStreamMessage(command: command))
        }
    }

    /// What a command whose receiver takes one stream says to `--simulcast`.
    static func singleStreamMessage(command: String) -> String {
        "--simulcast is for publish and serve, which pick among several streams for their receivers; \(command) makes one stream"
    }

    /// With simulcast, each encoding's picture size for `source`, lowest first; empty with one.
    package func simulcastSizes(for configuration: PipelineConfiguration, source: CaptureSource) throws -> [(width: Int, height: Int)] {
        try simulcastLayout(for: configuration, source: source)?.encodings.map { ($0.width, $0.height) } ?? []
    }

    private func simulcastLayout(for configuration: PipelineConfiguration, source: CaptureSource) throws -> SimulcastLayout? {
        guard simulcast > 1 else { return nil }
        let format = configuration.outputFormat(for: source)
        do {
            return try SimulcastLayout(width: format.width, height: format.height, count: simulcast, temporalLayers: layerCount)
        } catch {
            throw ValidationError("--simulcast \(simulcast): \(error.message)")
        }
    }

    /// With simulcast, how the encoder shares a total (kbit/s) among the encodings of `source`'s
    /// pictures, lowest first, 0 for a paused one: libwebrtc's allocation, as the encoder makes
    /// it (without the hysteresis that depends on its history). Nil with one encoding.
    package func encodingAllocation(
        for configuration: PipelineConfiguration, source: CaptureSource
    ) throws -> (@Sendable (_ totalKbps: Int) -> [Int])? {
        guard let rates = try simulcastLayout(for: configuration, source: source)?.encodings.map(\.rates) else { return nil }
        return { totalKbps in
            var allocator = SimulcastRateAllocator(rates: rates)
            return allocator.allocate(totalBps: totalKbps * 1000).map { $0 / 1000 }
        }
    }

    /// The pipeline's encoder with these layers and encodings for `source`'s pictures; a size the
    /// encodings cannot be made from is a usage error.
    package func apply(to configuration: inout PipelineConfiguration, for source: CaptureSource) throws {
        configuration.encoder.temporalLayers = layerCount
        configuration.simulcast = simulcast
        _ = try simulcastLayout(for: configuration, source: source)
    }
}

/// `--simulcast` on `record` and `loopback`, whose receivers take one stream: refused with a
/// line that says where it belongs. Hidden from their help.
package struct SingleStreamOptions: ParsableArguments {
    @Option(help: .hidden) var simulcast: Int?

    package init() {}

    /// Refuses `--simulcast` for `command`.
    package func validate(command: String) throws {
        if simulcast != nil { throw ValidationError(LayerOptions.singleStreamMessage(command: command)) }
    }
}
