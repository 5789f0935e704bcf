import Foundation
import ImageEncoding
import MediaCore
import TestSupport
import Testing

@Suite struct ImageFileTests {
    let folder = TemporaryDirectory()
    let bytes: [UInt8] = Array("not really a picture".utf8)

    func read(_ path: String) throws -> [UInt8] {
        [UInt8](try Data(contentsOf: URL(fileURLWithPath: path)))
    }

    func entries() throws -> [String] {
        try FileManager.default.contentsOfDirectory(atPath: folder.path).sorted()
    }

    func fileType(_ path: String) throws -> FileAttributeType? {
        try FileManager.default.attributesOfItem(atPath: path)[.type] as? FileAttributeType
    }

    @Test func aNewFileIsCreatedWithNoTemporaryLeftBehind() throws {
        let path = folder.file("new.jpg")
        #expect(try ImageFile.checkOutput(path) == .jpeg)
        try ImageFile.write(bytes, to: path)
        #expect(try read(path) == bytes)
        #expect(try entries() == ["new.jpg"])
    }

    @Test func anExistingFileIsReplacedWholeAndKeepsItsPermissions() throws {
        let path = folder.file("old.png")
        try Data(repeating: 7, count: 10_000).write(to: URL(fileURLWithPath: path))
        chmod(path, 0o640)
        try ImageFile.write(bytes, to: path)
        #expect(try read(path) == bytes)
        #expect(try FileManager.default.attributesOfItem(atPath: path)[.posixPermissions] as? Int == 0o640)
        #expect(try entries() == ["old.png"])
    }

    @Test func aSymlinkStaysASymlinkAndItsTargetGetsThePicture() throws {
        let target = folder.file("target.jpg"), link = folder.file("link.jpg")
        try Data([1, 2, 3]).write(to: URL(fileURLWithPath: target))
        try FileManager.default.createSymbolicLink(atPath: link, withDestinationPath: "target.jpg")
        try ImageFile.write(bytes, to: link)
        #expect(try fileType(link) == .typeSymbolicLink)
        #expect(try FileManager.default.destinationOfSymbolicLink(atPath: link) == "target.jpg")
        #expect(try read(target) == bytes)
        #expect(try entries() == ["link.jpg", "target.jpg"])
    }

    @Test func aDanglingSymlinkGetsItsTargetCreated() throws {
        let link = folder.file("link.png")
        try FileManager.default.createSymbolicLink(atPath: link, withDestinationPath: "later.png")
        try ImageFile.write(bytes, to: link)
        #expect(try fileType(link) == .typeSymbolicLink)
        #expect(try read(folder.file("later.png")) == bytes)
    }

    /// A FIFO (like a device) is written through, never replaced by a regular file.
    @Test func aFIFOIsWrittenThrough() throws {
        let path = folder.file("pipe.jpg")
        #expect(mkfifo(path, 0o600) == 0)
        let received = Received()
        let reader = MediaThread(name: "fifo-reader") {
            received.set(FileHandle(forReadingAtPath: path).map { [UInt8]($0.readDataToEndOfFile()) })
        }
        try ImageFile.write(bytes, to: path)
        reader.join()
        #expect(received.value == bytes)
        var status = stat()
        #expect(lstat(path, &status) == 0 && status.st_mode & S_IFMT == S_IFIFO)
    }

    @Test func aDirectoryIsRefused() throws {
        let path = folder.file("shots.png")
        try FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: false)
        #expect(throws: ImageFileError.self) { try ImageFile.checkOutput(path) }
        #expect(throws: ImageFileError.self) { try ImageFile.write(bytes, to: path) }
        #expect(try fileType(path) == .typeDirectory)
    }

    @Test func aMissingFolderIsNamed() throws {
        let path = folder.file("nowhere/x.jpg")
        let error = try #require(throws: ImageFileError.self) { try ImageFile.checkOutput(path) }
        #expect(error.description == "\(path): the folder \(folder.path)/nowhere does not exist")
        #expect(throws: ImageFileError.self) { try ImageFile.write(bytes, to: path) }
    }

    @Test func anUnknownExtensionIsRefusedWithTheKnownOnes() throws {
        let error = try #require(throws: ImageFileError.self) { try ImageFile.checkOutput(folder.file("x.gif")) }
        #expect(error.reason == "unknown image type; name the file with .jpg, .jpeg, .png")
    }
}

/// What the FIFO's reader got, handed from its thread to the test.
private final class Received: @unchecked Sendable {
    private let lock = NSLock()
    private var bytes: [UInt8]?

    func set(_ value: [UInt8]?) { lock.withLock { bytes = value } }
    var value: [UInt8]? { lock.withLock { bytes } }
}
