import MediaCore

/// Tests pin their "random" values with the library's seeded generator.
public typealias SplitMix64 = MediaCore.SplitMix64
