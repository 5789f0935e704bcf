import Foundation
import ImageEncoding
import MediaCore
import TestSupport
import Testing

/// The image's format from its name; where and how it is written is `OutputFile`'s (tested there).
@Suite struct ImageFileTests {
    let folder = TemporaryDirectory()

    @Test func theExtensionChoosesTheFormatAndTheBytesLandWhole() throws {
        let path = folder.file("new.jpg")
        #expect(try ImageFile.checkOutput(path) == .jpeg)
        #expect(try ImageFile.checkOutput(folder.file("x.PNG")) == .png)
        try ImageFile.write([1, 2, 3], to: path)
        #expect([UInt8](try Data(contentsOf: URL(fileURLWithPath: path))) == [1, 2, 3])
        #expect(try FileManager.default.contentsOfDirectory(atPath: folder.path) == ["new.jpg"])
    }

    @Test func anUnknownExtensionIsRefusedWithTheKnownOnes() throws {
        let error = try #require(throws: OutputFileError.self) { try ImageFile.checkOutput(folder.file("x.gif")) }
        #expect(error.reason == "unknown image type; name the file with .jpg, .jpeg, .png")
    }

    @Test func aDirectoryIsRefused() throws {
        let path = folder.file("shots.png")
        try FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: false)
        #expect(throws: OutputFileError.self) { try ImageFile.checkOutput(path) }
    }
}
