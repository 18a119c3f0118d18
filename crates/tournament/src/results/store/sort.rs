//! Putting rows in game order without holding them all: each row is a
//! [`Place`] (its game number and where its bytes are); places are sorted
//! in runs of a fixed size, runs beyond the first spill to an unnamed
//! temporary file, and the runs are merged. Memory stays at one run
//! whatever the number of rows.

use std::cmp::Reverse;
use std::collections::BinaryHeap;
use std::fs::File;
use std::io::{self, BufWriter, Write};
use std::os::unix::fs::FileExt;
use std::path::Path;

/// Where one row lies: its game number, the source it is in, and its byte
/// range there.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
pub struct Place {
    pub game: u64,
    /// Which of the caller's sources (a shard of a merge; 0 otherwise).
    pub source: u32,
    pub start: u64,
    pub end: u64,
}

const PLACE_BYTES: usize = 8 + 4 + 8 + 8;

impl Place {
    fn write(&self, out: &mut impl Write) -> io::Result<()> {
        out.write_all(&self.game.to_le_bytes())?;
        out.write_all(&self.source.to_le_bytes())?;
        out.write_all(&self.start.to_le_bytes())?;
        out.write_all(&self.end.to_le_bytes())
    }

    fn read(bytes: &[u8]) -> Place {
        let u64_at = |at: usize| u64::from_le_bytes(bytes[at..at + 8].try_into().unwrap());
        Place {
            game: u64_at(0),
            source: u32::from_le_bytes(bytes[8..12].try_into().unwrap()),
            start: u64_at(12),
            end: u64_at(20),
        }
    }
}

/// Places held in memory at most (a run): 1.75 MiB.
const RUN: usize = 1 << 16;

/// Places going in, in any order; [`Sorter::sorted`] gives them back by
/// game number (ties by source, then by place in it).
pub struct Sorter {
    run: Vec<Place>,
    /// Runs spilled: their start (in places) and length.
    runs: Vec<(u64, u64)>,
    spill: Option<BufWriter<File>>,
    spilled: u64,
    /// Where the spill file is made (beside the data, on its disk).
    folder: std::path::PathBuf,
}

impl Sorter {
    pub fn new(folder: &Path) -> Sorter {
        Sorter {
            run: Vec::new(),
            runs: Vec::new(),
            spill: None,
            spilled: 0,
            folder: folder.to_owned(),
        }
    }

    pub fn push(&mut self, place: Place) -> io::Result<()> {
        self.run.push(place);
        if self.run.len() == RUN {
            self.spill_run()?;
        }
        Ok(())
    }

    fn spill_run(&mut self) -> io::Result<()> {
        self.run.sort_unstable();
        if self.spill.is_none() {
            // Unnamed: it goes when it is closed, whatever happens.
            self.spill = Some(BufWriter::new(tempfile::tempfile_in(&self.folder)?));
        }
        let spill = self.spill.as_mut().expect("just made");
        for place in &self.run {
            place.write(spill)?;
        }
        self.runs.push((self.spilled, self.run.len() as u64));
        self.spilled += self.run.len() as u64;
        self.run.clear();
        Ok(())
    }

    /// The places in game order.
    pub fn sorted(mut self) -> io::Result<Sorted> {
        if self.spill.is_none() {
            self.run.sort_unstable();
            return Ok(Sorted::InMemory(self.run.into_iter()));
        }
        if !self.run.is_empty() {
            self.spill_run()?;
        }
        let file =
            self.spill.take().expect("spilled").into_inner().map_err(|error| error.into_error())?;
        let mut readers: Vec<RunReader> = self
            .runs
            .iter()
            .map(|&(start, count)| RunReader {
                next: start * PLACE_BYTES as u64,
                end: (start + count) * PLACE_BYTES as u64,
                buffer: Vec::new(),
                at: 0,
            })
            .collect();
        let mut heads = BinaryHeap::new();
        for (run, reader) in readers.iter_mut().enumerate() {
            if let Some(place) = reader.next(&file)? {
                heads.push(Reverse((place, run)));
            }
        }
        Ok(Sorted::Merged { file, readers, heads })
    }
}

/// Reads one spilled run a block at a time.
pub struct RunReader {
    next: u64,
    end: u64,
    buffer: Vec<u8>,
    at: usize,
}

impl RunReader {
    fn next(&mut self, file: &File) -> io::Result<Option<Place>> {
        if self.at == self.buffer.len() {
            if self.next == self.end {
                return Ok(None);
            }
            let size = (self.end - self.next).min(512 * PLACE_BYTES as u64) as usize;
            self.buffer.resize(size, 0);
            file.read_exact_at(&mut self.buffer, self.next)?;
            self.next += size as u64;
            self.at = 0;
        }
        let place = Place::read(&self.buffer[self.at..self.at + PLACE_BYTES]);
        self.at += PLACE_BYTES;
        Ok(Some(place))
    }
}

/// Places in game order.
pub enum Sorted {
    InMemory(std::vec::IntoIter<Place>),
    Merged { file: File, readers: Vec<RunReader>, heads: BinaryHeap<Reverse<(Place, usize)>> },
}

impl Iterator for Sorted {
    type Item = io::Result<Place>;

    fn next(&mut self) -> Option<io::Result<Place>> {
        match self {
            Sorted::InMemory(places) => places.next().map(Ok),
            Sorted::Merged { file, readers, heads } => {
                let Reverse((place, run)) = heads.pop()?;
                match readers[run].next(file) {
                    Ok(Some(next)) => heads.push(Reverse((next, run))),
                    Ok(None) => {}
                    Err(error) => return Some(Err(error)),
                }
                Some(Ok(place))
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn places_come_back_in_game_order_through_spilled_runs() {
        let folder = tempfile::tempdir().unwrap();
        for count in [10u64, RUN as u64 * 3 + 17] {
            let mut sorter = Sorter::new(folder.path());
            // A permutation of 0..count, each game once, and a repeat.
            for i in 0..count {
                let game = (i * 7919) % count;
                sorter.push(Place { game, source: 0, start: i, end: i + 1 }).unwrap();
            }
            sorter.push(Place { game: 3, source: 1, start: 0, end: 0 }).unwrap();
            let games: Vec<u64> =
                sorter.sorted().unwrap().map(|place| place.unwrap().game).collect();
            let mut expected: Vec<u64> = (0..count).collect();
            expected.insert(4, 3);
            assert_eq!(games.len(), expected.len());
            assert!(games == expected, "not in order for {count}");
        }
        assert_eq!(std::fs::read_dir(folder.path()).unwrap().count(), 0, "nothing left behind");
    }
}
