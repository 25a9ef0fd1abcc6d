//! Routes: a flow's forward and ACK paths as link indices, and which links are private.

/// For each link, is it used by exactly one (flow, direction) pair? Such links see their
/// packets in order and nothing competes for them, so the engine can traverse them inline.
/// `measured` links are never private (their statistics are integrated in simulated time).
pub fn private_links(
    n_links: usize,
    paths: &[(&[usize], &[usize])],
    measured: &[usize],
) -> Vec<bool> {
    // 0 = unused, 1 = one user, 2 = shared.
    let mut users: Vec<(u8, usize)> = vec![(0, 0); n_links];
    for (f, (p, a)) in paths.iter().enumerate() {
        for (dir, path) in [p, a].iter().enumerate() {
            let who = 2 * f + dir;
            for &l in path.iter() {
                match users[l] {
                    (0, _) => users[l] = (1, who),
                    (1, w) if w == who => users[l] = (2, who), // twice on the same path
                    _ => users[l] = (2, who),
                }
            }
        }
    }
    let mut out: Vec<bool> = users.iter().map(|u| u.0 == 1).collect();
    for &m in measured {
        out[m] = false;
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn dumbbell_access_links_are_private() {
        // links: 0 = bn, 1 = bnr, 2/3 = acc0/racc0, 4/5 = acc1/racc1
        let p0 = [2usize, 0];
        let a0 = [1usize, 3];
        let p1 = [4usize, 0];
        let a1 = [1usize, 5];
        let v = private_links(6, &[(&p0, &a0), (&p1, &a1)], &[0]);
        assert_eq!(v, vec![false, false, true, true, true, true]);
        // One flow alone: bn would be private but it is measured.
        let v = private_links(4, &[(&p0, &a0)], &[0]);
        assert_eq!(v, vec![false, true, true, true]);
    }
}
