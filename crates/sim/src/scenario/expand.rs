//! The scenario reduced to links and flows: the dumbbell and the traffic sources expanded, link
//! names resolved to indices.
use super::topology::draw;
use super::*;

/// What a flow is in the results: long-lived, one finite transfer, a closed-loop user, or a
/// slot of open-loop short flows.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ClassKind {
    Long,
    Finite,
    Users,
    Short,
}

impl ClassKind {
    pub fn as_str(self) -> &'static str {
        match self {
            ClassKind::Long => "long",
            ClassKind::Finite => "finite",
            ClassKind::Users => "users",
            ClassKind::Short => "short",
        }
    }
}

/// A class of flows: one label and one set of TCP settings.
#[derive(Debug, Clone)]
pub(crate) struct ClassPlan {
    pub name: String,
    pub kind: ClassKind,
    pub tcp: TcpConfig,
}

/// A flow after expansion: link names resolved, RTT known when drawn by the dumbbell.
#[derive(Debug, Clone)]
pub(crate) struct FlowPlan {
    pub path: Vec<usize>,
    pub ack_path: Vec<usize>,
    pub start_s: f64,
    pub bytes: Option<u64>,
    /// Index into `Plan::classes` (which holds the flow's TCP settings).
    pub class: u32,
    /// Two-way propagation delay (the links' delays plus the extra delays).
    pub rtt_s: f64,
    /// Delay added after the last link of the path and again after the last link of the ACK
    /// path (seconds): half of what the links leave of the flow's RTT.
    pub extra_s: f64,
    /// For a closed-loop user: the index of its `users[]` entry.
    pub user_of: Option<u32>,
    pub sobas: Option<SobasSpec>,
}

/// An open-loop source of short flows, ready to run.
#[derive(Debug, Clone)]
pub(crate) struct ShortPlan {
    pub class: u32,
    pub path: Vec<usize>,
    pub ack_path: Vec<usize>,
    /// Propagation delay of the path's and ack path's links (the rest of a drawn RTT is extra).
    pub link_delay_s: f64,
    pub arrivals_per_s: f64,
    /// Wire bits offered per second at that intensity.
    pub offered_bps: f64,
    pub size: Dist,
    pub size_in_packets: bool,
    pub rtt: Dist,
    pub start_s: f64,
    pub stop_s: f64,
}

/// A closed-loop users source (its users are flows of the plan with `user_of` set).
#[derive(Debug, Clone)]
pub(crate) struct UsersPlan {
    pub class: u32,
    pub size: Dist,
    pub size_in_packets: bool,
    pub think: Dist,
    pub start: Option<Dist>,
}

/// A UDP source, ready to run.
#[derive(Debug, Clone)]
pub(crate) struct UdpPlan {
    pub name: String,
    pub path: Vec<usize>,
    pub rate_bps: f64,
    pub packet_bytes: u32,
    pub pattern: UdpPattern,
    pub start_s: f64,
    pub stop_s: f64,
}

/// The scenario reduced to links and flows.
#[derive(Debug, Clone)]
pub(crate) struct Plan {
    pub links: Vec<LinkSpec>,
    pub flows: Vec<FlowPlan>,
    pub bottleneck: usize,
    pub classes: Vec<ClassPlan>,
    pub short: Vec<ShortPlan>,
    pub users: Vec<UsersPlan>,
    pub udp: Vec<UdpPlan>,
}

fn resolve(
    field: &str,
    names: &[String],
    find: &dyn Fn(&str) -> Option<usize>,
) -> Result<Vec<usize>, ScenarioError> {
    names
        .iter()
        .enumerate()
        .map(|(h, n)| {
            find(n).ok_or_else(|| {
                ScenarioError::new(format!("{field}[{h}]"), format!("no link named {n:?}"))
            })
        })
        .collect()
}

/// A source's path, or the dumbbell's shared link when the source gives none.
fn path_or_default(
    field: &str,
    given: &Option<Vec<String>>,
    default: &str,
    has_dumbbell: bool,
) -> Result<Vec<String>, ScenarioError> {
    match given {
        Some(p) => Ok(p.clone()),
        None if has_dumbbell => Ok(vec![default.to_string()]),
        None => Err(ScenarioError::new(
            field,
            "required when the scenario has no dumbbell",
        )),
    }
}

