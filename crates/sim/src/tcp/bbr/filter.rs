//! The windowed maximum behind BBR's bandwidth estimate.

/// A windowed maximum kept as the best, second-best and third-best samples of the window
/// (Kathleen Nichols' algorithm, as Linux's `lib/win_minmax.c`): O(1) per sample, exact when
/// samples fall, within the window's last quarter of exact when they rise.
#[derive(Debug, Clone, Copy, Default)]
pub struct MaxFilter {
    s: [(u64, f64); 3],
}

impl MaxFilter {
    pub fn get(&self) -> f64 {
        self.s[0].1
    }

    pub fn reset(&mut self, t: u64, v: f64) {
        self.s = [(t, v); 3];
    }

    /// Add sample `v` at time `t` (here: a round count) to a window of length `win`.
    pub fn update(&mut self, win: u64, t: u64, v: f64) {
        if v >= self.s[0].1 || t - self.s[2].0 > win {
            self.reset(t, v);
            return;
        }
        if v >= self.s[1].1 {
            self.s[1] = (t, v);
            self.s[2] = (t, v);
        } else if v >= self.s[2].1 {
            self.s[2] = (t, v);
        }
        let dt = t - self.s[0].0;
        if dt > win {
            // The best expired: promote the others, and again if the second expired too.
            self.s[0] = self.s[1];
            self.s[1] = self.s[2];
            self.s[2] = (t, v);
            if t - self.s[0].0 > win {
                self.s[0] = self.s[1];
                self.s[1] = self.s[2];
                self.s[2] = (t, v);
            }
        } else if self.s[1].0 == self.s[0].0 && dt > win / 4 {
            // A quarter of the window passed with no second choice: take one.
            self.s[1] = (t, v);
            self.s[2] = (t, v);
        } else if self.s[2].0 == self.s[1].0 && dt > win / 2 {
            self.s[2] = (t, v);
        }
    }
}
