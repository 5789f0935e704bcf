import Foundation
import MediaCore
import TestSupport
import Testing

/// `camrtp record` and `snapshot` write through `OutputFile`: a path never changes kind.
@Suite struct OutputFileTests {
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
        try OutputFile.check(path)
        #expect(try entries().isEmpty, "checking creates nothing")
        try OutputFile.write(bytes, to: path)
        #expect(try read(path) == bytes)
        #expect(try entries() == ["new.jpg"])
    }

    @Test func anExistingFileIsReplacedWholeAndKeepsItsPermissions() throws {
        let path = folder.file("old.png")
        try Data(repeating: 7, count: 10_000).write(to: URL(fileURLWithPath: path))
        chmod(path, 0o640)
        try OutputFile.write(bytes, to: path)
        #expect(try read(path) == bytes)
        #expect(try FileManager.default.attributesOfItem(atPath: path)[.posixPermissions] as? Int == 0o640)
        #expect(try entries() == ["old.png"])
    }

    @Test func aSymlinkStaysASymlinkAndItsTargetGetsThePicture() throws {
        let target = folder.file("target.jpg"), link = folder.file("link.jpg")
        try Data([1, 2, 3]).write(to: URL(fileURLWithPath: target))
        try FileManager.default.createSymbolicLink(atPath: link, withDestinationPath: "target.jpg")
        try OutputFile.write(bytes, to: link)
        #expect(try fileType(link) == .typeSymbolicLink)
        #expect(try FileManager.default.destinationOfSymbolicLink(atPath: link) == "target.jpg")
        #expect(try read(target) == bytes)
        #expect(try entries() == ["link.jpg", "target.jpg"])
    }

    @Test func aDanglingSymlinkGetsItsTargetCreated() throws {
        let link = folder.file("link.png")
        try FileManager.default.createSymbolicLink(atPath: link, withDestinationPath: "later.png")
        try OutputFile.write(bytes, to: link)
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
        try OutputFile.write(bytes, to: path)
        reader.join()
        #expect(received.value == bytes)
        var status = stat()
        #expect(lstat(path, &status) == 0 && status.st_mode & S_IFMT == S_IFIFO)
    }

    @Test func aDirectoryIsRefused() throws {
        let path = folder.file("shots.png")
        try FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: false)
        #expect(throws: OutputFileError.self) { try OutputFile.check(path) }
        #expect(throws: OutputFileError.self) { try OutputFile.write(bytes, to: path) }
        #expect(try fileType(path) == .typeDirectory)
    }

    @Test func aMissingFolderIsNamed() throws {
        let path = folder.file("nowhere/x.jpg")
        let error = try #require(throws: OutputFileError.self) { try OutputFile.check(path) }
        #expect(error.description == "\(path): the folder \(folder.path)/nowhere does not exist")
        #expect(throws: OutputFileError.self) { try OutputFile.write(bytes, to: path) }
    }

    /// A device node is written through and stays a device: a copy of /dev/null takes the bytes,
    /// a copy of /dev/full fails with ENOSPC (a disk failure), and neither becomes a regular file.
    @Test(arguments: [(3, nil), (7, ENOSPC)] as [(UInt32, Int32?)])
    func aDeviceIsWrittenThroughAndKept(minor: UInt32, failure: Int32?) throws {
        let path = folder.file("device")
        #expect(DeviceNode.make(at: path, major: 1, minor: minor), "making a device node needs CAP_MKNOD")
        do {
            try OutputFile.write(bytes, to: path)
            #expect(failure == nil)
        } catch {
            #expect(error.code == failure && error.isDiskFailure)
        }
        var status = stat()
        #expect(lstat(path, &status) == 0 && status.st_mode & S_IFMT == S_IFCHR && status.st_rdev == DeviceNode.number(major: 1, minor: minor))
        #expect(try entries() == ["device"])
    }

    /// Until `commit()` the old file is whole and in place; an output dropped without it leaves
    /// no temporary behind.
    @Test func anUncommittedOutputLeavesTheOldFileAsItWas() throws {
        let path = folder.file("clip.ivf")
        try Data(bytes).write(to: URL(fileURLWithPath: path))
        do {
            let output = try OutputFile(path: path)
            try output.write(Array(repeating: 9, count: 100))
            #expect(try read(path) == bytes)
        }
        #expect(try read(path) == bytes)
        #expect(try entries() == ["clip.ivf"])
    }

    @Test func aHeaderCanBeRewrittenInPlaceBeforeTheCommit() throws {
        let path = folder.file("count.bin")
        let output = try OutputFile(path: path)
        #expect(output.isSeekable)
        try output.write([0, 0, 0, 0, 1, 2, 3])
        try output.write([7, 7], at: 1)
        try output.commit()
        #expect(try read(path) == [0, 7, 7, 0, 1, 2, 3])
    }

    /// Keys are for their owner: a new file is 0600, and an existing one is narrowed to its owner.
    @Test func ownerOnlyFilesAreNotReadableByOthers() throws {
        let fresh = folder.file("new.sdp"), existing = folder.file("old.sdp")
        try Data([1]).write(to: URL(fileURLWithPath: existing))
        chmod(existing, 0o644)
        for path in [fresh, existing] {
            try OutputFile.write(bytes, to: path, ownerOnly: true)
            #expect(try FileManager.default.attributesOfItem(atPath: path)[.posixPermissions] as? Int == 0o600)
        }
    }
}

/// What the FIFO's reader got, handed from its thread to the test.
private final class Received: @unchecked Sendable {
    private let lock = NSLock()
    private var bytes: [UInt8]?

    func set(_ value: [UInt8]?) { lock.withLock { bytes = value } }
    var value: [UInt8]? { lock.withLock { bytes } }
}
