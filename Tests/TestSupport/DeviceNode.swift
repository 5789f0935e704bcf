import Foundation

/// Character device nodes for tests that must prove a device is written through, never replaced:
/// copies of /dev/null (1, 3) and /dev/full (1, 7) in a test's own folder. Making one needs
/// CAP_MKNOD, which root has.
public enum DeviceNode {
    /// glibc's `makedev` (a macro Swift cannot call), for small numbers.
    public static func number(major: UInt32, minor: UInt32) -> dev_t {
        dev_t((major & 0xFFF) << 8 | (minor & 0xFF))
    }

    /// Makes a character device at `path`; false when the system refuses.
    public static func make(at path: String, major: UInt32, minor: UInt32) -> Bool {
        mknod(path, S_IFCHR | 0o666, number(major: major, minor: minor)) == 0
    }
}
