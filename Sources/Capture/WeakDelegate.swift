import MediaCore

import Synchronization

/// The weakly held, lock-protected delegate slot every capturer has.
final class WeakDelegate: Sendable {
    private struct Slot {
        weak var delegate: (any VideoCapturerDelegate)?
    }

    private let slot = Mutex(Slot())

    var value: (any VideoCapturerDelegate)? {
        get { slot.withLock { $0.delegate } }
        set { slot.withLock { $0.delegate = newValue } }
    }
}
