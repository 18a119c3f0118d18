//! One frame of the archive: its header, compressing a transcript into it
//! and reading it back, and finding whole frames in the file.

use std::fs::File;
use std::io::{self, Read};
use std::os::unix::fs::FileExt;

use flate2::read::DeflateDecoder;

use super::{ArchiveError, MAX_TRANSCRIPT_BYTES};

/// The magic of the frames written now: the transcript as an LZ4 block.
pub(super) const MAGIC_LZ4: &[u8; 4] = b"ATR2";
/// The magic of DEFLATE frames, which earlier versions wrote.
pub(super) const MAGIC_DEFLATE: &[u8; 4] = b"ATR1";
/// What every magic starts with, to look for the next frame.
const MAGIC_STEM: &[u8; 3] = b"ATR";
pub(super) const HEADER_BYTES: u64 = 4 + 8 + 4 + 4 + 4;
pub(super) const INDEX_ENTRY_BYTES: u64 = 16;

/// One game's transcript, compressed and ready to append. Compressing is
/// the expensive part, so workers do it before taking the writer's lock.
pub struct Frame {
    pub(super) number: u64,
    pub(super) bytes: Vec<u8>,
}

impl Frame {
    /// Compresses transcript `number` into a frame.
    pub fn compress(number: u64, transcript: &[u8]) -> Result<Frame, ArchiveError> {
        if transcript.len() > MAX_TRANSCRIPT_BYTES {
            return Err(ArchiveError::TooLong { number, bytes: transcript.len() });
        }
        // The header's room first; the block follows it.
        let header_len = HEADER_BYTES as usize;
        let mut bytes =
            vec![0; header_len + lz4_flex::block::get_maximum_output_size(transcript.len())];
        let compressed_len = lz4_flex::block::compress_into(transcript, &mut bytes[header_len..])
            .expect("the buffer holds the largest block");
        bytes.truncate(header_len + compressed_len);
        let stored = &bytes[header_len..];
        let stored_len = u32::try_from(stored.len())
            .map_err(|_| ArchiveError::TooLong { number, bytes: transcript.len() })?;
        let checksum = crc32fast::hash(stored);
        let mut header = [0u8; HEADER_BYTES as usize];
        header[..4].copy_from_slice(MAGIC_LZ4);
        header[4..12].copy_from_slice(&number.to_le_bytes());
        header[12..16].copy_from_slice(&(transcript.len() as u32).to_le_bytes());
        header[16..20].copy_from_slice(&stored_len.to_le_bytes());
        header[20..24].copy_from_slice(&checksum.to_le_bytes());
        bytes[..header_len].copy_from_slice(&header);
        Ok(Frame { number, bytes })
    }
}

impl Frame {
    /// The whole frame `bytes` (header and stored bytes, as read from an
    /// archive) numbered `number`, if its stored bytes match its checksum.
    pub(super) fn stored(bytes: &[u8], number: u64) -> Option<Frame> {
        let header = Header::parse(bytes.get(..HEADER_BYTES as usize)?)?;
        let stored = bytes.get(HEADER_BYTES as usize..)?;
        if stored.len() != header.stored_len as usize || crc32fast::hash(stored) != header.checksum
        {
            return None;
        }
        let mut bytes = bytes.to_vec();
        bytes[4..12].copy_from_slice(&number.to_le_bytes());
        Some(Frame { number, bytes })
    }
}

/// A frame's header, read back.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) struct Header {
    codec: Codec,
    pub number: u64,
    transcript_len: u32,
    stored_len: u32,
    checksum: u32,
}

impl Header {
    fn parse(bytes: &[u8]) -> Option<Header> {
        let u32_at = |at: usize| u32::from_le_bytes(bytes[at..at + 4].try_into().unwrap());
        let codec = match &bytes[..4] {
            magic if magic == MAGIC_LZ4 => Codec::Lz4,
            magic if magic == MAGIC_DEFLATE => Codec::Deflate,
            _ => return None,
        };
        Some(Header {
            codec,
            number: u64::from_le_bytes(bytes[4..12].try_into().unwrap()),
            transcript_len: u32_at(12),
            stored_len: u32_at(16),
            checksum: u32_at(20),
        })
    }

    pub fn frame_len(&self) -> u64 {
        HEADER_BYTES + u64::from(self.stored_len)
    }

    /// The transcript from the frame's stored bytes, or what is wrong.
    pub fn decode(&self, stored: &[u8]) -> Result<Vec<u8>, &'static str> {
        if crc32fast::hash(stored) != self.checksum {
            return Err("checksum mismatch");
        }
        let expected_len = self.transcript_len as usize;
        let transcript = match self.codec {
            Codec::Lz4 => {
                let mut transcript = vec![0; expected_len];
                let len = lz4_flex::block::decompress_into(stored, &mut transcript)
                    .map_err(|_| "it does not decompress")?;
                transcript.truncate(len);
                transcript
            }
            Codec::Deflate => {
                let mut transcript = Vec::with_capacity(expected_len);
                DeflateDecoder::new(stored)
                    .read_to_end(&mut transcript)
                    .map_err(|_| "it does not decompress")?;
                transcript
            }
        };
        if transcript.len() != expected_len {
            return Err("its length differs from its header's");
        }
        Ok(transcript)
    }
}

