import Testing
import WebRTC

/// The connection's states and its connect timeout, on a clock the test advances.
@Suite("WebRTC: connection state machine")
struct ConnectionStateMachineTests {
    static let timeoutNs: Int64 = 20_000_000_000

    @Test func walksThroughICEAndDTLSToReady() {
        var machine = ConnectionStateMachine(connectTimeoutNs: Self.timeoutNs)
        #expect(machine.state == .new)
        #expect(machine.handle(.start, nowNs: 1_000) == .checking)
        #expect(machine.deadlineNs == 1_000 + Self.timeoutNs)
        #expect(machine.handle(.iceConnected, nowNs: 5_000_000) == .connected)
        #expect(machine.handle(.dtlsStarted, nowNs: 5_000_000) == .dtls)
        #expect(machine.handle(.dtlsConnected, nowNs: 25_000_000) == .ready)
        #expect(machine.deadlineNs == nil)
        #expect(machine.timeline.iceMs == 4.999)
        #expect(machine.timeline.dtlsMs == 20)
        // Ready stays ready as time passes.
        #expect(machine.handle(.tick, nowNs: 100 * Self.timeoutNs) == nil)
        #expect(machine.state == .ready)
    }

    @Test func timesOutWhereItStands() {
        var checking = ConnectionStateMachine(connectTimeoutNs: Self.timeoutNs)
        checking.handle(.start, nowNs: 0)
        #expect(checking.handle(.tick, nowNs: Self.timeoutNs - 1) == nil)
        let failed = checking.handle(.tick, nowNs: Self.timeoutNs)
        #expect(failed == .failed(.timeout(phase: "running ICE checks", seconds: 20)))

        var handshaking = ConnectionStateMachine(connectTimeoutNs: Self.timeoutNs)
        handshaking.handle(.start, nowNs: 0)
        handshaking.handle(.iceConnected, nowNs: 10)
        handshaking.handle(.dtlsStarted, nowNs: 10)
        #expect(handshaking.handle(.tick, nowNs: Self.timeoutNs + 5) == .failed(.timeout(phase: "in the DTLS handshake", seconds: 20)))
        #expect("\(handshaking.state)".contains("--connect-timeout"))
    }

    @Test func noTimeoutBeforeStart() {
        var machine = ConnectionStateMachine(connectTimeoutNs: 1)
        #expect(machine.handle(.tick, nowNs: 1_000_000_000_000) == nil)
        #expect(machine.state == .new)
    }

    @Test func aDTLSServerMayFinishBeforeItsAgentReportsThePair() {
        var machine = ConnectionStateMachine(connectTimeoutNs: Self.timeoutNs)
        machine.handle(.start, nowNs: 0)
        #expect(machine.handle(.dtlsConnected, nowNs: 7) == .ready)
        #expect(machine.timeline.iceConnectedNs == 7)
        #expect(machine.handle(.iceConnected, nowNs: 9) == nil)
    }

    @Test func iceFailureBeforeAndAfterReady() {
        var early = ConnectionStateMachine(connectTimeoutNs: Self.timeoutNs)
        early.handle(.start, nowNs: 0)
        #expect(early.handle(.iceFailed, nowNs: 1) == .failed(.iceFailed))

        var late = ConnectionStateMachine(connectTimeoutNs: Self.timeoutNs)
        late.handle(.start, nowNs: 0)
        late.handle(.iceConnected, nowNs: 1)
        late.handle(.dtlsStarted, nowNs: 1)
        late.handle(.dtlsConnected, nowNs: 2)
        #expect(late.handle(.iceFailed, nowNs: 3) == .failed(.consentExpired))
    }

    /// With a grace period, a lost path after ready leaves the connection disconnected: an ICE
    /// restart that connects within the period brings it back, and past it, it fails.
    @Test func aLostPathWaitsForAnICERestartWithinTheGracePeriod() {
        let graceNs: Int64 = 10_000_000_000
        var machine = ConnectionStateMachine(connectTimeoutNs: Self.timeoutNs, disconnectedGraceNs: graceNs)
        machine.handle(.start, nowNs: 0)
        machine.handle(.dtlsConnected, nowNs: 1)
        #expect(machine.handle(.iceFailed, nowNs: 100) == .disconnected)
        #expect(machine.deadlineNs == 100 + graceNs)
        #expect(machine.timeline.disconnections == 1)
        #expect(machine.handle(.iceFailed, nowNs: 200) == nil)
        #expect(machine.handle(.tick, nowNs: 100 + graceNs - 1) == nil)
        #expect(machine.handle(.iceConnected, nowNs: 5_000) == .ready)
        #expect(machine.deadlineNs == nil)
        // Lost again: a new period, and past it the connection fails for good.
        #expect(machine.handle(.iceFailed, nowNs: 20_000) == .disconnected)
        #expect(machine.timeline.disconnections == 2)
        #expect(machine.handle(.tick, nowNs: 20_000 + graceNs) == .failed(.consentExpired))
        #expect(machine.handle(.iceConnected, nowNs: 30_000 + graceNs) == nil)

        // DTLS closing or failing ends a disconnected connection at once.
        var closing = ConnectionStateMachine(connectTimeoutNs: Self.timeoutNs, disconnectedGraceNs: graceNs)
        closing.handle(.start, nowNs: 0)
        closing.handle(.dtlsConnected, nowNs: 1)
        closing.handle(.iceFailed, nowNs: 2)
        #expect(closing.handle(.dtlsClosedByPeer, nowNs: 3) == .closed)
    }

    @Test func failedAndClosedAreFinal() {
        var failed = ConnectionStateMachine(connectTimeoutNs: Self.timeoutNs)
        failed.handle(.start, nowNs: 0)
        #expect(failed.handle(.dtlsFailed("fingerprint mismatch"), nowNs: 1) == .failed(.dtls("fingerprint mismatch")))
        for input: ConnectionStateMachine.Input in [.iceConnected, .dtlsConnected, .close, .tick, .start] {
            #expect(failed.handle(input, nowNs: 2 * Self.timeoutNs) == nil)
        }
        #expect(failed.deadlineNs == nil)

        var closed = ConnectionStateMachine(connectTimeoutNs: Self.timeoutNs)
        closed.handle(.start, nowNs: 0)
        #expect(closed.handle(.close, nowNs: 1) == .closed)
        #expect(closed.handle(.iceFailed, nowNs: 2) == nil)

        var byPeer = ConnectionStateMachine(connectTimeoutNs: Self.timeoutNs)
        byPeer.handle(.start, nowNs: 0)
        byPeer.handle(.dtlsConnected, nowNs: 1)
        #expect(byPeer.handle(.dtlsClosedByPeer, nowNs: 2) == .closed)
    }

    @Test func outOfOrderInputsAreIgnored() {
        var machine = ConnectionStateMachine(connectTimeoutNs: Self.timeoutNs)
        #expect(machine.handle(.iceConnected, nowNs: 0) == nil)
        #expect(machine.handle(.dtlsStarted, nowNs: 0) == nil)
        machine.handle(.start, nowNs: 0)
        #expect(machine.handle(.start, nowNs: 5) == nil)
        #expect(machine.deadlineNs == Self.timeoutNs)
        #expect(machine.handle(.dtlsStarted, nowNs: 1) == nil)
        #expect(machine.state == .checking)
    }
}
