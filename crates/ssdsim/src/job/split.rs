//! The host side of a large request: Linux splits a request larger than the queue's
//! `max_sectors_kb` into commands of at most that size, submits them together, and
//! completes the request with the last of them (docs/simulator.md, "Host request
//! split"). The job runner, trace replay and array members all reach a drive through
//! `Device::read`/`write`, which split here, so a split request stays one host I/O in
//! every result while each of its commands pays its own command cost in the drive.

/// Issue `off..off+len` at `t` as commands of at most `max_bytes` through `cmd(t, off,
/// len)`; returns the last completion. A request within the limit is one command.
#[inline]
pub(crate) fn split_request(
    t: u64,
    off: u64,
    len: u64,
    max_bytes: u64,
    mut cmd: impl FnMut(u64, u64, u64) -> u64,
) -> u64 {
    if len <= max_bytes {
        return cmd(t, off, len);
    }
    split_pieces(t, off, len, max_bytes, &mut cmd)
}

/// The pieces of a request above the limit, cut from its start as the block layer does.
#[cold]
fn split_pieces(
    t: u64,
    off: u64,
    len: u64,
    max_bytes: u64,
    cmd: &mut dyn FnMut(u64, u64, u64) -> u64,
) -> u64 {
    let end = off + len;
    let mut at = off;
    let mut done = t;
    while at < end {
        let piece = max_bytes.min(end - at);
        done = done.max(cmd(t, at, piece));
        at += piece;
    }
    done
}

#[cfg(test)]
mod tests {
    use super::split_request;
    use proptest::prelude::*;

    fn pieces(len: u64, max: u64) -> Vec<(u64, u64)> {
        let mut seen = Vec::new();
        split_request(7, 4096, len, max, |t, o, l| {
            assert_eq!(t, 7, "every piece is submitted with the request");
            seen.push((o, l));
            t + l
        });
        seen
    }

    #[test]
    fn within_the_limit_is_one_command() {
        assert_eq!(pieces(131_072, 131_072), vec![(4096, 131_072)]);
    }

    #[test]
    fn above_the_limit_is_cut_from_the_start_with_a_short_tail() {
        let p = pieces(300 * 1024, 128 * 1024);
        assert_eq!(
            p,
            vec![
                (4096, 131_072),
                (4096 + 131_072, 131_072),
                (4096 + 262_144, 45_056)
            ]
        );
    }

    #[test]
    fn completion_is_the_last_piece() {
        let done = split_request(0, 0, 1 << 20, 1 << 18, |_, o, _| 1_000 - o / 1024);
        assert_eq!(done, 1_000);
    }

    proptest! {
        /// The pieces tile the request in order, none above the limit, as few as fit.
        #[test]
        fn pieces_tile_the_request(len in 1u64..(64 << 20), max_pages in 1u64..1024) {
            let max = max_pages * 4096;
            let p = pieces(len, max);
            prop_assert_eq!(p.len() as u64, len.div_ceil(max));
            let mut at = 4096;
            for &(o, l) in &p {
                prop_assert_eq!(o, at);
                prop_assert!(l > 0 && l <= max);
                at += l;
            }
            prop_assert_eq!(at, 4096 + len);
        }
    }
}
