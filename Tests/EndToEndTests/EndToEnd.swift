import Testing

/// Every end-to-end suite runs inside this one, one test at a time: they start real receivers and
/// real-time streams, and on a 2-core machine running them side by side would measure the
/// machine's load rather than camrtp.
@Suite(.serialized) enum EndToEnd {}
