import ArgumentParser
import CameraRTP
import VP8

/// Scalability: temporal layers, for `send`, `publish` and `serve`.
package struct LayerOptions: ParsableArguments {
    @Option(parsing: .unconditional, help: ArgumentHelp(
        "VP8 temporal layers, 1...3: with 2 or 3, frames carry their layer (RFC 7741 TID) and a viewer of serve or an SFU may take the lower layers alone at 1/2 or 1/4 of the frame rate.",
        discussion: "Receivers that know nothing of layers decode every frame; the layers cost a little compression.",
        valueName: "n"))
    package var temporalLayers: Int = 1

    package init() {}

    package func validate() throws {
        guard VP8TemporalLayers.supportedLayerCounts.contains(temporalLayers) else {
            throw ValidationError("--temporal-layers must be 1, 2 or 3, not \(temporalLayers)")
        }
    }

    /// Each layer's cumulative share of the encoder's rate, base first; `[1]` with one.
    package var cumulativeRateShares: [Double] {
        VP8TemporalLayers.cumulativeRateShares(layerCount: temporalLayers)
    }

    /// The pipeline's encoder with these layers.
    package func apply(to configuration: inout PipelineConfiguration) {
        configuration.encoder.temporalLayers = temporalLayers
    }
}
