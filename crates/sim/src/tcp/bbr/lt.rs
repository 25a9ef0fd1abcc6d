//! BBR's long-term ("policer") bandwidth estimator: two consecutive intervals of at least four
//! rounds that lost about 20 % (50/256) or more and delivered at rates within 1/8 of each other make the flow
//! use their mean rate for 48 rounds (Linux's `bbr_lt_bw_sampling`).

use super::{Bbr, Mode, PACING_MARGIN};
use crate::tcp::cc::RateSample;
use crate::time::Ns;

const LT_INTVL_MIN_RTTS: u32 = 4;
const LT_LOSS_THRESH: f64 = 50.0 / 256.0;
const LT_BW_RATIO: f64 = 1.0 / 8.0;
const LT_BW_DIFF_BYTES: f64 = 4000.0 / 8.0;
const LT_BW_MAX_RTTS: u32 = 48;

impl Bbr {
    pub(super) fn reset_lt_interval(&mut self, delivered: u64, delivered_time: Ns, lost: u64) {
        self.lt_last_stamp_ms = delivered_time / 1_000_000;
        self.lt_last_delivered = delivered;
        self.lt_last_lost = lost;
        self.lt_rtt_cnt = 0;
    }

    pub(super) fn reset_lt(&mut self, delivered: u64, delivered_time: Ns, lost: u64) {
        self.lt_bw = 0.0;
        self.lt_use_bw = false;
        self.lt_is_sampling = false;
        self.reset_lt_interval(delivered, delivered_time, lost);
    }

    pub(super) fn lt_interval_done(
        &mut self,
        bw: f64,
        delivered: u64,
        delivered_time: Ns,
        lost: u64,
    ) {
        if self.lt_bw > 0.0 {
            let diff = (bw - self.lt_bw).abs();
            if diff <= LT_BW_RATIO * self.lt_bw
                || diff * self.mss * PACING_MARGIN <= LT_BW_DIFF_BYTES
            {
                // Two consistent lossy intervals: estimate we are policed.
                self.lt_bw = (bw + self.lt_bw) / 2.0;
                self.lt_use_bw = true;
                self.pacing_gain = 1.0;
                self.lt_rtt_cnt = 0;
                return;
            }
        }
        self.lt_bw = bw;
        self.reset_lt_interval(delivered, delivered_time, lost);
    }

    pub(super) fn lt_sampling(
        &mut self,
        rs: &RateSample,
        delivered: u64,
        delivered_time: Ns,
        lost: u64,
    ) {
        if self.lt_use_bw {
            if self.mode == Mode::ProbeBw && self.round_start {
                self.lt_rtt_cnt += 1;
                if self.lt_rtt_cnt >= LT_BW_MAX_RTTS {
                    self.reset_lt(delivered, delivered_time, lost);
                    self.reset_probe_bw_mode(delivered_time);
                }
            }
            return;
        }
        if !self.lt_is_sampling {
            if rs.losses == 0 {
                return;
            }
            self.reset_lt_interval(delivered, delivered_time, lost);
            self.lt_is_sampling = true;
        }
        if rs.is_app_limited {
            self.reset_lt(delivered, delivered_time, lost);
            return;
        }
        if self.round_start {
            self.lt_rtt_cnt += 1;
        }
        if self.lt_rtt_cnt < LT_INTVL_MIN_RTTS {
            return;
        }
        if self.lt_rtt_cnt > 4 * LT_INTVL_MIN_RTTS {
            self.reset_lt(delivered, delivered_time, lost);
            return;
        }
        if rs.losses == 0 {
            return;
        }
        let lost_i = lost - self.lt_last_lost;
        let deliv_i = delivered - self.lt_last_delivered;
        if deliv_i == 0 || (lost_i as f64) < LT_LOSS_THRESH * deliv_i as f64 {
            return;
        }
        let t_ms = (delivered_time / 1_000_000).saturating_sub(self.lt_last_stamp_ms);
        if t_ms < 1 {
            return;
        }
        let bw = deliv_i as f64 / (t_ms as f64 / 1e3);
        self.lt_interval_done(bw, delivered, delivered_time, lost);
    }
}