/// How a frame's stored bytes are compressed.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Codec {
    Lz4,
    Deflate,
}

/// Reads an archive by byte ranges through a window of it held in memory,
/// so that walking a million small frames costs a few thousand reads.
pub(super) struct Window<'a> {
    file: &'a File,
    /// The file's length.
    len: u64,
    start: u64,
    bytes: Vec<u8>,
    /// The least read at once.
    chunk: usize,
}

/// The window's size for walking frames.
const WINDOW_BYTES: usize = 1 << 20;
/// The window's size for reading one frame here and there.
const SMALL_WINDOW_BYTES: usize = 4 << 10;

impl<'a> Window<'a> {
    /// A window for walking the frames of a file of `len` bytes.
    pub fn new(file: &'a File, len: u64) -> Window<'a> {
        Window { file, len, start: 0, bytes: Vec::new(), chunk: WINDOW_BYTES }
    }

    /// A window for reading a frame or two at places far apart.
    pub fn small(file: &'a File, len: u64) -> Window<'a> {
        Window { chunk: SMALL_WINDOW_BYTES, ..Window::new(file, len) }
    }

    /// The bytes `offset..offset + count`, or none past the file's end.
    pub fn bytes(&mut self, offset: u64, count: u64) -> io::Result<Option<&[u8]>> {
        let Some(end) = offset.checked_add(count).filter(|&end| end <= self.len) else {
            return Ok(None);
        };
        let held = self.start..self.start + self.bytes.len() as u64;
        if offset < held.start || end > held.end {
            let size = (count as usize).max(self.chunk).min((self.len - offset) as usize);
            self.bytes.resize(size, 0);
            self.file.read_exact_at(&mut self.bytes, offset)?;
            self.start = offset;
        }
        let from = (offset - self.start) as usize;
        Ok(Some(&self.bytes[from..from + count as usize]))
    }

    /// The header at `offset` if a frame of that shape fits in the file
    /// there (its bytes unchecked).
    pub fn header_at(&mut self, offset: u64) -> io::Result<Option<Header>> {
        let Some(bytes) = self.bytes(offset, HEADER_BYTES)? else { return Ok(None) };
        let header = Header::parse(bytes);
        Ok(header.filter(|header| {
            offset.checked_add(header.frame_len()).is_some_and(|end| end <= self.len)
        }))
    }

    /// The header at `offset` if a whole frame lies there: magic, lengths
    /// and the CRC of its stored bytes agree.
    pub fn whole_frame_at(&mut self, offset: u64) -> io::Result<Option<Header>> {
        let Some(header) = self.header_at(offset)? else { return Ok(None) };
        let stored = self.bytes(offset + HEADER_BYTES, u64::from(header.stored_len))?;
        Ok(stored.filter(|stored| crc32fast::hash(stored) == header.checksum).map(|_| header))
    }

    /// The next whole frame at or after `from`, looking at every place its
    /// magic appears.
    pub fn next_whole_frame(&mut self, mut from: u64) -> io::Result<Option<(u64, Header)>> {
        while from < self.len {
            // Search the window from `from`, reading on as needed.
            let span = (self.len - from).min(WINDOW_BYTES as u64);
            let Some(bytes) = self.bytes(from, span)? else { return Ok(None) };
            let found = memchr::memmem::find(bytes, MAGIC_STEM);
            match found {
                Some(at) => {
                    let candidate = from + at as u64;
                    if let Some(header) = self.whole_frame_at(candidate)? {
                        return Ok(Some((candidate, header)));
                    }
                    from = candidate + 1;
                }
                // The magic may straddle the window's end.
                None if span < MAGIC_STEM.len() as u64 => return Ok(None),
                None => from += span - (MAGIC_STEM.len() as u64 - 1),
            }
        }
        Ok(None)
    }

    /// The transcript of the frame at `offset`, whose header is `header`.
    pub fn transcript(
        &mut self,
        offset: u64,
        header: &Header,
    ) -> io::Result<Result<Vec<u8>, &'static str>> {
        Ok(match self.bytes(offset + HEADER_BYTES, u64::from(header.stored_len))? {
            Some(stored) => header.decode(stored),
            None => Err("it runs past the end of the file"),
        })
    }
}

/// The index entries `(number, offset)` of `bytes` (a torn last entry is
/// left out).
pub(super) fn index_entries(bytes: &[u8]) -> impl Iterator<Item = (u64, u64)> + '_ {
    bytes.chunks_exact(INDEX_ENTRY_BYTES as usize).map(|entry| {
        let number = u64::from_le_bytes(entry[..8].try_into().unwrap());
        let offset = u64::from_le_bytes(entry[8..].try_into().unwrap());
        (number, offset)
    })
}

/// The index entry of `number` at `offset`.
pub(super) fn index_entry(number: u64, offset: u64) -> [u8; INDEX_ENTRY_BYTES as usize] {
    let mut entry = [0u8; INDEX_ENTRY_BYTES as usize];
    entry[..8].copy_from_slice(&number.to_le_bytes());
    entry[8..].copy_from_slice(&offset.to_le_bytes());
    entry
}
