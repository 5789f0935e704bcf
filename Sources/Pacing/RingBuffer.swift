/// A FIFO over one growable array: append and removal at the front are O(1) and allocate
/// nothing once the buffer has grown to the queue's working size.
struct RingBuffer<Element>: Sendable where Element: Sendable {
    private var storage: [Element?]
    private var head = 0
    private(set) var count = 0

    init(initialCapacity: Int = 256) {
        storage = Array(repeating: nil, count: max(initialCapacity, 1))
    }

    var isEmpty: Bool { count == 0 }

    var first: Element? { isEmpty ? nil : storage[head] }

    mutating func append(_ element: Element) {
        if count == storage.count {
            grow()
        }
        storage[(head + count) % storage.count] = element
        count += 1
    }

    mutating func popFirst() -> Element? {
        guard count > 0 else { return nil }
        let element = storage[head]
        storage[head] = nil
        head = (head + 1) % storage.count
        count -= 1
        return element
    }

    private mutating func grow() {
        var grown = [Element?](repeating: nil, count: storage.count * 2)
        for offset in 0..<count {
            grown[offset] = storage[(head + offset) % storage.count]
        }
        storage = grown
        head = 0
    }
}