/// Validate and expand the dumbbell and the sources into links + flows with resolved indices.
pub(crate) fn expand(s: &Scenario) -> Result<Plan, ScenarioError> {
    check_top(s)?;
    let mut links: Vec<LinkSpec> = Vec::new();
    let mut flows: Vec<FlowPlan> = Vec::new();
    let mut classes: Vec<ClassPlan> = Vec::new();
    let mut db_links = 0usize;
    if let Some(d) = &s.dumbbell {
        let access = d.access_rate_bps.unwrap_or(10.0 * d.capacity_bps);
        let mut rtt_rng = crate::rng::Rng::stream(s.seed, crate::rng::STREAM_RTT);
        let mut start_rng = crate::rng::Rng::stream(s.seed, crate::rng::STREAM_START);
        links.push(LinkSpec {
            name: "bn".into(),
            rate_bps: d.capacity_bps,
            delay_s: d.bottleneck_delay_s,
            queue: d.buffer.clone(),
            burst_bytes: d.bottleneck_burst_bytes,
        });
        links.push(LinkSpec {
            name: "bnr".into(),
            rate_bps: d.capacity_bps,
            delay_s: d.bottleneck_delay_s,
            queue: QueueSpec::default(),
            burst_bytes: None,
        });
        // The class of each dumbbell flow: `mix` in order, or one class for all.
        let mut class_of: Vec<u32> = Vec::with_capacity(d.flows as usize);
        if d.mix.is_empty() {
            classes.push(ClassPlan {
                name: "long".into(),
                kind: ClassKind::Long,
                tcp: d.tcp.clone(),
            });
            class_of.resize(d.flows as usize, 0);
        } else {
            for c in d.mix.iter() {
                let k = classes.len() as u32;
                classes.push(ClassPlan {
                    name: c.name.clone().unwrap_or_else(|| c.tcp.cc.clone()),
                    kind: ClassKind::Long,
                    tcp: c.tcp.clone(),
                });
                class_of.extend(std::iter::repeat_n(k, c.flows as usize));
            }
        }
        for i in 0..d.flows as usize {
            let rtt = draw(&d.rtt_s, i, &mut rtt_rng);
            let start = draw(&d.start_s, i, &mut start_rng);
            let a = (rtt / 2.0 - d.bottleneck_delay_s).max(0.0);
            let acc = links.len();
            links.push(LinkSpec {
                name: format!("acc{i}"),
                rate_bps: access,
                delay_s: a,
                queue: d.access_queue.clone(),
                burst_bytes: None,
            });
            links.push(LinkSpec {
                name: format!("racc{i}"),
                rate_bps: access,
                delay_s: a,
                queue: QueueSpec::default(),
                burst_bytes: None,
            });
            let class = class_of[i];
            flows.push(FlowPlan {
                path: vec![acc, 0],
                ack_path: vec![1, acc + 1],
                start_s: start,
                bytes: None,
                class,
                rtt_s: 2.0 * a + 2.0 * d.bottleneck_delay_s,
                extra_s: 0.0,
                user_of: None,
                sobas: None,
            });
        }
        db_links = links.len();
    }
    links.extend(s.links.iter().cloned());
    // Input links of closed-loop users: `{name}.in{k}`.
    let user_names: Vec<String> = s
        .users
        .iter()
        .enumerate()
        .map(|(i, u)| u.name.clone().unwrap_or_else(|| format!("users{i}")))
        .collect();
    let mut user_inputs: Vec<usize> = Vec::new(); // index of each source's first input link
    for (i, u) in s.users.iter().enumerate() {
        user_inputs.push(links.len());
        if let Some(rate) = u.access_rate_bps {
            for k in 0..u.inputs.unwrap_or(u.count) {
                links.push(LinkSpec {
                    name: format!("{}.in{k}", user_names[i]),
                    rate_bps: rate,
                    delay_s: 0.0,
                    queue: u.access_queue.clone(),
                    burst_bytes: None,
                });
            }
        }
    }
    // Names must be unique across the dumbbell's, the explicit and the users' input links. A
    // sorted index keeps lookups deterministic and avoids hashing.
    let mut names: Vec<(&str, usize)> = links
        .iter()
        .enumerate()
        .map(|(i, l)| (l.name.as_str(), i))
        .collect();
    names.sort();
    for w in names.windows(2) {
        if w[0].0 == w[1].0 {
            let i = w[0].1.max(w[1].1);
            let field = if i >= db_links {
                format!("links[{}].name", i - db_links)
            } else {
                "links".into()
            };
            return Err(ScenarioError::new(
                field,
                format!("duplicate link name {:?}", w[0].0),
            ));
        }
    }
    let find = |name: &str| {
        names
            .binary_search_by(|(n, _)| (*n).cmp(name))
            .ok()
            .map(|k| names[k].1)
    };
    let delay_of = |p: &[usize]| -> f64 { p.iter().map(|&l| links[l].delay_s).sum() };
    for (i, f) in s.flows.iter().enumerate() {
        let path = resolve(&format!("flows[{i}].path"), &f.path, &find)?;
        let ack_path = resolve(&format!("flows[{i}].ack_path"), &f.ack_path, &find)?;
        let rtt = delay_of(&path) + delay_of(&ack_path);
        let class = classes.len() as u32;
        classes.push(ClassPlan {
            name: "flows".into(),
            kind: if f.bytes.is_some() {
                ClassKind::Finite
            } else {
                ClassKind::Long
            },
            tcp: f.tcp.clone(),
        });
        flows.push(FlowPlan {
            path,
            ack_path,
            start_s: f.start_s,
            bytes: f.bytes,
            class,
            rtt_s: rtt,
            extra_s: 0.0,
            user_of: None,
            sobas: f.sobas.clone(),
        });
    }
    let has_db = s.dumbbell.is_some();
    let mut users = Vec::new();
    for (i, u) in s.users.iter().enumerate() {
        let field = format!("users[{i}]");
        let p = path_or_default(&format!("{field}.path"), &u.path, "bn", has_db)?;
        let a = path_or_default(&format!("{field}.ack_path"), &u.ack_path, "bnr", has_db)?;
        let path = resolve(&format!("{field}.path"), &p, &find)?;
        let ack_path = resolve(&format!("{field}.ack_path"), &a, &find)?;
        let base = delay_of(&path) + delay_of(&ack_path);
        let class = classes.len() as u32;
        classes.push(ClassPlan {
            name: user_names[i].clone(),
            kind: ClassKind::Users,
            tcp: u.tcp.clone(),
        });
        let mut rtt_rng = crate::rng::Rng::stream(
            s.seed,
            crate::rng::source_stream(crate::rng::SRC_USERS, i as u64, 0),
        );
        let inputs = u.inputs.unwrap_or(u.count) as usize;
        for k in 0..u.count as usize {
            let rtt = draw(&u.rtt_s, k, &mut rtt_rng);
            if rtt < base {
                return Err(ScenarioError::new(
                    format!("{field}.rtt_s"),
                    format!("an RTT of {rtt} s is below the paths' own propagation delay {base} s"),
                ));
            }
            let mut fwd = path.clone();
            if u.access_rate_bps.is_some() {
                fwd.insert(0, user_inputs[i] + k % inputs);
            }
            flows.push(FlowPlan {
                path: fwd,
                ack_path: ack_path.clone(),
                start_s: 0.0,
                bytes: None,
                class,
                rtt_s: rtt,
                extra_s: 0.5 * (rtt - base),
                user_of: Some(i as u32),
                sobas: None,
            });
        }
        let (size, in_packets) = match traffic::size_of(&field, &u.size_bytes, &u.size_packets)? {
            Some((d, p)) => (d.clone(), p),
            None => (traffic::default_user_size(), false),
        };
        users.push(UsersPlan {
            class,
            size,
            size_in_packets: in_packets,
            think: u.think_s.clone().unwrap_or_else(traffic::default_think),
            start: u.start_s.clone(),
        });
    }
    let bname = match (&s.bottleneck, &s.dumbbell) {
        (Some(b), _) => b.clone(),
        (None, Some(_)) => "bn".to_string(),
        (None, None) => {
            return Err(ScenarioError::new(
                "bottleneck",
                "required: name the link to measure",
            ));
        }
    };
    let bottleneck = find(&bname)
        .ok_or_else(|| ScenarioError::new("bottleneck", format!("no link named {bname:?}")))?;
    // Segment numbers are 32-bit: a flow must not be able to send 2^31 segments in the run.
    for (i, f) in flows.iter().enumerate() {
        let min_rate = f
            .path
            .iter()
            .map(|&l| links[l].rate_bps)
            .fold(f64::INFINITY, f64::min);
        let segs =
            s.duration_s * min_rate / (8.0 * classes[f.class as usize].tcp.packet_bytes as f64);
        if segs > 2.0e9 {
            return Err(ScenarioError::new(
                "duration_s",
                format!("flow {i} could send {segs:.3e} segments, beyond the engine's 32-bit sequence space; shorten the run"),
            ));
        }
    }
    if flows.len() > u32::MAX as usize / 2 {
        return Err(ScenarioError::new("flows", "too many flows"));
    }
    let mut short = Vec::new();
    for (i, x) in s.short_flows.iter().enumerate() {
        let field = format!("short_flows[{i}]");
        let p = path_or_default(&format!("{field}.path"), &x.path, "bn", has_db)?;
        let a = path_or_default(&format!("{field}.ack_path"), &x.ack_path, "bnr", has_db)?;
        let path = resolve(&format!("{field}.path"), &p, &find)?;
        let ack_path = resolve(&format!("{field}.ack_path"), &a, &find)?;
        let link_delay_s = delay_of(&path) + delay_of(&ack_path);
        if x.rtt_s.min() < link_delay_s {
            return Err(ScenarioError::new(
                format!("{field}.rtt_s"),
                format!(
                    "the smallest RTT {} s is below the paths' own propagation delay {link_delay_s} s",
                    x.rtt_s.min()
                ),
            ));
        }
        let (size, in_packets) = traffic::size_of(&field, &x.size_bytes, &x.size_packets)?
            .map(|(d, p)| (d.clone(), p))
            .expect("checked");
        let mss = (x.tcp.packet_bytes - x.tcp.header_bytes) as f64;
        let mean_segments = size.mean_units(if in_packets { 1.0 } else { mss });
        let bits_per_flow = 8.0 * x.tcp.packet_bytes as f64 * mean_segments;
        let arrivals_per_s = if let Some(load) = x.load {
            let l = match &x.load_link {
                Some(n) => find(n).ok_or_else(|| {
                    ScenarioError::new(format!("{field}.load_link"), format!("no link named {n:?}"))
                })?,
                None => bottleneck,
            };
            load * links[l].rate_bps / bits_per_flow
        } else if let Some(r) = x.rate_bps {
            r / bits_per_flow
        } else {
            x.arrivals_per_s.expect("checked")
        };
        let class = classes.len() as u32;
        classes.push(ClassPlan {
            name: x.name.clone().unwrap_or_else(|| format!("short{i}")),
            kind: ClassKind::Short,
            tcp: x.tcp.clone(),
        });
        short.push(ShortPlan {
            class,
            path,
            ack_path,
            link_delay_s,
            arrivals_per_s,
            offered_bps: arrivals_per_s * bits_per_flow,
            size,
            size_in_packets: in_packets,
            rtt: x.rtt_s.clone(),
            start_s: x.start_s,
            stop_s: x.stop_s.unwrap_or(s.duration_s).min(s.duration_s),
        });
    }
    let mut udp = Vec::new();
    for (i, u) in s.udp.iter().enumerate() {
        let field = format!("udp[{i}]");
        let p = path_or_default(&format!("{field}.path"), &u.path, "bn", has_db)?;
        udp.push(UdpPlan {
            name: u.name.clone().unwrap_or_else(|| format!("udp{i}")),
            path: resolve(&format!("{field}.path"), &p, &find)?,
            rate_bps: u.rate_bps,
            packet_bytes: u.packet_bytes,
            pattern: u.pattern.clone(),
            start_s: u.start_s,
            stop_s: u.stop_s.unwrap_or(s.duration_s).min(s.duration_s),
        });
    }
    Ok(Plan {
        links,
        flows,
        bottleneck,
        classes,
        short,
        users,
        udp,
    })
}
