import Testing

/// The congestion controller as the real send session runs it, on a simulated link
/// (`NetworkSimulation`) and a virtual clock, so every figure is deterministic. Each test prints
/// its figures; `swift test --filter SimulationTests` shows them.
@Suite struct SimulationTests {
    /// From 300 kbit/s to 2 Mbit/s takes longest: the start-up probes ride on the first keyframe
    /// (no padding before the receiver's first feedback), which at 300 kbit/s is five packets, too
    /// few for the 6× cluster; the rest comes from further probes and AIMD.
    @Test(arguments: [(800, 300, 5), (800, 2500, 5), (2000, 300, 10), (2000, 2500, 5)] as [(Int64, Int64, Double)])
    func converges(capacityKbps: Int64, startKbps: Int64, withinSeconds: Double) {
        var scenario = LinkScenario(kbps: capacityKbps, durationSeconds: 30)
        scenario.startBitrateBps = startKbps * 1000
        let result = NetworkSimulation.run(scenario)

        let convergedSeconds = result.secondsUntilTargetStays(within: 0.8...1.1, from: 0, to: 30)
        let share = result.targetShare(from: 5, to: 30)
        let delayP95Ms = result.queueDelayMs(quantile: 0.95, from: 5, to: 30)
        report(
            "\(capacityKbps) kbit/s from \(startKbps) kbit/s: converged after \(seconds(convergedSeconds));",
            "5–30 s: target \(percent(share)), delivered \(percent(result.utilisation(from: 5, to: 30))),",
            "queueing delay p95 \(rounded(delayP95Ms)) ms,",
            "pacer delay p95 \(rounded(result.pacerDelayMs(quantile: 0.95, from: 5, to: 30))) ms")
        #expect(convergedSeconds.map { $0 <= withinSeconds } ?? false, "converged after \(seconds(convergedSeconds))")
        #expect((0.80...0.95).contains(share), "mean target \(share) of capacity")
        #expect(delayP95Ms < 150)
    }

    @Test func backsOffWhenCapacityHalvesAndRecoversWhenItReturns() {
        // The capacity returns between two recovery probes (every 5 s from the drop), the worst
        // case for recovery.
        let scenario = LinkScenario(capacity: [(0, 2000), (20, 1000), (42, 2000)], durationSeconds: 60)
        let result = NetworkSimulation.run(scenario)

        let backoffSeconds = result.secondsUntilTargetStays(within: 0...1.1, from: 20, to: 41.9)
        let recoverySeconds = result.secondsUntilTargetStays(within: 0.8...1.1, from: 42, to: 60)
        let delaySeconds = result.secondsUntilQueueDelayStaysUnder(150, from: 20, to: 41.9)
        let delayP95Ms = result.queueDelayMs(quantile: 0.95, from: 25, to: 41.9)
        report(
            "2000 → 1000 kbit/s at 20 s: target under 110 % after \(seconds(backoffSeconds)),",
            "delay under 150 ms after \(seconds(delaySeconds)); 25–42 s: target",
            "\(percent(result.targetShare(from: 25, to: 41.9))), queueing delay p95 \(rounded(delayP95Ms)) ms;",
            "1000 → 2000 kbit/s at 42 s: within 80–110 % after \(seconds(recoverySeconds))")
        #expect(result.maxTargetBps(from: 21, to: 41.9) <= 1_000_000 * 11 / 10)
        #expect(backoffSeconds.map { $0 <= 1 } ?? false, "backed off after \(seconds(backoffSeconds))")
        #expect(recoverySeconds.map { $0 <= 6 } ?? false, "recovered after \(seconds(recoverySeconds))")
        #expect(delayP95Ms < 150)
    }

    @Test func followsCapacityStepsWithDelayBackUnderLimitWithinThreeSeconds() {
        let capacity: [(atSeconds: Double, kbps: Int64)] = [
            (0, 2000), (10, 600), (20, 2000), (30, 600), (40, 2000),
        ]
        let result = NetworkSimulation.run(LinkScenario(capacity: capacity, durationSeconds: 50))

        for dropSeconds in [10.0, 30.0] {
            let endSeconds = dropSeconds + 9.9
            let delaySeconds = result.secondsUntilQueueDelayStaysUnder(150, from: dropSeconds, to: endSeconds)
            let backoffSeconds = result.secondsUntilTargetStays(within: 0...1.1, from: dropSeconds, to: endSeconds)
            let peakDelayMs = result.queueDelayMs(quantile: 1, from: dropSeconds, to: endSeconds)
            report(
                "2000 → 600 kbit/s at \(Int(dropSeconds)) s: target under 110 % after \(seconds(backoffSeconds)),",
                "delay under 150 ms after \(seconds(delaySeconds)), peak queueing delay \(rounded(peakDelayMs)) ms")
            #expect(delaySeconds.map { $0 <= 3 } ?? false, "delay under 150 ms after \(seconds(delaySeconds))")
            #expect(backoffSeconds.map { $0 <= 1 } ?? false)
        }
        for riseSeconds in [20.0, 40.0] {
            let recoverySeconds = result.secondsUntilTargetStays(
                within: 0.8...1.1, from: riseSeconds, to: riseSeconds + 9.9)
            report("600 → 2000 kbit/s at \(Int(riseSeconds)) s: within 80–110 % after \(seconds(recoverySeconds))")
            #expect(recoverySeconds.map { $0 <= 6 } ?? false)
        }
    }

