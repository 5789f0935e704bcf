"""Which source frame each decoded frame shows, and how well (numpy).

A decoded Y4M holds the frames the receiver could decode, in order, without saying which ones.
Each is matched to the source frame it is closest to (mean squared error of luma thumbnails,
searching every source frame after the last match, so that any number of frames may be
missing), then scored by PSNR over Y, U and V against that frame."""

import math

import numpy

THUMBNAIL_STEP = 8
PSNR_CAP_DB = 100.0
# A decoded frame whose best thumbnail match is this poor matches nothing (a broken picture).
MINIMUM_MATCH_PSNR_DB = 15.0


class Y4MFile:
    """The frames of a 4:2:0 Y4M file, memory-mapped."""

    def __init__(self, path):
        with open(path, "rb") as f:
            header = f.readline()
        if not header.startswith(b"YUV4MPEG2"):
            raise ValueError(f"{path}: not a Y4M file")
        fields = {token[:1]: token[1:] for token in header.split()[1:]}
        self.width, self.height = int(fields[b"W"]), int(fields[b"H"])
        chroma = fields.get(b"C", b"420")
        if not chroma.startswith(b"420"):
            raise ValueError(f"{path}: chroma {chroma.decode()} is not 4:2:0")
        self.frame_bytes = self.width * self.height + 2 * ((self.width + 1) // 2) * ((self.height + 1) // 2)
        self.data = numpy.memmap(path, dtype=numpy.uint8, mode="r")
        self.offsets = []
        position = len(header)
        size = len(self.data)
        while position < size:
            newline = position
            while newline < size and self.data[newline] != 0x0A:
                newline += 1
            start = newline + 1
            if start + self.frame_bytes > size:
                break
            self.offsets.append(start)
            position = start + self.frame_bytes

    def __len__(self):
        return len(self.offsets)

    def frame(self, index):
        start = self.offsets[index]
        return self.data[start:start + self.frame_bytes]

    def thumbnail(self, index):
        luma = self.frame(index)[:self.width * self.height].reshape(self.height, self.width)
        return luma[::THUMBNAIL_STEP, ::THUMBNAIL_STEP].astype(numpy.float32).ravel()


def psnr(a, b):
    difference = a.astype(numpy.int16) - b.astype(numpy.int16)
    mse = float(numpy.mean(difference.astype(numpy.float32) ** 2))
    return PSNR_CAP_DB if mse == 0 else min(PSNR_CAP_DB, 10 * math.log10(255 ** 2 / mse))


class SourceClip:
    """The source clip with its thumbnails computed once, for any number of decoded files."""

    def __init__(self, path):
        self.file = Y4MFile(path)
        self.thumbnails = numpy.stack([self.file.thumbnail(index) for index in range(len(self.file))])

    def __len__(self):
        return len(self.file)

    def match(self, decoded_path):
        """(PSNR per source frame index, None where no decoded frame shows it; number of decoded
        frames; number of decoded frames that matched nothing)."""
        psnr_by_index = [None] * len(self.file)
        try:
            decoded = Y4MFile(decoded_path)
        except (OSError, ValueError):
            return psnr_by_index, 0, 0
        if (decoded.width, decoded.height) != (self.file.width, self.file.height):
            return psnr_by_index, len(decoded), len(decoded)
        unmatched = 0
        next_index = 0
        for position in range(len(decoded)):
            if next_index >= len(self.file):
                unmatched += len(decoded) - position
                break
            thumbnail = decoded.thumbnail(position)
            errors = numpy.mean((self.thumbnails[next_index:] - thumbnail) ** 2, axis=1)
            best = int(numpy.argmin(errors))
            best_error = float(errors[best])
            if best_error > 0 and 10 * math.log10(255 ** 2 / best_error) < MINIMUM_MATCH_PSNR_DB:
                unmatched += 1
                continue
            index = next_index + best
            psnr_by_index[index] = psnr(decoded.frame(position), self.file.frame(index))
            next_index = index + 1
        return psnr_by_index, len(decoded), unmatched
