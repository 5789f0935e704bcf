/// A session description (RFC 8866): the session-level fields and attributes and its `m=`
/// sections. `init(parsing:)` reads one from the network; `serialized()` writes one.
///
/// Attributes the model types are properties; the rest are kept in `otherAttributes` and
/// `otherFields`, in order, so that nothing a peer wrote is lost. The writer is deterministic:
/// the same value gives the same bytes. Values that may sit at either level (ICE credentials,
/// fingerprints, setup, extmaps, direction) are read through the `…(for:)` accessors, which
/// prefer the media section's.
public struct SessionDescription: Sendable, Hashable {
    /// `o=` (RFC 8866 section 5.2).
    public var origin: Origin
    /// `s=` (RFC 8866 section 5.3); must not be empty, so an empty name is written (and read) as `-`.
    public var sessionName: String
    /// `c=` at session level (RFC 8866 section 5.7).
    public var connection: ConnectionAddress?
    public var bandwidths: [Bandwidth]
    /// `t=` lines; a description without one is read as `t=0 0`.
    public var timing: [Timing]
    /// `i=`, `u=`, `e=`, `p=`, `r=`, `z=`, `k=` and unknown letters, kept as written; read in the
    /// writer's order (`i=`, `u=`, `e=`, `p=` first), so that what is written reads back equal.
    public var otherFields: [SDPField]

    /// `a=group` (RFC 5888), such as `BUNDLE 0 1`.
    public var groups: [MediaGroup]
    /// `a=ice-lite` (RFC 8839 section 5.3).
    public var iceLite: Bool
    public var iceUsernameFragment: String?
    public var icePassword: String?
    public var iceOptions: [String]
    public var fingerprints: [Fingerprint]
    public var setup: SetupRole?
    public var extensions: [HeaderExtensionMapping]
    public var direction: MediaDirection?
    public var otherAttributes: [Attribute]

    public var media: [MediaDescription]

    public init(
        origin: Origin, sessionName: String = "-", connection: ConnectionAddress? = nil, timing: [Timing] = [.permanent],
        media: [MediaDescription] = []
    ) {
        self.origin = origin
        self.sessionName = sessionName
        self.connection = connection
        self.timing = timing
        self.media = media
        bandwidths = []
        otherFields = []
        groups = []
        iceLite = false
        iceUsernameFragment = nil
        icePassword = nil
        iceOptions = []
        fingerprints = []
        setup = nil
        extensions = []
        direction = nil
        otherAttributes = []
    }

    /// The first `a=group:BUNDLE`.
    public var bundleGroup: MediaGroup? { groups.first(where: \.isBundle) }

    /// The ICE credentials that apply to `media`: its own, else the session's.
    public func iceCredentials(for media: MediaDescription) -> ICEParameters? {
        guard let usernameFragment = media.iceUsernameFragment ?? iceUsernameFragment,
            let password = media.icePassword ?? icePassword
        else { return nil }
        return ICEParameters(usernameFragment: usernameFragment, password: password)
    }

    public func iceOptions(for media: MediaDescription) -> [String] {
        media.iceOptions.isEmpty ? iceOptions : media.iceOptions
    }

    public func fingerprints(for media: MediaDescription) -> [Fingerprint] {
        media.fingerprints.isEmpty ? fingerprints : media.fingerprints
    }

    public func setupRole(for media: MediaDescription) -> SetupRole? {
        media.setup ?? setup
    }

    public func extensions(for media: MediaDescription) -> [HeaderExtensionMapping] {
        media.extensions.isEmpty ? extensions : media.extensions
    }

    /// The media section's direction, else the session's, else `sendrecv` (RFC 8866 section 6.7).
    public func direction(for media: MediaDescription) -> MediaDirection {
        media.direction ?? direction ?? .sendrecv
    }

    public func connection(for media: MediaDescription) -> ConnectionAddress? {
        media.connection ?? connection
    }
}