    /// A receiver that reports loss and repairs nothing (RTX off): what its reports say is all
    /// the controller has. The first report is a baseline, so the first two seconds grow by AIMD.
    @Test func receiverReportLossAloneHoldsAtFivePercentAndDecreasesAtFifteen() {
        var scenario = LinkScenario(kbps: 5000, durationSeconds: 30)
        scenario.feedback = .receiverReportsOnly
        scenario.retransmission = .off
        scenario.startBitrateBps = 1_000_000

        scenario.randomLossFraction = 0.05
        let holding = NetworkSimulation.run(scenario)
        scenario.randomLossFraction = 0.15
        let decreasing = NetworkSimulation.run(scenario)

        let windows = stride(from: 0.0, to: 30, by: 5).map { decreasing.meanTargetBps(from: $0, to: $0 + 5) }
        report(
            "RR only from 1000 kbit/s, 5 % loss: target",
            "\(holding.minTargetBps(from: 0, to: 30) / 1000)–\(holding.maxTargetBps(from: 0, to: 30) / 1000) kbit/s;",
            "15 % loss: 5 s means \(windows.map { Int($0 / 1000) }) kbit/s")
        #expect(holding.minTargetBps(from: 0, to: 30) >= 850_000)
        #expect(holding.maxTargetBps(from: 0, to: 30) <= 1_200_000)
        #expect(zip(windows, windows.dropFirst()).allSatisfy { $1 < $0 }, "5 s means \(windows)")
        #expect(decreasing.maxTargetBps(from: 25, to: 30) < 500_000)
    }

    @Test func transportFeedbackLossThatIsNotCongestionKeepsTheRate() {
        var scenario = LinkScenario(kbps: 2000, durationSeconds: 30)
        scenario.startBitrateBps = 1_800_000
        scenario.randomLossFraction = 0.05
        let result = NetworkSimulation.run(scenario)
        report("2000 kbit/s with 5 % random loss: target \(percent(result.targetShare(from: 5, to: 30)))")
        #expect(result.targetShare(from: 5, to: 30) >= 0.8)
    }

    @Test func rembCapsTheTarget() {
        var scenario = LinkScenario(kbps: 2000, durationSeconds: 30)
        scenario.rembBps = 700_000
        let result = NetworkSimulation.run(scenario)
        report(
            "REMB 700 kbit/s on 2000 kbit/s: target",
            "\(result.minTargetBps(from: 5, to: 30) / 1000)–\(result.maxTargetBps(from: 0, to: 30) / 1000) kbit/s")
        #expect(result.maxTargetBps(from: 0, to: 30) <= 700_000)
        #expect(result.minTargetBps(from: 5, to: 30) >= 630_000)
    }

    @Test func slowFeedbackAndLongRoundTripStillConverge() {
        var scenario = LinkScenario(kbps: 2000, durationSeconds: 30)
        scenario.startBitrateBps = 1_000_000
        scenario.feedback = .transportWide(intervalNs: 100_000_000)
        scenario.propagationDelayNs = 50_000_000
        let result = NetworkSimulation.run(scenario)
        let convergedSeconds = result.secondsUntilTargetStays(within: 0.8...1.1, from: 0, to: 30)
        let share = result.targetShare(from: 5, to: 30)
        let delayP95Ms = result.queueDelayMs(quantile: 0.95, from: 5, to: 30)
        report(
            "2000 kbit/s, feedback every 100 ms, RTT 100 ms: converged after \(seconds(convergedSeconds)),",
            "target \(percent(share)), queueing delay p95 \(rounded(delayP95Ms)) ms")
        #expect(convergedSeconds.map { $0 <= 5 } ?? false)
        #expect((0.80...0.95).contains(share))
    }

    @Test func keyframesEveryTenSecondsCostLittle() {
        var scenario = LinkScenario(kbps: 2000, durationSeconds: 30)
        scenario.keyframeIntervalNs = 10_000_000_000
        let result = NetworkSimulation.run(scenario)
        report(
            "2000 kbit/s, 4× keyframes every 10 s: target \(percent(result.targetShare(from: 5, to: 30))),",
            "pacer delay p99 \(rounded(result.pacerDelayMs(quantile: 0.99, from: 5, to: 30))) ms")
        #expect(result.targetShare(from: 5, to: 30) >= 0.8)
    }

    @Test func sameScenarioGivesTheSameResult() {
        var scenario = LinkScenario(capacity: [(0, 2000), (5, 600)], durationSeconds: 10)
        scenario.randomLossFraction = 0.02
        let first = NetworkSimulation.run(scenario)
        let second = NetworkSimulation.run(scenario)
        #expect(first.traceCSV == second.traceCSV)
        #expect(first.samples.map(\.targetBps) == second.samples.map(\.targetBps))
    }

    private func report(_ parts: String...) {
        print("simulation:", parts.joined(separator: " "))
    }

    private func percent(_ share: Double) -> String { Figures.percent(share) }
    private func seconds(_ value: Double?) -> String { Figures.seconds(value) }
    private func rounded(_ value: Double) -> Double { Figures.rounded(value) }
}
