/// Paths of the helper programs in `Tests/Tools`.
public enum TestTools {
    /// `Tests/Tools/<name>` of this checkout.
    public static func path(_ name: String) -> String {
        var components = #filePath.split(separator: "/", omittingEmptySubsequences: false)
        components.removeLast(2)  // TestSupport/TestTools.swift
        return (components + ["Tools", Substring(name)]).joined(separator: "/")
    }
}
